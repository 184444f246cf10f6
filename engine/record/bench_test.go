package record

import "testing"

// benchBatch is 16 KiB of records of 1 KiB each, roughly what a producer's
// batch.size (16384 by default) holds.
func benchBatch(c Compression) Batch {
	b := Batch{ProducerID: NoProducerID, ProducerEpoch: NoProducerEpoch, BaseSequence: NoSequence,
		BaseTimestamp: 1700000000000, MaxTimestamp: 1700000000015, LastOffsetDelta: 15}
	for i := range 16 {
		b.Records = append(b.Records, Record{
			TimestampDelta: int64(i), OffsetDelta: int32(i),
			Key:   []byte{byte('a' + i)},
			Value: text(uint64(i), 1<<10),
		})
	}
	return withCodec(b, c)
}

func BenchmarkEncode(b *testing.B) {
	for _, c := range codecs {
		b.Run(c.String(), func(b *testing.B) {
			batch := benchBatch(c)
			buf := make([]byte, 0, 32<<10)
			b.SetBytes(16 << 10)
			b.ReportAllocs()
			for b.Loop() {
				var err error
				if buf, err = batch.AppendEncoded(buf[:0]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkDecode(b *testing.B) {
	for _, c := range codecs {
		b.Run(c.String(), func(b *testing.B) {
			enc := mustEncode(b, benchBatch(c))
			b.SetBytes(16 << 10)
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := Decode(enc); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkCRC32C(b *testing.B) {
	data := noise(1, 16<<10)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		CRC32C(data)
	}
}
