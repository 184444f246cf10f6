package cluster

import (
	"reflect"
	"strings"
	"testing"

	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/storage"
)

// The record of acknowledged data reads back what was written, keys and
// values of any bytes (none, empty, spaces, newlines) included; a torn last
// line is dropped, anything else damaged is refused naming the file.
func TestAckedFileRoundTrip(t *testing.T) {
	fs := storage.NewMem()
	c := &Cluster{fs: fs}
	if err := c.openAckedFile(); err != nil {
		t.Fatal(err)
	}
	recs := []AckedRecord{
		{TP: protocol.TopicPartition{Topic: "orders", Partition: 2}, Offset: 41, Key: []byte("k 1\n"), Value: []byte{}, Acks: -1, At: 1500},
		{TP: protocol.TopicPartition{Topic: "a.b-c_d", Partition: 0}, Offset: 0, Key: nil, Value: []byte("v"), Acks: 1, At: 0},
	}
	failed := []AckedRecord{{TP: protocol.TopicPartition{Topic: "orders", Partition: 0}, Offset: -1, Key: []byte("k"), Value: nil, Acks: -1, At: 9}}
	c.appendAcked("a", recs)
	c.appendAcked("f", failed)
	c.closeAckedFile()
	f, _ := fs.Open(AckedFile)
	f.Write([]byte("a orders 0 42 -1 1600 - bdm")) // torn by a crash
	f.Close()

	re := &Cluster{fs: fs}
	if err := re.openAckedFile(); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(re.acked, recs) || !reflect.DeepEqual(re.failed, failed) {
		t.Fatalf("read back %+v / %+v, want %+v / %+v", re.acked, re.failed, recs, failed)
	}
	re.appendAcked("a", recs[:1]) // appends after the cut, not after the torn bytes
	re.closeAckedFile()
	again := &Cluster{fs: fs}
	if err := again.openAckedFile(); err != nil || len(again.acked) != 3 {
		t.Fatalf("after appending past a torn line: %d records, %v", len(again.acked), err)
	}
	again.closeAckedFile()

	g, _ := fs.Create(AckedFile)
	g.Write([]byte("loglab-acked 1\na orders zero 1 -1 0 - -\n"))
	g.Close()
	if err := (&Cluster{fs: fs}).openAckedFile(); err == nil || !strings.Contains(err.Error(), AckedFile+" is damaged") || !strings.Contains(err.Error(), "line 2") {
		t.Fatalf("a damaged file: %v", err)
	}
}
