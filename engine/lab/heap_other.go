//go:build !js

package lab

// makeHeapRoom only matters in WebAssembly (see heap_js.go): a native
// heap grows by whole arenas of address space at a time.
func makeHeapRoom(int64) {}
