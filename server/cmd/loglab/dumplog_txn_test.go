package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loglab/loglab/engine/producerstate"
	"github.com/loglab/loglab/engine/record"
	"github.com/loglab/loglab/engine/txn/txnindex"
	"github.com/loglab/loglab/engine/txn/txnlog"
)

// The files a transactional partition adds, producer state snapshots and
// aborted transaction indexes, dump natively as kafka-dump-log prints
// them; a corrupt snapshot is reported on stderr and the dump goes on.
func TestDumpLogProducerSnapshotAndTxnIndex(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	snap := write("00000000000000000005.snapshot", producerstate.EncodeSnapshot([]producerstate.Entry{
		{ProducerID: 3, Epoch: 1, CoordinatorEpoch: 0, LastTimestamp: 1700000000004, CurrentTxnFirstOffset: 2,
			Batches: []producerstate.BatchMetadata{{LastSeq: 4, LastOffset: 4, OffsetDelta: 2, Timestamp: 1700000000004}}},
	}))
	idx := write("00000000000000000000.txnindex", txnindex.Encode([]txnindex.AbortedTxn{txnindex.NewAbortedTxn(3, 0, 4, 0)}))
	bad := write("00000000000000000009.snapshot", []byte{0, 1, 0, 0})

	code, stdout, stderr := runCLI(t, "", "dump-log", snap, bad, idx)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	want := "Dumping " + snap + "\n" +
		"producerId: 3 producerEpoch: 1 coordinatorEpoch: 0 currentTxnFirstOffset: OptionalLong[2] lastTimestamp: 1700000000004 firstSequence: 2 lastSequence: 4 lastOffset: 4 offsetDelta: 2 timestamp: 1700000000004\n" +
		"Dumping " + bad + "\n" +
		"Dumping " + idx + "\n" +
		"version: 0 producerId: 3 firstOffset: 0 lastOffset: 4 lastStableOffset: 0\n"
	if stdout != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", stdout, want)
	}
	if wantErr := "Snapshot failed schema validation: the file ends after 4 bytes, inside the crc (" + bad + ")\n"; stderr != wantErr {
		t.Errorf("stderr %q, want %q", stderr, wantErr)
	}
}

// -transaction-log-decoder decodes __transaction_state records.
func TestDumpLogTransactionLogDecoder(t *testing.T) {
	key, err := txnlog.EncodeKey(txnlog.Key{TransactionalID: "t1"})
	if err != nil {
		t.Fatal(err)
	}
	v := txnlog.NewValue()
	v.ProducerID, v.TransactionTimeoutMs, v.TransactionStatus = 3, 60000, txnlog.Empty
	v.TransactionLastUpdateTimestampMs, v.TransactionStartTimestampMs = 1700000000000, -1
	value, err := txnlog.EncodeValue(txnlog.ValueVersionFlexible, v)
	if err != nil {
		t.Fatal(err)
	}
	enc, err := (&record.Batch{LastOffsetDelta: 0, BaseTimestamp: 1700000000000, MaxTimestamp: 1700000000000,
		ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1,
		Records: []record.Record{{Key: key, Value: value}}}).AppendEncoded(nil)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "00000000000000000000.log")
	if err := os.WriteFile(path, enc, 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI(t, "", "dump-log", "-transaction-log-decoder", path)
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if want := ` key: {"type":"0","data":{"transactionalId":"t1"}} payload: {"version":"1","data":{"producerId":3,"producerEpoch":0,"transactionTimeoutMs":60000,"transactionStatus":"Empty",`; !strings.Contains(stdout, want) {
		t.Errorf("missing %q in:\n%s", want, stdout)
	}
}
