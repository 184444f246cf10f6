package dumplog

import (
	"encoding/binary"
	"github.com/loglab/loglab/engine/group/offsets"
	"github.com/loglab/loglab/engine/txn/txnlog"
	"hash/crc32"
	"io"
	"strconv"
	"strings"

	"github.com/loglab/loglab/engine/record"
)

// Sizes from Kafka's Records, LegacyRecord and DefaultRecordBatch.
const (
	headerSizeUpToMagic    = 17 // Records.HEADER_SIZE_UP_TO_MAGIC: offset, size, then 4 bytes (epoch or crc), magic
	legacyRecordOverheadV0 = 14 // LegacyRecord.RECORD_OVERHEAD_V0, the smallest size FileLogInputStream accepts
	magicOffset            = 16
	crcOffset              = 17
	crcFrom                = 21 // DefaultRecordBatch.ATTRIBUTES_OFFSET: the v2 CRC covers from here
	legacyCRCOffset        = 12 // a legacy record's crc, right after the log overhead
	legacyAttributesOffset = 17
	legacyTimestampOffset  = 18
	legacyTimestampTypeBit = 0x08
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Batch prints the batch line of one batch, raw, found at position in its
// segment, followed by a line per record and, with printData, their keys
// and payloads: what kafka-dump-log --print-data-log prints for it. Unlike
// Log without printData it always prints the record lines (Kafka's
// --deep-iteration). raw should hold exactly the batch; anything after the
// length its header declares is ignored, and a batch that does not fit in
// raw is reported, not read. The error is only for failures to write w.
func Batch(w io.Writer, position int64, raw []byte, printData bool) error {
	return BatchWith(w, position, raw, Options{PrintDataLog: printData})
}

// BatchWith is Batch with kafka-dump-log's options (OffsetsDecoder for
// __consumer_offsets); it always prints the record lines.
func BatchWith(w io.Writer, position int64, raw []byte, opts Options) error {
	out := &writer{w: w}
	opts.DeepIteration = true
	d := &logDumper{out: out, opts: opts, lastOffset: -1}
	if len(raw) < headerSizeUpToMagic {
		out.printf("Could not read the batch at position %d: %d bytes are too few for a record batch\n", position, len(raw))
		return out.err
	}
	length := int32(binary.BigEndian.Uint32(raw[record.LogOverhead-4:]))
	if length < legacyRecordOverheadV0 {
		out.printf("Found record size %d smaller than minimum record overhead (%d) at position %d.\n", length, legacyRecordOverheadV0, position)
		return out.err
	}
	size := record.LogOverhead + int64(length)
	if int64(len(raw)) < size {
		out.printf("Could not read the batch at position %d: it is %d bytes, only %d are there\n", position, size, len(raw))
		return out.err
	}
	raw = raw[:size]
	b := batchAt{pos: position, size: size, offset: int64(binary.BigEndian.Uint64(raw)), magic: int8(raw[magicOffset])}
	if err := d.batch(b, raw[:min(len(raw), record.HeaderSize)], raw, b.valid(raw)); err != nil {
		return err
	}
	return out.err
}

// batchAt is one batch as FileLogInputStream finds it: where it is, how
// big, and its magic, read from its first 17 bytes.
type batchAt struct {
	pos    int64
	size   int64 // LogOverhead + the length field
	offset int64
	magic  int8
}

// scan is what nextBatch found.
type scan int

const (
	scanBatch   scan = iota // a whole batch
	scanEnd                 // no further whole batch: the rest, if any, is trailing bytes
	scanCorrupt             // a length field below 14, where Kafka throws CorruptRecordException
)

// nextBatch is FileLogInputStream.nextBatch over [pos, end). With
// scanCorrupt, length is the bad length field.
func nextBatch(r io.ReaderAt, end, pos int64) (b batchAt, s scan, length int32, err error) {
	if pos >= end-headerSizeUpToMagic {
		return b, scanEnd, 0, nil
	}
	buf, err := readAt(r, pos, headerSizeUpToMagic)
	if err != nil {
		return b, scanEnd, 0, err
	}
	length = int32(binary.BigEndian.Uint32(buf[record.LogOverhead-4:]))
	if length < legacyRecordOverheadV0 {
		return b, scanCorrupt, length, nil
	}
	if pos > end-record.LogOverhead-int64(length) {
		return b, scanEnd, 0, nil
	}
	b = batchAt{
		pos:    pos,
		size:   record.LogOverhead + int64(length),
		offset: int64(binary.BigEndian.Uint64(buf)),
		magic:  int8(buf[magicOffset]),
	}
	return b, scanBatch, 0, nil
}

// valid is Kafka's isValid for the whole batch in raw: for v2 at least the
// 61-byte header and a matching CRC-32C over attributes..end; for the legacy
// formats a matching CRC-32 over magic..end.
func (b batchAt) valid(raw []byte) bool {
	if b.magic >= record.MagicV2 {
		if len(raw) < record.HeaderSize {
			return false
		}
		return binary.BigEndian.Uint32(raw[crcOffset:]) == crc32.Checksum(raw[crcFrom:], castagnoli)
	}
	return binary.BigEndian.Uint32(raw[legacyCRCOffset:]) == crc32.ChecksumIEEE(raw[magicOffset:])
}

// validStreaming is valid for a batch too big to read at once.
func (b batchAt) validStreaming(r io.ReaderAt, hdr []byte) (bool, error) {
	from, crcAt, table := int64(magicOffset), legacyCRCOffset, crc32.IEEETable
	if b.magic >= record.MagicV2 {
		if b.size < record.HeaderSize {
			return false, nil
		}
		from, crcAt, table = crcFrom, crcOffset, castagnoli
	}
	const chunk = 1 << 20
	var sum uint32
	for off := from; off < b.size; off += chunk {
		buf, err := readAt(r, b.pos+off, int(min(chunk, b.size-off)))
		if err != nil {
			return false, err
		}
		sum = crc32.Update(sum, table, buf)
	}
	return binary.BigEndian.Uint32(hdr[crcAt:]) == sum, nil
}

// logDumper carries what DumpLogSegments.dumpLog keeps across batches.
type logDumper struct {
	out, errOut *writer
	opts        Options
	lastOffset  int64      // of the last record printed, -1 before the first
	gaps        [][2]int64 // non-consecutive offset pairs, in log order
}

func dumpLog(w io.Writer, name string, r io.ReaderAt, size int64, opts Options) error {
	out := &writer{w: w}
	d := &logDumper{out: out, errOut: errWriter(w, opts), opts: opts, lastOffset: -1}
	out.printf("Dumping %s\n", name)
	if suffix(name) == LogSuffix {
		if start, err := startOffset(name); err != nil {
			out.printf("Log starting offset: unknown, %v\n", err)
		} else {
			out.printf("Log starting offset: %d\n", start)
		}
	}
	var pos int64
	for out.err == nil {
		b, found, badLength, err := nextBatch(r, size, pos)
		if err != nil {
			return err
		}
		if found == scanCorrupt {
			// Kafka throws here and prints nothing more; loglab prints the
			// exception's message and the trailing bytes.
			out.printf("Found record size %d smaller than minimum record overhead (%d) in file %s.\n", badLength, legacyRecordOverheadV0, name)
		}
		if found != scanBatch {
			break
		}
		if err := d.fileBatch(r, size, b); err != nil {
			return err
		}
		pos += b.size
	}
	if trailing := size - pos; trailing > 0 {
		out.printf("Found %d invalid bytes at the end of %s\n", trailing, baseName(name))
	}
	if len(d.gaps) > 0 {
		// Kafka prepends each pair to a Scala List, so they print newest first.
		d.errOut.printf("Non-consecutive offsets in %s\n", name)
		for i := len(d.gaps) - 1; i >= 0; i-- {
			d.errOut.printf("  %d is followed by %d\n", d.gaps[i][0], d.gaps[i][1])
		}
	}
	return firstErr(out.err, d.errOut.err)
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// fileBatch reads the batch b of a segment of size bytes and prints it.
// Kafka loads a v2 batch's 61-byte header from the batch's position even
// when the batch is shorter (and dies when the file is); so does this, as
// far as the file goes.
func (d *logDumper) fileBatch(r io.ReaderAt, size int64, b batchAt) error {
	hdrLen := int(min(record.HeaderSize, size-b.pos))
	var raw, hdr []byte
	var valid bool
	var err error
	if b.size <= maxBatchRead {
		if raw, err = readAt(r, b.pos, int(b.size)); err != nil {
			return err
		}
		valid = b.valid(raw)
		if len(raw) >= hdrLen {
			hdr = raw[:hdrLen]
		}
	}
	if hdr == nil {
		if hdr, err = readAt(r, b.pos, hdrLen); err != nil {
			return err
		}
	}
	if raw == nil {
		if valid, err = b.validStreaming(r, hdr); err != nil {
			return err
		}
	}
	return d.batch(b, hdr, raw, valid)
}

// batch prints one batch: hdr holds its first bytes (61 for v2 when there
// are that many), raw the whole batch, or nil when it is too big to read.
func (d *logDumper) batch(b batchAt, hdr, raw []byte, valid bool) error {
	out := d.out
	switch {
	case b.magic >= record.MagicV2:
		if len(hdr) < record.HeaderSize {
			// Kafka fails to load the header: EOFException, and the dump dies.
			out.printf("Could not read the batch at position %d: it is %d bytes and the file ends before its %d-byte header does\n", b.pos, b.size, record.HeaderSize)
			return nil
		}
		h := parseHeader(hdr)
		d.batchLine(b, h, valid)
		if d.opts.deep() {
			d.records(b, h, raw)
		}
	case b.magic >= 0:
		d.legacyLine(b, hdr, valid)
		if d.opts.deep() {
			out.printf("%s records of message format v%d are not shown: loglab reads RecordBatch v2 (magic 2) only\n", recordIndent, b.magic)
		}
	default:
		// Kafka: IllegalArgumentException, "Invalid magic used in LegacyRecord".
		out.printf("Could not read the batch at position %d: magic %d is no message format\n", b.pos, b.magic)
	}
	return nil
}

// parseHeader reads the 61-byte v2 header as Kafka's DefaultRecordBatch
// accessors do, without record.ReadHeader's checks: a dump shows corrupt
// headers too.
func parseHeader(hdr []byte) record.BatchHeader {
	be := binary.BigEndian
	return record.BatchHeader{
		BaseOffset:           int64(be.Uint64(hdr[0:])),
		BatchLength:          int32(be.Uint32(hdr[8:])),
		PartitionLeaderEpoch: int32(be.Uint32(hdr[12:])),
		Magic:                int8(hdr[16]),
		CRC:                  be.Uint32(hdr[17:]),
		Attributes:           int16(be.Uint16(hdr[21:])),
		LastOffsetDelta:      int32(be.Uint32(hdr[23:])),
		BaseTimestamp:        int64(be.Uint64(hdr[27:])),
		MaxTimestamp:         int64(be.Uint64(hdr[35:])),
		ProducerID:           int64(be.Uint64(hdr[43:])),
		ProducerEpoch:        int16(be.Uint16(hdr[51:])),
		BaseSequence:         int32(be.Uint32(hdr[53:])),
		RecordCount:          int32(be.Uint32(hdr[57:])),
	}
}

// batchLine is DumpLogSegments.printBatchLevel for magic 2:
//
//	print("baseOffset: " + batch.baseOffset + " lastOffset: " + batch.lastOffset + " count: " + batch.countOrNull +
//	  " baseSequence: " + batch.baseSequence + " lastSequence: " + batch.lastSequence +
//	  " producerId: " + batch.producerId + " producerEpoch: " + batch.producerEpoch +
//	  " partitionLeaderEpoch: " + batch.partitionLeaderEpoch + " isTransactional: " + batch.isTransactional +
//	  " isControl: " + batch.isControlBatch + " deleteHorizonMs: " + batch.deleteHorizonMs)
//	println(" position: " + accumulativeBytes + " " + batch.timestampType + ": " + batch.maxTimestamp +
//	  " size: " + batch.sizeInBytes + " magic: " + batch.magic +
//	  " compresscodec: " + batch.compressionType.name + " crc: " + batch.checksum + " isvalid: " + batch.isValid)
//
// deleteHorizonMs is a java.util.OptionalLong, hence its toString; the crc is
// read as an unsigned int.
func (d *logDumper) batchLine(b batchAt, h record.BatchHeader, valid bool) {
	horizon := "OptionalLong.empty"
	if h.HasDeleteHorizon() {
		horizon = "OptionalLong[" + strconv.FormatInt(h.BaseTimestamp, 10) + "]"
	}
	d.out.printf("baseOffset: %d lastOffset: %d count: %d baseSequence: %d lastSequence: %d producerId: %d producerEpoch: %d partitionLeaderEpoch: %d isTransactional: %t isControl: %t deleteHorizonMs: %s position: %d %s: %d size: %d magic: %d compresscodec: %s crc: %d isvalid: %t\n",
		b.offset, h.LastOffset(), h.RecordCount, h.BaseSequence, h.LastSequence(), h.ProducerID, h.ProducerEpoch,
		h.PartitionLeaderEpoch, h.IsTransactional(), h.IsControl(), horizon,
		b.pos, h.TimestampType(), h.MaxTimestamp, b.size, h.Magic, h.Compression(), h.CRC, valid)
}

// legacyLine is printBatchLevel for magic 0 and 1: "offset: " + lastOffset
// and the same tail. A v0 message has no timestamp (NoTimestampType: -1).
func (d *logDumper) legacyLine(b batchAt, hdr []byte, valid bool) {
	attributes := hdr[legacyAttributesOffset]
	tsType, ts := "NoTimestampType", record.NoTimestamp
	if b.magic == 1 {
		tsType = record.CreateTime.String()
		if attributes&legacyTimestampTypeBit != 0 {
			tsType = record.LogAppendTime.String()
		}
		ts = int64(binary.BigEndian.Uint64(hdr[legacyTimestampOffset:]))
	}
	d.out.printf("offset: %d position: %d %s: %d size: %d magic: %d compresscodec: %s crc: %d isvalid: %t\n",
		b.offset, b.pos, tsType, ts, b.size, b.magic, record.Compression(attributes&0x07),
		binary.BigEndian.Uint32(hdr[legacyCRCOffset:]), valid)
}

// recordIndent is DumpLogSegments.RecordIndent.
const recordIndent = "|"

// records prints the batch's records as dumpLog's deep iteration does. Like
// Kafka it reads them whatever the CRC says (isvalid already told), so it
// decodes a copy whose CRC field is corrected; engine/record checks it.
func (d *logDumper) records(b batchAt, h record.BatchHeader, raw []byte) {
	out := d.out
	if h.RecordCount <= 0 {
		return // Kafka's iterator yields nothing for a count of 0 or below
	}
	if raw == nil {
		out.printf("%s records not shown: the batch at position %d is %d bytes, over the %d bytes loglab reads at once\n", recordIndent, b.pos, b.size, maxBatchRead)
		return
	}
	if len(raw) < record.HeaderSize {
		out.printf("Could not read the records of the batch at position %d: it is %d bytes, shorter than the %d-byte header\n", b.pos, len(raw), record.HeaderSize)
		return
	}
	buf := append([]byte(nil), raw...)
	buf[magicOffset] = byte(record.MagicV2) // Kafka reads any magic above 2 as v2
	binary.BigEndian.PutUint32(buf[crcOffset:], crc32.Checksum(buf[crcFrom:], castagnoli))
	batch, _, err := record.Decode(buf)
	if err != nil {
		out.printf("Could not read the records of the batch at position %d: %v\n", b.pos, err)
		return
	}
	var line strings.Builder
	for _, rec := range batch.Records {
		line.Reset()
		d.record(&line, &batch, rec)
		out.printf("%s\n", line.String())
	}
}

// record formats one record line, DumpLogSegments.dumpLog's inner loop:
//
//	print(s"${prefix}offset: ${record.offset} ${batch.timestampType}: ${record.timestamp} " +
//	  s"keySize: ${record.keySize} valueSize: ${record.valueSize}")
//	print(" sequence: " + record.sequence + " headerKeys: " + record.headers.map(_.key).mkString("[", ",", "]"))
//	if (batch.isControlBatch) ... print(s" endTxnMarker: ${endTxnMarker.controlType} coordinatorEpoch: ${endTxnMarker.coordinatorEpoch}")
//	if (printContents && !batch.isControlBatch) { key.foreach(print(s"${prefix}key: $key")); payload.foreach(print(s" payload: $payload")) }
//
// A null key or value is not printed at all (StringDecoder only sees
// present ones).
func (d *logDumper) record(line *strings.Builder, b *record.Batch, rec record.Record) {
	offset := b.Offset(rec)
	if d.lastOffset == -1 {
		d.lastOffset = offset
	} else if offset != d.lastOffset+1 {
		d.gaps = append(d.gaps, [2]int64{d.lastOffset, offset})
	}
	d.lastOffset = offset

	line.WriteString(recordIndent + " offset: ")
	line.WriteString(strconv.FormatInt(offset, 10))
	line.WriteString(" " + b.TimestampType().String() + ": ")
	line.WriteString(strconv.FormatInt(b.Timestamp(rec), 10))
	line.WriteString(" keySize: ")
	line.WriteString(strconv.Itoa(sizeOf(rec.Key)))
	line.WriteString(" valueSize: ")
	line.WriteString(strconv.Itoa(sizeOf(rec.Value)))
	line.WriteString(" sequence: ")
	line.WriteString(strconv.FormatInt(int64(b.Sequence(rec)), 10))
	line.WriteString(" headerKeys: [")
	for i, h := range rec.Headers {
		if i > 0 {
			line.WriteByte(',')
		}
		line.WriteString(javaString([]byte(h.Key)))
	}
	line.WriteByte(']')
	if b.IsControl() {
		line.WriteString(controlText(rec))
		return
	}
	if d.opts.OffsetsDecoder || d.opts.TransactionLogDecoder {
		// DumpLogSegments' OffsetsMessageParser or
		// TransactionLogMessageParser. A record without a key stops
		// Kafka's dump with an exception; here its message stands in the
		// key's place and the dump goes on.
		format := offsets.Format
		if !d.opts.OffsetsDecoder {
			format = txnlog.Format
		}
		key, payload, hasPayload, err := format(offset, rec.Key, rec.Value)
		if err != nil {
			line.WriteString(" key: " + err.Error())
			return
		}
		line.WriteString(" key: " + key)
		if hasPayload {
			line.WriteString(" payload: " + payload)
		}
		return
	}
	if d.opts.PrintDataLog {
		if rec.Key != nil {
			line.WriteString(" key: ")
			line.WriteString(javaString(rec.Key))
		}
		if rec.Value != nil {
			line.WriteString(" payload: ")
			line.WriteString(javaString(rec.Value))
		}
	}
}

// controlText is what a control record adds to its line. Kafka prints
// snapshot and KRaft records as JSON, and dies on a record it cannot parse.
func controlText(rec record.Record) string {
	t, err := record.ControlTypeOf(rec)
	if err != nil {
		return " controlType: unreadable (" + err.Error() + ")"
	}
	if t != record.Abort && t != record.Commit {
		return " controlType: " + t.String() + "(" + strconv.Itoa(int(t)) + ")"
	}
	m, err := record.ParseControlRecord(rec)
	if err != nil {
		return " endTxnMarker: unreadable (" + err.Error() + ")"
	}
	return " endTxnMarker: " + m.Type.String() + " coordinatorEpoch: " + strconv.FormatInt(int64(m.CoordinatorEpoch), 10)
}

func sizeOf(b []byte) int {
	if b == nil {
		return -1
	}
	return len(b)
}
