package assignor

import "errors"

// assignHomogeneous is Kafka's UniformHomogeneousAssignmentBuilder, for
// members that all subscribe to the same topics. Every member gets a
// quota of total/members partitions, and the first total%members members
// (in member order, whatever they own now) one more. Each member keeps
// what it owns up to its quota; the rest of what it owns, and every
// partition nobody owns, go one by one to the members still under quota.
// Balance wins over stickiness: that is Kafka's stated priority.
func (u Uniform) assignHomogeneous(topics Topics, ms []Member) (Assignment, error) {
	subscribed := topicSet(ms[0].Topics)
	out := make(Assignment, len(ms))
	if len(subscribed) == 0 {
		// Kafka returns an empty assignment, not one empty entry per member.
		return out, nil
	}

	owned := assignedPartitions(ms)
	var unassigned []TopicPartition
	total := 0
	for _, t := range u.orderTopics(subscribed) {
		n, err := partitionCount(topics, t)
		if err != nil {
			return nil, err
		}
		for p := int32(0); p < n; p++ {
			if tp := (TopicPartition{t, p}); !owned[tp] {
				unassigned = append(unassigned, tp)
			}
		}
		total += int(n)
	}

	minQuota := total / len(ms)
	extra := total % len(ms)

	// Keep owned partitions up to each member's quota; what is over the
	// quota, or of a topic no longer subscribed, is revoked. Revoked
	// partitions go to the end of the unassigned list, after the never
	// owned ones, as in Kafka.
	type unfilled struct {
		id    string
		quota int
	}
	var under []unfilled
	for _, m := range ms {
		quota := minQuota
		if extra > 0 {
			quota++
			extra--
		}
		kept := []TopicPartition{}
		order, parts := ownedByTopic(m.Owned)
		for _, t := range order {
			if !subscribed[t] {
				continue
			}
			for _, p := range parts[t] {
				if quota > 0 {
					kept = append(kept, TopicPartition{t, p})
					quota--
				} else {
					unassigned = append(unassigned, TopicPartition{t, p})
				}
			}
		}
		if quota > 0 {
			under = append(under, unfilled{m.ID, quota})
		}
		out[m.ID] = kept
	}

	next := 0
	for _, m := range under {
		for i := 0; i < m.quota && next < len(unassigned); i++ {
			out[m.id] = append(out[m.id], unassigned[next])
			next++
		}
	}
	if next < len(unassigned) {
		return nil, errors.New("partitions were left unassigned")
	}
	return out, nil
}
