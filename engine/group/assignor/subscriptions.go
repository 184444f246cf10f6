package assignor

import "slices"

// allSubscribedTopics lists, sorted and without repeats, every topic some
// member subscribes to: the classic assignors only ever assign those.
func allSubscribedTopics(members []Member) []string {
	var topics []string
	for _, m := range members {
		topics = append(topics, m.Topics...)
	}
	slices.Sort(topics)
	return slices.Compact(topics)
}

// membersSubscribedTo keeps, in their order, the members subscribed to topic.
func membersSubscribedTo(topic string, members []Member) []Member {
	var subs []Member
	for _, m := range members {
		if slices.Contains(m.Topics, topic) {
			subs = append(subs, m)
		}
	}
	return subs
}
