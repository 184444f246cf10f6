package record

import (
	"bytes"
	"sync"

	"github.com/pierrec/lz4/v4"
)

// LZ4 is the standard LZ4 frame format. Kafka's Lz4BlockOutputStream writes a
// partial frame: version 1, independent blocks, 64 KiB maximum block size,
// no block checksums, no content size and no content checksum, so every
// frame starts 04 22 4D 18 60 40 82. Its header checksum is correct since
// KIP-57; only the legacy magic 0 and 1 formats had the broken one.
// Kafka's default lz4 level, 9, selects lz4-java's fast compressor.
var lz4Options = []lz4.Option{
	lz4.BlockSizeOption(lz4.Block64Kb),
	lz4.BlockChecksumOption(false),
	lz4.ChecksumOption(false),
	lz4.CompressionLevelOption(lz4.Fast),
	lz4.ConcurrencyOption(1), // no goroutines: the engine is single-threaded
}

var (
	lz4Writers = sync.Pool{New: func() any {
		w := lz4.NewWriter(nil)
		if err := w.Apply(lz4Options...); err != nil {
			panic("record: lz4 options: " + err.Error()) // fixed options; a bug if it fails
		}
		return w
	}}
	// A Reader decodes with concurrency 1 unless told otherwise.
	lz4Readers = sync.Pool{New: func() any { return lz4.NewReader(nil) }}
)

func compressLZ4(dst, src []byte) ([]byte, error) {
	out := appendWriter{buf: dst}
	w := lz4Writers.Get().(*lz4.Writer)
	defer lz4Writers.Put(w)
	w.Reset(&out)
	if _, err := w.Write(src); err != nil {
		return dst, err
	}
	if err := w.Close(); err != nil {
		return dst, err
	}
	return out.buf, nil
}

func decompressLZ4(src []byte, limit int) ([]byte, error) {
	r := lz4Readers.Get().(*lz4.Reader)
	defer lz4Readers.Put(r)
	r.Reset(bytes.NewReader(src))
	return readAllLimited(r, src, limit)
}
