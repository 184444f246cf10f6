//go:build js

package lab

import (
	"syscall/js"
	"time"
)

// cpuTime is the process's user and system CPU time so far, as node's
// process.cpuUsage reports it (its own threads included: the WASM
// garbage collector runs on the one thread Go has there).
func cpuTime() time.Duration {
	u := js.Global().Get("process").Call("cpuUsage")
	return time.Duration(u.Get("user").Float()+u.Get("system").Float()) * time.Microsecond
}
