package record

import "fmt"

// Compression is the codec in attributes bits 0-2 (Kafka's CompressionType).
// The whole records section after recordCount is compressed as one stream,
// so compression works better the more records a batch holds.
type Compression int8

// Kafka's codec ids. The numbers are on the wire; do not renumber.
const (
	None   Compression = 0
	Gzip   Compression = 1
	Snappy Compression = 2
	LZ4    Compression = 3
	Zstd   Compression = 4 // since Kafka 2.1 (KIP-110), produce v7+
)

// String is Kafka's name for the codec, the value of compression.type.
func (c Compression) String() string {
	switch c {
	case None:
		return "none"
	case Gzip:
		return "gzip"
	case Snappy:
		return "snappy"
	case LZ4:
		return "lz4"
	case Zstd:
		return "zstd"
	}
	return fmt.Sprintf("unknown(%d)", int8(c))
}

// Known reports whether c is one of Kafka's five codecs.
func (c Compression) Known() bool { return c >= None && c <= Zstd }

// ParseCompression reads a producer's compression.type value. Like Kafka's
// CompressionType.forName the names are lower case and exact. The topic-level
// compression.type also accepts "producer" and "uncompressed"; those are
// broker policies, not codecs, and are not accepted here.
func ParseCompression(s string) (Compression, error) {
	for c := None; c <= Zstd; c++ {
		if s == c.String() {
			return c, nil
		}
	}
	return None, fmt.Errorf("%w: unknown compression.type %q (want none, gzip, snappy, lz4 or zstd)", ErrUnsupportedCompression, s)
}
