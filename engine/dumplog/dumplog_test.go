package dumplog

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"strings"
	"testing"

	"github.com/loglab/loglab/engine/record"
)

const segName = "00000000000000000000.log"

func encode(t testing.TB, b record.Batch) []byte {
	t.Helper()
	enc, err := b.AppendEncoded(nil)
	if err != nil {
		t.Fatal(err)
	}
	return enc
}

func unhex(t testing.TB, parts ...string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(strings.Join(parts, ""), " ", ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

const ts = 1700000000000

// plainBatch: keyed and null-key records, a header, an empty and a null
// (tombstone) value; no producer id, as a plain producer writes.
func plainBatch() record.Batch {
	return record.Batch{
		BaseOffset: 0, PartitionLeaderEpoch: 0, LastOffsetDelta: 2,
		BaseTimestamp: ts, MaxTimestamp: ts + 2,
		ProducerID: record.NoProducerID, ProducerEpoch: record.NoProducerEpoch, BaseSequence: record.NoSequence,
		Records: []record.Record{
			{OffsetDelta: 0, Key: []byte("order-1"), Value: []byte("created"), Headers: []record.Header{{Key: "trace", Value: []byte("t1")}, {Key: "v", Value: nil}}},
			{OffsetDelta: 1, TimestampDelta: 1, Key: nil, Value: []byte("")},
			{OffsetDelta: 2, TimestampDelta: 2, Key: []byte("order-1"), Value: nil},
		},
	}
}

// gzipBatch: compressed, from an idempotent producer.
func gzipBatch() record.Batch {
	return record.Batch{
		BaseOffset: 3, PartitionLeaderEpoch: 1, Attributes: record.ComputeAttributes(record.Gzip, record.CreateTime, false, false),
		LastOffsetDelta: 1, BaseTimestamp: ts + 10, MaxTimestamp: ts + 15,
		ProducerID: 7, ProducerEpoch: 0, BaseSequence: 10,
		Records: []record.Record{
			{OffsetDelta: 0, TimestampDelta: 5, Key: []byte("k"), Value: []byte("v1")},
			{OffsetDelta: 1, TimestampDelta: 0, Key: []byte("k"), Value: []byte("v2")},
		},
	}
}

func controlBatch() record.Batch {
	return record.NewControlBatch(5, ts+20, 7, 0, 1, record.EndTxnMarker{Type: record.Commit, CoordinatorEpoch: 3})
}

// segment is the three batches back to back, and where each starts.
func segment(t testing.TB) ([]byte, []int) {
	var seg []byte
	var pos []int
	for _, b := range []record.Batch{plainBatch(), gzipBatch(), controlBatch()} {
		pos = append(pos, len(seg))
		seg = append(seg, encode(t, b)...)
	}
	return seg, pos
}

func dump(t *testing.T, name string, data []byte, opts Options) string {
	t.Helper()
	var out bytes.Buffer
	if err := Dump(&out, name, bytes.NewReader(data), int64(len(data)), opts); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

func batchCRC(raw []byte) uint32 { return binary.BigEndian.Uint32(raw[17:]) }

func expectText(t *testing.T, got, want string) {
	t.Helper()
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestLogPrintDataLog(t *testing.T) {
	seg, pos := segment(t)
	b0, b1, b2 := seg[pos[0]:pos[1]], seg[pos[1]:pos[2]], seg[pos[2]:]
	want := fmt.Sprintf(`Dumping %s
Log starting offset: 0
baseOffset: 0 lastOffset: 2 count: 3 baseSequence: -1 lastSequence: -1 producerId: -1 producerEpoch: -1 partitionLeaderEpoch: 0 isTransactional: false isControl: false deleteHorizonMs: OptionalLong.empty position: 0 CreateTime: 1700000000002 size: %d magic: 2 compresscodec: none crc: %d isvalid: true
| offset: 0 CreateTime: 1700000000000 keySize: 7 valueSize: 7 sequence: -1 headerKeys: [trace,v] key: order-1 payload: created
| offset: 1 CreateTime: 1700000000001 keySize: -1 valueSize: 0 sequence: -1 headerKeys: [] payload: 
| offset: 2 CreateTime: 1700000000002 keySize: 7 valueSize: -1 sequence: -1 headerKeys: [] key: order-1
baseOffset: 3 lastOffset: 4 count: 2 baseSequence: 10 lastSequence: 11 producerId: 7 producerEpoch: 0 partitionLeaderEpoch: 1 isTransactional: false isControl: false deleteHorizonMs: OptionalLong.empty position: %d CreateTime: 1700000000015 size: %d magic: 2 compresscodec: gzip crc: %d isvalid: true
| offset: 3 CreateTime: 1700000000015 keySize: 1 valueSize: 2 sequence: 10 headerKeys: [] key: k payload: v1
| offset: 4 CreateTime: 1700000000010 keySize: 1 valueSize: 2 sequence: 11 headerKeys: [] key: k payload: v2
baseOffset: 5 lastOffset: 5 count: 1 baseSequence: -1 lastSequence: -1 producerId: 7 producerEpoch: 0 partitionLeaderEpoch: 1 isTransactional: true isControl: true deleteHorizonMs: OptionalLong.empty position: %d CreateTime: 1700000000020 size: %d magic: 2 compresscodec: none crc: %d isvalid: true
| offset: 5 CreateTime: 1700000000020 keySize: 4 valueSize: 6 sequence: -1 headerKeys: [] endTxnMarker: COMMIT coordinatorEpoch: 3
`, segName, len(b0), batchCRC(b0), pos[1], len(b1), batchCRC(b1), pos[2], len(b2), batchCRC(b2))
	expectText(t, dump(t, segName, seg, Options{PrintDataLog: true}), want)

	// The same through File and Log.
	for _, f := range []func(io.Writer, string, io.ReaderAt, int64, bool) error{File, Log} {
		var out bytes.Buffer
		if err := f(&out, segName, bytes.NewReader(seg), int64(len(seg)), true); err != nil {
			t.Fatal(err)
		}
		expectText(t, out.String(), want)
	}
}

// Without --print-data-log Kafka prints batch lines only; --deep-iteration
// adds the record lines without keys and payloads.
func TestLogWithoutPrintDataLog(t *testing.T) {
	seg, _ := segment(t)
	got := dump(t, segName, seg, Options{})
	if n := strings.Count(got, "\n"); n != 5 || strings.Contains(got, "| offset") {
		t.Errorf("want the two header lines and three batch lines, got:\n%s", got)
	}
	got = dump(t, segName, seg, Options{DeepIteration: true})
	if strings.Count(got, "| offset") != 6 || strings.Contains(got, "key: ") || strings.Contains(got, "payload:") {
		t.Errorf("deep iteration without data:\n%s", got)
	}
	if !strings.Contains(got, "headerKeys: [trace,v]\n") || !strings.Contains(got, "endTxnMarker: COMMIT coordinatorEpoch: 3\n") {
		t.Errorf("deep iteration without data:\n%s", got)
	}
}

// handBatch is written out field by field from DefaultRecordBatch's layout:
// LogAppendTime, a producer sequence about to wrap, a null header value and
// a payload that is not valid UTF-8.
func handBatch(t testing.TB) []byte {
	return unhex(t,
		"0000000000000064", // baseOffset 100
		"0000004b",         // batchLength 75 = 87 - 12
		"00000003",         // partitionLeaderEpoch 3
		"02",               // magic
		"305ffcb2",         // crc
		"0008",             // attributes: none, LogAppendTime
		"00000001",         // lastOffsetDelta 1
		"0000018bcfe56800", // baseTimestamp 1700000000000
		"0000018bcfe56809", // maxTimestamp 1700000000009
		"0000000000000007", // producerId 7
		"0002",             // producerEpoch 2
		"7fffffff",         // baseSequence 2147483647: the next one wraps to 0
		"00000002",         // recordCount 2
		// record 0
		"1a",      // length 13
		"00",      // attributes
		"00",      // timestampDelta 0
		"00",      // offsetDelta 0
		"02 61",   // key "a"
		"04 6869", // value "hi"
		"02",      // headerCount 1
		"04 6831", // header key "h1"
		"01",      // header value null
		// record 1
		"16",            // length 11
		"00",            // attributes
		"12",            // timestampDelta 9
		"02",            // offsetDelta 1
		"01",            // key null
		"0a 78ff79e282", // value: "x", 0xff, "y", then a cut-off 3-byte sequence
		"00",            // headerCount 0
	)
}

func TestBatchHandWritten(t *testing.T) {
	raw := handBatch(t)
	if _, _, err := record.Decode(raw); err != nil {
		t.Fatalf("the hand-written batch does not decode: %v", err)
	}
	var out bytes.Buffer
	if err := Batch(&out, 1234, raw, true); err != nil {
		t.Fatal(err)
	}
	expectText(t, out.String(), `baseOffset: 100 lastOffset: 101 count: 2 baseSequence: 2147483647 lastSequence: 0 producerId: 7 producerEpoch: 2 partitionLeaderEpoch: 3 isTransactional: false isControl: false deleteHorizonMs: OptionalLong.empty position: 1234 LogAppendTime: 1700000000009 size: 87 magic: 2 compresscodec: none crc: 811596978 isvalid: true
| offset: 100 LogAppendTime: 1700000000009 keySize: 1 valueSize: 2 sequence: 2147483647 headerKeys: [h1] key: a payload: hi
| offset: 101 LogAppendTime: 1700000000009 keySize: -1 valueSize: 5 sequence: 0 headerKeys: [] payload: x`+"\uFFFD"+`y`+"\uFFFD"+`
`)
	// Without data, Batch still lists the records.
	out.Reset()
	if err := Batch(&out, 0, raw, false); err != nil {
		t.Fatal(err)
	}
	if strings.Count(out.String(), "| offset") != 2 || strings.Contains(out.String(), "payload") {
		t.Errorf("Batch without data:\n%s", out.String())
	}
}

func TestDeleteHorizon(t *testing.T) {
	b := plainBatch()
	b.Attributes |= 0x40 // hasDeleteHorizonMs, set by the log cleaner
	raw := encode(t, b)
	var out bytes.Buffer
	if err := Batch(&out, 0, raw, false); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), " deleteHorizonMs: OptionalLong[1700000000000] position: 0 ") {
		t.Errorf("delete horizon:\n%s", out.String())
	}
}

// Kafka prints isvalid: false and still iterates the records.
func TestCorruptCRC(t *testing.T) {
	seg, pos := segment(t)
	i := bytes.Index(seg, []byte("created"))
	seg[i] = 'C'
	got := dump(t, segName, seg, Options{PrintDataLog: true})
	want := fmt.Sprintf("compresscodec: none crc: %d isvalid: false\n| offset: 0 CreateTime: 1700000000000 keySize: 7 valueSize: 7 sequence: -1 headerKeys: [trace,v] key: order-1 payload: Created\n", batchCRC(seg))
	if !strings.Contains(got, want) {
		t.Errorf("want %q in:\n%s", want, got)
	}
	if strings.Count(got, "isvalid: true") != 2 {
		t.Errorf("the other batches should stay valid:\n%s", got)
	}
	// A corrupt compressed batch whose records no longer inflate.
	seg, pos = segment(t)
	for j := pos[1] + record.HeaderSize; j < pos[2]; j++ {
		seg[j] ^= 0x55
	}
	got = dump(t, segName, seg, Options{PrintDataLog: true})
	if !strings.Contains(got, "compresscodec: gzip crc: ") || !strings.Contains(got, "isvalid: false\nCould not read the records of the batch at position "+fmt.Sprint(pos[1])+": ") {
		t.Errorf("corrupt gzip batch:\n%s", got)
	}
	if !strings.Contains(got, "endTxnMarker: COMMIT") {
		t.Errorf("the dump should go on after a corrupt batch:\n%s", got)
	}
}

func TestTruncatedTail(t *testing.T) {
	seg, pos := segment(t)
	cut := seg[:len(seg)-5]
	got := dump(t, segName, cut, Options{PrintDataLog: true})
	want := fmt.Sprintf("| offset: 4 CreateTime: 1700000000010 keySize: 1 valueSize: 2 sequence: 11 headerKeys: [] key: k payload: v2\nFound %d invalid bytes at the end of %s\n", len(cut)-pos[2], segName)
	if !strings.HasSuffix(got, want) {
		t.Errorf("want suffix %q in:\n%s", want, got)
	}
	// Fewer than 17 bytes left: FileLogInputStream stops before reading a header.
	got = dump(t, "dir/"+segName, seg[:pos[1]+10], Options{})
	if !strings.HasPrefix(got, "Dumping dir/"+segName+"\n") || !strings.HasSuffix(got, "isvalid: true\nFound 10 invalid bytes at the end of "+segName+"\n") {
		t.Errorf("short tail:\n%s", got)
	}
}

func TestGarbageLengths(t *testing.T) {
	seg, pos := segment(t)
	one := seg[:pos[1]]

	// A length below LegacyRecord.RECORD_OVERHEAD_V0: Kafka's CorruptRecordException.
	bad := append(append([]byte(nil), one...), make([]byte, 30)...)
	binary.BigEndian.PutUint32(bad[len(one)+8:], 5)
	got := dump(t, segName, bad, Options{})
	want := "isvalid: true\nFound record size 5 smaller than minimum record overhead (14) in file " + segName + ".\nFound 30 invalid bytes at the end of " + segName + "\n"
	if !strings.HasSuffix(got, want) {
		t.Errorf("want suffix %q in:\n%s", want, got)
	}

	// A length far past the end of the file: no batch, trailing bytes.
	huge := append(append([]byte(nil), one...), make([]byte, 30)...)
	binary.BigEndian.PutUint32(huge[len(one)+8:], 0x7fffffff)
	huge[len(one)+16] = 2
	got = dump(t, segName, huge, Options{PrintDataLog: true})
	if !strings.HasSuffix(got, "payload: \n| offset: 2 CreateTime: 1700000000002 keySize: 7 valueSize: -1 sequence: -1 headerKeys: [] key: order-1\nFound 30 invalid bytes at the end of "+segName+"\n") {
		t.Errorf("huge length:\n%s", got)
	}

	// A v2 batch shorter than its header, at the end of the file.
	short := append(append([]byte(nil), one...), make([]byte, 30)...)
	binary.BigEndian.PutUint32(short[len(one)+8:], 18)
	short[len(one)+16] = 2
	got = dump(t, segName, short, Options{PrintDataLog: true})
	if !strings.HasSuffix(got, fmt.Sprintf("Could not read the batch at position %d: it is 30 bytes and the file ends before its 61-byte header does\n", len(one))) {
		t.Errorf("short batch:\n%s", got)
	}

	// The same with bytes after it: Kafka reads the header past the batch,
	// and the batch is invalid.
	short = append(short, seg[pos[1]:]...)
	got = dump(t, segName, short, Options{PrintDataLog: true})
	if !strings.Contains(got, fmt.Sprintf("position: %d CreateTime: ", len(one))) || !strings.Contains(got, fmt.Sprintf("size: 30 magic: 2 compresscodec: none crc: 0 isvalid: false\nCould not read the records of the batch at position %d: it is 30 bytes, shorter than the 61-byte header\nbaseOffset: 3 lastOffset: 4 ", len(one))) {
		t.Errorf("short batch with more after it:\n%s", got)
	}

	// A negative magic byte.
	neg := append([]byte(nil), one...)
	neg[16] = 0xff
	got = dump(t, segName, neg, Options{})
	if !strings.HasSuffix(got, "Could not read the batch at position 0: magic -1 is no message format\n") {
		t.Errorf("negative magic:\n%s", got)
	}
}

// Kafka does not check the CRC while iterating, and dies on records that do
// not parse; loglab says so in one line and goes on.
func TestRecordsThatDoNotParse(t *testing.T) {
	raw := encode(t, plainBatch())
	binary.BigEndian.PutUint32(raw[57:], 4) // recordCount 4, only 3 are there
	binary.BigEndian.PutUint32(raw[17:], crc32.Checksum(raw[21:], castagnoli))
	var out bytes.Buffer
	if err := Batch(&out, 0, raw, true); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	if !strings.Contains(got, "count: 4 ") || !strings.Contains(got, "isvalid: true\nCould not read the records of the batch at position 0: ") || strings.Contains(got, "| offset") {
		t.Errorf("bad record count:\n%s", got)
	}
	// A count of zero or below: Kafka's iterator yields nothing.
	binary.BigEndian.PutUint32(raw[57:], 0xffffffff)
	out.Reset()
	if err := Batch(&out, 0, raw, true); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); !strings.Contains(got, "count: -1 ") || strings.Count(got, "\n") != 1 {
		t.Errorf("negative count:\n%s", got)
	}
}

func TestBatchArguments(t *testing.T) {
	raw := encode(t, plainBatch())
	for _, c := range []struct {
		raw  []byte
		want string
	}{
		{raw[:10], "Could not read the batch at position 7: 10 bytes are too few for a record batch\n"},
		{raw[:40], fmt.Sprintf("Could not read the batch at position 7: it is %d bytes, only 40 are there\n", len(raw))},
		{append([]byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3}, make([]byte, 10)...), "Found record size 3 smaller than minimum record overhead (14) at position 7.\n"},
	} {
		var out bytes.Buffer
		if err := Batch(&out, 7, c.raw, true); err != nil {
			t.Fatal(err)
		}
		expectText(t, out.String(), c.want)
	}
	// Bytes after the batch are ignored.
	var a, b bytes.Buffer
	if err := Batch(&a, 0, raw, true); err != nil {
		t.Fatal(err)
	}
	if err := Batch(&b, 0, append(append([]byte(nil), raw...), 1, 2, 3), true); err != nil {
		t.Fatal(err)
	}
	expectText(t, b.String(), a.String())
}

// legacyMessage is a message format v1 entry: offset, size, then
// crc, magic, attributes, timestamp, key (null) and value "v".
func legacyMessage(t testing.TB) []byte {
	return unhex(t,
		"0000000000000009", // offset 9
		"00000017",         // size 23
		"c1672ac5",         // crc (CRC-32 of magic..end)
		"01",               // magic 1
		"00",               // attributes: none, CreateTime
		"0000018bcfe56800", // timestamp 1700000000000
		"ffffffff",         // key null
		"00000001 76",      // value "v"
	)
}

func TestLegacyMessage(t *testing.T) {
	got := dump(t, segName, legacyMessage(t), Options{PrintDataLog: true})
	expectText(t, got, "Dumping "+segName+"\nLog starting offset: 0\n"+
		"offset: 9 position: 0 CreateTime: 1700000000000 size: 35 magic: 1 compresscodec: none crc: 3244763845 isvalid: true\n"+
		"| records of message format v1 are not shown: loglab reads RecordBatch v2 (magic 2) only\n")
	v0 := legacyMessage(t)
	v0[16] = 0
	got = dump(t, segName, v0, Options{})
	if !strings.Contains(got, "offset: 9 position: 0 NoTimestampType: -1 size: 35 magic: 0 compresscodec: none crc: 3244763845 isvalid: false\n") {
		t.Errorf("v0:\n%s", got)
	}
}

func TestControlRecordTypes(t *testing.T) {
	for _, c := range []struct {
		key, value []byte
		want       string
	}{
		{[]byte{0, 0, 0, 0}, []byte{0, 0, 0, 0, 0, 9}, " endTxnMarker: ABORT coordinatorEpoch: 9"},
		{[]byte{0, 1, 0, 1}, []byte{0, 3, 0, 0, 0, 9, 1}, " endTxnMarker: COMMIT coordinatorEpoch: 9"}, // newer versions read as v0
		{[]byte{0, 0, 0, 2}, []byte{1}, " controlType: LEADER_CHANGE(2)"},
		{[]byte{0, 0, 0, 9}, nil, " controlType: UNKNOWN(9)"},
		{[]byte{0, 0}, nil, " controlType: unreadable ("},
		{[]byte{0, 0, 0, 1}, []byte{0, 0}, " endTxnMarker: unreadable ("},
	} {
		b := controlBatch()
		b.Records[0].Key, b.Records[0].Value = c.key, c.value
		var out bytes.Buffer
		if err := Batch(&out, 0, encode(t, b), true); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), "headerKeys: []"+c.want) {
			t.Errorf("key %x value %x: want %q in\n%s", c.key, c.value, c.want, out.String())
		}
	}
}

func TestNonConsecutiveOffsets(t *testing.T) {
	var seg []byte
	for _, base := range []int64{0, 5, 6, 20} {
		b := plainBatch()
		b.BaseOffset = base
		b.Records = b.Records[:1]
		seg = append(seg, encode(t, b)...)
	}
	var out, errOut bytes.Buffer
	if err := Dump(&out, segName, bytes.NewReader(seg), int64(len(seg)), Options{DeepIteration: true, Err: &errOut}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "Non-consecutive") {
		t.Errorf("the report belongs on Err:\n%s", out.String())
	}
	expectText(t, errOut.String(), "Non-consecutive offsets in "+segName+"\n  6 is followed by 20\n  0 is followed by 5\n")
	// Without deep iteration Kafka does not look at records.
	if got := dump(t, segName, seg, Options{}); strings.Contains(got, "Non-consecutive") {
		t.Errorf("shallow dump reported offsets:\n%s", got)
	}
}

func TestBigBatchIsNotRead(t *testing.T) {
	defer func(n int64) { maxBatchRead = n }(maxBatchRead)
	maxBatchRead = 100
	seg, pos := segment(t)
	got := dump(t, segName, seg, Options{PrintDataLog: true})
	for _, p := range pos[:2] {
		if !strings.Contains(got, fmt.Sprintf("| records not shown: the batch at position %d is ", p)) {
			t.Errorf("batch at %d:\n%s", p, got)
		}
	}
	if strings.Contains(got, "isvalid: false") || !strings.Contains(got, "endTxnMarker: COMMIT") {
		t.Errorf("the CRC is checked in chunks and small batches are read:\n%s", got)
	}
	seg[pos[1]+70] ^= 1
	if got := dump(t, segName, seg, Options{}); strings.Count(got, "isvalid: false") != 1 {
		t.Errorf("a chunked CRC should still catch corruption:\n%s", got)
	}
}

func TestStartOffsetFromName(t *testing.T) {
	seg, _ := segment(t)
	got := dump(t, "/data/orders-0/00000000000000000042.log", seg[:0], Options{})
	expectText(t, got, "Dumping /data/orders-0/00000000000000000042.log\nLog starting offset: 42\n")
	got = dump(t, "segment.log", seg[:0], Options{})
	expectText(t, got, "Dumping segment.log\nLog starting offset: unknown, the file name segment.log does not start with a base offset\n")
}

func TestUnsupportedFiles(t *testing.T) {
	expectText(t, dump(t, "00000000000000000000-0000000000.checkpoint", nil, Options{}),
		"Dumping 00000000000000000000-0000000000.checkpoint\n00000000000000000000-0000000000.checkpoint: dumping .checkpoint files is not supported yet\n")
	var out, errOut bytes.Buffer
	if err := Dump(&out, "leader-epoch-checkpoint", bytes.NewReader(nil), 0, Options{Err: &errOut}); err != nil {
		t.Fatal(err)
	}
	expectText(t, out.String(), "Dumping leader-epoch-checkpoint\n")
	expectText(t, errOut.String(), "Ignoring unknown file leader-epoch-checkpoint\n")
}

// indexFor builds an offset index and a time index for seg as Kafka's
// LogSegment does: one entry per batch, keyed by the batch's last offset.
func indexFor(t testing.TB, seg []byte, base int64) (index, timeIndex []byte) {
	for pos := 0; pos < len(seg); {
		h, err := record.ReadHeader(seg[pos:])
		if err != nil {
			t.Fatal(err)
		}
		index = binary.BigEndian.AppendUint32(index, uint32(h.LastOffset()-base))
		index = binary.BigEndian.AppendUint32(index, uint32(pos))
		timeIndex = binary.BigEndian.AppendUint64(timeIndex, uint64(h.MaxTimestamp))
		timeIndex = binary.BigEndian.AppendUint32(timeIndex, uint32(h.LastOffset()-base))
		pos += h.Size()
	}
	return index, timeIndex
}

// opener serves files from a map, as Options.Open.
func opener(files map[string][]byte) func(string) (io.ReaderAt, int64, error) {
	return func(name string) (io.ReaderAt, int64, error) {
		b, ok := files[name]
		if !ok {
			return nil, 0, errors.New("no such file")
		}
		return bytes.NewReader(b), int64(len(b)), nil
	}
}

func TestIndex(t *testing.T) {
	seg, pos := segment(t)
	index, _ := indexFor(t, seg, 0)
	want := fmt.Sprintf("Dumping 00000000000000000000.index\noffset: 2 position: 0\noffset: 4 position: %d\noffset: 5 position: %d\n", pos[1], pos[2])
	var out bytes.Buffer
	if err := Index(&out, "00000000000000000000.index", bytes.NewReader(index), int64(len(index))); err != nil {
		t.Fatal(err)
	}
	expectText(t, out.String(), want)

	// A preallocated tail of zeros ends the dump, and a partial entry is
	// not an entry.
	padded := append(append(append([]byte(nil), index...), make([]byte, 80)...), 1, 2, 3)
	expectText(t, dump(t, "00000000000000000000.index", padded, Options{}), want)

	// Checked against the segment: a right index has no mismatches.
	files := map[string][]byte{"p/00000000000000000000.log": seg}
	var errOut bytes.Buffer
	out.Reset()
	if err := Dump(&out, "p/00000000000000000000.index", bytes.NewReader(index), int64(len(index)), Options{Open: opener(files), Err: &errOut}); err != nil {
		t.Fatal(err)
	}
	expectText(t, errOut.String(), "")

	// A wrong index: an entry keyed by a base offset, one past the end.
	bad := append([]byte(nil), index...)
	binary.BigEndian.PutUint32(bad[8:], 3)
	bad = binary.BigEndian.AppendUint32(bad, 9)
	bad = binary.BigEndian.AppendUint32(bad, uint32(len(seg)+100))
	errOut.Reset()
	out.Reset()
	if err := Dump(&out, "p/00000000000000000000.index", bytes.NewReader(bad), int64(len(bad)), Options{Open: opener(files), Err: &errOut, VerifyIndexOnly: true}); err != nil {
		t.Fatal(err)
	}
	expectText(t, out.String(), "Dumping p/00000000000000000000.index\n")
	expectText(t, errOut.String(), "Mismatches in :p/00000000000000000000.index\n  Index offset: 9, log offset: -1\n  Index offset: 3, log offset: 4\n")

	// No segment next to it: the check is skipped, and said so.
	errOut.Reset()
	if err := Dump(io.Discard, "q/00000000000000000000.index", bytes.NewReader(index), int64(len(index)), Options{Open: opener(files), Err: &errOut}); err != nil {
		t.Fatal(err)
	}
	expectText(t, errOut.String(), "Could not check q/00000000000000000000.index against q/00000000000000000000.log: no such file\n")

	// Empty.
	expectText(t, dump(t, "00000000000000000000.index", nil, Options{}), "Dumping 00000000000000000000.index\n00000000000000000000.index is empty.\n")
}

func TestIndexBaseOffset(t *testing.T) {
	var index []byte
	for _, e := range [][2]uint32{{2, 0}, {7, 4096}} {
		index = binary.BigEndian.AppendUint32(index, e[0])
		index = binary.BigEndian.AppendUint32(index, e[1])
	}
	expectText(t, dump(t, "00000000000000001000.index", index, Options{}),
		"Dumping 00000000000000001000.index\noffset: 1002 position: 0\noffset: 1007 position: 4096\n")
	expectText(t, dump(t, "x.index", index, Options{}),
		"Dumping x.index\nCould not dump x.index: the file name x.index does not start with a base offset\n")
}

func TestTimeIndex(t *testing.T) {
	seg, _ := segment(t)
	_, tindex := indexFor(t, seg, 0)
	want := "Dumping 00000000000000000000.timeindex\ntimestamp: 1700000000002 offset: 2\ntimestamp: 1700000000015 offset: 4\ntimestamp: 1700000000020 offset: 5\n"
	var out bytes.Buffer
	if err := TimeIndex(&out, "00000000000000000000.timeindex", bytes.NewReader(tindex), int64(len(tindex))); err != nil {
		t.Fatal(err)
	}
	expectText(t, out.String(), want)
	padded := append(append([]byte(nil), tindex...), make([]byte, 36)...)
	expectText(t, dump(t, "00000000000000000000.timeindex", padded, Options{}), want)

	files := map[string][]byte{"00000000000000000000.log": seg}
	var errOut bytes.Buffer
	out.Reset()
	if err := Dump(&out, "00000000000000000000.timeindex", bytes.NewReader(tindex), int64(len(tindex)), Options{Open: opener(files), Err: &errOut}); err != nil {
		t.Fatal(err)
	}
	expectText(t, out.String(), want)
	expectText(t, errOut.String(), "")

	// Wrong entries: a timestamp the batch does not have, a timestamp going
	// back, offsets inside a batch and one past the log.
	var bad []byte
	for _, e := range []struct {
		ts     int64
		offset uint32
	}{{ts + 2, 2}, {ts + 99, 4}, {ts + 20, 5}, {ts + 1, 1}, {ts + 30, 3}, {ts + 40, 9}} {
		bad = binary.BigEndian.AppendUint64(bad, uint64(e.ts))
		bad = binary.BigEndian.AppendUint32(bad, e.offset)
	}
	errOut.Reset()
	out.Reset()
	if err := Dump(&out, "00000000000000000000.timeindex", bytes.NewReader(bad), int64(len(bad)), Options{Open: opener(files), Err: &errOut}); err != nil {
		t.Fatal(err)
	}
	expectText(t, errOut.String(), `Found timestamp mismatch in :00000000000000000000.timeindex
  Index timestamp: 1700000000099, log timestamp: 1700000000015
Found out of order timestamp in :00000000000000000000.timeindex
  Index timestamp: 1700000000020, Previously indexed timestamp: 1700000000099
The following indexed offsets are not found in the log.
Indexed offset: 1, found log offset: 2
Indexed offset: 3, found log offset: 4
Indexed offset: 9, found log offset: -1
`)
	if strings.Count(out.String(), "timestamp: ") != 6 {
		t.Errorf("every entry is printed:\n%s", out.String())
	}
}

func TestJavaString(t *testing.T) {
	const r = "\uFFFD"
	for _, c := range []struct{ in, want string }{
		{"plain", "plain"},
		{"h\u00e9 \u4e16 \U0001F600", "h\u00e9 \u4e16 \U0001F600"},
		{"\xff", r},
		{"a\xc0\xafb", "a" + r + r + "b"},      // C0 is never a lead byte
		{"\xe2\x82", r},                        // cut off at the end
		{"\xe2\x82x", r + "x"},                 // cut off before an ASCII byte
		{"\xe0\x80\x80", r + r + r},            // overlong: E0 needs A0..BF next
		{"\xed\xa0\x80", r},                    // an encoded surrogate: one replacement in Java
		{"\xed\xa0x", r + "x"},                 // Java reads ED like E1..EC
		{"\xf0\x9f\x98", r},                    // a 4-byte sequence cut off
		{"\xf0\x9f\x98x", r + "x"},             // the same before ASCII
		{"\xf4\x90\x80\x80", r + r + r + r},    // above U+10FFFF
		{"\xf5\x80", r + r},                    // F5 is never a lead byte
		{"\xef\xbf\xbd", "\uFFFD"},             // a real U+FFFD stays
		{"x\x00y\n", "x\x00y\n"},               // control characters are printed as they are
		{"\xc3\xa9\xc3", "\u00e9" + r},         // valid, then cut off
		{"\xe1\x80\xe1\x80\x80", r + "\u1000"}, // a cut-off sequence, then a whole one
		{"\xf1\x80\x80\xf1\x80\x80\x80", r + "\U00040000"},
	} {
		if got := javaString([]byte(c.in)); got != c.want {
			t.Errorf("javaString(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

type failingReader struct{}

func (failingReader) ReadAt([]byte, int64) (int, error) { return 0, errors.New("disk on fire") }

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("pipe closed") }

func TestIOErrors(t *testing.T) {
	for _, name := range []string{segName, "00000000000000000000.index", "00000000000000000000.timeindex"} {
		if err := Dump(io.Discard, name, failingReader{}, 1000, Options{}); err == nil || !strings.Contains(err.Error(), "disk on fire") {
			t.Errorf("%s: a read failure gave %v", name, err)
		}
	}
	seg, _ := segment(t)
	// A size larger than the data is a failure to read, not corruption.
	if err := Log(io.Discard, segName, bytes.NewReader(seg), int64(len(seg))+100, false); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("a short reader gave %v", err)
	}
	if err := Log(failingWriter{}, segName, bytes.NewReader(seg), int64(len(seg)), true); err == nil {
		t.Error("a write failure was not reported")
	}
	if err := Batch(failingWriter{}, 0, seg, true); err == nil {
		t.Error("a write failure was not reported by Batch")
	}
}

// Every kind of file, fed garbage, must neither panic nor loop.
func FuzzLog(f *testing.F) {
	seg, pos := segment(f)
	f.Add(seg)
	f.Add(seg[:len(seg)-3])
	f.Add(seg[pos[1]:])
	f.Add(handBatch(f))
	f.Add(legacyMessage(f))
	f.Add([]byte{})
	f.Add(make([]byte, 40))
	f.Fuzz(func(t *testing.T, data []byte) {
		files := map[string][]byte{"00000000000000000000.log": data}
		for _, name := range []string{"00000000000000000000.log", "00000000000000000000.index", "00000000000000000000.timeindex"} {
			if err := Dump(io.Discard, name, bytes.NewReader(data), int64(len(data)), Options{PrintDataLog: true, Open: opener(files)}); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		}
		if err := Batch(io.Discard, 0, data, true); err != nil {
			t.Fatal(err)
		}
	})
}
