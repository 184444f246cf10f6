package record

import "errors"

// Sentinel errors. Decode wraps them with details; test with errors.Is. The
// text names the Kafka error a broker answers with for the same fault.
var (
	// ErrTruncated: the buffer ends before the batch does. Not corruption:
	// a fetch response or a segment read may end mid-batch, and Kafka simply
	// stops at the last whole batch.
	ErrTruncated = errors.New("record batch truncated")

	// ErrBadLength: the batchLength field cannot be right (smaller than the
	// fixed header), or an encoded batch would not fit in it.
	ErrBadLength = errors.New("CORRUPT_MESSAGE: bad record batch length")

	// ErrUnknownMagic: the magic byte is not 2. Magic 0 and 1 are the legacy
	// message sets that loglab does not speak.
	ErrUnknownMagic = errors.New("CORRUPT_MESSAGE: unknown record batch magic")

	// ErrCRCMismatch: the stored CRC-32C does not match the bytes.
	ErrCRCMismatch = errors.New("CORRUPT_MESSAGE: record batch CRC mismatch")

	// ErrCorruptRecord: the CRC matched but the records inside do not parse
	// (Kafka's InvalidRecordException), or a control record is malformed.
	ErrCorruptRecord = errors.New("INVALID_RECORD: corrupt record")

	// ErrUnsupportedCompression: attributes name a codec Kafka does not have
	// (5, 6 or 7), or a compression.type value is unknown.
	ErrUnsupportedCompression = errors.New("UNSUPPORTED_COMPRESSION_TYPE: unsupported compression")

	// ErrDecompressedTooLarge: the records inflate past MaxDecompressedSize.
	// Kafka has no such limit; loglab adds it so a few hostile bytes (a zip
	// bomb) cannot make the engine allocate gigabytes.
	ErrDecompressedTooLarge = errors.New("INVALID_RECORD: decompressed records too large")

	// ErrNotEndTxnMarker: ParseControlRecord was given a control record whose
	// type is not ABORT or COMMIT (for example a KRaft LEADER_CHANGE).
	ErrNotEndTxnMarker = errors.New("control record is not an end transaction marker")
)
