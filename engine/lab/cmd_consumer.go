package lab

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/loglab/loglab/engine/client"
	"github.com/loglab/loglab/engine/protocol"
)

var consumerCreateCommand = &command{
	name: "consumer create",
	usage: "consumer create NAME topics=T1,T2|assign=T/P,T/P [group=G] [auto.offset.reset=latest] [max.poll.records=500] " +
		"[fetch.min.bytes=1] [fetch.max.wait.ms=500] [group.protocol=classic|consumer] " +
		"[partition.assignment.strategy=range,cooperative-sticky] [group.remote.assignor=uniform|range] [group.instance.id=ID] " +
		"[enable.auto.commit=true] [auto.commit.interval.ms=5000] [session.timeout.ms=45000] [heartbeat.interval.ms=3000] " +
		"[max.poll.interval.ms=300000] [isolation.level=read_uncommitted|read_committed]",
	summary: "create a consumer: with group= it subscribes to topics= and joins the group (group.id); without, " +
		"topics= assigns all their partitions and assign= the ones named; read_committed reads up to the last stable offset and skips aborted transactions",
	run: func(l *Lab, a *args) (string, error) {
		if err := l.requireCluster(); err != nil {
			return "", err
		}
		name, err := onePositional(a, "consumer name")
		if err != nil {
			return "", err
		}
		cfg := client.DefaultConsumerConfig()
		topics := a.str("topics", "")
		assign := a.str("assign", "")
		cfg.AutoOffsetReset = a.enum("auto.offset.reset", cfg.AutoOffsetReset, "earliest", "latest", "none")
		cfg.MaxPollRecords = a.integer("max.poll.records", cfg.MaxPollRecords, 1, 100000)
		cfg.FetchMinBytes = int32(a.integer("fetch.min.bytes", int(cfg.FetchMinBytes), 0, 1<<26))
		cfg.FetchMaxWait = a.millisOrZero("fetch.max.wait.ms", cfg.FetchMaxWait)
		cfg.IsolationLevel = a.enum("isolation.level", cfg.IsolationLevel, client.ReadUncommitted, client.ReadCommitted)
		group, err := consumerGroupOptions(a, &cfg)
		if err != nil {
			return "", err
		}
		if err := a.finish(); err != nil {
			return "", err
		}
		if group {
			return createGroupConsumer(l, name, cfg, topics, assign)
		}
		var tps []protocol.TopicPartition
		switch {
		case topics != "" && assign != "":
			return "", fmt.Errorf("give topics= or assign=, not both")
		case topics != "":
			for _, t := range strings.Split(topics, ",") {
				info := l.cluster.Controller().Image().Topic(t)
				if info == nil {
					return "", fmt.Errorf("UNKNOWN_TOPIC_OR_PARTITION: no topic %q", t)
				}
				for i := range info.Partitions {
					tps = append(tps, protocol.TopicPartition{Topic: t, Partition: int32(i)})
				}
			}
		case assign != "":
			for _, s := range strings.Split(assign, ",") {
				t, p, err := parseTopicPartition(s)
				if err != nil {
					return "", err
				}
				tps = append(tps, protocol.TopicPartition{Topic: t, Partition: int32(p)})
			}
		default:
			return "", fmt.Errorf("missing topics= or assign=")
		}
		if _, err := l.cluster.CreateConsumer(name, cfg, tps); err != nil {
			return "", err
		}
		var names []string
		for _, tp := range tps {
			names = append(names, fmt.Sprintf("%s/%d", tp.Topic, tp.Partition))
		}
		return fmt.Sprintf("created consumer %s assigned %s (auto.offset.reset=%s)", name, strings.Join(names, ","), cfg.AutoOffsetReset), nil
	},
}

var pollCommand = &command{
	name:  "poll",
	usage: "poll CONSUMER [max=N] [timeout=1s] [process=0s] [hold=false]",
	summary: "poll for records (Kafka's poll(timeout)): returns what arrives first, up to max (max.poll.records by default); " +
		"the application processes them at once, or spends process= doing it (away from poll), or with hold=true keeps them " +
		"unprocessed until `process`, its next poll, or a crash loses them",
	run: func(l *Lab, a *args) (string, error) {
		if err := l.requireCluster(); err != nil {
			return "", err
		}
		name, err := onePositional(a, "consumer name")
		if err != nil {
			return "", err
		}
		maxRecords := a.integer("max", 0, 0, 100000)
		timeout := a.duration("timeout", time.Second)
		processing := a.has("process")
		process := a.duration("process", 0)
		hold := a.boolean("hold", false)
		if err := a.finish(); err != nil {
			return "", err
		}
		if hold && processing {
			return "", fmt.Errorf("give process= or hold=true, not both")
		}
		// A wait past the clock's maximum is a misuse, refused before the
		// consumer fetches anything.
		if err := l.cluster.CheckAdvance(timeout); err != nil {
			return "", fmt.Errorf("timeout=%v: %w", timeout, err)
		}
		co := l.cluster.Consumer(name)
		if co == nil {
			return "", fmt.Errorf("no consumer %q; create it with `consumer create %s topics=...`", name, name)
		}
		what, advice := fmt.Sprintf("timeout=%v", timeout), "poll with timeout= at most "
		if process > 0 {
			what, advice = fmt.Sprintf("timeout=%v process=%v", timeout, process), "poll with timeout= plus process= at most "
		}
		if err := l.costCheck(what, timeout+process, 0, func(fit time.Duration) string {
			return advice + roundDown(fit)
		}); err != nil {
			return "", err
		}
		if maxRecords == 0 {
			maxRecords = co.Config().MaxPollRecords
		}
		recs, pollErr := l.cluster.Poll(co, maxRecords, timeout)
		var b strings.Builder
		writeReprocessed(&b, l.cluster.ProcessedAtPoll())
		for _, r := range recs {
			fmt.Fprintf(&b, "%s/%d offset %d key=%s value=%s\n", r.TP.Topic, r.TP.Partition, r.Offset, nullable(r.Key), nullable(r.Value))
		}
		if pollErr != nil {
			return "", &pollFailed{err: fmt.Errorf("%s%w", b.String(), pollErr)}
		}
		if len(recs) == 0 {
			fmt.Fprintf(&b, "no records within %v", timeout)
			if processing || hold {
				b.WriteString(": nothing to process or hold")
			}
			b.WriteByte('\n')
		}
		if !hold && len(recs) > 0 {
			done, err := l.cluster.Process(co, process)
			if err != nil {
				return "", err
			}
			if processing {
				writeProcessed(&b, name, process, done)
			} else {
				writeReprocessed(&b, done)
			}
		}
		return strings.TrimSuffix(b.String(), "\n"), nil
	},
}

var seekCommand = &command{
	name:  "seek",
	usage: "seek CONSUMER TOPIC/PARTITION offset=N|to-time=TIMESTAMP",
	summary: "move a consumer's position in one partition: to an offset, or (offsetsForTimes, through the time index) to the " +
		"first record at or after a time, given as milliseconds since the epoch or yyyy-MM-ddTHH:mm:ss.SSS",
	run: func(l *Lab, a *args) (string, error) {
		if err := l.requireCluster(); err != nil {
			return "", err
		}
		offset := a.integer("offset", -1, 0, 1<<62)
		toTime := a.str("to-time", "")
		if err := a.finish(); err != nil {
			return "", err
		}
		if len(a.positional) != 2 || (offset < 0) == (toTime == "") {
			return "", fmt.Errorf("expected CONSUMER TOPIC/PARTITION and one of offset=N or to-time=TIMESTAMP")
		}
		co := l.cluster.Consumer(a.positional[0])
		if co == nil {
			return "", fmt.Errorf("no consumer %q", a.positional[0])
		}
		t, p, err := parseTopicPartition(a.positional[1])
		if err != nil {
			return "", err
		}
		tp := protocol.TopicPartition{Topic: t, Partition: int32(p)}
		how := ""
		if toTime != "" {
			ts, err := parseTimestamp(toTime)
			if err != nil {
				return "", err
			}
			off, ok, err := l.cluster.OffsetForTime(tp, ts)
			if err != nil {
				return "", err
			}
			if !ok {
				return "", fmt.Errorf("LEADER_NOT_AVAILABLE: %s has no live leader to ask ListOffsets", a.positional[1])
			}
			offset, how = int(off), fmt.Sprintf(" (the first record at or after %d, by the time index)", ts)
			if end, _ := l.cluster.LatestOffset(tp); off >= end {
				how = fmt.Sprintf(" (no record at or after %d: offsetsForTimes answers null, and the lab seeks to the end)", ts)
			}
		}
		if err := co.Seek(tp, int64(offset)); err != nil {
			return "", err
		}
		l.cluster.NoteSeek(co.GroupID(), tp) // a commit after it may go back
		return fmt.Sprintf("%s will read %s from offset %d%s", a.positional[0], a.positional[1], offset, how), nil
	},
}

// parseTimestamp reads milliseconds since the Unix epoch or a Kafka
// datetime (yyyy-MM-ddTHH:mm:ss.SSS, UTC unless a zone is given).
func parseTimestamp(s string) (int64, error) {
	if ms, err := strconv.ParseInt(s, 10, 64); err == nil {
		return ms, nil
	}
	ts, err := parseKafkaDatetime(s)
	if err != nil {
		return 0, fmt.Errorf("to-time=%s: expected milliseconds since the epoch or yyyy-MM-ddTHH:mm:ss.SSS", s)
	}
	return ts, nil
}

// pollFailed is an exception poll threw (such as OFFSET_OUT_OF_RANGE with
// auto.offset.reset=none): Kafka's answer, not a misuse of the command.
type pollFailed struct{ err error }

func (e *pollFailed) Error() string { return e.err.Error() }
func (e *pollFailed) Unwrap() error { return e.err }

// Outcome marks the error as the command's result rather than a misuse.
func (e *pollFailed) Outcome() {}
