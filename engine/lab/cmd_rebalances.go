package lab

import (
	"fmt"
	"strings"
	"time"

	"github.com/loglab/loglab/engine/client"
	"github.com/loglab/loglab/engine/protocol"
)

var showRebalancesCommand = &command{
	name:  "show rebalances",
	usage: "show rebalances GROUP",
	summary: "every rebalance each member of the group took part in: when it started and ended, what the member revoked and " +
		"was assigned and when, how long it consumed nothing; then its rebalance metrics by Kafka's names",
	run: func(l *Lab, a *args) (string, error) {
		if err := l.requireCluster(); err != nil {
			return "", err
		}
		group, err := onePositional(a, "group id")
		if err != nil {
			return "", err
		}
		if err := a.finish(); err != nil {
			return "", err
		}
		var b strings.Builder
		found := false
		for _, co := range l.cluster.Consumers() {
			if co.GroupID() != group {
				continue
			}
			found = true
			writeRebalances(&b, co)
		}
		if !found {
			return "", fmt.Errorf("no consumer of the lab is in group %q", group)
		}
		return strings.TrimRight(b.String(), "\n"), nil
	},
}

func writeRebalances(b *strings.Builder, co *client.Consumer) {
	log := co.RebalanceLog()
	m := co.Metrics()
	latency := "NaN" // Kafka's Avg of no sample
	if m.RebalanceTotal > 0 {
		latency = fmt.Sprintf("%.0f ms", m.RebalanceLatencyAvgMs)
	}
	fmt.Fprintf(b, "%s (%s, %s): rebalance-total %d, rebalance-latency-avg %s, last-rebalance-seconds-ago %s, records-lag-max %s\n",
		co.ID, co.RebalanceProtocol(), co.Phase(), m.RebalanceTotal, latency, secondsText(m.LastRebalanceSecondsAgo), lagText(m.RecordsLagMax))
	for i, e := range log {
		end := "in progress"
		if e.End >= 0 {
			end = fmt.Sprintf("%v, took %v", e.End, e.End-e.Start)
		}
		epoch := "generation"
		if e.Protocol == client.GroupProtocolConsumer {
			epoch = "member epoch"
		}
		fmt.Fprintf(b, "  #%d %s from %v to %s (%s %d; %s)\n", i+1, e.Protocol, e.Start, end, epoch, e.Generation, e.Reason)
		if e.RevokedAt >= 0 {
			verb := "revoked"
			if e.Lost {
				verb = "lost"
			}
			fmt.Fprintf(b, "     %s %s at %v\n", verb, tpList(e.Revoked), e.RevokedAt)
		}
		if e.AssignedAt >= 0 {
			fmt.Fprintf(b, "     assigned %s at %v\n", tpList(e.Assigned), e.AssignedAt)
		}
		switch {
		case e.StoppedFrom < 0 && e.RevokedAt < 0 && e.AssignedAt < 0:
			b.WriteString("     nothing revoked, nothing assigned yet\n")
		case e.StoppedFrom < 0 && e.RevokedAt < 0:
			b.WriteString("     revoked nothing: it never stopped consuming\n")
		case e.StoppedFrom < 0:
			b.WriteString("     kept consuming the partitions it kept\n")
		case e.StoppedTo < 0:
			fmt.Fprintf(b, "     consumed nothing since %v\n", e.StoppedFrom)
		default:
			fmt.Fprintf(b, "     consumed nothing for %v (%v to %v)\n", e.StoppedTo-e.StoppedFrom, e.StoppedFrom, e.StoppedTo)
		}
	}
}

func tpList(tps []protocol.TopicPartition) string {
	if len(tps) == 0 {
		return "nothing"
	}
	parts := make([]string, len(tps))
	for i, tp := range tps {
		parts[i] = fmt.Sprintf("%s/%d", tp.Topic, tp.Partition)
	}
	return strings.Join(parts, ",")
}

func secondsText(s float64) string {
	if s < 0 {
		return "-"
	}
	return (time.Duration(s * float64(time.Second))).Round(time.Millisecond).String()
}

func lagText(n int64) string {
	if n < 0 {
		return "-"
	}
	return fmt.Sprint(n)
}
