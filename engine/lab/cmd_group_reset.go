package lab

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/loglab/loglab/engine/cluster"
	"github.com/loglab/loglab/engine/protocol"
)

var groupResetOffsetsCommand = &command{
	name: "group reset-offsets",
	usage: "group reset-offsets GROUP --to-earliest|--to-latest|--to-offset N|--shift-by N|--to-datetime YYYY-MM-DDTHH:mm:SS.sss " +
		"--topic T[:P,P...]|--all-topics [--execute|--dry-run]",
	summary: "kafka-consumer-groups.sh --reset-offsets: refused unless the group is Empty (or Dead); a dry run unless --execute, " +
		"which commits the new offsets as the Admin client does",
	run: func(l *Lab, a *args) (string, error) {
		if err := l.requireCluster(); err != nil {
			return "", err
		}
		if err := a.finish(); err != nil {
			return "", err
		}
		r, err := parseReset(a.positional)
		if err != nil {
			return "", err
		}
		return resetOffsets(l, r)
	},
}

// resetRequest is a parsed --reset-offsets command line.
type resetRequest struct {
	group     string
	scenario  string // --to-earliest, --to-latest, --to-offset, --shift-by, --to-datetime
	value     int64  // N of --to-offset and --shift-by; the timestamp of --to-datetime
	topics    []string
	parts     map[string][]int32 // --topic T:P,P (lookup only)
	allTopics bool
	execute   bool
	dryRun    bool
}

func parseReset(words []string) (resetRequest, error) {
	r := resetRequest{parts: map[string][]int32{}}
	if len(words) == 0 || strings.HasPrefix(words[0], "--") {
		return r, fmt.Errorf("missing group id")
	}
	r.group = words[0]
	next := func(i int, flag string) (string, error) {
		if i+1 >= len(words) {
			return "", fmt.Errorf("%s needs a value", flag)
		}
		return words[i+1], nil
	}
	for i := 1; i < len(words); i++ {
		w := words[i]
		switch w {
		case "--to-earliest", "--to-latest":
			if r.scenario != "" {
				return r, fmt.Errorf("give one reset scenario, not %s and %s", r.scenario, w)
			}
			r.scenario = w
		case "--to-offset", "--shift-by", "--to-datetime":
			if r.scenario != "" {
				return r, fmt.Errorf("give one reset scenario, not %s and %s", r.scenario, w)
			}
			v, err := next(i, w)
			if err != nil {
				return r, err
			}
			i++
			r.scenario = w
			if w == "--to-datetime" {
				ts, err := parseKafkaDatetime(v)
				if err != nil {
					return r, err
				}
				r.value = ts
			} else if r.value, err = strconv.ParseInt(v, 10, 64); err != nil {
				return r, fmt.Errorf("%s %s: not a whole number", w, v)
			}
		case "--topic":
			v, err := next(i, w)
			if err != nil {
				return r, err
			}
			i++
			topic, list, hasParts := strings.Cut(v, ":")
			r.topics = append(r.topics, topic)
			if hasParts {
				for _, p := range strings.Split(list, ",") {
					n, err := strconv.Atoi(p)
					if err != nil || n < 0 {
						return r, fmt.Errorf("--topic %s: partition %q is not a whole number", v, p)
					}
					r.parts[topic] = append(r.parts[topic], int32(n))
				}
			}
		case "--all-topics":
			r.allTopics = true
		case "--execute":
			r.execute = true
		case "--dry-run":
			r.dryRun = true
		default:
			return r, fmt.Errorf("unknown argument %q", w)
		}
	}
	switch {
	case r.scenario == "":
		return r, fmt.Errorf("one of --to-earliest, --to-latest, --to-offset, --shift-by, --to-datetime is required")
	case len(r.topics) == 0 && !r.allTopics:
		return r, fmt.Errorf("one of --topic or --all-topics is required")
	case len(r.topics) > 0 && r.allTopics:
		return r, fmt.Errorf("give --topic or --all-topics, not both")
	case r.execute && r.dryRun:
		return r, fmt.Errorf("give --execute or --dry-run, not both")
	}
	return r, nil
}

// parseKafkaDatetime reads --to-datetime as ConsumerGroupCommand's
// convertTimestamp does: yyyy-MM-dd'T'HH:mm:ss.SSS with an optional zone
// (UTC when none).
func parseKafkaDatetime(s string) (int64, error) {
	for _, layout := range []string{"2006-01-02T15:04:05.000Z07:00", "2006-01-02T15:04:05.000Z0700", "2006-01-02T15:04:05.000"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UnixMilli(), nil
		}
	}
	return 0, fmt.Errorf("--to-datetime %s: expected yyyy-MM-ddTHH:mm:ss.SSS, e.g. 2024-01-01T00:00:10.000", s)
}

// resetOffsets is ConsumerGroupService.resetOffsets.
func resetOffsets(l *Lab, r resetRequest) (string, error) {
	var b strings.Builder
	if !r.execute && !r.dryRun {
		b.WriteString("WARN: No action will be performed as the --execute option is missing. In a future major release, " +
			"the default behavior of this command will be to prompt the user before executing the reset rather than doing a " +
			"dry run. You should add the --dry-run option explicitly if you are scripting this command and want to keep the " +
			"current default behavior without prompting.\n")
	}
	// The tool describes the group first; only a coordinator that has
	// no such group makes it Dead (resettable). While the coordinator is
	// down or loading, Kafka's Admin client retries and then times out.
	d, _, err := l.cluster.DescribeGroupErr(r.group)
	state := "Dead"
	switch {
	case err == nil:
		state = d.State
	case !errors.Is(err, cluster.ErrGroupIDNotFound):
		return "", err
	}
	if state != "Empty" && state != "Dead" {
		b.WriteString("\nError: Assignments can only be reset if the group '" + r.group + "' is inactive, but the current state is " + state + ".")
		return "", &resetRefused{fmt.Errorf("%s", strings.TrimLeft(b.String(), "\n"))}
	}
	committed := map[protocol.TopicPartition]int64{}
	var tps []protocol.TopicPartition
	for _, o := range d.Offsets {
		committed[o.TP] = o.Offset
		if r.allTopics {
			tps = append(tps, o.TP)
		}
	}
	for _, t := range r.topics {
		info := l.cluster.Controller().Image().Topic(t)
		if info == nil {
			return "", fmt.Errorf("UNKNOWN_TOPIC_OR_PARTITION: no topic %q", t)
		}
		if ps, ok := r.parts[t]; ok {
			for _, p := range ps {
				if int(p) >= len(info.Partitions) {
					return "", fmt.Errorf("UNKNOWN_TOPIC_OR_PARTITION: topic %q has no partition %d", t, p)
				}
				tps = append(tps, protocol.TopicPartition{Topic: t, Partition: p})
			}
			continue
		}
		for i := range info.Partitions {
			tps = append(tps, protocol.TopicPartition{Topic: t, Partition: int32(i)})
		}
	}
	slices.SortFunc(tps, func(x, y protocol.TopicPartition) int {
		if x.Topic != y.Topic {
			return strings.Compare(x.Topic, y.Topic)
		}
		return int(x.Partition - y.Partition)
	})
	tps = slices.Compact(tps)
	var commits []protocol.OffsetCommitPartition
	for _, tp := range tps {
		off, warn, err := newOffset(l, r, tp, committed)
		if err != nil {
			return "", err
		}
		b.WriteString(warn)
		commits = append(commits, protocol.OffsetCommitPartition{TP: tp, Offset: off, LeaderEpoch: -1})
	}
	if r.execute && len(commits) > 0 {
		results, err := l.cluster.AlterGroupOffsets(r.group, commits)
		if err != nil {
			return "", err
		}
		for _, res := range results {
			if res.Error != protocol.None {
				return "", fmt.Errorf("%s: Executing consumer group command failed due to %s for %s-%d", res.Error.Name(), res.Error.Name(), res.TP.Topic, res.TP.Partition)
			}
		}
	}
	// printOffsetsToReset.
	if len(commits) > 0 {
		fmt.Fprintf(&b, "\n%-30s %-30s %-10s %-15s", "GROUP", "TOPIC", "PARTITION", "NEW-OFFSET")
	}
	for _, c := range commits {
		fmt.Fprintf(&b, "\n%-30s %-30s %-10d %-15d", r.group, c.TP.Topic, c.TP.Partition, c.Offset)
	}
	return strings.TrimRight(strings.TrimPrefix(b.String(), "\n"), " "), nil
}

// newOffset is one partition's new offset by the scenario, kept within
// [earliest, latest] as checkOffsetsRange keeps it, with its warning.
func newOffset(l *Lab, r resetRequest, tp protocol.TopicPartition, committed map[protocol.TopicPartition]int64) (int64, string, error) {
	earliest, ok1 := l.cluster.EarliestOffset(tp)
	latest, ok2 := l.cluster.LatestOffset(tp)
	if !ok1 || !ok2 {
		return 0, "", fmt.Errorf("LEADER_NOT_AVAILABLE: %s/%d has no live leader to ask ListOffsets", tp.Topic, tp.Partition)
	}
	var target int64
	switch r.scenario {
	case "--to-earliest":
		return earliest, "", nil
	case "--to-latest":
		return latest, "", nil
	case "--to-offset":
		target = r.value
	case "--shift-by":
		cur, ok := committed[tp]
		if !ok {
			return 0, "", fmt.Errorf("Executing consumer group command failed due to Cannot shift offset for partition %s-%d since there is no current committed offset", tp.Topic, tp.Partition)
		}
		target = cur + r.value
	case "--to-datetime":
		off, ok, err := l.cluster.OffsetForTime(tp, r.value)
		if err != nil {
			return 0, "", err
		}
		if !ok {
			return 0, "", fmt.Errorf("LEADER_NOT_AVAILABLE: %s/%d has no live leader to ask ListOffsets", tp.Topic, tp.Partition)
		}
		return off, "", nil
	}
	switch {
	case target > latest:
		return latest, fmt.Sprintf("WARN: New offset (%d) is higher than latest offset for topic partition %s-%d. Value will be set to %d\n", target, tp.Topic, tp.Partition, latest), nil
	case target < earliest:
		return earliest, fmt.Sprintf("WARN: New offset (%d) is lower than earliest offset for topic partition %s-%d. Value will be set to %d\n", target, tp.Topic, tp.Partition, earliest), nil
	}
	return target, "", nil
}

// resetRefused is Kafka's refusal to reset an active group: an outcome.
type resetRefused struct{ err error }

func (e *resetRefused) Error() string { return e.err.Error() }
func (e *resetRefused) Outcome()      {}
