//go:build !(js && wasm)

package main

import (
	"fmt"
	"os"
)

// main explains itself when built for the wrong platform: this package is
// the browser driver and only does something as WebAssembly.
func main() {
	fmt.Fprintln(os.Stderr, "loglab's browser driver: build it with GOOS=js GOARCH=wasm (make wasm)")
	os.Exit(2)
}
