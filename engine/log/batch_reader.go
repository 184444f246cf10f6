package log

import (
	"github.com/loglab/loglab/engine/record"
	"github.com/loglab/loglab/engine/storage"
)

// A BatchReader reads a segment file firstChunk bytes at a time at first
// (more when a batch is larger), doubling up to readChunk as it goes on:
// a few small batches per read, without copying a whole fetch region to
// look at its first batch (the checker looks at one batch per seek).
const (
	firstChunk = 4 << 10
	readChunk  = 64 << 10
)

// BatchReader reads a log's batches holding offsets [from, to) one at a
// time, in the regions Read returns, through one reused buffer. Copying
// each megabyte region out whole (Slice.Bytes) was most of what the
// invariant checker allocated after a large produce, re-copied for each
// run of 500 records it looked at: in WASM, whose garbage collector is
// single-threaded, that garbage cost more than the simulation.
type BatchReader struct {
	l        *Log
	from, to int64
	fd       FetchData
	slice    int  // next slice of fd
	got      bool // the current read gave a batch
	read     bool // a read was made
	cur      sliceReader
}

// RawBatches reads the batches holding offsets from up to to (whole
// batches: the last may end past to), as successive Reads of up to a
// megabyte bounded by to return them.
func (l *Log) RawBatches(from, to int64) *BatchReader {
	return &BatchReader{l: l, from: from, to: to}
}

// Next returns the next batch's bytes, valid until the following call, or
// nil at the end. Where the bytes left in a read do not hold a whole batch
// by its header (a cut or corrupt region), it returns all of them at once,
// so that decoding them reports what is wrong as decoding the whole region
// did. Like Read, it fails for a from outside the log.
func (r *BatchReader) Next() ([]byte, error) {
	for {
		raw, err := r.cur.next()
		if err != nil {
			return nil, err
		}
		if raw != nil {
			r.got = true
			if h, err := record.ReadHeader(raw); err == nil {
				r.from = max(r.from, h.NextOffset())
			}
			return raw, nil
		}
		if r.slice < len(r.fd.Slices) {
			r.cur = sliceReader{sl: r.fd.Slices[r.slice], p: r.fd.Slices[r.slice].Pos, buf: r.cur.buf}
			r.slice++
			continue
		}
		if (r.read && !r.got) || r.from >= r.to {
			return nil, nil
		}
		fd, err := r.l.Read(r.from, 1<<20, r.to)
		if err != nil {
			return nil, err
		}
		r.fd, r.slice, r.got, r.read = fd, 0, false, true
	}
}

// sliceReader cuts a file region into batches, reading it a chunk at a time.
type sliceReader struct {
	sl    storage.Slice
	p     int64  // file position of win[0]
	buf   []byte // reused between chunks
	win   []byte // read and not yet returned
	chunk int    // the next read's size, unless a batch needs more
}

func (r *sliceReader) next() ([]byte, error) {
	end := r.sl.Pos + r.sl.Len
	for {
		left := end - r.p // from win[0] to the region's end
		if left <= 0 {
			return nil, nil
		}
		h, err := record.ReadHeader(r.win)
		if err == nil && h.Size() <= len(r.win) {
			raw := r.win[:h.Size()]
			r.win = r.win[h.Size():]
			r.p += int64(h.Size())
			return raw, nil
		}
		if int64(len(r.win)) == left {
			// All of the region is read and is no whole batch.
			raw := r.win
			r.win, r.p = nil, end
			return raw, nil
		}
		r.chunk = min(max(2*r.chunk, firstChunk), readChunk)
		want := int64(r.chunk)
		switch {
		case err == nil && int64(h.Size()) > left, err != nil && len(r.win) >= record.HeaderSize:
			want = left // broken: the rest goes out at once
		case err == nil:
			want = max(want, int64(h.Size()))
		}
		if err := r.fill(int(min(want, left))); err != nil {
			return nil, err
		}
	}
}

// fill makes win the want bytes from p on, keeping what it already holds.
func (r *sliceReader) fill(want int) error {
	buf := r.buf
	if cap(buf) < want {
		buf = make([]byte, want)
	}
	buf = buf[:want]
	n := copy(buf, r.win)
	if err := storage.ReadFull(r.sl.File, buf[n:], r.p+int64(n)); err != nil {
		return err
	}
	r.buf, r.win = buf, buf
	return nil
}
