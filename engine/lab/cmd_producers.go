package lab

import (
	"fmt"
	"strconv"
)

var showProducersCommand = &command{
	name:    "show producers",
	usage:   "show producers TOPIC/PARTITION [broker=ID]",
	summary: "the idempotent and transactional producers a partition's leader (or broker=ID's replica) remembers, as kafka-transactions.sh describe-producers prints them",
	run: func(l *Lab, a *args) (string, error) {
		if err := l.requireCluster(); err != nil {
			return "", err
		}
		broker := a.integer("broker", 0, 1, 1000)
		if err := a.finish(); err != nil {
			return "", err
		}
		topic, partition, plog, err := l.partitionArg(a, broker)
		if err != nil {
			return "", err
		}
		headers := []string{"ProducerId", "ProducerEpoch", "LatestCoordinatorEpoch", "LastSequence", "LastTimestamp", "CurrentTransactionStartOffset"}
		var rows [][]string
		for _, e := range plog.Producers() {
			start := "None"
			if e.CurrentTxnFirstOffset >= 0 {
				start = strconv.FormatInt(e.CurrentTxnFirstOffset, 10)
			}
			rows = append(rows, []string{strconv.FormatInt(e.ProducerID, 10), strconv.Itoa(int(e.Epoch)), strconv.Itoa(int(e.CoordinatorEpoch)),
				strconv.Itoa(int(e.LastSeq())), strconv.FormatInt(e.LastTimestamp, 10), start})
		}
		if len(rows) == 0 {
			return fmt.Sprintf("%s/%d: no idempotent or transactional producer has written here (or every one expired after producer.id.expiration.ms)\n", topic, partition) + prettyTable(headers, nil), nil
		}
		return prettyTable(headers, rows), nil
	},
}
