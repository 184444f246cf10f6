package kraft

import (
	"fmt"
	"slices"

	"github.com/loglab/loglab/engine/protocol"
)

// What the controller does with a broker's damaged storage, from the
// reports in its heartbeats.
//
// A replica that cannot be opened (Kafka: its log directory went offline,
// ReplicationControlManager.handleDirectoriesOffline) leaves the ISR and
// its leadership moves to another in-sync replica at once, as if the broker
// were fenced for that partition only; it is never elected for it while
// this incarnation runs.
//
// A replica whose recovery cut data off its log is KIP-966's unclean
// shutdown (ReplicationControlManager.handleBrokerUncleanShutdown): it
// leaves the ISR, even as its last member, because it no longer holds
// everything the ISR promised. Kafka would then elect from the ELR, and,
// with no ELR, leave the partition offline (or, with
// unclean.recovery.strategy=Balanced, elect the replica with the longest
// log once the last known ELR members are back).
//
// Differences from Kafka: Kafka knows only "this broker did not shut down
// cleanly" (no clean-shutdown file, a previous broker epoch that does not
// match) and treats every partition of such a broker as suspect; loglab
// re-validates every batch at start (recovery point 0), so it knows which
// partitions actually lost data, and only those leave the ISR. loglab has
// no ELR: when the damaged replica was the last in the ISR, the controller
// waits until every other replica is back and has reported its log end
// offset, then elects the one with the most data (Kafka's planned Balanced
// recovery, without its timeout), so the others never truncate to the
// damaged log.

// offlineAt says whether broker id reported tp offline.
func (c *Controller) offlineAt(tp protocol.TopicPartition, id int32) bool {
	return slices.Contains(c.offline[tp], id)
}

// storageReports acts on a heartbeat's reports of offline and damaged
// replicas and remembers its log end offsets of leaderless partitions.
func (c *Controller) storageReports(m protocol.BrokerHeartbeatRequest) {
	for _, le := range m.LeaderlessLogEnds {
		if c.logEnds[le.TP] == nil {
			c.logEnds[le.TP] = map[int32]int64{}
		}
		c.logEnds[le.TP][m.BrokerID] = le.LogEnd
	}
	var changes []protocol.MetadataRecord
	for _, tp := range m.OfflineReplicas {
		if c.offlineAt(tp, m.BrokerID) {
			continue
		}
		c.offline[tp] = append(c.offline[tp], m.BrokerID)
		t, p := c.image.Topic(tp.Topic), c.image.Partition(tp.Topic, tp.Partition)
		if p == nil || (p.Leader != m.BrokerID && !slices.Contains(p.ISR, m.BrokerID)) {
			continue
		}
		isr := p.ISR
		if len(isr) > 1 {
			isr = without(isr, m.BrokerID)
		}
		leader := p.Leader
		if leader == m.BrokerID || leader == -1 {
			leader, isr, _ = c.chooseLeader(t, p, isr, tp)
		}
		what := "it leaves the ISR and cannot lead it"
		if leader == -1 {
			what = "no other in-sync replica can lead it, so the partition is offline"
		}
		c.events(fmt.Sprintf("controller: broker %d reports %s/%d offline (its log could not be opened or written: a failed log directory): %s", m.BrokerID, tp.Topic, tp.Partition, what))
		if leader != p.Leader || !slices.Equal(isr, p.ISR) {
			changes = append(changes, c.change(tp.Topic, tp.Partition, p, leader, isr, false))
		}
	}
	for _, tp := range m.DamagedReplicas {
		p := c.image.Partition(tp.Topic, tp.Partition)
		if p == nil || !slices.Contains(p.ISR, m.BrokerID) {
			continue // already out of the ISR: it cannot be elected cleanly
		}
		isr := without(p.ISR, m.BrokerID)
		leader := p.Leader
		if leader == m.BrokerID {
			leader = -1
		}
		if len(isr) == 0 {
			c.recovering[tp] = m.BrokerID
		}
		c.events(fmt.Sprintf("controller: broker %d's recovery of %s/%d cut data off its log (KIP-966: an unclean shutdown): it leaves the ISR and is not elected while a replica with more data is available",
			m.BrokerID, tp.Topic, tp.Partition))
		changes = append(changes, c.change(tp.Topic, tp.Partition, p, leader, isr, false))
	}
	c.commit(changes...)
}

// forgetIncarnation drops what the previous incarnation of a broker
// reported: a restarted broker opens its logs again.
func (c *Controller) forgetIncarnation(id int32) {
	for tp, ids := range c.offline {
		c.offline[tp] = without(ids, id)
	}
	for _, ends := range c.logEnds {
		delete(ends, id)
	}
}

// electRecovered elects the replica with the most data for a partition
// whose last in-sync replica lost data in recovery, once every replica is
// live and has reported its log end offset; -1 while it must wait.
//
// An empty ISR arises only so (fencing keeps the last member), so a
// controller that took over since, and never heard which replica was
// damaged, still recovers the partition; ties then go to replica order.
func (c *Controller) electRecovered(tp protocol.TopicPartition, p *PartitionInfo) int32 {
	if len(p.ISR) > 0 || len(p.Replicas) == 0 {
		return -1
	}
	damaged, ok := c.recovering[tp]
	if !ok {
		damaged = -1
	}
	best, bestEnd := int32(-1), int64(-1)
	for _, r := range p.Replicas {
		end, reported := c.logEnds[tp][r]
		if !c.live(r) || !reported || c.offlineAt(tp, r) {
			return -1
		}
		// Ties go to a replica that lost nothing, then to replica order.
		if end > bestEnd || (end == bestEnd && best == damaged) {
			best, bestEnd = r, end
		}
	}
	return best
}

func without(ids []int32, id int32) []int32 {
	return slices.DeleteFunc(slices.Clone(ids), func(x int32) bool { return x == id })
}
