package lab

import (
	"fmt"
	"slices"
	"strings"

	"github.com/loglab/loglab/engine/protocol"
)

var showISRCommand = &command{
	name:    "show isr",
	usage:   "show isr TOPIC/PARTITION",
	summary: "the partition's leader, epoch and ISR, and every replica's log end offset and high watermark (and last stable offset while a transaction holds it below the high watermark)",
	run: func(l *Lab, a *args) (string, error) {
		if err := l.requireCluster(); err != nil {
			return "", err
		}
		if err := a.finish(); err != nil {
			return "", err
		}
		tp, err := onePositional(a, "TOPIC/PARTITION")
		if err != nil {
			return "", err
		}
		topic, partition, err := parseTopicPartition(tp)
		if err != nil {
			return "", err
		}
		p, err := l.cluster.PartitionInfo(topic, partition)
		if err != nil {
			return "", err
		}
		leader := fmt.Sprint(p.Leader)
		if p.Leader < 0 {
			leader = "none"
		}
		var b strings.Builder
		fmt.Fprintf(&b, "%s/%d leader=%s leaderEpoch=%d isr=%s replicas=%s", topic, partition, leader, p.LeaderEpoch, protocol.JoinIDs(p.ISR), protocol.JoinIDs(p.Replicas))
		for _, id := range p.Replicas {
			br := l.cluster.Broker(int(id))
			if !br.Alive() {
				fmt.Fprintf(&b, "\n  broker %d: down", id)
				continue
			}
			tp := protocol.TopicPartition{Topic: topic, Partition: int32(partition)}
			r := br.Replica(tp)
			if r == nil && slices.Contains(br.Offline(), tp) {
				fmt.Fprintf(&b, "\n  broker %d: offline (its log directory failed: KAFKA_STORAGE_ERROR until the broker restarts)", id)
				continue
			}
			if r == nil {
				fmt.Fprintf(&b, "\n  broker %d: no replica yet", id)
				continue
			}
			role := "follower"
			if r.IsLeader() {
				role = "leader"
			}
			fmt.Fprintf(&b, "\n  broker %d: %s epoch %d, log end offset %d, high watermark %d", id, role, r.LeaderEpoch, r.Log.EndOffset(), r.HW)
			if lso := r.LastStableOffset(); lso != r.HW {
				// An open transaction holds read_committed readers back.
				fmt.Fprintf(&b, ", last stable offset %d", lso)
			}
			fmt.Fprintf(&b, ", metadata offset %d", br.MetadataOffset())
		}
		return b.String(), nil
	},
}

var showMetadataCommand = &command{
	name:    "show metadata",
	usage:   "show metadata [from=OFFSET]",
	summary: "the __cluster_metadata log: every decision the controller committed",
	run: func(l *Lab, a *args) (string, error) {
		if err := l.requireCluster(); err != nil {
			return "", err
		}
		from := a.integer("from", 0, 0, 1<<62)
		if err := noPositional(a); err != nil {
			return "", err
		}
		if err := a.finish(); err != nil {
			return "", err
		}
		var lines []string
		recs, start, err := l.cluster.MetadataLog().ReadLog(int64(from))
		if err != nil {
			lines = append(lines, fmt.Sprintf("(offsets below %d were compacted into a snapshot; only the image remembers them)", start))
		}
		for _, r := range recs {
			lines = append(lines, r.Describe())
		}
		if len(lines) == 0 {
			return "no metadata records from offset " + fmt.Sprint(from), nil
		}
		return strings.Join(lines, "\n"), nil
	},
}

var showNetworkCommand = &command{
	name:    "show network",
	usage:   "show network",
	summary: "faults in force and the messages in flight",
	run: func(l *Lab, a *args) (string, error) {
		if err := l.noArgs(a); err != nil {
			return "", err
		}
		var b strings.Builder
		b.WriteString(l.cluster.Network().Describe())
		for _, e := range l.cluster.InFlight() {
			fmt.Fprintf(&b, "\n  #%d %s %s -> %s (sent %v, arrives %v)", e.ID, e.Msg.Kind(), e.From, e.To, e.SentAt, e.DeliverAt)
		}
		return b.String(), nil
	},
}

var showBrokersCommand = &command{
	name:    "show brokers",
	usage:   "show brokers",
	summary: "each broker: running or down, fenced or not, broker epoch, metadata offset",
	run: func(l *Lab, a *args) (string, error) {
		if err := l.requireCluster(); err != nil {
			return "", err
		}
		if err := a.finish(); err != nil {
			return "", err
		}
		var lines []string
		for _, br := range l.cluster.Brokers() {
			state := "running"
			if !br.Alive() {
				state = "down"
			}
			fenced := "unregistered"
			epoch := int64(0)
			if bi := l.cluster.Controller().Image().Broker(br.ID); bi != nil {
				fenced, epoch = map[bool]string{true: "fenced", false: "unfenced"}[bi.Fenced], bi.Epoch
			}
			lines = append(lines, fmt.Sprintf("broker %d: %s, %s, broker epoch %d, metadata offset %d", br.ID, state, fenced, epoch, br.MetadataOffset()))
		}
		return strings.Join(lines, "\n"), nil
	},
}
