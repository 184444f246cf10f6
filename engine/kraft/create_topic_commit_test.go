package kraft

import (
	"errors"
	"strings"
	"testing"

	"github.com/loglab/loglab/engine/protocol"
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
