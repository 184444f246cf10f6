package lab

import (
	"fmt"
	"strings"
	"testing"

	"github.com/loglab/loglab/engine/cluster"
)

// runAll runs lines on l, failing the test at the first error.
func runAll(t *testing.T, l *Lab, lines ...string) {
	t.Helper()
	for _, line := range lines {
		if out, err := l.Run(line); err != nil {
			t.Fatalf("%s: %v\n%s", line, err, out)
		}
	}
}

// The hostile participant: topics of 64 partitions x rf 3, one
// after another, each keeping 576 descriptors open on the server. The
// cluster's replica cap refuses the topic that would pass it, naming the
// cap and what the cluster holds, and leaves the cluster as it was.
func TestTopicsPastTheReplicaCapAreRefused(t *testing.T) {
	l := New()
	t.Cleanup(func() { l.Close() })
	runAll(t, l, "cluster brokers=3 seed=7")
	full := cluster.MaxReplicasPerCluster / (64 * 3) // 5 topics: 960 replicas
	for i := range full {
		runAll(t, l, fmt.Sprintf("topic create t%d partitions=64 rf=3", i))
	}
	held := full * 64 * 3
	out, err := l.Run("topic create one-more partitions=64 rf=3")
	if err == nil {
		t.Fatalf("a topic past the cap was created:\n%s", out)
	}
	for _, want := range []string{"POLICY_VIOLATION", `"one-more"`, "needs 192 partition replicas", fmt.Sprintf("holds %d of the %d", held, cluster.MaxReplicasPerCluster)} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the refusal does not say %q: %v", want, err)
		}
	}
	if n := len(l.Cluster().Topics()); n != full {
		t.Fatalf("%d topics after the refusal, want %d", n, full)
	}
	// Up to the cap exactly is allowed.
	room := cluster.MaxReplicasPerCluster - held
	runAll(t, l, fmt.Sprintf("topic create last partitions=%d rf=1", room))
	if _, err := l.Run("topic create past partitions=1 rf=1"); err == nil || !strings.Contains(err.Error(), "POLICY_VIOLATION") {
		t.Fatalf("one replica past the cap: %v", err)
	}
}

// hasTopic reports whether the cluster's metadata holds the topic.
func hasTopic(l *Lab, name string) bool {
	for _, t := range l.Cluster().Topics() {
		if t.Name == name {
			return true
		}
	}
	return false
}

// __consumer_offsets counts like any topic: created by a group's first
// coordinator lookup (50 partitions x rf 3), it leaves less room.
func TestInternalTopicsCountAgainstTheReplicaCap(t *testing.T) {
	l := New()
	t.Cleanup(func() { l.Close() })
	runAll(t, l, "cluster brokers=3 seed=7", "topic create t partitions=1 rf=3",
		"consumer create c group=g topics=t", "poll c")
	if !hasTopic(l, "__consumer_offsets") {
		t.Fatal("the group's poll did not create __consumer_offsets")
	}
	for i := range 4 {
		runAll(t, l, fmt.Sprintf("topic create t%d partitions=64 rf=3", i))
	}
	_, err := l.Run("topic create t4 partitions=64 rf=3")
	if err == nil || !strings.Contains(err.Error(), "holds 921 of the 1000") {
		t.Fatalf("3 + 150 (__consumer_offsets) + 4 x 192 replicas held, one more topic of 192: %v", err)
	}
}

// When a broker asks for __consumer_offsets and there is no room for it,
// the controller answers POLICY_VIOLATION and the broker says so, as it
// says any refusal of its CreateTopics; the group has no coordinator.
func TestNoRoomForConsumerOffsetsIsSaid(t *testing.T) {
	l := New()
	t.Cleanup(func() { l.Close() })
	runAll(t, l, "cluster brokers=3 seed=7")
	for i := range 5 {
		runAll(t, l, fmt.Sprintf("topic create t%d partitions=64 rf=3", i))
	}
	runAll(t, l, "consumer create c group=g topics=t0")
	out, _ := l.Run("poll c")
	if hasTopic(l, "__consumer_offsets") {
		t.Fatal("__consumer_offsets was created past the cap")
	}
	if !strings.Contains(out, "refused to create __consumer_offsets: POLICY_VIOLATION") {
		t.Fatalf("the poll does not say why the group has no coordinator:\n%s", out)
	}
}
