package assignor

import "testing"

// loglab's own rule, not a Kafka case: a partition a member owns beyond
// its topic's partition count (Kafka's topics never shrink) is dropped by
// both builders instead of being kept.
func TestUniformDropsPartitionsBeyondTopicCount(t *testing.T) {
	topics := Topics{"topic1": 2, "topic2": 2}
	both := []string{"topic1", "topic2"}
	for name, members := range map[string][]Member{
		"homogeneous": {
			umember("A", both, utps("topic1", 0, 5)),
			umember("B", both),
		},
		"heterogeneous": {
			umember("A", both, utps("topic1", 0, 5)),
			umember("B", []string{"topic1"}),
		},
	} {
		got, err := Uniform{}.Assign(topics, members)
		if err != nil {
			t.Fatal(err)
		}
		uniformCheckValidity(t, members, got)
		for id, tps := range got {
			for _, tp := range tps {
				if tp.Partition >= topics[tp.Topic] {
					t.Errorf("%s: %s was given %v, which does not exist", name, id, tp)
				}
			}
		}
	}
}
