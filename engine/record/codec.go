package record

import (
	"bytes"
	"errors"
	"fmt"
	"io"
)

// MaxDecompressedSize caps what one batch's records may inflate to. Kafka has
// no such cap (it bounds the compressed batch by message.max.bytes, about
// 1 MiB by default); loglab adds one so that a small hostile batch, a zip
// bomb, cannot make the engine allocate without limit.
const MaxDecompressedSize = 64 << 20

// compress appends src compressed with c, framed as the Java client frames
// it, to dst.
func compress(c Compression, dst, src []byte) ([]byte, error) {
	switch c {
	case Gzip:
		return compressGzip(dst, src)
	case Snappy:
		return compressSnappy(dst, src), nil
	case LZ4:
		return compressLZ4(dst, src)
	case Zstd:
		return compressZstd(dst, src)
	}
	return dst, fmt.Errorf("%w: codec %d", ErrUnsupportedCompression, int8(c))
}

// decompress inflates a batch's records section, refusing to produce more
// than limit bytes. A stream that does not decode is corrupt.
func decompress(c Compression, src []byte, limit int) ([]byte, error) {
	var out []byte
	var err error
	switch c {
	case Gzip:
		out, err = decompressGzip(src, limit)
	case Snappy:
		out, err = decompressSnappy(src, limit)
	case LZ4:
		out, err = decompressLZ4(src, limit)
	case Zstd:
		out, err = decompressZstd(src, limit)
	default:
		return nil, fmt.Errorf("%w: codec %d", ErrUnsupportedCompression, int8(c))
	}
	if errors.Is(err, ErrDecompressedTooLarge) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %s records do not decompress: %v", ErrCorruptRecord, c, err)
	}
	return out, nil
}

// appendWriter is an io.Writer that appends to a slice, so compressors write
// straight into the batch being encoded.
type appendWriter struct{ buf []byte }

func (w *appendWriter) Write(p []byte) (int, error) {
	w.buf = append(w.buf, p...)
	return len(p), nil
}

// readAllLimited reads r, which decompresses src, to its end, failing once
// it yields more than limit bytes; for the streaming codecs (gzip, lz4) that
// cannot tell the size up front.
func readAllLimited(r io.Reader, src []byte, limit int) ([]byte, error) {
	var out bytes.Buffer
	// Records compress a few times over; start there and let it grow.
	out.Grow(min(limit+1, max(4*len(src), 4<<10)))
	n, err := out.ReadFrom(io.LimitReader(r, int64(limit)+1))
	if err != nil {
		return nil, err
	}
	if n > int64(limit) {
		return nil, tooLarge(limit)
	}
	return out.Bytes(), nil
}

func tooLarge(limit int) error {
	return fmt.Errorf("%w: over %d bytes", ErrDecompressedTooLarge, limit)
}
