package txnindex

import (
	"errors"
	"reflect"
	"testing"
)

// Tests named after Kafka's TransactionIndexTest. Kafka's file-handling
// cases (rename, updateParentDir, flush, deleteIfExists, close/interrupt
// reopening the channel) have no counterpart: there is no file here.

const path = "00000000000000000000.txnindex"

func mustAppend(t *testing.T, x *TransactionIndex, txns ...AbortedTxn) {
	t.Helper()
	for _, txn := range txns {
		if err := x.Append(txn); err != nil {
			t.Fatalf("append %v: %v", txn, err)
		}
	}
}

func fourTxns() []AbortedTxn {
	return []AbortedTxn{
		NewAbortedTxn(0, 0, 10, 11),
		NewAbortedTxn(1, 5, 15, 13),
		NewAbortedTxn(2, 18, 35, 25),
		NewAbortedTxn(3, 32, 50, 40),
	}
}

func TestPositionSetCorrectlyWhenOpened(t *testing.T) {
	x := New(0, path)
	txns := fourTxns()
	mustAppend(t, x, txns...)
	reopened := Open(0, path, x.Bytes())
	another := NewAbortedTxn(3, 50, 60, 55)
	mustAppend(t, reopened, another)
	got, err := reopened.AllAbortedTxns()
	if want := append(txns, another); err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("AllAbortedTxns = %v, %v; want %v", got, err, want)
	}
}

// Kafka's constructor does not read the last offset back: the first append
// after reopening is not checked against the file's entries.
func TestReopenedIndexDoesNotCheckFirstAppend(t *testing.T) {
	x := New(0, path)
	mustAppend(t, x, fourTxns()...)
	reopened := Open(0, path, x.Bytes())
	mustAppend(t, reopened, NewAbortedTxn(9, 0, 5, 5))
	if err := reopened.Append(NewAbortedTxn(9, 0, 5, 5)); err == nil {
		t.Fatalf("second append with the same last offset was accepted")
	}
}

func TestSanityCheck(t *testing.T) {
	x := New(0, path)
	mustAppend(t, x, fourTxns()...)
	if err := x.SanityCheck(); err != nil {
		t.Fatalf("start offset 0: %v", err)
	}
	reopened := Open(100, path, x.Bytes())
	err := reopened.SanityCheck()
	var ce *CorruptIndexError
	want := "Last offset of aborted transaction AbortedTxn(version=0, producerId=0, firstOffset=0, lastOffset=10, lastStableOffset=11) in index " + path + " is less than start offset 100"
	if !errors.As(err, &ce) || err.Error() != want {
		t.Fatalf("err = %v, want %q", err, want)
	}
}

func TestLastOffsetMustIncrease(t *testing.T) {
	for _, tc := range []struct {
		name string // Kafka's test name
		next AbortedTxn
	}{
		{"testLastOffsetMustIncrease", NewAbortedTxn(0, 0, 15, 11)},
		{"testLastOffsetCannotDecrease", NewAbortedTxn(0, 0, 10, 11)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := New(0, path)
			mustAppend(t, x, NewAbortedTxn(1, 5, 15, 13))
			err := x.Append(tc.next)
			var ne *NonIncreasingLastOffsetError
			if !errors.As(err, &ne) || ne.CurrentLastOffset != 15 || ne.LastOffset != tc.next.LastOffset {
				t.Fatalf("err = %v, want NonIncreasingLastOffsetError", err)
			}
			if got, _ := x.AllAbortedTxns(); len(got) != 1 {
				t.Fatalf("refused entry was written: %v", got)
			}
		})
	}
}

func TestCollectAbortedTransactions(t *testing.T) {
	txns := fourTxns()
	x := New(0, path)
	mustAppend(t, x, txns...)
	for _, tc := range []struct {
		fetch, upper int64
		want         []AbortedTxn
		complete     bool
	}{
		{0, 100, txns, false},   // no lastStableOffset reaches 100: search the next segment
		{0, 32, txns[:3], true}, // txn 3 starts at 32, not below the bound; LSO 40 >= 32 stops
		{0, 35, txns, true},
		{10, 35, txns, true},     // lastOffset 10 >= fetch offset 10: txn 0 still overlaps
		{11, 35, txns[1:], true}, // txn 0 ended before 11
		{20, 41, txns[2:], false},
		{20, 40, txns[2:], true}, // txn 3's LSO equals the bound: complete (>=, not >)
	} {
		r, err := x.CollectAbortedTxns(tc.fetch, tc.upper)
		if err != nil || !reflect.DeepEqual(r.AbortedTransactions, tc.want) || r.IsComplete != tc.complete {
			t.Errorf("collectAbortedTxns(%d, %d) = %v complete=%v, %v; want %v complete=%v",
				tc.fetch, tc.upper, r.AbortedTransactions, r.IsComplete, err, tc.want, tc.complete)
		}
	}
}

// The search stops at the first entry whose LSO reaches the bound, so a bad
// entry after it is never read, as in Kafka's lazy iterator.
func TestCollectAbortedTransactionsStopsBeforeBadVersion(t *testing.T) {
	x := New(0, path)
	mustAppend(t, x, NewAbortedTxn(0, 0, 10, 11))
	data := append(x.Bytes(), withVersionBytes(0x01, 0x00)...)
	y := Open(0, path, data)
	r, err := y.CollectAbortedTxns(0, 11)
	if err != nil || !r.IsComplete || len(r.AbortedTransactions) != 1 {
		t.Fatalf("collect(0, 11) = %+v, %v; want the first entry, complete", r, err)
	}
	if _, err := y.CollectAbortedTxns(0, 12); err == nil {
		t.Fatalf("collect(0, 12) read past the bad entry without error")
	}
}

func TestTruncate(t *testing.T) {
	txns := []AbortedTxn{
		NewAbortedTxn(0, 0, 10, 2),
		NewAbortedTxn(1, 5, 15, 16),
		NewAbortedTxn(2, 18, 35, 25),
		NewAbortedTxn(3, 32, 50, 40),
	}
	x := New(0, path)
	mustAppend(t, x, txns...)
	all := func() []AbortedTxn {
		r, err := x.CollectAbortedTxns(0, 100)
		if err != nil {
			t.Fatal(err)
		}
		return r.AbortedTransactions
	}
	for _, tc := range []struct {
		offset int64
		want   []AbortedTxn
	}{
		{51, txns},     // every transaction ended before 51
		{50, txns[:3]}, // txn 3 ended at 50: dropped
		{16, txns[:2]},
		{15, txns[:1]},
	} {
		if err := x.TruncateTo(tc.offset); err != nil {
			t.Fatal(err)
		}
		if got := all(); !reflect.DeepEqual(got, tc.want) {
			t.Fatalf("after truncateTo(%d): %v, want %v", tc.offset, got, tc.want)
		}
	}
	// The remembered last offset is now 10's: 11 is accepted, 10 is not.
	if err := x.Append(NewAbortedTxn(4, 9, 10, 12)); err == nil {
		t.Fatalf("append with last offset 10 after truncateTo(15) accepted")
	}
	mustAppend(t, x, NewAbortedTxn(4, 9, 11, 12))
	x.Reset()
	if got := all(); len(got) != 0 {
		t.Fatalf("after reset: %v", got)
	}
	mustAppend(t, x, NewAbortedTxn(0, 0, 1, 1)) // reset forgets the last offset
}

func TestAbortedTxnSerde(t *testing.T) {
	txn := NewAbortedTxn(983493, 137, 299, 200)
	d, err := Decode(path, txn.AppendTo(nil))
	if err != nil || len(d.Entries) != 1 {
		t.Fatal(d, err)
	}
	got := d.Entries[0]
	if got.KafkaVersion() != CurrentVersion || got.ProducerID != 983493 || got.FirstOffset != 137 ||
		got.LastOffset != 299 || got.LastStableOffset != 200 {
		t.Fatalf("round trip = %v", got)
	}
}

func TestIsEmpty(t *testing.T) {
	for _, tc := range []struct {
		name string // Kafka's test name
		x    *TransactionIndex
		want bool
	}{
		{"testIsEmptyWhenFileDoesNotExist", New(0, path), true},
		{"testIsEmptyWhenFileIsEmpty", Open(0, path, []byte{}), true},
		{"testIsEmptyWhenFileIsNotEmpty", Open(0, path, golden1000), false},
		{"only a partial entry", Open(0, path, golden1000[:EntrySize-1]), true},
	} {
		if got := tc.x.IsEmpty(); got != tc.want {
			t.Errorf("%s: IsEmpty = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// testDoNotCreateFileUntilNeeded: reset on a new index leaves no bytes.
func TestDoNotCreateFileUntilNeeded(t *testing.T) {
	x := New(0, path)
	x.Reset()
	if x.Bytes() != nil {
		t.Fatalf("reset created bytes")
	}
	mustAppend(t, x, NewAbortedTxn(0, 0, 10, 2))
	if len(x.Bytes()) != EntrySize {
		t.Fatalf("append wrote %d bytes", len(x.Bytes()))
	}
}

// Kafka appends at the end of the file: after a torn (partial) entry the
// next entry is misaligned. This pins that behaviour, which is Kafka's.
func TestAppendAfterTrailingPartialEntryIsMisaligned(t *testing.T) {
	x := Open(0, path, golden1000[:10])
	mustAppend(t, x, NewAbortedTxn(0, 0, 10, 2))
	d, err := Decode(path, x.Bytes())
	if err != nil || len(d.Entries) != 1 || d.TrailingPartialEntry != 10 || d.Entries[0] == NewAbortedTxn(0, 0, 10, 2) {
		t.Fatalf("decode = %+v, %v; want one misaligned entry and 10 trailing bytes", d, err)
	}
}
