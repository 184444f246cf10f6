//go:build js && wasm

package main

import (
	"syscall/js"

	"github.com/loglab/loglab/engine/lab"
)

// main publishes globalThis.loglab and then waits forever: the module lives
// as long as the page.
//
//	loglab.run(line)        -> Promise<{output, ok, entry, view}>
//	loglab.followQuorum()   -> Promise<{view}>, view "" when nothing changed
//	loglab.starter          -> the commands a new lab runs first
func main() {
	s := newSession()
	api := js.Global().Get("Object").New()
	api.Set("run", js.FuncOf(func(_ js.Value, args []js.Value) any {
		line := ""
		if len(args) > 0 {
			line = args[0].String()
		}
		return promise(func() any {
			u := s.run(line)
			return map[string]any{"output": u.Output, "ok": u.OK, "entry": u.Entry, "view": u.View}
		})
	}))
	api.Set("followQuorum", js.FuncOf(func(js.Value, []js.Value) any {
		return promise(func() any { return map[string]any{"view": s.followQuorum()} })
	}))
	api.Set("starter", lab.StarterScript)
	js.Global().Set("loglab", api)
	if ready := js.Global().Get("loglabReady"); ready.Type() == js.TypeFunction {
		ready.Invoke()
	}
	select {}
}

// promise runs work on a goroutine and returns a JS Promise of its result,
// so a long command never blocks the page's event loop.
func promise(work func() any) js.Value {
	executor := js.FuncOf(func(_ js.Value, args []js.Value) any {
		resolve := args[0]
		go func() { resolve.Invoke(work()) }()
		return nil
	})
	// The Promise constructor calls the executor synchronously, so the
	// function can be released as soon as the promise exists.
	defer executor.Release()
	return js.Global().Get("Promise").New(executor)
}
