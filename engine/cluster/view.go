package cluster

import (
	"github.com/loglab/loglab/engine/broker"
	"github.com/loglab/loglab/engine/log"
	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/view"
)

// messagesShown is how many recent messages a view carries.
const messagesShown = 40

// View snapshots the cluster for the UI. It copies what it shows, so the
// result stays valid however the cluster changes afterwards.
func (c *Cluster) View() view.Cluster {
	v := view.Cluster{
		Exists: true, Brokers: c.config.Brokers, Controllers: c.config.Controllers, Seed: c.config.Seed,
		Elapsed: c.clock.Elapsed().String(), MetadataOffset: c.controller.Log().End() - 1,
	}
	for _, b := range c.brokers {
		bv := view.Broker{ID: int(b.ID), Alive: b.Alive(), MetadataOffset: b.MetadataOffset()}
		if bi := c.controller.Image().Broker(b.ID); bi != nil {
			bv.Fenced, bv.Epoch = bi.Fenced, bi.Epoch
		}
		v.BrokerNodes = append(v.BrokerNodes, bv)
	}
	for _, p := range c.producers {
		v.Clients = append(v.Clients, string(p.ID))
	}
	for _, co := range c.consumers {
		v.Clients = append(v.Clients, string(co.ID))
	}
	recent := c.net.Trace.Recent()
	for i := len(recent) - 1; i >= 0 && len(v.Messages) < messagesShown; i-- {
		e := recent[i]
		v.Messages = append(v.Messages, view.Message{ID: e.ID, From: string(e.From), To: string(e.To), Kind: e.Msg.Kind(),
			SentAt: e.SentAt.String(), DeliverAt: e.DeliverAt.String(), InFlight: e.Fate == "", Fate: e.Fate})
	}
	for _, t := range c.controller.Image().Topics {
		tv := view.Topic{Name: t.Name}
		for i, p := range t.Partitions {
			if p == nil {
				continue
			}
			tv.ReplicationFactor = len(p.Replicas)
			tv.Partitions = append(tv.Partitions, c.partitionView(t.Name, i, p.Leader, p.LeaderEpoch, p.ISR, p.Replicas))
		}
		v.Topics = append(v.Topics, tv)
	}
	for _, viol := range c.checker.Violations() {
		v.Violations = append(v.Violations, viol.String())
	}
	return v
}

func (c *Cluster) partitionView(topic string, index int, leader, epoch int32, isr, replicas []int32) view.Partition {
	tp := protocol.TopicPartition{Topic: topic, Partition: int32(index)}
	p := view.Partition{Topic: topic, Index: index, Leader: int(leader), LeaderEpoch: int(epoch)}
	for _, id := range isr {
		p.ISR = append(p.ISR, int(id))
	}
	var shown *broker.Replica
	for _, id := range replicas {
		rv := view.Replica{Broker: int(id)}
		b := c.Broker(int(id))
		if b != nil && b.Alive() {
			rv.Alive = true
			if r := b.Replica(tp); r != nil {
				rv.Leader, rv.LEO, rv.HW, rv.Epoch = r.IsLeader(), r.Log.EndOffset(), r.HW, int(r.LeaderEpoch)
				if r.IsLeader() || shown == nil {
					shown = r
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
	recs, err := l.Records(from, view.RecordsShown)
	if err != nil {
		recs = nil // the view is a picture, not a request: show what could be read
	}
	if len(recs) > 0 {
		p.Hidden = recs[0].Offset - l.StartOffset()
	}
	for _, r := range recs {
		p.Records = append(p.Records, view.Record{
			Offset: r.Offset, Timestamp: r.Timestamp, Key: string(r.Key), KeyIsNull: r.Key == nil,
			Value: string(r.Value), ValueIsNull: r.Value == nil, Committed: r.Offset < shown.HW, Acked: c.isAcked(tp, r.Offset),
		})
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

func (c *Cluster) isAcked(tp protocol.TopicPartition, offset int64) bool {
	return c.ackedSet[ackKey{tp, offset}]
}
