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
			tv.Partitions = append(tv.Partitions, partitionView(t.Name, i, l))
		}
		v.Topics = append(v.Topics, tv)
	}
	return v
}

// partitionView carries the newest view.RecordsShown records of a log.
func partitionView(topic string, index int, l *log.Log) view.Partition {
	p := view.Partition{Topic: topic, Index: index, LogStartOffset: l.StartOffset(), LogEndOffset: l.EndOffset()}
	from := max(l.StartOffset(), l.EndOffset()-view.RecordsShown)
	p.Hidden = from - l.StartOffset()
	recs, _ := l.Read(from, view.RecordsShown) // from is inside the log by construction
	for _, r := range recs {
		p.Records = append(p.Records, view.Record{
			Offset:    r.Offset,
			Timestamp: r.Timestamp,
			Key:       string(r.Key),
			KeyIsNull: r.Key == nil,
			Value:     string(r.Value),
		})
	}
	return p
}
