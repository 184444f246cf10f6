package kraft

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/sim"
)

// refusingLog is a metadata log whose quorum lost its leader: it keeps
// what it committed before and refuses new appends, as a raft log does
// when leadership moves between the proposal and the commit.
type refusingLog struct {
	*MemLog
	refuse bool
}

func (l *refusingLog) Append(records []protocol.MetadataRecord) ([]protocol.MetadataRecord, error) {
	if l.refuse {
		return nil, errors.New("node is not the leader")
	}
	return l.MemLog.Append(records)
}

// Mirrors QuorumController.createTopics: the topic exists once its records
// are committed, and a write the quorum refused fails the request (Kafka
// answers NOT_CONTROLLER) rather than reporting a topic that no image
// holds.
func TestCreateTopicFailsWhenTheMetadataLogRefusesTheWrite(t *testing.T) {
	c := controllerWithBrokers(t, 3, 1)
	refusing := &refusingLog{MemLog: c.log.(*MemLog), refuse: true}
	c.log = refusing
	err := c.CreateTopic("orders", 3, 3, nil)
	if err == nil || !strings.Contains(err.Error(), "node is not the leader") {
		t.Fatalf("CreateTopic with a refusing metadata log: err %v, want the log's refusal", err)
	}
	if c.Image().Topic("orders") != nil {
		t.Fatal("the image holds a topic the log never committed")
	}
	refusing.refuse = false
	if err := c.CreateTopic("orders", 3, 3, nil); err != nil {
		t.Fatalf("once the log accepts writes again: %v", err)
	}
}

// asyncLog commits when the test says so, as the KRaft quorum does.
type asyncLog struct {
	*MemLog
	committed int64
}

func (l *asyncLog) Committed() int64 { return l.committed }

// An answer the controller reads from records not committed yet waits for
// them, as QuorumController defers a write event that produced no records
// to its last written offset: a leader whose AlterPartition was applied,
// then sent again, must not hear INVALID_UPDATE_VERSION from a controller
// whose applied change may never commit (it would wait for metadata that
// never comes, pending for ever), and the success goes out first.
func TestAnswersReadFromUncommittedRecordsWaitForThem(t *testing.T) {
	c := controllerWithBrokers(t, 3, 1)
	if err := c.CreateTopic("t", 1, 3, nil); err != nil {
		t.Fatal(err)
	}
	l := &asyncLog{MemLog: c.log.(*MemLog)}
	l.committed = l.End()
	c.log = l
	var answers []protocol.AlterPartitionResponse
	p := c.Image().Partition("t", 0)
	req := protocol.AlterPartitionRequest{BrokerID: p.Leader, BrokerEpoch: int64(p.Leader), TP: protocol.TopicPartition{Topic: "t"},
		LeaderEpoch: p.LeaderEpoch, PartitionEpoch: p.PartitionEpoch, NewISR: []int32{p.Leader}, Proposal: 1}
	from := BrokerNode(p.Leader)
	c.net.Attach(from, func(env *sim.Envelope) {
		if a, ok := env.Msg.(protocol.AlterPartitionResponse); ok {
			answers = append(answers, a)
		}
	})
	c.alterPartition(from, req)
	c.alterPartition(from, req) // sent again: its partition epoch is now stale
	if _, err := c.sched.RunUntil(c.sched.Clock.Elapsed()+10*time.Millisecond, 1000); err != nil {
		t.Fatal(err)
	}
	if len(answers) != 0 {
		t.Fatalf("answered before the change committed: %+v", answers)
	}
	c.Committed(l.End())
	if _, err := c.sched.RunUntil(c.sched.Clock.Elapsed()+10*time.Millisecond, 1000); err != nil {
		t.Fatal(err)
	}
	if len(answers) != 2 || answers[0].Error != protocol.None || answers[1].Error != protocol.InvalidUpdateVersion {
		t.Fatalf("after the commit: %+v, want NONE then INVALID_UPDATE_VERSION", answers)
	}
}
