package assignor

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// This file holds the helpers the range, roundrobin and server-side range
// table tests share: each case is one Kafka test method, made of rounds
// (Kafka's tests that re-run an assignor after members changed).

// portedRound is one call of an assignor and what Kafka's test expects.
type portedRound struct {
	members []Member
	want    Assignment // by member id, as Kafka's test asserts it
	wantErr bool
	// sameAsFirstRound is for Kafka tests that assert no value but that
	// an assignment carried over: member id here -> member id in round 0
	// whose assignment it must equal.
	sameAsFirstRound map[string]string
}

type portedCase struct {
	name   string // the Kafka test method this case mirrors
	topics Topics
	rounds []portedRound
}

// subscribed builds a member; instance is the group.instance.id ("" for
// a dynamic member).
func subscribed(id, instance string, topics ...string) Member {
	return Member{ID: id, InstanceID: instance, Topics: topics, Generation: -1}
}

// tpList builds a partition list from "topic-p" strings, as Kafka's tests
// print them ("t1-0, t1-3, t2-0").
func tpList(list string) []TopicPartition {
	tps := []TopicPartition{}
	for _, s := range strings.Split(list, ",") {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		i := strings.LastIndex(s, "-")
		var p int32
		if _, err := fmt.Sscan(s[i+1:], &p); err != nil {
			panic(s)
		}
		tps = append(tps, TopicPartition{s[:i], p})
	}
	slices.SortFunc(tps, Compare)
	return tps
}

func runPortedCases(t *testing.T, a Assignor, cases []portedCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var first Assignment
			for i, r := range tc.rounds {
				got, err := a.Assign(tc.topics, r.members)
				if i == 0 {
					first = got
				}
				if r.wantErr {
					if err == nil {
						t.Fatalf("round %d: got %v, want an error", i, got)
					}
					continue
				}
				if err != nil {
					t.Fatalf("round %d: %v", i, err)
				}
				if r.want == nil && r.sameAsFirstRound == nil {
					// Kafka asserts nothing of a first round whose
					// assignment a later round must carry over.
					if i != 0 || len(tc.rounds) < 2 {
						t.Fatalf("round %d asserts nothing", i)
					}
					continue
				}
				if r.sameAsFirstRound != nil {
					checkCarriedOver(t, i, got, first, r.sameAsFirstRound)
					continue
				}
				if diff := assignmentDiff(got, r.want); diff != "" {
					t.Errorf("round %d:\n%s", i, diff)
				}
			}
		})
	}
}

// assignmentDiff compares two assignments member by member; a member that
// gets nothing must still be present, as in Kafka.
func assignmentDiff(got, want Assignment) string {
	var ids []string
	for id := range got {
		ids = append(ids, id)
	}
	for id := range want {
		if _, ok := got[id]; !ok {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	var b strings.Builder
	for _, id := range ids {
		g, gok := got[id]
		w, wok := want[id]
		if gok != wok || !slices.Equal(g, w) {
			fmt.Fprintf(&b, "  %s: got %v (present %v), want %v (present %v)\n", id, g, gok, w, wok)
		}
	}
	return b.String()
}

func checkCarriedOver(t *testing.T, round int, got, first Assignment, sameAs map[string]string) {
	t.Helper()
	if len(got) != len(sameAs) {
		t.Errorf("round %d: %d members assigned, want %d", round, len(got), len(sameAs))
	}
	for id, was := range sameAs {
		if _, ok := first[was]; !ok {
			t.Fatalf("round 0 has no member %s", was)
		}
		if !slices.Equal(got[id], first[was]) {
			t.Errorf("round %d: %s got %v, want %v as %s had in round 0", round, id, got[id], first[was], was)
		}
	}
}
