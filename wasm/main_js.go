//go:build js && wasm

package main

import (
	"fmt"
	"syscall/js"
	"time"

	"github.com/loglab/loglab/engine/lab"
)

// main publishes globalThis.loglab and then waits forever: the module lives
// as long as the page.
//
//	loglab.run(line)        -> Promise<{output, ok, entry, view, fragments, timeline}>:
//	    the whole view, or ("" and) the fragments [{key, html}] that changed;
//	    neither when globalThis.loglabQueued() says more commands wait (the
//	    last of them draws)
//	loglab.redraw()         -> Promise<{view}>: the whole view, for a page
//	    that could not place a fragment
//	loglab.starter          -> the commands a new lab runs first
//	loglab.lessons()        -> JSON: the catalogue [{id, order, level, minutes, title{en,zh}, steps, native, module, after}]
//	loglab.lessonData(id)   -> JSON: lessons.Rendered, the lesson's prose
//	loglab.lesson(action, arg, at) -> Promise<{status|null, clear, entry, view, error}>
//	    action open (arg {lesson, step}), answer (arg value), next, back,
//	    reset, goto (arg step), close; steps are 0-based
//
//	loglab.history()        -> Promise<JSON>: the timeline {at, length, commands, why, lesson}
//	loglab.rewind(n)        -> Promise<JSON {clear, entry, view, error, timeline}>:
//	    the sandbox after the timeline's first n commands (back or forward)
//	loglab.undo()           -> Promise<JSON, as rewind>: takes back the last command
//	loglab.replay(script)   -> Promise<JSON, as rewind>: opens a saved session
//
// While a lesson is open, run's result also carries its status. A move in
// time that fails leaves the lab as it was and says why in error.
func main() {
	s := newSession()
	// The page's count of commands waiting behind the one running
	// (app.js); a page without it has every command drawn.
	s.queued = func() bool {
		f := js.Global().Get("loglabQueued")
		return f.Type() == js.TypeFunction && f.Invoke().Truthy()
	}
	api := js.Global().Get("Object").New()
	api.Set("run", js.FuncOf(func(_ js.Value, args []js.Value) any {
		line := ""
		if len(args) > 0 {
			line = args[0].String()
		}
		return promise(func() any {
			u := s.run(line)
			out := u.drawing.js()
			out["output"], out["ok"], out["entry"], out["timeline"] = u.Output, u.OK, u.Entry, jsonString(u.Timeline)
			if u.Status != nil {
				out["status"] = jsonString(u.Status)
			}
			return out
		})
	}))
	api.Set("redraw", js.FuncOf(func(js.Value, []js.Value) any {
		return promise(func() any { return map[string]any{"view": s.redraw()} })
	}))
	api.Set("history", js.FuncOf(func(js.Value, []js.Value) any {
		// A promise, as every call that takes the session's lock: a
		// command may hold it, and the page's thread must never wait.
		return promise(func() any { return jsonString(s.history()) })
	}))
	api.Set("rewind", js.FuncOf(func(_ js.Value, args []js.Value) any {
		n := -1
		if len(args) > 0 && args[0].Type() == js.TypeNumber {
			n = args[0].Int()
		}
		return promise(func() any { return jsonString(s.seek(n)) })
	}))
	api.Set("undo", js.FuncOf(func(js.Value, []js.Value) any {
		return promise(func() any { return jsonString(s.undo()) })
	}))
	api.Set("replay", js.FuncOf(func(_ js.Value, args []js.Value) any {
		script := ""
		if len(args) > 0 && args[0].Type() == js.TypeString {
			script = args[0].String()
		}
		return promise(func() any { return jsonString(s.replay(script)) })
	}))
	api.Set("starter", lab.StarterScript)
	api.Set("lessons", js.FuncOf(func(js.Value, []js.Value) any { return catalogueJSON() }))
	api.Set("lessonData", js.FuncOf(func(_ js.Value, args []js.Value) any {
		if len(args) == 0 {
			return lessonDataJSON("")
		}
		return lessonDataJSON(args[0].String())
	}))
	api.Set("lesson", js.FuncOf(func(_ js.Value, args []js.Value) any {
		action, arg := "", lessonArg{}
		if len(args) > 0 {
			action = args[0].String()
		}
		if len(args) > 1 {
			arg = lessonArgFrom(action, args[1])
		}
		if len(args) > 2 && args[2].Type() == js.TypeNumber {
			at := args[2].Int()
			arg.At = &at
		}
		return promise(func() any { return jsonString(s.lesson(action, arg)) })
	}))
	js.Global().Set("loglab", api)
	if ready := js.Global().Get("loglabReady"); ready.Type() == js.TypeFunction {
		ready.Invoke()
	}
	select {}
}

// answerAlone is how long a call's work runs before its answer is sent in
// a task of its own (promise): a command that draws the view takes longer
// in WASM; one that only reads (history, a lesson's text) does not.
const answerAlone = 4 * time.Millisecond

// js is a drawing as the page's applyUpdate reads it: view, and fragments
// as [{key, html}].
func (d drawing) js() map[string]any {
	frags := make([]any, len(d.Fragments))
	for i, f := range d.Fragments {
		frags[i] = map[string]any{"key": f.Key, "html": f.HTML}
	}
	return map[string]any{"view": d.View, "fragments": frags}
}

// promise runs work on a goroutine and returns a JS Promise of its result,
// so a long command never blocks the page's event loop.
func promise(work func() any) js.Value {
	executor := js.FuncOf(func(_ js.Value, args []js.Value) any {
		resolve := args[0]
		go func() {
			// A panic would end the Go program and leave this promise, and
			// the page's chain of commands behind it, waiting forever.
			defer func() {
				if p := recover(); p != nil {
					resolve.Invoke(map[string]any{"error": fmt.Sprintf("internal error: %v (reload the page)", p), "ok": false})
				}
			}()
			started := time.Now()
			answer := work()
			// The page applies the answer (morphs the view, appends the
			// entry) in the task that resolves the promise. After a long
			// piece of work the thread is handed back first, so that
			// applying it is a task of its own, with a frame between the
			// two, rather than the tail of the one that drew it.
			if time.Since(started) >= answerAlone {
				time.Sleep(time.Millisecond)
			}
			resolve.Invoke(answer)
		}()
		return nil
	})
	// The Promise constructor calls the executor synchronously, so the
	// function can be released as soon as the promise exists.
	defer executor.Release()
	return js.Global().Get("Promise").New(executor)
}

// lessonArg reads an action's argument: an object {lesson, step} for open,
// the choice's value for answer, the step number for goto.
func lessonArgFrom(action string, v js.Value) lessonArg {
	var a lessonArg
	switch {
	case v.Type() == js.TypeObject:
		if l := v.Get("lesson"); l.Type() == js.TypeString {
			a.Lesson = l.String()
		}
		if n := v.Get("step"); n.Type() == js.TypeNumber {
			a.Step = n.Int()
		}
	case v.Type() == js.TypeNumber:
		a.Step = v.Int()
	case v.Type() == js.TypeString:
		a.Value = v.String()
	}
	return a
}
