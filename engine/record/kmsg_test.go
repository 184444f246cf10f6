package record

import (
	"bytes"
	stdgzip "compress/gzip"
	"encoding/binary"
	"hash/crc32"
	"io"
	"testing"

	"github.com/klauspost/compress/snappy/xerial"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// These tests check our bytes against franz-go's kmsg, an independent
// implementation of the same format used against real Kafka clusters. kmsg
// does not compress, so the tests compress and decompress with code that is
// not ours: the standard library's gzip, klauspost's own snappy-java
// (xerial) framing, and the lz4 and zstd libraries used directly with their
// default frame settings (which differ from Kafka's, so our reader must take
// what other clients send).

func toKmsgRecord(r Record) kmsg.Record {
	k := kmsg.Record{
		Attributes:       r.Attributes,
		TimestampDelta64: r.TimestampDelta,
		TimestampDelta:   int32(r.TimestampDelta),
		OffsetDelta:      r.OffsetDelta,
		Key:              r.Key,
		Value:            r.Value,
	}
	for _, h := range r.Headers {
		k.Headers = append(k.Headers, kmsg.Header{Key: h.Key, Value: h.Value})
	}
	// kmsg writes Length as given; measure the body with a zero length,
	// which takes one byte.
	k.Length = int32(len(k.AppendTo(nil)) - 1)
	return k
}

func fromKmsgRecord(k kmsg.Record) Record {
	r := Record{
		Attributes:     k.Attributes,
		TimestampDelta: k.TimestampDelta64,
		OffsetDelta:    k.OffsetDelta,
		Key:            k.Key,
		Value:          k.Value,
	}
	for _, h := range k.Headers {
		r.Headers = append(r.Headers, Header{Key: h.Key, Value: h.Value})
	}
	return r
}

// foreignCompress compresses with libraries other than our codec code.
func foreignCompress(t *testing.T, c Compression, raw []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	switch c {
	case None:
		return raw
	case Gzip:
		w := stdgzip.NewWriter(&out)
		w.Write(raw)
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	case Snappy:
		return xerial.Encode(nil, raw)
	case LZ4:
		w := lz4.NewWriter(&out) // 4 MiB blocks and a content checksum
		w.Write(raw)
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	case Zstd:
		enc, err := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))
		if err != nil {
			t.Fatal(err)
		}
		return enc.EncodeAll(raw, nil)
	}
	return out.Bytes()
}

func foreignDecompress(t *testing.T, c Compression, data []byte) []byte {
	t.Helper()
	var r io.Reader
	switch c {
	case None:
		return data
	case Gzip:
		zr, err := stdgzip.NewReader(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		r = zr
	case Snappy:
		out, err := xerial.Decode(data)
		if err != nil {
			t.Fatal(err)
		}
		return out
	case LZ4:
		r = lz4.NewReader(bytes.NewReader(data))
	case Zstd:
		dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
		if err != nil {
			t.Fatal(err)
		}
		out, err := dec.DecodeAll(data, nil)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	out, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// kmsgEncode builds and encodes b with kmsg, compressing with c.
func kmsgEncode(t *testing.T, b Batch, c Compression) []byte {
	t.Helper()
	var raw []byte
	for _, r := range b.Records {
		k := toKmsgRecord(r)
		raw = k.AppendTo(raw)
	}
	records := foreignCompress(t, c, raw)
	kb := kmsg.RecordBatch{
		FirstOffset:          b.BaseOffset,
		Length:               int32(HeaderSize - LogOverhead + len(records)),
		PartitionLeaderEpoch: b.PartitionLeaderEpoch,
		Magic:                2,
		Attributes:           b.Attributes&^compressionMask | int16(c),
		LastOffsetDelta:      b.LastOffsetDelta,
		FirstTimestamp:       b.BaseTimestamp,
		MaxTimestamp:         b.MaxTimestamp,
		ProducerID:           b.ProducerID,
		ProducerEpoch:        b.ProducerEpoch,
		FirstSequence:        b.BaseSequence,
		NumRecords:           int32(len(b.Records)),
		Records:              records,
	}
	enc := kb.AppendTo(nil)
	// kmsg writes the CRC it is given; compute it with hash/crc32 directly.
	crc := crc32.Checksum(enc[21:], crc32.MakeTable(crc32.Castagnoli))
	binary.BigEndian.PutUint32(enc[17:], crc)
	return enc
}

// kmsgDecode decodes our bytes with kmsg.
func kmsgDecode(t *testing.T, enc []byte) (kmsg.RecordBatch, []Record) {
	t.Helper()
	var kb kmsg.RecordBatch
	if err := kb.ReadFrom(enc); err != nil {
		t.Fatalf("kmsg.RecordBatch.ReadFrom: %v", err)
	}
	raw := foreignDecompress(t, Compression(kb.Attributes&0x07), kb.Records)
	var records []Record
	for len(raw) > 0 {
		length, n := binary.Varint(raw) // Kafka's varints are Go's zigzag varints
		if n <= 0 || int(length) > len(raw)-n {
			t.Fatalf("bad record length at %d bytes left", len(raw))
		}
		var k kmsg.Record
		if err := k.ReadFrom(raw[:n+int(length)]); err != nil {
			t.Fatalf("kmsg.Record.ReadFrom: %v", err)
		}
		records = append(records, fromKmsgRecord(k))
		raw = raw[n+int(length):]
	}
	return kb, records
}

func TestKmsgDecodesOurBatches(t *testing.T) {
	batches := sampleBatches()
	for _, name := range sortedNames(batches) {
		for _, c := range codecs {
			t.Run(name+"/"+c.String(), func(t *testing.T) {
				b := withCodec(batches[name], c)
				enc, err := b.AppendEncoded(nil)
				if err != nil {
					t.Fatal(err)
				}
				kb, records := kmsgDecode(t, enc)
				got := Batch{
					BaseOffset:           kb.FirstOffset,
					PartitionLeaderEpoch: kb.PartitionLeaderEpoch,
					CRC:                  uint32(kb.CRC),
					Attributes:           kb.Attributes,
					LastOffsetDelta:      kb.LastOffsetDelta,
					BaseTimestamp:        kb.FirstTimestamp,
					MaxTimestamp:         kb.MaxTimestamp,
					ProducerID:           kb.ProducerID,
					ProducerEpoch:        kb.ProducerEpoch,
					BaseSequence:         kb.FirstSequence,
					Records:              records,
				}
				if kb.Magic != 2 || int(kb.Length) != len(enc)-LogOverhead || int(kb.NumRecords) != len(b.Records) {
					t.Errorf("kmsg read magic %d, length %d, numRecords %d", kb.Magic, kb.Length, kb.NumRecords)
				}
				if len(b.Records) == 0 {
					got.Records = nil
				}
				sameBatch(t, got, b)
			})
		}
	}
}

func TestWeDecodeKmsgBatches(t *testing.T) {
	batches := sampleBatches()
	for _, name := range sortedNames(batches) {
		for _, c := range codecs {
			t.Run(name+"/"+c.String(), func(t *testing.T) {
				want := withCodec(batches[name], c)
				enc := kmsgEncode(t, want, c)
				got, n, err := Decode(enc)
				if err != nil {
					t.Fatalf("Decode: %v", err)
				}
				if n != len(enc) {
					t.Errorf("Decode took %d of %d bytes", n, len(enc))
				}
				want.CRC = binary.BigEndian.Uint32(enc[17:])
				sameBatch(t, got, want)
			})
		}
	}
}
