package lab

import (
	"errors"
	"strings"
)

// outcome marks an error a command returns as its result (a produce whose
// records failed, a poll that raised) rather than a misuse of it.
type outcome interface{ Outcome() }

// isKafkaOutcome reports whether a failed command's error is Kafka's answer
// rather than a misuse of the command: its message names a Kafka error code
// (OFFSET_OUT_OF_RANGE, NOT_CONTROLLER, INVALID_CONFIG, ...) before any
// prose, as in "NOT_CONTROLLER: no active controller" or
// "events/0: OFFSET_OUT_OF_RANGE". The engine spells every Kafka error that
// way (protocol.ErrorCode's names, the log's and controller's sentinel
// errors), so the message is the one thing all of them share. Errors that
// carry their own mark (outcome) need no such reading.
func isKafkaOutcome(err error) bool {
	var marked outcome
	if errors.As(err, &marked) {
		return true
	}
	first, _, _ := strings.Cut(err.Error(), "\n")
	for _, part := range strings.Split(first, ": ") {
		if isKafkaErrorName(part) {
			return true
		}
		if strings.Contains(part, " ") {
			return false // prose began: a code after it is only mentioned
		}
	}
	return false
}

// isKafkaErrorName matches Kafka's error names: upper-case words joined by
// underscores, at least two of them (NOT_CONTROLLER, not "ID" or "ISR").
func isKafkaErrorName(s string) bool {
	if !strings.Contains(s, "_") || strings.HasPrefix(s, "_") || strings.HasSuffix(s, "_") || strings.Contains(s, "__") {
		return false
	}
	for _, r := range s {
		if (r < 'A' || r > 'Z') && (r < '0' || r > '9') && r != '_' {
			return false
		}
	}
	return true
}
