package loadtest

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
)

// serverLog is the in-process server's logger: it keeps the records at
// warning level and above, so the report can say what went wrong (an error
// the server logged fails the run: a panic it recovered from, a render
// that failed, a log it could not write).
type serverLog struct {
	mu       sync.Mutex
	errors   int
	warnings int
	kept     []string
}

const serverLogKept = 10

func (l *serverLog) Enabled(_ context.Context, level slog.Level) bool { return level >= slog.LevelWarn }

func (l *serverLog) Handle(_ context.Context, r slog.Record) error {
	line := r.Level.String() + " " + r.Message
	r.Attrs(func(a slog.Attr) bool {
		v := a.Value.String()
		if len(v) > 200 {
			v = v[:200] + "…"
		}
		line += fmt.Sprintf(" %s=%q", a.Key, v)
		return true
	})
	l.mu.Lock()
	defer l.mu.Unlock()
	if r.Level >= slog.LevelError {
		l.errors++
	} else {
		l.warnings++
	}
	if len(l.kept) < serverLogKept {
		l.kept = append(l.kept, line)
	}
	return nil
}

// WithAttrs and WithGroup drop the attributes and groups: the kept lines
// are for a person reading a failed run, not for a log pipeline.
func (l *serverLog) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *serverLog) WithGroup(string) slog.Handler      { return l }

func (l *serverLog) counts() (errors, warnings int, kept []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.errors, l.warnings, append([]string(nil), l.kept...)
}
