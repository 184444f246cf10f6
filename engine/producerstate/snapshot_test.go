package producerstate

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"slices"
	"strings"
	"testing"
)

// crc32cBitwise is CRC-32C computed bit by bit from its definition
// (reflected polynomial 0x82F63B78), independent of hash/crc32's tables.
func crc32cBitwise(p []byte) uint32 {
	crc := ^uint32(0)
	for _, b := range p {
		crc ^= uint32(b)
		for range 8 {
			if crc&1 == 1 {
				crc = crc>>1 ^ 0x82F63B78
			} else {
				crc >>= 1
			}
		}
	}
	return ^crc
}

func TestCRC32CReference(t *testing.T) {
	// The standard check value of CRC-32C.
	if got := crc32cBitwise([]byte("123456789")); got != 0xE3069283 {
		t.Fatalf("reference CRC-32C %#x, want 0xe3069283", got)
	}
}

// golden lays a snapshot out field by field from Kafka's schema, with the
// CRC from the reference implementation.
func golden(t *testing.T, fields ...string) []byte {
	t.Helper()
	body, err := hex.DecodeString(strings.Join(fields, ""))
	if err != nil {
		t.Fatal(err)
	}
	out := []byte{0x00, 0x01} // version 1
	out = binary.BigEndian.AppendUint32(out, crc32cBitwise(body))
	return append(out, body...)
}

func TestSnapshotGolden(t *testing.T) {
	cases := []struct {
		name    string
		entries []Entry
		want    func(t *testing.T) []byte
	}{
		{name: "empty", want: func(t *testing.T) []byte { return golden(t, "00000000") }},
		{name: "one producer in a transaction", entries: []Entry{{
			ProducerID: 1, Epoch: 2, CoordinatorEpoch: -1, LastTimestamp: 1000, CurrentTxnFirstOffset: 18,
			Batches: []BatchMetadata{{LastSeq: 2, LastOffset: 17, OffsetDelta: 2, Timestamp: 900}, {LastSeq: 5, LastOffset: 20, OffsetDelta: 2, Timestamp: 1000}},
		}}, want: func(t *testing.T) []byte {
			return golden(t, "00000001",
				"0000000000000001", // producer_id
				"0002",             // epoch
				"00000005",         // last_sequence
				"0000000000000014", // last_offset 20
				"00000002",         // offset_delta
				"00000000000003e8", // timestamp 1000
				"ffffffff",         // coordinator_epoch -1
				"0000000000000012", // current_txn_first_offset 18
			)
		}},
		{name: "sorted by producer id; a producer known only by a marker", entries: []Entry{
			{ProducerID: 300, Epoch: 7, CoordinatorEpoch: 4, LastTimestamp: 5, CurrentTxnFirstOffset: -1},
			{ProducerID: 2, Epoch: 0, CoordinatorEpoch: -1, LastTimestamp: 6, CurrentTxnFirstOffset: -1,
				Batches: []BatchMetadata{{LastSeq: 0, LastOffset: 0, OffsetDelta: 0, Timestamp: 6}}},
		}, want: func(t *testing.T) []byte {
			return golden(t, "00000002",
				"0000000000000002", "0000", "00000000", "0000000000000000", "00000000", "0000000000000006", "ffffffff", "ffffffffffffffff",
				"000000000000012c", "0007", "ffffffff", "ffffffffffffffff", "00000000", "0000000000000005", "00000004", "ffffffffffffffff",
			)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := EncodeSnapshot(c.entries)
			if want := c.want(t); !bytes.Equal(got, want) {
				t.Fatalf("encoded\n%x\nwant\n%x", got, want)
			}
			back, err := DecodeSnapshot(got)
			if err != nil {
				t.Fatal(err)
			}
			if len(back) != len(c.entries) {
				t.Fatalf("decoded %d entries, want %d", len(back), len(c.entries))
			}
		})
	}
}

// TestSnapshotRecovery mirrors testRecoverFromSnapshotUnfinishedTransaction,
// testRecoverFromSnapshotFinishedTransaction and
// testRecoverFromSnapshotEmptyTransaction: the snapshot keeps only the last
// batch, the open transaction and the marker's timestamp.
func TestSnapshotRecovery(t *testing.T) {
	cases := []struct {
		name    string
		batches []Batch
		check   func(t *testing.T, e Entry, m *Manager)
	}{
		{name: "testRecoverFromSnapshotUnfinishedTransaction", batches: []Batch{one(0, 0, 0, true), one(0, 1, 1, true)},
			check: func(t *testing.T, e Entry, m *Manager) {
				if e.FirstDataOffset() != 1 || e.FirstSeq() != 1 || e.LastSeq() != 1 || e.CurrentTxnFirstOffset != 0 {
					t.Errorf("entry %+v, want only the batch at 1 and the transaction from 0", e)
				}
				if r := m.Append(one(0, 2, 2, true), Client); r.Err != nil {
					t.Errorf("append after recovery: %v", r.Err)
				}
			}},
		{name: "testRecoverFromSnapshotFinishedTransaction", batches: []Batch{one(0, 0, 0, true), one(0, 1, 1, true), marker(0, Abort, 0, 2)},
			check: func(t *testing.T, e Entry, m *Manager) {
				if e.FirstDataOffset() != 1 || e.LastSeq() != 1 || e.HasOngoingTxn() {
					t.Errorf("entry %+v, want the batch at 1 and no transaction", e)
				}
			}},
		{name: "testRecoverFromSnapshotEmptyTransaction", batches: []Batch{marker(0, Abort, 0, 0)},
			check: func(t *testing.T, e Entry, m *Manager) {
				if e.LastTimestamp != 1000 || e.HasOngoingTxn() || !e.IsEmpty() {
					t.Errorf("entry %+v, want the marker's timestamp and no batch", e)
				}
			}},
		{name: "only the last batch survives: older retries are no longer duplicates", batches: []Batch{one(0, 0, 0, false), one(0, 1, 1, false)},
			check: func(t *testing.T, e Entry, m *Manager) {
				if r := m.Append(one(0, 1, 9, false), Client); !r.Duplicate || r.Original.LastOffset != 1 {
					t.Errorf("retry of the last batch: %+v, want a duplicate of offset 1", r)
				}
				if r := m.Append(one(0, 0, 9, false), Client); !errors.Is(r.Err, OutOfOrderSequenceNumber) {
					t.Errorf("retry of an older batch: %v, want OUT_OF_ORDER_SEQUENCE_NUMBER", r.Err)
				}
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := NewManager(DefaultProducerIDExpirationMs)
			for _, b := range c.batches {
				if r := m.Append(b, b.originForTest()); r.Err != nil {
					t.Fatal(r.Err)
				}
			}
			entries, err := DecodeSnapshot(m.Snapshot())
			if err != nil {
				t.Fatal(err)
			}
			recovered := NewManager(DefaultProducerIDExpirationMs)
			recovered.Load(entries, 1000)
			e, ok := recovered.Entry(pid)
			if !ok {
				t.Fatal("producer lost")
			}
			c.check(t, e, recovered)
		})
	}
}

// TestLoadDropsExpiredProducers mirrors loadFromSnapshot's filter.
func TestLoadDropsExpiredProducers(t *testing.T) {
	entries := []Entry{
		{ProducerID: 1, Epoch: 0, LastTimestamp: 0, CurrentTxnFirstOffset: -1},
		{ProducerID: 2, Epoch: 0, LastTimestamp: 0, CurrentTxnFirstOffset: 4},
		{ProducerID: 3, Epoch: 0, LastTimestamp: 50, CurrentTxnFirstOffset: -1},
	}
	m := NewManager(100)
	m.Load(entries, 100)
	var ids []int64
	for _, e := range m.Producers() {
		ids = append(ids, e.ProducerID)
	}
	if !slices.Equal(ids, []int64{2, 3}) {
		t.Fatalf("loaded %v, want [2 3]", ids)
	}
}

// TestCorruptSnapshot mirrors readSnapshot's checks
// (testLoadFromCorruptSnapshotFile): every failure is a
// CorruptSnapshotError that says what is wrong.
func TestCorruptSnapshot(t *testing.T) {
	good := EncodeSnapshot([]Entry{{ProducerID: 1, CurrentTxnFirstOffset: -1}})
	flip := func(i int) []byte { b := bytes.Clone(good); b[i] ^= 0x40; return b }
	withVersion := func(v uint16) []byte { b := bytes.Clone(good); binary.BigEndian.PutUint16(b, v); return b }
	withCount := func(n uint32) []byte { b := bytes.Clone(good); binary.BigEndian.PutUint32(b[6:], n); return b }
	cases := []struct {
		name, data, want string
	}{
		{"empty file", "", "shorter than the 10-byte header"},
		{"truncated header", string(good[:7]), "shorter than the 10-byte header"},
		{"truncated entry", string(good[:len(good)-1]), "only 45 bytes available"},
		{"negative array size", string(withCount(0xffffffff)), "array size -1 cannot be negative"},
		{"unknown version", string(withVersion(2)), "unknown file version 2"},
		{"flipped bit in an entry", string(flip(20)), "CRC is no longer valid"},
		{"flipped bit in the CRC", string(flip(3)), "CRC is no longer valid"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := DecodeSnapshot([]byte(c.data))
			var ce *CorruptSnapshotError
			if !errors.As(err, &ce) || !errors.Is(err, ErrCorruptSnapshot) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want a corrupt snapshot error containing %q", err, c.want)
			}
		})
	}
}

func TestSnapshotFileName(t *testing.T) {
	if got := SnapshotFileName(1234); got != "00000000000000001234.snapshot" {
		t.Fatalf("got %s", got)
	}
}
