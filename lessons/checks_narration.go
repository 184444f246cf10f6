package lessons

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/loglab/loglab/engine/log"
	"github.com/loglab/loglab/engine/record"
)

// Checks that narration states as engine values (`{CHECK ARGS = VALUE}`,
// values.go): the byte sizes, index entries, batch header fields and
// producer ids a lesson's prose quotes from a transcript, read from the
// engine so that a re-recorded transcript cannot leave the prose behind.
func init() {
	register("segment-bytes", "segment-bytes TOPIC/P BROKER BASE: the size in bytes of the segment with base offset BASE in that broker's replica", segmentBytes)
	register("batch-bytes", "batch-bytes TOPIC/P OFFSET: the size in bytes of the leader's batch holding OFFSET, its log overhead included (kafka-dump-log's size)", batchBytes)
	register("index-entries", "index-entries TOPIC/P BROKER BASE: the offsets of the sparse .index entries of that broker's segment with base offset BASE, comma-separated, `none` without one", indexEntries)
	register("batch-field", "batch-field TOPIC/P OFFSET FIELD: a header field of the leader's batch holding OFFSET, as `show batch` names it: baseOffset, lastOffsetDelta, partitionLeaderEpoch, producerId, producerEpoch, baseSequence, recordCount", batchField)
	register("offset-of", "offset-of TOPIC/P BROKER VALUE: the offset of the first record with that value in that broker's log (BROKER 0: the leader), `none` when it holds none", offsetOf)
	register("producer-id", "producer-id NAME: the producer id producer NAME runs with (InitProducerId's answer), `none` before it has one or without idempotence", producerID)
	register("segment-bytes-with-next", "segment-bytes-with-next TOPIC/P BROKER BASE: the size segment BASE of that broker's replica would have had with the batch after it, the one that rolled a new segment (a roll happens when this exceeds segment.bytes)", segmentBytesWithNext)
	register("clean-bytes", "clean-bytes TOPIC/P: the bytes of the leader's segments before the active one that the cleaner already cleaned", cleanBytes)
	register("dirty-bytes", "dirty-bytes TOPIC/P: the bytes of the leader's segments before the active one written since the last cleaning", dirtyBytes)
	register("dirty-ratio", "dirty-ratio TOPIC/P: dirty-bytes / (clean-bytes + dirty-bytes) with two decimals, what the cleaner compares with min.cleanable.dirty.ratio", dirtyRatio)
	register("producer-epoch", "producer-epoch NAME: the epoch producer NAME runs with, `none` before it has a producer id", producerEpoch)
}

// segmentArgs reads TOPIC/P BROKER BASE.
func segmentArgs(s State, args []string) (string, int, int64, error) {
	if len(args) != 3 {
		return "", 0, 0, fmt.Errorf("wants TOPIC/P BROKER BASE")
	}
	b, err := brokerArg(args[1])
	if err != nil {
		return "", 0, 0, err
	}
	base, err := offsetArg(args[2])
	return args[0], b, base, err
}

// namedSegment is the segment args name (TOPIC/P BROKER BASE-OFFSET) in
// that broker's copy of the partition.
func namedSegment(s State, args []string) (log.SegmentInfo, error) {
	tp, b, base, err := segmentArgs(s, args)
	if err != nil {
		return log.SegmentInfo{}, err
	}
	l, err := replicaLog(s, tp, b)
	if err != nil {
		return log.SegmentInfo{}, err
	}
	for _, seg := range l.Segments() {
		if seg.BaseOffset == base {
			return seg, nil
		}
	}
	return log.SegmentInfo{}, fmt.Errorf("broker %d's %s has no segment with base offset %d", b, tp, base)
}

func segmentBytes(s State, args []string) (string, error) {
	seg, err := namedSegment(s, args)
	if err != nil {
		return "", err
	}
	return strconv.FormatInt(seg.Size, 10), nil
}

func indexEntries(s State, args []string) (string, error) {
	seg, err := namedSegment(s, args)
	if err != nil {
		return "", err
	}
	var offs []string
	for _, e := range seg.Index {
		offs = append(offs, strconv.FormatInt(e.Offset, 10))
	}
	if len(offs) == 0 {
		return "none", nil
	}
	return strings.Join(offs, ","), nil
}

// leaderHeader is the header of the leader's batch holding the offset in
// args (TOPIC/P OFFSET).
func leaderHeader(s State, args []string) (record.BatchHeader, error) {
	l, lk, err := lookupArgs(s, args)
	if err != nil {
		return record.BatchHeader{}, err
	}
	raw, err := l.RawBatch(lk.Segment, lk.Position)
	if err != nil {
		return record.BatchHeader{}, err
	}
	return record.ReadHeader(raw)
}

func batchBytes(s State, args []string) (string, error) {
	h, err := leaderHeader(s, args)
	if err != nil {
		return "", err
	}
	return strconv.Itoa(h.Size()), nil
}

func batchField(s State, args []string) (string, error) {
	if len(args) != 3 {
		return "", fmt.Errorf("wants TOPIC/P OFFSET FIELD")
	}
	h, err := leaderHeader(s, args[:2])
	if err != nil {
		return "", err
	}
	switch args[2] {
	case "baseOffset":
		return strconv.FormatInt(h.BaseOffset, 10), nil
	case "lastOffsetDelta":
		return strconv.Itoa(int(h.LastOffsetDelta)), nil
	case "partitionLeaderEpoch":
		return strconv.Itoa(int(h.PartitionLeaderEpoch)), nil
	case "producerId":
		return strconv.FormatInt(h.ProducerID, 10), nil
	case "producerEpoch":
		return strconv.Itoa(int(h.ProducerEpoch)), nil
	case "baseSequence":
		return strconv.Itoa(int(h.BaseSequence)), nil
	case "recordCount":
		return strconv.Itoa(int(h.RecordCount)), nil
	}
	return "", fmt.Errorf("no batch header field %q (baseOffset, lastOffsetDelta, partitionLeaderEpoch, producerId, producerEpoch, baseSequence, recordCount)", args[2])
}

func offsetOf(s State, args []string) (string, error) {
	if len(args) != 3 {
		return "", fmt.Errorf("wants TOPIC/P BROKER VALUE")
	}
	b, err := strconv.Atoi(args[1])
	if err != nil || b < 0 {
		return "", fmt.Errorf("%q is not a broker id (0: the leader)", args[1])
	}
	l, err := replicaLog(s, args[0], b)
	if err != nil {
		return "", err
	}
	recs, err := l.Records(l.StartOffset(), 0)
	if err != nil {
		return "", err
	}
	for _, r := range recs {
		if r.Value != nil && string(r.Value) == args[2] {
			return strconv.FormatInt(r.Offset, 10), nil
		}
	}
	return "none", nil
}

func producerIDAndEpoch(s State, args []string) (int64, int16, error) {
	if len(args) != 1 {
		return 0, 0, fmt.Errorf("wants NAME")
	}
	if err := needCluster(s); err != nil {
		return 0, 0, err
	}
	p := s.Lab.Cluster().Producer(args[0])
	if p == nil {
		return 0, 0, fmt.Errorf("no producer %q", args[0])
	}
	id, epoch := p.ProducerIDAndEpoch()
	return id, epoch, nil
}

func producerID(s State, args []string) (string, error) {
	id, _, err := producerIDAndEpoch(s, args)
	if err != nil || id < 0 {
		return "none", err
	}
	return strconv.FormatInt(id, 10), nil
}

func producerEpoch(s State, args []string) (string, error) {
	id, epoch, err := producerIDAndEpoch(s, args)
	if err != nil || id < 0 {
		return "none", err
	}
	return strconv.Itoa(int(epoch)), nil
}

func segmentBytesWithNext(s State, args []string) (string, error) {
	tp, b, base, err := segmentArgs(s, args)
	if err != nil {
		return "", err
	}
	l, err := replicaLog(s, tp, b)
	if err != nil {
		return "", err
	}
	segs := l.Segments()
	for i, seg := range segs {
		if seg.BaseOffset != base {
			continue
		}
		if i+1 == len(segs) {
			return "", fmt.Errorf("segment %d of broker %d's %s is the active one: no batch after it rolled", base, b, tp)
		}
		next, err := l.BatchesIn(segs[i+1].BaseOffset)
		if err != nil || len(next) == 0 {
			return "", fmt.Errorf("segment %d of broker %d's %s: no batch after it (%v)", base, b, tp, err)
		}
		return strconv.FormatInt(seg.Size+int64(next[0].Header.Size()), 10), nil
	}
	return "", fmt.Errorf("broker %d's %s has no segment with base offset %d", b, tp, base)
}

func dirtyParts(s State, args []string) (float64, int64, int64, error) {
	if len(args) != 1 {
		return 0, 0, 0, fmt.Errorf("wants TOPIC/P")
	}
	l, err := replicaLog(s, args[0], 0)
	if err != nil {
		return 0, 0, 0, err
	}
	ratio, clean, dirty := l.DirtyRatio()
	return ratio, clean, dirty, nil
}

func cleanBytes(s State, args []string) (string, error) {
	_, clean, _, err := dirtyParts(s, args)
	return strconv.FormatInt(clean, 10), err
}

func dirtyBytes(s State, args []string) (string, error) {
	_, _, dirty, err := dirtyParts(s, args)
	return strconv.FormatInt(dirty, 10), err
}

func dirtyRatio(s State, args []string) (string, error) {
	ratio, _, _, err := dirtyParts(s, args)
	return strconv.FormatFloat(ratio, 'f', 2, 64), err
}
