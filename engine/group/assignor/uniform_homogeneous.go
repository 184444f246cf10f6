package assignor

import "errors"

// assignHomogeneous is Kafka's UniformHomogeneousAssignmentBuilder (as of
// Kafka 4.1, KAFKA-18688), for members that all subscribe to the same
// topics. Every member's quota is total/members partitions, and
// total%members members get one more. Each member keeps what it owns up
// to its quota; the rest of what it owns, and every partition nobody
// owns, go in order to the members still under quota. Balance wins over
// stickiness: that is Kafka's stated priority.
//
// Who gets the extra partitions: a member that already owns min+1 keeps
// its extra one, so a stable group stays as it is whatever order the
// members are walked in. The extras left go to the LAST members still
// under quota. (Kafka 4.0 gave them to the first members walked, even
// when that moved a partition away from a member that had it; KAFKA-18688
// changed it because the assignment then depended on member order.)
func (u Uniform) assignHomogeneous(topics Topics, ms []Member) (Assignment, error) {
	subscribed := uniformTopicSet(ms[0].Topics)
	out := make(Assignment, len(ms))
	if len(subscribed) == 0 {
		// Kafka returns an empty assignment, not one empty entry per member.
		return out, nil
	}

	owned := uniformOwnedPartitions(ms)
	var unassigned []TopicPartition
	total := 0
	for _, t := range u.orderTopics(subscribed) {
		n, err := uniformPartitionCount(topics, t)
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
	extra := total % len(ms) // extras not yet claimed by a member owning min+1

	// Keep owned partitions up to each member's quota; what is over the
	// quota, or of a topic no longer subscribed, is revoked. Revoked
	// partitions go to the end of the unassigned list, after the never
	// owned ones, as in Kafka.
	type unfilled struct {
		id    string
		quota int
	}
	var under []*unfilled
	for _, m := range ms {
		quota := minQuota
		mayTakeExtra := extra > 0
		if mayTakeExtra {
			quota++
		}
		kept := []TopicPartition{}
		order, parts := uniformOwnedByTopic(m.Owned)
		for _, t := range order {
			if !subscribed[t] {
				continue
			}
			for _, p := range parts[t] {
				if p >= topics[t] {
					// Kafka's topics never shrink; loglab drops a
					// partition the topic no longer has.
					continue
				}
				if quota > 0 {
					kept = append(kept, TopicPartition{t, p})
					quota--
				} else {
					unassigned = append(unassigned, TopicPartition{t, p})
				}
			}
		}
		if mayTakeExtra && quota > 0 {
			// It does not own min+1: it gives its claim on an extra
			// partition back, for the last unfilled members to take.
			quota--
			mayTakeExtra = false
		}
		if mayTakeExtra && quota == 0 {
			extra-- // it owns min+1 and keeps them
		}
		if quota > 0 || (extra > 0 && !mayTakeExtra) {
			under = append(under, &unfilled{m.ID, quota})
		}
		out[m.ID] = kept
	}

	// The extras nobody claimed by ownership go to the last unfilled
	// members.
	for i := len(under) - 1; i >= 0 && extra > 0; i-- {
		under[i].quota++
		extra--
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
