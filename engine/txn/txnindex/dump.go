package txnindex

import (
	"fmt"
	"strings"
)

// DumpLine is the line DumpLogSegments.dumpTxnIndex prints for one entry.
func (t AbortedTxn) DumpLine() string {
	return fmt.Sprintf("version: %d producerId: %d firstOffset: %d lastOffset: %d lastStableOffset: %d",
		t.KafkaVersion(), t.ProducerID, t.FirstOffset, t.LastOffset, t.LastStableOffset)
}

// Dump is what `kafka-dump-log.sh --files X.txnindex` prints after its
// "Dumping X.txnindex" header: one DumpLine per entry, each ending in a
// newline. dumpTxnIndex calls allAbortedTxns before printing anything, so
// on a bad version nothing is printed and the tool fails with the error.
func Dump(path string, data []byte) (string, error) {
	d, err := Decode(path, data)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, t := range d.Entries {
		b.WriteString(t.DumpLine())
		b.WriteByte('\n')
	}
	return b.String(), nil
}
