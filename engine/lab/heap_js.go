//go:build js

package lab

import (
	"runtime"
	"runtime/metrics"
)

// makeHeapRoom makes sure the Go heap has room for about n bytes beyond
// the live heap before a command that will need them, growing the
// WebAssembly memory in one step.
//
// Under js the Go runtime grows the module's memory only by what each new
// span needs, half a megabyte at a time, and V8 answers every growth with
// a garbage collection of its own heap (the memory's buffer is replaced,
// "external memory pressure"): a produce of 100,000 records grew the
// memory about a hundred times and spent a fifth of its time there. One
// large allocation, dropped and collected at once, grows the memory once;
// the runtime then carves the command's objects out of the freed pages.
// The allocation is zeroed, so the pages are touched once: worth it only
// for a large shortfall (minHeapGrowth). Nothing the engine computes
// depends on it.
func makeHeapRoom(n int64) {
	if heapShort(n) < minHeapGrowth {
		return
	}
	// The live heap the last collection measured may include what has
	// since become garbage (a cluster replaced): measured afresh.
	runtime.GC()
	short := heapShort(n)
	if short < minHeapGrowth {
		return
	}
	heapRoomSink = make([]byte, short) // escapes: a heap allocation of the size asked for
	heapRoomSink = nil
	runtime.GC()
}

// heapShort is how many bytes the heap's pages (in use or free) fall short
// of the live heap plus n.
func heapShort(n int64) int64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/memory/classes/heap/objects:bytes"},
		{Name: "/memory/classes/heap/unused:bytes"}, {Name: "/memory/classes/heap/free:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	var pages int64
	for _, x := range s[1:] {
		pages += int64(x.Value.Uint64())
	}
	return int64(s[0].Value.Uint64()) + n - pages
}

// minHeapGrowth: smaller shortfalls are left to the runtime. The room is
// zeroed when it is allocated, and measured under node a produce of 20,000
// records (about 16 MB short) gained nothing from it while one of 100,000
// (about 75 MB) took a quarter less CPU time.
const minHeapGrowth = 32 << 20

var heapRoomSink []byte
