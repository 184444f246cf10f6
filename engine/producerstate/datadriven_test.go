package producerstate

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/loglab/loglab/internal/datadriven"
)

// TestProducerAppendInfo replays testdata/append.txt: ProducerStateManagerTest's
// cases that go through ProducerAppendInfo (checkProducerEpoch,
// checkSequence, appendDataBatch, appendEndTxnMarker), each appending
// batches of producer id 1 to one partition's manager and printing the
// answer and the producer's state after it.
//
//	append epoch= seq=N|A-B offset=N|A-B [ts=1000+last offset] [txn]
//	       [client|replication] [raw]     a data batch (client by default);
//	                                      raw: ProducerAppendInfo alone, without
//	                                      the manager's duplicate lookup, and
//	                                      nothing applied
//	marker commit|abort epoch= coordinator-epoch= offset= [tv=N] [replication]
//	                                      an end-transaction marker (from the
//	                                      coordinator by default)
func TestProducerAppendInfo(t *testing.T) {
	datadriven.Run(t, "testdata/append.txt", func(t *testing.T) datadriven.Handler {
		m := NewManager(DefaultProducerIDExpirationMs)
		return func(t *testing.T, c *datadriven.Cmd) string {
			var b Batch
			origin, raw := Client, false
			switch c.Name {
			case "append":
				first, last := ddRange(t, c, "seq")
				firstOff, lastOff := ddRange(t, c, "offset")
				b = Batch{ProducerID: pid, Epoch: int16(c.Int(t, "epoch", 0)), FirstSeq: int32(first), LastSeq: int32(last),
					FirstOffset: firstOff, LastOffset: lastOff, MaxTimestamp: c.Int(t, "ts", 1000+lastOff), Transactional: c.Has("txn")}
			case "marker":
				origin = Coordinator
				off := c.Int(t, "offset", 0)
				b = Batch{ProducerID: pid, Epoch: int16(c.Int(t, "epoch", 0)), FirstSeq: NoSequence, LastSeq: NoSequence,
					FirstOffset: off, LastOffset: off, MaxTimestamp: 1000 + off,
					Marker: &Marker{CoordinatorEpoch: int32(c.Int(t, "coordinator-epoch", 0)), TransactionVersion: int16(c.Int(t, "tv", 0))}}
			default:
				t.Fatalf("%s: unknown command %q", c.Pos, c.Name)
			}
			for _, w := range c.Words() {
				switch w {
				case "client":
					origin = Client
				case "replication":
					origin = Replication
				case "raw":
					raw = true
				case "commit", "abort":
					if b.Marker == nil {
						t.Fatalf("%s: %s on a data batch", c.Pos, w)
					}
					b.Marker.Type = Commit
					if w == "abort" {
						b.Marker.Type = Abort
					}
				default:
					t.Fatalf("%s: unknown word %q", c.Pos, w)
				}
			}
			before, _ := m.Entry(pid)
			var r Result
			if raw {
				r = check(before, b, origin)
			} else {
				r = m.Append(b, origin)
			}
			var out []string
			switch {
			case r.Err != nil:
				var code Error
				if !errors.As(r.Err, &code) {
					t.Errorf("%s: %v is not an Error", c.Pos, r.Err)
				}
				out = append(out, "error: "+r.Err.Error())
			case r.Duplicate:
				out = append(out, fmt.Sprintf("duplicate of seq %d-%d at %d-%d", r.Original.FirstSeq(), r.Original.LastSeq,
					r.Original.FirstOffset(), r.Original.LastOffset))
			default:
				out = append(out, "ok")
			}
			if d := r.Completed; d != nil {
				out = append(out, fmt.Sprintf("completed transaction of producer %d at %d-%d aborted=%v", d.ProducerID, d.FirstOffset, d.LastOffset, d.Aborted))
			}
			after, ok := m.Entry(pid)
			if r.Err != nil && !equalEntry(before, after) {
				t.Errorf("%s: a refused batch changed the state", c.Pos)
				out = append(out, "the refused batch changed the state")
			}
			if !ok {
				return strings.Join(append(out, "no producer state"), "\n")
			}
			return strings.Join(append(out, ddEntry(after)), "\n")
		}
	})
}

// ddRange reads key=N or key=A-B.
func ddRange(t *testing.T, c *datadriven.Cmd, key string) (int64, int64) {
	v := c.Str(key, "")
	lo, hi, isRange := strings.Cut(v, "-")
	a, err := strconv.ParseInt(lo, 10, 64)
	b := a
	if err == nil && isRange {
		b, err = strconv.ParseInt(hi, 10, 64)
	}
	if err != nil {
		t.Fatalf("%s: %s=%q: want N or A-B", c.Pos, key, v)
	}
	return a, b
}

func ddEntry(e Entry) string {
	txn := "none"
	if e.HasOngoingTxn() {
		txn = fmt.Sprintf("from %d", e.CurrentTxnFirstOffset)
	}
	s := fmt.Sprintf("producer %d: epoch=%d coordinator-epoch=%d transaction=%s last-ts=%d batches:", e.ProducerID, e.Epoch,
		e.CoordinatorEpoch, txn, e.LastTimestamp)
	if len(e.Batches) == 0 {
		return s + " none"
	}
	for _, b := range e.Batches {
		s += fmt.Sprintf(" seq %d-%d at %d-%d;", b.FirstSeq(), b.LastSeq, b.FirstOffset(), b.LastOffset)
	}
	return strings.TrimSuffix(s, ";")
}
