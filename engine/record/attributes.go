package record

// The batch attributes, an int16 of which Kafka uses the low byte:
//
//	bits 0-2  compression codec
//	bit 3     timestamp type: 0 CreateTime, 1 LogAppendTime
//	bit 4     isTransactional: written by a transactional producer
//	bit 5     isControl: holds a control record (a transaction marker)
//	bit 6     hasDeleteHorizonMs (KIP-534): baseTimestamp is the time after
//	          which the log cleaner may drop this batch's tombstones and
//	          aborted-transaction markers
const (
	compressionMask   int16 = 0x07
	timestampTypeMask int16 = 0x08
	transactionalMask int16 = 0x10
	controlMask       int16 = 0x20
	deleteHorizonMask int16 = 0x40
)

// TimestampType says who set the batch's timestamps (attributes bit 3).
type TimestampType int8

const (
	// CreateTime: the producer's clock; records carry their own timestamps
	// as deltas from baseTimestamp.
	CreateTime TimestampType = 0
	// LogAppendTime: the broker's clock at append
	// (message.timestamp.type=LogAppendTime); every record's timestamp is
	// the batch's maxTimestamp.
	LogAppendTime TimestampType = 1
)

// String is Kafka's name (TimestampType.name).
func (t TimestampType) String() string {
	if t == LogAppendTime {
		return "LogAppendTime"
	}
	return "CreateTime"
}

// ComputeAttributes builds an attributes value as Kafka's computeAttributes
// does. The delete-horizon bit is set only by the log cleaner; set it by hand
// when needed.
func ComputeAttributes(c Compression, t TimestampType, isTransactional, isControl bool) int16 {
	a := int16(c) & compressionMask
	if t == LogAppendTime {
		a |= timestampTypeMask
	}
	if isTransactional {
		a |= transactionalMask
	}
	if isControl {
		a |= controlMask
	}
	return a
}

// attributes decodes the bits; Batch and BatchHeader share it.
type attributes int16

func (a attributes) compression() Compression { return Compression(int16(a) & compressionMask) }

func (a attributes) timestampType() TimestampType {
	if int16(a)&timestampTypeMask != 0 {
		return LogAppendTime
	}
	return CreateTime
}

func (a attributes) isTransactional() bool  { return int16(a)&transactionalMask != 0 }
func (a attributes) isControl() bool        { return int16(a)&controlMask != 0 }
func (a attributes) hasDeleteHorizon() bool { return int16(a)&deleteHorizonMask != 0 }

// incrementSequence adds to a producer sequence number the way Kafka's
// DefaultRecordBatch.incrementSequence does: sequences wrap from
// Integer.MAX_VALUE to 0, never into negative numbers.
func incrementSequence(sequence, increment int32) int32 {
	if sequence > maxInt32-increment {
		return increment - (maxInt32 - sequence) - 1
	}
	return sequence + increment
}

func lastSequence(baseSequence, lastOffsetDelta int32) int32 {
	if baseSequence == NoSequence {
		return NoSequence
	}
	return incrementSequence(baseSequence, lastOffsetDelta)
}

const maxInt32 = 1<<31 - 1
