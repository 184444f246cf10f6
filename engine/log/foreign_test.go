package log

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"path"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/loglab/loglab/engine/storage"
)

// foreignBatch encodes a batch with franz-go's kmsg, another implementation
// of Kafka's format (gzip from the standard library), so that loglab is
// shown to open segment files it did not write.
func foreignBatch(t *testing.T, base int64, gz bool, values ...string) []byte {
	t.Helper()
	var records []byte
	for i, v := range values {
		r := kmsg.Record{OffsetDelta: int32(i), Key: []byte(fmt.Sprintf("key-%d", base+int64(i))), Value: []byte(v)}
		r.Length = int32(len(r.AppendTo(nil)) - 1) // AppendTo wrote a 1-byte zero length first
		records = r.AppendTo(records[:len(records):len(records)])
	}
	attrs := int16(0)
	if gz {
		var buf bytes.Buffer
		w := gzip.NewWriter(&buf)
		w.Write(records)
		w.Close()
		records, attrs = buf.Bytes(), 1
	}
	kb := kmsg.RecordBatch{
		FirstOffset: base, Length: int32(49 + len(records)), Magic: 2, Attributes: attrs,
		LastOffsetDelta: int32(len(values) - 1), FirstTimestamp: 1_600_000_000_000, MaxTimestamp: 1_600_000_000_000,
		ProducerID: -1, ProducerEpoch: -1, FirstSequence: -1, NumRecords: int32(len(values)), Records: records,
	}
	enc := kb.AppendTo(nil)
	binary.BigEndian.PutUint32(enc[17:], crc32.Checksum(enc[21:], crc32.MakeTable(crc32.Castagnoli)))
	return enc
}

func TestOpensASegmentWrittenByAnotherImplementation(t *testing.T) {
	fs := storage.NewMem()
	fs.MkdirAll("foreign-0")
	f, _ := fs.Create(path.Join("foreign-0", FileName(0, LogSuffix)))
	f.Write(foreignBatch(t, 0, false, "a", "b", "c"))
	f.Write(foreignBatch(t, 3, true, "d", "e"))
	f.Write(foreignBatch(t, 5, false, "f"))
	// No .index, .timeindex or checkpoint: as if copied from elsewhere.
	l, rep, err := Open(fs, "foreign-0", smallConfig(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if rep.TruncatedBytes != 0 || rep.Problem != "" {
		t.Fatalf("recovery found problems in valid foreign batches: %+v", rep)
	}
	if l.EndOffset() != 6 {
		t.Fatalf("log end %d, want 6", l.EndOffset())
	}
	recs, err := l.Records(0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range recs {
		got = append(got, fmt.Sprintf("%d:%s=%s", r.Offset, r.Key, r.Value))
	}
	if want := "[0:key-0=a 1:key-1=b 2:key-2=c 3:key-3=d 4:key-4=e 5:key-5=f]"; fmt.Sprint(got) != want {
		t.Fatalf("records %v, want %s", got, want)
	}
	// And loglab appends after them as if it had written them itself.
	if _, err := l.AppendAsLeader(mkBatch(0, rec("k", "g")), 1); err != nil {
		t.Fatal(err)
	}
	if l.EndOffset() != 7 {
		t.Fatalf("after appending, log end %d", l.EndOffset())
	}
}
