package broker

import (
	"fmt"
	"testing"

	"github.com/loglab/loglab/engine/kraft"
	"github.com/loglab/loglab/engine/producerstate"
	"github.com/loglab/loglab/engine/protocol"
)

// TestCoordinatorOperationError mirrors CoordinatorOperationExceptionHelper.handleOperationException
// for a TxnOffsetCommit whose verification or write failed.
func TestCoordinatorOperationError(t *testing.T) {
	cases := []struct {
		in, want protocol.ErrorCode
	}{
		{protocol.NetworkException, protocol.CoordinatorLoadInProgress},
		{protocol.UnknownTopicOrPartition, protocol.CoordinatorNotAvailable},
		{protocol.NotEnoughReplicas, protocol.CoordinatorNotAvailable},
		{protocol.RequestTimedOut, protocol.CoordinatorNotAvailable},
		{protocol.NotLeaderOrFollower, protocol.NotCoordinator},
		{protocol.ProducerFenced, protocol.ProducerFenced},
		{protocol.InvalidProducerEpoch, protocol.InvalidProducerEpoch},
		{protocol.ConcurrentTransactions, protocol.ConcurrentTransactions},
		{protocol.InvalidTxnState, protocol.InvalidTxnState},
	}
	for _, c := range cases {
		if got := coordinatorOperationError(c.in); got != c.want {
			t.Errorf("%s: got %s, want %s", c.in.Name(), got.Name(), c.want.Name())
		}
	}
	// A write the producer state refused answers its error; any other
	// append failure COORDINATOR_NOT_AVAILABLE.
	if got := groupAppendError(fmt.Errorf("append: %w", producerstate.Error{Code: 47, Name: "INVALID_PRODUCER_EPOCH"})); got != protocol.InvalidProducerEpoch {
		t.Errorf("producer state refusal: %s", got.Name())
	}
	if got := groupAppendError(fmt.Errorf("disk full")); got != protocol.CoordinatorNotAvailable {
		t.Errorf("other failure: %s", got.Name())
	}
}

// TestAliveLeaderForFindCoordinator mirrors KafkaApis.getCoordinator: the
// coordinator named is the leader of the key's partition only through
// metadataCache.getAliveBrokerNode, which knows no fenced or unregistered
// broker (COORDINATOR_NOT_AVAILABLE then). By this broker's metadata: an
// unfenced leader is named whether or not its process still runs.
func TestAliveLeaderForFindCoordinator(t *testing.T) {
	cases := []struct {
		name   string
		leader int32
		broker *kraft.BrokerInfo
		want   int32
	}{
		{"unfenced leader", 2, &kraft.BrokerInfo{ID: 2, Epoch: 5}, 2},
		{"fenced leader", 2, &kraft.BrokerInfo{ID: 2, Epoch: 5, Fenced: true}, -1},
		{"leader not registered", 2, nil, -1},
		{"no leader", -1, &kraft.BrokerInfo{ID: 2, Epoch: 5}, -1},
	}
	for _, c := range cases {
		im := kraft.NewImage()
		if c.broker != nil {
			im.Brokers = append(im.Brokers, c.broker)
		}
		im.Topics = append(im.Topics, &kraft.TopicInfo{Name: TransactionStateTopic, Partitions: []*kraft.PartitionInfo{{Replicas: []int32{2}, ISR: []int32{2}, Leader: c.leader}}})
		b := &Broker{image: im}
		if got := b.aliveLeader(TransactionStateTopic, 0); got != c.want {
			t.Errorf("%s: named %d, want %d", c.name, got, c.want)
		}
	}
	if got := (&Broker{image: kraft.NewImage()}).aliveLeader(TransactionStateTopic, 0); got != -1 {
		t.Errorf("no such topic: named %d", got)
	}
}
