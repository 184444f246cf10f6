package lab

import (
	"strconv"

	"github.com/loglab/loglab/engine/log"
)

// SegmentsAProduceMayRoll estimates, without running it, how many new
// segments the produce on line may open across its topic's replicas: the
// bytes every replica would append (checkProduce's estimate) divided by
// the topic's segment.bytes. 0 for any other line, or one the lab would
// refuse. A driver keeping files open for every segment (the workshop
// server's descriptor budget) asks before running the line: with
// segment.bytes at its minimum a single `produce … count=10000` rolls a
// segment per record, three files each on every replica.
func (l *Lab) SegmentsAProduceMayRoll(line string) int {
	if l.cluster == nil {
		return 0
	}
	tokens, err := tokenize(line)
	if err != nil {
		return 0
	}
	cmd, rest, err := lookup(tokens)
	if err != nil || cmd != produceCommand {
		return 0
	}
	a, err := parseArgs(rest)
	if err != nil || len(a.positional) != 1 {
		return 0
	}
	count, err := strconv.Atoi(a.options["count"])
	if _, given := a.options["count"]; !given {
		count, err = 1, nil
	}
	if err != nil || count < 1 || count > l.limits.recordsPerProduce {
		return 0
	}
	var topicCfg [][2]string
	rf := 0
	for _, t := range l.cluster.Topics() {
		if t.Name == a.positional[0] && len(t.Partitions) > 0 {
			topicCfg, rf = t.Configs, len(t.Partitions[0].Replicas)
		}
	}
	if rf == 0 {
		return 0
	}
	cfg := log.DefaultConfig()
	for _, kv := range topicCfg {
		if log.IsSetting(kv[0]) {
			cfg.Set(kv[0], kv[1]) // validated when the topic was created
		}
	}
	bytes := expandedBytes(a.options["value"], count)
	if _, hasKey := a.options["key"]; hasKey {
		bytes += expandedBytes(a.options["key"], count)
	}
	perReplica := bytes + int64(count)*produceRecordOverhead
	rolls := min(int64(count), perReplica/max(cfg.SegmentBytes, 1)+1)
	if perReplica < cfg.SegmentBytes {
		rolls = 0 // smaller than a segment: at most the roll a single record may cause, which the budget's slack holds
	}
	return int(rolls) * rf
}
