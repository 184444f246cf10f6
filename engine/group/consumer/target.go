package consumer

import (
	"slices"

	"github.com/loglab/loglab/engine/group/assignor"
)

// computeTarget is Kafka's TargetAssignmentBuilder: run the server-side
// assignor over every member's subscription and hand each member's
// previous TARGET (not what it owns now) as its current assignment, so
// the assignor stays sticky to the plan even while members are still
// reconciling towards it. The result is the target of every member at
// the given epoch; a member missing from it gets an empty target.
func computeTarget(a assignor.Assignor, topics assignor.Topics, members []Member, previous map[string]Partitions) (map[string]Partitions, error) {
	in := make([]assignor.Member, 0, len(members))
	used := assignor.Topics{}
	for _, m := range members {
		am := assignor.Member{ID: m.ID, Generation: -1}
		for _, t := range m.SubscribedTopics {
			// Kafka resolves subscribed names to topic ids first; a
			// name that is not (yet) a topic is simply not assigned.
			if n, ok := topics[t]; ok && !slices.Contains(am.Topics, t) {
				am.Topics = append(am.Topics, t)
				used[t] = n
			}
		}
		prev := previous[m.ID]
		for _, t := range prev.Topics() {
			for _, p := range prev[t] {
				am.Owned = append(am.Owned, assignor.TopicPartition{Topic: t, Partition: p})
			}
		}
		in = append(in, am)
	}
	out, err := a.Assign(used, in)
	if err != nil {
		return nil, err
	}
	target := make(map[string]Partitions, len(members))
	for _, m := range members {
		p := Partitions{}
		for _, tp := range out[m.ID] {
			p[tp.Topic] = append(p[tp.Topic], tp.Partition)
		}
		target[m.ID] = p.normalized()
	}
	return target, nil
}
