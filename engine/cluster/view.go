package cluster

import (
	"bytes"
	"cmp"
	"slices"

	"github.com/loglab/loglab/engine/broker"
	"github.com/loglab/loglab/engine/check"
	"github.com/loglab/loglab/engine/group/offsets"
	"github.com/loglab/loglab/engine/kraft"
	"github.com/loglab/loglab/engine/log"
	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/sim"
	"github.com/loglab/loglab/engine/txn/txnlog"
	"github.com/loglab/loglab/engine/view"
)

// messagesShown is how many recent messages a view carries.
const messagesShown = 40

// View snapshots the cluster for the UI. It copies what it shows, so the
// result stays valid however the cluster changes afterwards.
func (c *Cluster) View() view.Cluster {
	v := view.Cluster{
		Exists: true, Brokers: c.config.Brokers, Controllers: c.config.Controllers, Seed: c.config.Seed,
		Elapsed: c.clock.Elapsed().String(), MetadataOffset: c.meta.End() - 1,
		ControllerNode: string(kraft.ControllerNode), Network: c.net.Describe(),
	}
	v.Quorum, v.ActiveController, v.MetadataRecords = c.quorumView(), c.activeID, c.recentMetadata()
	v.QuorumReplication = c.quorumReplication()
	nodes := []sim.NodeID{kraft.ControllerNode}
	for _, b := range c.brokers {
		bv := view.Broker{ID: int(b.ID), Node: string(b.Node), Alive: b.Alive(), MetadataOffset: b.MetadataOffset(), Registered: b.Registered()}
		if bi := c.controller.Image().Broker(b.ID); bi != nil {
			bv.Fenced, bv.Epoch = bi.Fenced, bi.Epoch
		}
		v.BrokerNodes = append(v.BrokerNodes, bv)
		nodes = append(nodes, b.Node)
	}
	for _, p := range c.producers {
		v.Clients = append(v.Clients, string(p.ID))
		v.ClientNodes = append(v.ClientNodes, view.Client{Name: string(p.ID), Kind: "producer", Down: p.Crashed(), Producer: producerView(p)})
		nodes = append(nodes, p.ID)
	}
	for _, co := range c.consumers {
		v.Clients = append(v.Clients, string(co.ID))
		v.ClientNodes = append(v.ClientNodes, view.Client{Name: string(co.ID), Kind: "consumer", Down: co.Closed()})
		nodes = append(nodes, co.ID)
	}
	for i, a := range nodes {
		for _, b := range nodes[i+1:] {
			if c.net.Partitioned(a, b) {
				v.Cut = append(v.Cut, view.Link{A: string(a), B: string(b)})
			}
		}
	}
	for _, l := range c.net.CutLinks() {
		v.CutLinks = append(v.CutLinks, view.Link{A: string(l[0]), B: string(l[1])})
	}
	recent := c.net.Trace.Recent()
	for i := len(recent) - 1; i >= 0 && len(v.Messages) < messagesShown; i-- {
		e := recent[i]
		v.Messages = append(v.Messages, view.Message{ID: e.ID, From: string(e.From), To: string(e.To), Kind: e.Msg.Kind(),
			SentAt: e.SentAt.String(), DeliverAt: e.DeliverAt.String(), InFlight: e.Fate == "", Fate: e.Fate})
	}
	acked := c.ackedValues()
	for _, t := range c.controller.Image().Topics {
		tv := view.Topic{Name: t.Name, Internal: isInternalTopic(t.Name)}
		for i, p := range t.Partitions {
			if p == nil {
				continue
			}
			tv.ReplicationFactor = len(p.Replicas)
			tv.Partitions = append(tv.Partitions, c.partitionView(t.Name, i, p.Leader, p.LeaderEpoch, p.ISR, p.Replicas, acked))
		}
		v.Topics = append(v.Topics, tv)
	}
	v.Groups, v.NowMs = c.groupsView(), c.clock.Elapsed().Milliseconds()
	v.Transactions = c.transactionsView()
	for _, e := range c.SideEffects() {
		v.SideEffects = append(v.SideEffects, view.SideEffect{Consumer: e.Consumer, Input: tpName(e.TP), Offset: e.Offset, Value: e.Value, Times: e.Times})
	}
	v.Metrics, v.Charts = c.Metrics(), c.Charts()
	for _, viol := range c.checker.Violations() {
		v.Violations = append(v.Violations, viol.String())
		v.Checks = append(v.Checks, view.Violation{At: viol.At.String(), Invariant: viol.Invariant, Detail: viol.Detail})
	}
	return v
}

// ackedValues maps each acknowledged offset to the values acknowledged
// there, per partition. An offset truncated away can be written and
// acknowledged again: a record counts as acknowledged only when its value
// is one acknowledged at its offset. The map is the cluster's index
// (acked_index.go): read it, never change it.
func (c *Cluster) ackedValues() map[ackKey][][]byte {
	return c.ackedIndexed().values
}

func ackedAs(values [][]byte, v []byte) bool {
	for _, a := range values {
		if bytes.Equal(a, v) {
			return true
		}
	}
	return false
}

func (c *Cluster) partitionView(topic string, index int, leader, epoch int32, isr, replicas []int32, acked map[ackKey][][]byte) view.Partition {
	tp := protocol.TopicPartition{Topic: topic, Partition: int32(index)}
	p := view.Partition{Topic: topic, Index: index, Leader: int(leader), LeaderEpoch: int(epoch)}
	for _, id := range isr {
		p.ISR = append(p.ISR, int(id))
	}
	var shown *broker.Replica
	leaderShown := false
	for _, id := range replicas {
		rv := view.Replica{Broker: int(id)}
		b := c.Broker(int(id))
		if b != nil && b.Alive() {
			rv.Alive = true
			rv.Offline = slices.Contains(b.Offline(), tp)
			if r := b.Replica(tp); r != nil && !rv.Offline {
				rv.Opened = true
				rv.Leader, rv.LEO, rv.HW, rv.Epoch = r.IsLeader(), r.Log.EndOffset(), r.HW, int(r.LeaderEpoch)
				if r.IsLeader() || shown == nil {
					shown = r
					p.ShownBroker = int(id)
					leaderShown = r.IsLeader() && id == leader
				}
			}
		}
		for _, in := range isr {
			rv.InISR = rv.InISR || in == id
		}
		p.Replicas = append(p.Replicas, rv)
	}
	if shown == nil {
		return p
	}
	l := shown.Log
	p.LogStartOffset, p.LogEndOffset, p.HighWatermark = l.StartOffset(), l.EndOffset(), shown.HW
	p.Config = l.Config().Describe()
	from := max(l.StartOffset(), l.EndOffset()-view.RecordsShown)
	p.LastStableOffset = lastStableOffset(shown)
	recs, err := tailRecords(l, from, view.RecordsShown)
	if err != nil {
		recs = nil // the view is a picture, not a request: show what could be read
	}
	if len(recs) > 0 {
		p.Hidden = recs[0].Offset - l.StartOffset()
	}
	held := make(map[int64][]byte, len(recs))
	for _, r := range recs {
		if r.Control != "" {
			p.Records = append(p.Records, view.Record{Offset: r.Offset, Timestamp: r.Timestamp, Control: r.Control,
				ProducerID: r.ProducerID, Committed: r.Offset < shown.HW})
			continue
		}
		held[r.Offset] = r.Value
		key, value := string(r.Key), string(r.Value)
		if r.Key != nil {
			// The coordinators' records are binary (Kafka's schemas): draw
			// what they say, not their bytes.
			switch topic {
			case broker.OffsetsTopic:
				key, value = offsets.Summary(r.Key, r.Value)
			case broker.TransactionStateTopic:
				key, value = txnlog.Summary(r.Key, r.Value)
			}
		}
		p.Records = append(p.Records, view.Record{
			Offset: r.Offset, Timestamp: r.Timestamp, Key: key, KeyIsNull: r.Key == nil,
			Value: value, ValueIsNull: r.Value == nil, Committed: r.Offset < shown.HW,
			Acked: ackedAs(acked[ackKey{tp, r.Offset}], r.Value), Txn: r.Txn, ProducerID: r.ProducerID,
		})
	}
	if leaderShown && err == nil {
		p.Lost = c.lostRecords(tp, l, from, held)
	}
	for _, s := range l.Segments() {
		sv := view.Segment{File: log.FileName(s.BaseOffset, log.LogSuffix), BaseOffset: s.BaseOffset, NextOffset: s.NextOffset, Size: s.Size, Active: s.Active, TimeIndex: len(s.TimeIndex)}
		for _, e := range s.Index {
			sv.Index = append(sv.Index, view.IndexEntry(e))
		}
		p.Segments = append(p.Segments, sv)
	}
	return p
}

// lostRecords lists the acknowledged records of tp at or after offset from
// that the leader's log does not hold: past its end, or replaced by another
// record, in offset order, leaving out what compaction removed (asked of
// the checker, so the page never draws as lost what it calls compaction). held is the leader's records from `from` on.
// Only the shown tail is compared, so the view stays cheap however long the
// log is; the invariant checker compares everything.
func (c *Cluster) lostRecords(tp protocol.TopicPartition, l *log.Log, from int64, held map[int64][]byte) []view.Record {
	var lost []view.Record
	var newest map[string]int64 // compacted logs only, read once when needed
	for _, i := range c.ackedIndexed().byTP[tp] {
		a := c.acked[i]
		if a.Offset < from {
			continue
		}
		if v, ok := held[a.Offset]; ok && a.Offset < l.EndOffset() && bytes.Equal(v, a.Value) {
			continue
		}
		if a.Offset < l.EndOffset() && l.Config().Compact() {
			if newest == nil {
				newest = check.NewestByKey(l, tp, c.acked)
			}
			if c.checker.CompactedAway(a, newest) {
				continue
			}
		}
		lost = append(lost, view.Record{Offset: a.Offset, Value: string(a.Value), ValueIsNull: a.Value == nil, KeyIsNull: true, Acked: true})
	}
	slices.SortStableFunc(lost, func(x, y view.Record) int { return cmp.Compare(x.Offset, y.Offset) })
	return lost
}

// ackKey names one offset of one partition.
type ackKey struct {
	tp     protocol.TopicPartition
	offset int64
}
