package lab

import (
	"fmt"
	brokers "github.com/loglab/loglab/engine/broker"
	"github.com/loglab/loglab/engine/group/offsets"
	"strings"

	"github.com/loglab/loglab/engine/log"
	"github.com/loglab/loglab/engine/record"
	"github.com/loglab/loglab/engine/view"
)

var showBatchCommand = &command{
	name:    "show batch",
	usage:   "show batch TOPIC/PARTITION offset=N [broker=ID]",
	summary: "open the batch holding offset N: its header fields, records and bytes (also in the inspector panel)",
	run: func(l *Lab, a *args) (string, error) {
		name, broker, plog, lk, err := l.lookupArgs(a)
		if err != nil {
			return "", err
		}
		if !lk.Found {
			return "", fmt.Errorf("%w: no batch holds offset %d", log.ErrOffsetOutOfRange, lk.Target)
		}
		raw, err := plog.RawBatch(lk.Segment, lk.Position)
		if err != nil {
			return "", err
		}
		d := batchDetail(name, log.FileName(lk.Segment, log.LogSuffix), lk.Position, raw)
		d.Broker = broker
		l.inspector = view.Inspector{Batch: &d}
		return describeBatch(d), nil
	},
}

var showLookupCommand = &command{
	name:    "show lookup",
	usage:   "show lookup TOPIC/PARTITION offset=N [broker=ID]",
	summary: "trace how a read finds offset N: pick the segment, binary-search its sparse index, then scan batch headers",
	run: func(l *Lab, a *args) (string, error) {
		name, broker, plog, lk, err := l.lookupArgs(a)
		if err != nil {
			return "", err
		}
		tr := lookupTrace(name, plog, lk)
		tr.Broker = broker
		l.inspector = view.Inspector{Lookup: &tr}
		return describeLookup(tr), nil
	},
}

// lookupArgs reads "TOPIC/PARTITION offset=N" and traces the lookup of N
// on the broker named (the leader by default), whose id it returns.
func (l *Lab) lookupArgs(a *args) (string, int, *log.Log, log.Lookup, error) {
	if err := l.requireCluster(); err != nil {
		return "", 0, nil, log.Lookup{}, err
	}
	offset := a.integer("offset", -1, 0, 1<<62)
	broker := a.integer("broker", 0, 1, 1000)
	if err := a.finish(); err != nil {
		return "", 0, nil, log.Lookup{}, err
	}
	if offset < 0 {
		return "", 0, nil, log.Lookup{}, fmt.Errorf("missing offset=")
	}
	topic, partition, plog, err := l.partitionArg(a, broker)
	if err != nil {
		return "", 0, nil, log.Lookup{}, err
	}
	_, id, _ := l.cluster.Replica(topic, partition, broker) // the broker partitionArg read
	lk, err := plog.TraceLookup(int64(offset))
	return fmt.Sprintf("%s/%d", topic, partition), id, plog, lk, err
}

// headerLayout is the RecordBatch v2 header: each field's name and size in
// bytes, in wire order. The records follow at byte 61.
var headerLayout = []struct {
	name string
	size int
}{
	{"baseOffset", 8}, {"batchLength", 4}, {"partitionLeaderEpoch", 4}, {"magic", 1}, {"crc", 4},
	{"attributes", 2}, {"lastOffsetDelta", 4}, {"baseTimestamp", 8}, {"maxTimestamp", 8},
	{"producerId", 8}, {"producerEpoch", 2}, {"baseSequence", 4}, {"recordCount", 4},
}

func batchDetail(partition, file string, position int64, raw []byte) view.BatchDetail {
	d := view.BatchDetail{Partition: partition, File: file, Position: position, Size: len(raw), Valid: record.VerifyCRC(raw) == nil}
	h, _ := record.ReadHeader(raw) // raw came from a valid index lookup: the header is whole
	values := []string{
		fmt.Sprint(h.BaseOffset), fmt.Sprint(h.BatchLength), fmt.Sprint(h.PartitionLeaderEpoch), fmt.Sprint(h.Magic), fmt.Sprint(h.CRC),
		fmt.Sprintf("%d (compression %s, %s, transactional %v, control %v)", h.Attributes, h.Compression(), h.TimestampType(), h.IsTransactional(), h.IsControl()),
		fmt.Sprint(h.LastOffsetDelta), fmt.Sprint(h.BaseTimestamp), fmt.Sprint(h.MaxTimestamp),
		fmt.Sprint(h.ProducerID), fmt.Sprint(h.ProducerEpoch), fmt.Sprint(h.BaseSequence), fmt.Sprint(h.RecordCount),
	}
	at := 0
	for i, f := range headerLayout {
		d.Fields = append(d.Fields, view.Field{Name: f.name, Value: values[i], Start: at, End: at + f.size})
		at += f.size
	}
	fieldOf := func(pos int) int {
		for i, f := range d.Fields {
			if pos >= f.Start && pos < f.End {
				return i
			}
		}
		return -1
	}
	for row := 0; row < len(raw); row += 16 {
		hr := view.HexRow{Offset: row}
		for i := row; i < min(row+16, len(raw)); i++ {
			hr.Cells = append(hr.Cells, view.HexCell{Hex: fmt.Sprintf("%02x", raw[i]), Field: fieldOf(i)})
		}
		d.Hex = append(d.Hex, hr)
	}
	if b, _, err := record.Decode(raw); err == nil {
		for _, r := range b.Records {
			rd := view.RecordDetail{Offset: b.Offset(r), Timestamp: b.Timestamp(r), Key: nullable(r.Key), Value: nullable(r.Value)}
			if strings.HasPrefix(partition, brokers.OffsetsTopic+"/") && r.Key != nil {
				// The coordinator's records are binary: decode them as
				// kafka-dump-log --offsets-decoder does (the bytes stay in
				// the hex view beside).
				if key, payload, ok, err := offsets.Format(b.Offset(r), r.Key, r.Value); err == nil {
					rd.Key = key
					if ok {
						rd.Value = payload
					}
				}
			}
			var hs []string
			for _, hdr := range r.Headers {
				hs = append(hs, hdr.Key+"="+nullable(hdr.Value))
			}
			rd.Headers = strings.Join(hs, ",")
			d.Records = append(d.Records, rd)
		}
	}
	return d
}

func nullable(b []byte) string {
	if b == nil {
		return "null"
	}
	return string(b)
}

func describeBatch(d view.BatchDetail) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s position %d, %d bytes, crc valid: %v", d.Partition, d.File, d.Position, d.Size, d.Valid)
	for _, f := range d.Fields {
		fmt.Fprintf(&b, "\n  [%2d,%2d) %-20s %s", f.Start, f.End, f.Name, f.Value)
	}
	fmt.Fprintf(&b, "\n  [61,%d) records", d.Size)
	for _, r := range d.Records {
		fmt.Fprintf(&b, "\n    offset %d CreateTime %d key %s value %s", r.Offset, r.Timestamp, r.Key, r.Value)
		if r.Headers != "" {
			fmt.Fprintf(&b, " headers %s", r.Headers)
		}
	}
	for _, row := range d.Hex {
		fmt.Fprintf(&b, "\n  %04x ", row.Offset)
		for _, c := range row.Cells {
			b.WriteString(" " + c.Hex)
		}
	}
	return b.String()
}

func lookupTrace(partition string, plog *log.Log, lk log.Lookup) view.LookupTrace {
	tr := view.LookupTrace{Partition: partition, Target: lk.Target, Segment: log.FileName(lk.Segment, log.LogSuffix), Start: view.IndexEntry(lk.Start), Found: lk.Found}
	for _, s := range plog.Segments() {
		if s.BaseOffset == lk.Segment {
			for _, e := range s.Index {
				tr.Index = append(tr.Index, view.IndexEntry(e))
			}
		}
	}
	for _, p := range lk.Probes {
		tr.Probes = append(tr.Probes, view.IndexEntry(p))
	}
	for _, b := range lk.Scanned {
		tr.Scanned = append(tr.Scanned, view.ScannedBatch{Position: b.Position, BaseOffset: b.Header.BaseOffset, LastOffset: b.Header.LastOffset(), Size: b.Header.Size()})
	}
	return tr
}

func describeLookup(tr view.LookupTrace) string {
	var b strings.Builder
	fmt.Fprintf(&b, "lookup of offset %d in %s: segment %s (%d index entries)", tr.Target, tr.Partition, tr.Segment, len(tr.Index))
	for i, p := range tr.Probes {
		fmt.Fprintf(&b, "\n  binary search step %d: index entry offset %d -> position %d", i+1, p.Offset, p.Position)
	}
	fmt.Fprintf(&b, "\n  start scanning at position %d (index entry for offset %d)", tr.Start.Position, tr.Start.Offset)
	for _, s := range tr.Scanned {
		fmt.Fprintf(&b, "\n  read batch header at position %d: offsets %d-%d, %d bytes", s.Position, s.BaseOffset, s.LastOffset, s.Size)
	}
	if tr.Found && len(tr.Scanned) > 0 {
		last := tr.Scanned[len(tr.Scanned)-1]
		fmt.Fprintf(&b, "\n  found: offset %d is in the batch at position %d", tr.Target, last.Position)
	}
	return b.String()
}
