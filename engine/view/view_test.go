package view

import (
	"slices"
	"testing"
)

// The restart limbo: between a broker's restart and the controller moving
// its leaderships, the metadata names a leader that cannot serve. The view
// must say which of the ways it cannot, and never count it as leading.
func TestLeaderState(t *testing.T) {
	leader := func(r Replica) Partition {
		r.Broker = 2
		return Partition{Topic: "t", Leader: 2, LeaderEpoch: 3, Replicas: []Replica{{Broker: 1, Alive: true, Opened: true, Epoch: 3}, r}}
	}
	for _, c := range []struct {
		name string
		p    Partition
		want string
	}{
		{"its replica leads at the metadata's epoch", leader(Replica{Alive: true, Opened: true, Leader: true, Epoch: 3}), ""},
		{"no leader at all is no contradiction", Partition{Leader: -1}, ""},
		{"crashed", leader(Replica{Alive: false, Opened: true, Leader: true, Epoch: 3}), "down"},
		{"restarted, logs not opened yet", leader(Replica{Alive: true}), "no replica yet"},
		{"opened but still following", leader(Replica{Alive: true, Opened: true, Epoch: 3}), "not leading yet"},
		{"leads at an older epoch", leader(Replica{Alive: true, Opened: true, Leader: true, Epoch: 2}), "not leading yet"},
	} {
		if got := c.p.LeaderState(); got != c.want {
			t.Errorf("%s: LeaderState() = %q, want %q", c.name, got, c.want)
		}
	}
}

func TestLeadsAndNamedLeaderSplitTheMetadatasLeaderships(t *testing.T) {
	leads := Partition{Topic: "a", Index: 0, Leader: 2, LeaderEpoch: 1,
		Replicas: []Replica{{Broker: 2, Alive: true, Opened: true, Leader: true, Epoch: 1}}}
	limbo := Partition{Topic: "b", Index: 1, Leader: 2, LeaderEpoch: 1,
		Replicas: []Replica{{Broker: 2, Alive: true}}}
	other := Partition{Topic: "b", Index: 0, Leader: 3, LeaderEpoch: 0,
		Replicas: []Replica{{Broker: 3, Alive: true, Opened: true, Leader: true}}}
	c := Cluster{Topics: []Topic{{Name: "a", Partitions: []Partition{leads}}, {Name: "b", Partitions: []Partition{other, limbo}}}}
	if got := c.Leads(2); !slices.Equal(got, []string{"a/0"}) {
		t.Errorf("Leads(2) = %v, want [a/0]", got)
	}
	if got := c.NamedLeader(2); !slices.Equal(got, []string{"b/1"}) {
		t.Errorf("NamedLeader(2) = %v, want [b/1]", got)
	}
}

func TestReplicaRole(t *testing.T) {
	for _, c := range []struct {
		r    Replica
		want string
	}{
		{Replica{}, "down"},
		{Replica{Alive: true}, "no replica yet"},
		{Replica{Alive: true, Opened: true, Leader: true}, "leader"},
		{Replica{Alive: true, Opened: true}, "follower"},
	} {
		if got := c.r.Role(); got != c.want {
			t.Errorf("%+v: Role() = %q, want %q", c.r, got, c.want)
		}
	}
}
