package lab

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/loglab/loglab/engine/cluster"
)

// replayable reports whether the lab can undo a command by replaying its
// history: only when every byte of the cluster lives in this process (real
// files and controllers in other processes keep what the command did), and
// while the history is cheap enough to replay (see remember).
func (l *Lab) replayable() bool {
	return l.fs == nil && l.metadataDir == "" && l.openQuorum == nil && !l.noReplay
}

// undo answers a command that ran out of its event budget midway. A lab
// in memory rebuilds its cluster from the history, which holds every
// command that changed it since `cluster` but not this one: the same seed
// and the same commands give the same cluster, so the command is undone,
// clock included. A lab on storage cannot, and says where it stopped.
func (l *Lab) undo(over *cluster.BudgetExceeded) error {
	fit := ""
	if rate := over.Rate(); rate > 0 {
		l.burstRate = rate
		fit = fmt.Sprintf(" (%s per virtual second: %s events last about %s of virtual time at that rate)",
			thousands(int64(rate+0.5)), thousands(over.Limit), roundDown(time.Duration(float64(over.Ran)*float64(over.Limit)/float64(over.Spent))))
	}
	if !l.replayable() {
		events := strings.Join(l.cluster.DrainEvents(), "\n  ")
		if events != "" {
			events = "\n  " + events
		}
		why := "this cluster keeps its data on disk"
		if l.noReplay {
			why = "this session is too long to replay"
		}
		return fmt.Errorf("%w%s; %s and cannot undo the command: it stayed at the time it reached, %v%s",
			over, fit, why, over.At, events)
	}
	fresh := &Lab{pace: l.pace, limits: l.limits}
	for i, line := range l.history {
		if _, err := fresh.Run(line); err != nil {
			var ce *CommandError
			if !errors.As(err, &ce) || !ce.Outcome {
				// Cannot happen: the same commands on the same seed ran
				// before. Keep the cluster as the command left it rather
				// than one half rebuilt, and say so.
				fresh.Close()
				return fmt.Errorf("%w; undoing it failed replaying command %d (%s): %v; the cluster stayed at the time it reached, %v", over, i+1, line, err, over.At)
			}
		}
	}
	fresh.cluster.DrainEvents()
	old := l.cluster
	l.cluster, l.inspector, l.before = fresh.cluster, fresh.inspector, fresh.before
	old.Close()
	return fmt.Errorf("%w%s; the command was undone (the lab replayed its %d commands since `cluster`) and time is %v again",
		over, fit, len(l.history), l.cluster.Elapsed())
}

// costCheck refuses up front a command whose estimated cost passes the
// event budget: events running for span of virtual time at the rate the
// cluster ran at lately, plus extra events, each weighing what the checker
// adds. fit says what would fit, given the longest span that does.
func (l *Lab) costCheck(what string, span time.Duration, extra int64, fit func(maxSpan time.Duration) string) error {
	c := l.cluster
	// A burst that ran out of events lately outweighs what the cluster
	// measured before it: the same command is then refused up front
	// instead of being run and undone again.
	rate := max(c.EventRate(!l.replayable()), l.burstRate)
	weight := c.EventWeight()
	limit := l.limits.eventsPerCommand
	events := rate*span.Seconds() + float64(extra)
	cost := events * float64(weight)
	if cost <= float64(limit) {
		return nil
	}
	weighing := ""
	if weight > 1 {
		weighing = fmt.Sprintf(", each weighing %d while `check invariants always=true` checks after every event", weight)
	}
	room := (float64(limit)/float64(weight) - float64(extra)) / rate
	maxSpan := time.Duration(0)
	if room > 0 {
		maxSpan = time.Duration(room * float64(time.Second))
	}
	return fmt.Errorf("%s would run about %s simulation events (%s per virtual second lately%s); the limit is %s events per command: %s",
		what, thousands(int64(events+0.5)), thousands(int64(rate+0.5)), weighing, thousands(limit), fit(maxSpan))
}

// roundDown shortens a duration to its largest unit, rounding down, as a
// limit is told: 10h, 36m, 12s, 250ms.
func roundDown(d time.Duration) string {
	units := []struct {
		unit time.Duration
		name string
	}{{time.Hour, "h"}, {time.Minute, "m"}, {time.Second, "s"}, {time.Millisecond, "ms"}}
	for _, u := range units {
		if d >= u.unit {
			return fmt.Sprintf("%d%s", d/u.unit, u.name)
		}
	}
	return "0s"
}
