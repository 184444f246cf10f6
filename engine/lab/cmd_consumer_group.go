package lab

import (
	"fmt"
	"strings"

	"github.com/loglab/loglab/engine/client"
	"github.com/loglab/loglab/engine/protocol"
)

// consumerArg finds the consumer a command names as its first word.
func consumerArg(l *Lab, a *args) (*client.Consumer, error) {
	if len(a.positional) == 0 {
		return nil, fmt.Errorf("missing consumer name")
	}
	co := l.cluster.Consumer(a.positional[0])
	if co == nil {
		return nil, fmt.Errorf("no consumer %q", a.positional[0])
	}
	return co, nil
}

var commitCommand = &command{
	name:  "commit",
	usage: "commit CONSUMER [sync|async]",
	summary: "commit the positions of everything the consumer returned (commitSync waits for the answer and retries " +
		"retriable errors; commitAsync sends and returns, its outcome comes later)",
	run: func(l *Lab, a *args) (string, error) {
		if err := l.requireCluster(); err != nil {
			return "", err
		}
		if err := a.finish(); err != nil {
			return "", err
		}
		co, err := consumerArg(l, a)
		if err != nil {
			return "", err
		}
		mode := "sync"
		switch len(a.positional) {
		case 1:
		case 2:
			mode = a.positional[1]
			if mode != "sync" && mode != "async" {
				return "", fmt.Errorf("commit mode %q is not sync or async", mode)
			}
		default:
			return "", fmt.Errorf("expected CONSUMER [sync|async]")
		}
		if co.Closed() {
			return "", fmt.Errorf("consumer %s is closed", co.ID)
		}
		if co.GroupID() == "" {
			// commitSync and commitAsync both throw at once without a group.id.
			return "", &commitFailed{err: client.ErrNoGroupID}
		}
		h, err := l.cluster.Commit(co, mode == "sync")
		if err != nil {
			return "", err
		}
		what := formatOffsets(h.Offsets)
		switch {
		case mode == "async":
			return fmt.Sprintf("%s: commitAsync sent %s", co.ID, what), nil
		case h.Err != nil:
			return "", &commitFailed{err: fmt.Errorf("%s: commitSync of %s failed: %w", co.ID, what, h.Err)}
		}
		return fmt.Sprintf("%s: committed %s", co.ID, what), nil
	},
}

// commitFailed is the exception commitSync threw: Kafka's answer, not a
// misuse of the command.
type commitFailed struct{ err error }

func (e *commitFailed) Error() string { return e.err.Error() }
func (e *commitFailed) Unwrap() error { return e.err }
func (e *commitFailed) Outcome()      {}

func formatOffsets(os []protocol.OffsetCommitPartition) string {
	if len(os) == 0 {
		return "nothing (no position yet)"
	}
	parts := make([]string, len(os))
	for i, o := range os {
		parts[i] = fmt.Sprintf("%s/%d=%d", o.TP.Topic, o.TP.Partition, o.Offset)
	}
	return strings.Join(parts, " ")
}

var consumerCloseCommand = &command{
	name:  "consumer close",
	usage: "consumer close NAME",
	summary: "KafkaConsumer.close(): records held unprocessed are abandoned, what was consumed is auto-committed " +
		"(enable.auto.commit), and a dynamic member leaves its group (a static one does not)",
	run: func(l *Lab, a *args) (string, error) {
		co, err := lifecycleArg(l, a)
		if err != nil {
			return "", err
		}
		abandoned, cerr := l.cluster.CloseConsumer(co)
		msg := fmt.Sprintf("closed consumer %s", co.ID)
		if abandoned > 0 {
			msg += fmt.Sprintf(" (%d record%s it held were never processed)", abandoned, plural(abandoned))
		}
		if cerr != nil {
			// close() logs a failed auto-commit and carries on.
			msg += "\nWARN: the auto-commit on close failed (close() logs it and goes on): " + cerr.Error()
		}
		return msg, nil
	},
}

var consumerCrashCommand = &command{
	name:    "consumer crash",
	usage:   "consumer crash NAME",
	summary: "kill the consumer's process: no commit, no LeaveGroup; its group notices at session.timeout.ms",
	run: func(l *Lab, a *args) (string, error) {
		co, err := lifecycleArg(l, a)
		if err != nil {
			return "", err
		}
		msg := fmt.Sprintf("consumer %s crashed", co.ID)
		if n := l.cluster.CrashConsumer(co); n > 0 {
			msg += fmt.Sprintf(" (%d record%s it held were never processed)", n, plural(n))
		}
		return msg, nil
	},
}

// lifecycleArg is the running consumer a close or crash names.
func lifecycleArg(l *Lab, a *args) (*client.Consumer, error) {
	if err := l.requireCluster(); err != nil {
		return nil, err
	}
	if err := a.finish(); err != nil {
		return nil, err
	}
	if len(a.positional) != 1 {
		return nil, fmt.Errorf("expected one consumer name")
	}
	co, err := consumerArg(l, a)
	if err != nil {
		return nil, err
	}
	if co.Closed() {
		return nil, fmt.Errorf("consumer %s is not running (restart it with `consumer restart %s`)", co.ID, co.ID)
	}
	return co, nil
}

var consumerRestartCommand = &command{
	name:    "consumer restart",
	usage:   "consumer restart NAME",
	summary: "start a closed or crashed consumer again with its configuration: a new process, so a new member id (a static member keeps its group.instance.id)",
	run: func(l *Lab, a *args) (string, error) {
		if err := l.requireCluster(); err != nil {
			return "", err
		}
		name, err := onePositional(a, "consumer name")
		if err != nil {
			return "", err
		}
		if err := a.finish(); err != nil {
			return "", err
		}
		co, err := l.cluster.RestartConsumer(name)
		if err != nil {
			return "", err
		}
		if g := co.GroupID(); g != "" {
			return fmt.Sprintf("restarted consumer %s: it rejoins group %s", name, g), nil
		}
		return fmt.Sprintf("restarted consumer %s", name), nil
	},
}

var consumerPauseCommand = &command{
	name:    "consumer pause",
	usage:   "consumer pause NAME TOPIC/PARTITION...",
	summary: "KafkaConsumer.pause: stop fetching and returning the partitions; heartbeats go on, so the member keeps them",
	run:     func(l *Lab, a *args) (string, error) { return pauseOrResume(l, a, true) },
}

var consumerResumeCommand = &command{
	name:    "consumer resume",
	usage:   "consumer resume NAME TOPIC/PARTITION...",
	summary: "KafkaConsumer.resume: fetch paused partitions again",
	run:     func(l *Lab, a *args) (string, error) { return pauseOrResume(l, a, false) },
}

func pauseOrResume(l *Lab, a *args, pause bool) (string, error) {
	if err := l.requireCluster(); err != nil {
		return "", err
	}
	if err := a.finish(); err != nil {
		return "", err
	}
	if len(a.positional) < 2 {
		return "", fmt.Errorf("expected NAME and at least one TOPIC/PARTITION")
	}
	co, err := consumerArg(l, a)
	if err != nil {
		return "", err
	}
	var tps []protocol.TopicPartition
	for _, s := range a.positional[1:] {
		t, p, err := parseTopicPartition(s)
		if err != nil {
			return "", err
		}
		tps = append(tps, protocol.TopicPartition{Topic: t, Partition: int32(p)})
	}
	verb := "resumed"
	if pause {
		verb = "paused"
		err = co.Pause(tps)
	} else {
		err = co.Resume(tps)
	}
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%s %s %s", co.ID, verb, strings.Join(a.positional[1:], " ")), nil
}
