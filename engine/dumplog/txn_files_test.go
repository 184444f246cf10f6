package dumplog

import (
	"bytes"
	"encoding/binary"
	"flag"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/loglab/loglab/engine/producerstate"
	"github.com/loglab/loglab/engine/record"
	"github.com/loglab/loglab/engine/txn/txnindex"
	"github.com/loglab/loglab/engine/txn/txnlog"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

// golden compares got with testdata/name; -update rewrites the file. The
// golden files were checked line by line against DumpLogSegments.scala's
// format strings.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	expectText(t, got, string(want))
}

// dumpBoth runs Dump and returns what went to the main and error writers.
func dumpBoth(t *testing.T, name string, data []byte, opts Options) (out, errOut string) {
	t.Helper()
	var o, e bytes.Buffer
	opts.Err = &e
	if err := Dump(&o, name, bytes.NewReader(data), int64(len(data)), opts); err != nil {
		t.Fatal(err)
	}
	return o.String(), e.String()
}

const snapshotName = "00000000000000000013.snapshot"

// snapshotEntries: an idempotent producer, a transactional one with an
// open transaction whose sequence wrapped, and a producer known only from
// its transaction marker (no batch left: lastOffset -1 in the file).
func snapshotEntries() []producerstate.Entry {
	return []producerstate.Entry{
		{ProducerID: 1000, Epoch: 2, CoordinatorEpoch: 5, LastTimestamp: ts + 30, CurrentTxnFirstOffset: 12,
			Batches: []producerstate.BatchMetadata{{LastSeq: 1, LastOffset: 12, OffsetDelta: 2, Timestamp: ts + 30}}},
		{ProducerID: 7, Epoch: 0, CoordinatorEpoch: -1, LastTimestamp: ts + 15, CurrentTxnFirstOffset: -1,
			Batches: []producerstate.BatchMetadata{
				{LastSeq: 9, LastOffset: 2, OffsetDelta: 0, Timestamp: ts + 2},
				{LastSeq: 11, LastOffset: 4, OffsetDelta: 1, Timestamp: ts + 15}}},
		{ProducerID: 2000, Epoch: 4, CoordinatorEpoch: 1, LastTimestamp: ts + 40, CurrentTxnFirstOffset: -1},
	}
}

// DumpLogSegments.dumpProducerIdSnapshot on a file ProducerStateManager
// wrote (producerstate.EncodeSnapshot): producers in id order, the last
// batch of each, OptionalLong for the open transaction.
func TestDumpProducerSnapshot(t *testing.T) {
	out, errOut := dumpBoth(t, snapshotName, producerstate.EncodeSnapshot(snapshotEntries()), Options{})
	if errOut != "" {
		t.Errorf("error output: %q", errOut)
	}
	golden(t, "producer_snapshot.golden", out)
}

// A corrupt snapshot is a CorruptSnapshotException with Kafka's message
// (readSnapshot's order of checks), the file named after it; nothing else
// is printed and the dump does not fail.
func TestDumpCorruptProducerSnapshot(t *testing.T) {
	good := producerstate.EncodeSnapshot(snapshotEntries())
	with := func(edit func(b []byte) []byte) []byte { return edit(bytes.Clone(good)) }
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"empty file", nil,
			"Snapshot failed schema validation: the file ends after 0 bytes, inside the version"},
		{"unknown version", with(func(b []byte) []byte { b[1] = 2; return b }),
			"Snapshot failed schema validation: Snapshot contained an unknown file version 2"},
		{"cut in the crc", good[:4],
			"Snapshot failed schema validation: the file ends after 4 bytes, inside the crc"},
		{"cut in the count", good[:8],
			"Snapshot failed schema validation: the file ends after 8 bytes, inside the producer entries' count"},
		{"negative count", with(func(b []byte) []byte { binary.BigEndian.PutUint32(b[6:], 0xffffffff); return b }),
			"Snapshot failed schema validation: non-nullable field producerEntries was serialized as null"},
		{"count above the bytes left", with(func(b []byte) []byte { binary.BigEndian.PutUint32(b[6:], 1000); return b }),
			"Snapshot failed schema validation: Tried to allocate a collection of size 1000, but there are only 138 bytes remaining."},
		{"cut in an entry", good[:10+46+20],
			"Snapshot failed schema validation: the file ends after 76 bytes, inside producer entry 1 of 3 (each is 46 bytes)"},
		{"flipped bit", with(func(b []byte) []byte { b[20] ^= 1; return b }),
			"Snapshot is corrupt (CRC is no longer valid). Stored crc: " + crcOf(good) + ". Computed crc: " + crcOf(with(func(b []byte) []byte { b[20] ^= 1; return b }))},
		{"trailing bytes the crc does not cover", append(bytes.Clone(good), 0),
			"Snapshot is corrupt (CRC is no longer valid). Stored crc: " + crcOf(good) + ". Computed crc: " + crcOf(append(bytes.Clone(good), 0))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := producerstate.DecodeSnapshot(tc.data); err == nil {
				t.Fatal("producerstate reads this snapshot: the case proves nothing")
			}
			out, errOut := dumpBoth(t, snapshotName, tc.data, Options{})
			expectText(t, out, "Dumping "+snapshotName+"\n")
			expectText(t, errOut, tc.want+" ("+snapshotName+")\n")
		})
	}
}

// crcOf is a snapshot's CRC32C as Kafka computes it, in decimal: over
// everything after the CRC field.
func crcOf(b []byte) string {
	return strconv.FormatUint(uint64(crc32.Checksum(b[6:], crc32.MakeTable(crc32.Castagnoli))), 10)
}

// DumpLogSegments.dumpTxnIndex on a file TransactionIndex wrote
// (txnindex.Encode), with a torn entry at its end, which Kafka ignores
// and loglab reports on the error writer.
func TestDumpTxnIndex(t *testing.T) {
	const name = "00000000000000000010.txnindex"
	data := txnindex.Encode([]txnindex.AbortedTxn{
		txnindex.NewAbortedTxn(7, 10, 14, 10),
		txnindex.NewAbortedTxn(1000, 12, 20, 15),
	})
	out, errOut := dumpBoth(t, name, append(data, 1, 2, 3), Options{})
	golden(t, "txnindex.golden", out)
	expectText(t, errOut, "Found 3 bytes after the last complete entry of "+name+", too few for an entry (34 bytes); Kafka ignores them\n")

	// An entry of an unknown version: Kafka's exception, nothing printed.
	bad := bytes.Clone(data)
	bad[txnindex.EntrySize] = 1 // Kafka reads the version's first byte only (AbortedTxn.version)
	out, errOut = dumpBoth(t, name, bad, Options{})
	expectText(t, out, "Dumping "+name+"\n")
	expectText(t, errOut, "Unexpected aborted transaction version 1 in transaction index "+name+", current version is 0\n")

	out, errOut = dumpBoth(t, name, nil, Options{})
	if out != "Dumping "+name+"\n" || errOut != "" {
		t.Errorf("an empty index printed %q, %q", out, errOut)
	}
}

// --transaction-log-decoder on a __transaction_state segment written from
// txnlog's encoders: a transaction's Ongoing, PrepareCommit and
// CompleteCommit records, then a tombstone.
func TestTransactionLogDecoder(t *testing.T) {
	key, err := txnlog.EncodeKey(txnlog.Key{TransactionalID: "txn-1"})
	if err != nil {
		t.Fatal(err)
	}
	value := func(state txnlog.TransactionState, epoch int16, partitions []txnlog.TopicPartitions) []byte {
		v := txnlog.NewValue()
		v.ProducerID, v.ProducerEpoch, v.TransactionTimeoutMs, v.TransactionStatus = 1000, epoch, 60000, state
		v.TransactionPartitions = partitions
		v.TransactionLastUpdateTimestampMs, v.TransactionStartTimestampMs = ts+1, ts
		b, err := txnlog.EncodeValue(txnlog.ValueVersionFlexible, v)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	orders := []txnlog.TopicPartitions{{Topic: "orders", PartitionIDs: []int32{0, 2}}}
	batch := record.Batch{BaseOffset: 0, LastOffsetDelta: 3, BaseTimestamp: ts, MaxTimestamp: ts,
		ProducerID: record.NoProducerID, ProducerEpoch: record.NoProducerEpoch, BaseSequence: record.NoSequence,
		Records: []record.Record{
			{OffsetDelta: 0, Key: key, Value: value(txnlog.Ongoing, 0, orders)},
			{OffsetDelta: 1, Key: key, Value: value(txnlog.PrepareCommit, 1, orders)},
			{OffsetDelta: 2, Key: key, Value: value(txnlog.CompleteCommit, 1, []txnlog.TopicPartitions{})},
			{OffsetDelta: 3, Key: key, Value: nil},
		}}
	out, errOut := dumpBoth(t, segName, encode(t, batch), Options{TransactionLogDecoder: true})
	if errOut != "" {
		t.Errorf("error output: %q", errOut)
	}
	golden(t, "transaction_log_decoder.golden", out)
}

// No file makes the new dumps fail or panic, and the snapshot checks that
// give Kafka's messages agree with producerstate's reader on which files
// are corrupt.
func FuzzTxnFiles(f *testing.F) {
	good := producerstate.EncodeSnapshot(snapshotEntries())
	f.Add(good)
	f.Add(good[:len(good)-5])
	f.Add(txnindex.Encode([]txnindex.AbortedTxn{txnindex.NewAbortedTxn(7, 10, 14, 10)}))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, name := range []string{snapshotName, "00000000000000000000.txnindex"} {
			if err := Dump(io.Discard, name, bytes.NewReader(data), int64(len(data)), Options{}); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		}
		if err := Dump(io.Discard, segName, bytes.NewReader(data), int64(len(data)), Options{TransactionLogDecoder: true}); err != nil {
			t.Fatal(err)
		}
		_, err := producerstate.DecodeSnapshot(data)
		if msg := snapshotCorruption(data); (msg == "") != (err == nil) {
			t.Fatalf("snapshotCorruption %q but producerstate.DecodeSnapshot: %v", msg, err)
		}
	})
}
