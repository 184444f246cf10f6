package record

import (
	"errors"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// Zstd is a standard zstd frame (RFC 8878), as zstd-jni's ZstdOutputStream
// writes it for Kafka at its default level 3, without a content checksum.
//
// One encoder and one decoder serve every batch: both are safe for
// concurrent EncodeAll/DecodeAll, and with concurrency 1 and no stream they
// start no goroutines.
var (
	zstdOnce    sync.Once
	zstdEncoder *zstd.Encoder
	zstdDecoder *zstd.Decoder
	zstdErr     error
)

func zstdCodecs() (*zstd.Encoder, *zstd.Decoder, error) {
	zstdOnce.Do(func() {
		zstdEncoder, zstdErr = zstd.NewWriter(nil,
			zstd.WithEncoderLevel(zstd.SpeedDefault),
			zstd.WithEncoderCRC(false),
			zstd.WithEncoderConcurrency(1))
		if zstdErr != nil {
			return
		}
		zstdDecoder, zstdErr = newZstdDecoder(MaxDecompressedSize)
	})
	return zstdEncoder, zstdDecoder, zstdErr
}

// newZstdDecoder bounds DecodeAll's output: a frame that declares more, or
// grows past it while decoding, fails before the memory is taken.
func newZstdDecoder(limit int) (*zstd.Decoder, error) {
	return zstd.NewReader(nil,
		zstd.WithDecoderConcurrency(1),
		zstd.WithDecoderMaxMemory(uint64(limit)))
}

func compressZstd(dst, src []byte) ([]byte, error) {
	enc, _, err := zstdCodecs()
	if err != nil {
		return dst, err
	}
	return enc.EncodeAll(src, dst), nil
}

func decompressZstd(src []byte, limit int) ([]byte, error) {
	_, dec, err := zstdCodecs()
	if err != nil {
		return nil, err
	}
	if limit != MaxDecompressedSize {
		// Only tests ask for another limit; they pay for their own decoder.
		if dec, err = newZstdDecoder(limit); err != nil {
			return nil, err
		}
		defer dec.Close()
	}
	out, err := dec.DecodeAll(src, nil)
	if errors.Is(err, zstd.ErrDecoderSizeExceeded) {
		return nil, tooLarge(limit)
	}
	if err != nil {
		return nil, err
	}
	if out == nil {
		out = []byte{}
	}
	return out, nil
}
