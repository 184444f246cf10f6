package cluster

import (
	"github.com/loglab/loglab/engine/log"
	"github.com/loglab/loglab/engine/view"
)

// View snapshots the cluster for the UI. It copies what it shows, so the
// result stays valid however the cluster changes afterwards.
func (c *Cluster) View() view.Cluster {
	v := view.Cluster{
		Exists:      true,
		Brokers:     c.config.Brokers,
		Controllers: c.config.Controllers,
		Seed:        c.config.Seed,
		Elapsed:     c.clock.Elapsed().String(),
	}
	for _, t := range c.topics {
		tv := view.Topic{Name: t.Name, ReplicationFactor: t.ReplicationFactor}
		for i, l := range t.Partitions {
			tv.Partitions = append(tv.Partitions, partitionView(t, i, l))
		}
		v.Topics = append(v.Topics, tv)
	}
	return v
}

// partitionView carries the newest records of a log and its segments.
func partitionView(t *Topic, index int, l *log.Log) view.Partition {
	p := view.Partition{Topic: t.Name, Index: index, LogStartOffset: l.StartOffset(), LogEndOffset: l.EndOffset(), Config: t.Config.Describe(),
		Housekeeping: append([]string(nil), t.housekeeping[index]...)}
	from := max(l.StartOffset(), l.EndOffset()-view.RecordsShown)
	recs, err := l.Records(from, view.RecordsShown)
	if err != nil {
		// The view is a picture, not a request: show what could be read.
		recs = nil
	}
	if len(recs) > 0 {
		p.Hidden = recs[0].Offset - l.StartOffset()
	}
	for _, r := range recs {
		p.Records = append(p.Records, view.Record{
			Offset:      r.Offset,
			Timestamp:   r.Timestamp,
			Key:         string(r.Key),
			KeyIsNull:   r.Key == nil,
			Value:       string(r.Value),
			ValueIsNull: r.Value == nil,
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
