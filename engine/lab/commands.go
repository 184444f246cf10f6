package lab

import (
	"fmt"
	"strings"
)

// command is one verb of the lab language.
type command struct {
	name    string // one word, or two for grouped verbs such as "topic create"
	usage   string
	summary string
	run     func(l *Lab, a *args) (string, error)
}

// commands is the whole vocabulary, in the order `help` lists it.
var commands []*command

func init() {
	commands = []*command{
		clusterCommand,
		topicCreateCommand,
		topicDescribeCommand,
		producerCreateCommand,
		produceCommand,
		consumerCreateCommand,
		pollCommand,
		seekCommand,
		processCommand,
		commitCommand,
		consumerCloseCommand,
		consumerCrashCommand,
		consumerRestartCommand,
		consumerPauseCommand,
		consumerResumeCommand,
		brokerCrashCommand,
		brokerRestartCommand,
		brokerDiskFullCommand,
		brokerDiskFreeCommand,
		controllerCrashCommand,
		controllerRestartCommand,
		netPartitionCommand,
		netCutCommand,
		netHealCommand,
		netDropCommand,
		netDelayCommand,
		tickCommand,
		stepCommand,
		stabilizeCommand,
		showLogCommand,
		showISRCommand,
		showSegmentsCommand,
		showBatchCommand,
		showLookupCommand,
		showMetadataCommand,
		showBrokersCommand,
		showQuorumCommand,
		showNetworkCommand,
		showGroupCommand,
		showRebalancesCommand,
		showProducersCommand,
		showTxnCommand,
		txnBeginCommand,
		txnCommitCommand,
		txnAbortCommand,
		txnSendOffsetsCommand,
		producerCrashCommand,
		producerRestartCommand,
		eosCommand,
		showSideEffectsCommand,
		groupListCommand,
		groupResetOffsetsCommand,
		checkInvariantsCommand,
		helpCommand,
	}
}

func findCommand(name string) *command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

// subcommandsOf lists the second words of grouped verbs, e.g. "show" -> "log".
func subcommandsOf(group string) []string {
	var subs []string
	for _, c := range commands {
		if g, sub, ok := strings.Cut(c.name, " "); ok && g == group {
			subs = append(subs, sub)
		}
	}
	return subs
}

var helpCommand = &command{
	name:    "help",
	usage:   "help [COMMAND]",
	summary: "list the commands, or show one command's usage",
	run: func(_ *Lab, a *args) (string, error) {
		if err := a.finish(); err != nil {
			return "", err
		}
		if len(a.positional) > 0 {
			name := strings.Join(a.positional, " ")
			c := findCommand(name)
			if c == nil {
				return "", fmt.Errorf("no command %q%s (help lists every command)", name, didYouMean(a.positional))
			}
			return fmt.Sprintf("%s\n  %s", c.usage, c.summary), nil
		}
		var b strings.Builder
		for i, c := range commands {
			if i > 0 {
				b.WriteByte('\n')
			}
			fmt.Fprintf(&b, "%s\n    %s", c.usage, c.summary)
		}
		return b.String(), nil
	},
}

// noPositional is for commands that take only options.
func noPositional(a *args) error {
	if len(a.positional) > 0 {
		return fmt.Errorf("unexpected %q", strings.Join(a.positional, " "))
	}
	return nil
}

// onePositional returns the single positional word a command requires.
func onePositional(a *args, what string) (string, error) {
	switch len(a.positional) {
	case 0:
		return "", fmt.Errorf("missing %s", what)
	case 1:
		return a.positional[0], nil
	default:
		return "", fmt.Errorf("expected one %s, got %q", what, strings.Join(a.positional, " "))
	}
}

// noArgs is the preamble of commands that take no arguments: a cluster
// must exist, and nothing may follow the command's name.
func (l *Lab) noArgs(a *args) error {
	if err := l.requireCluster(); err != nil {
		return err
	}
	if err := noPositional(a); err != nil {
		return err
	}
	return a.finish()
}
