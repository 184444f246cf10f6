package lessons

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/loglab/loglab/engine/lab"
	"github.com/loglab/loglab/engine/view"
)

// State is what a check reads: the lab after the step's commands, and the
// last command's error (nil when it succeeded), which the lab does not keep.
type State struct {
	Lab     *lab.Lab
	LastErr error
}

// Check computes a value from engine state. Predict questions compare it
// with their choices' values and goals with their wanted value, so no
// lesson hard-codes an answer the engine might not give.
type Check func(s State, args []string) (string, error)

// checks is the registry lesson files name, and CheckDocs one line per
// check for README.md and error messages. Each file of checks registers
// its own in init, so lessons about different mechanisms keep their checks
// apart. List them with CheckNames, never by ranging over the map, so
// messages stay deterministic.
var (
	checks    = map[string]Check{}
	CheckDocs = map[string]string{}
)

// register adds a check; a second check of the same name is a programming
// error caught the moment the package loads.
func register(name, doc string, c Check) {
	if _, dup := checks[name]; dup {
		panic("lessons: two checks named " + name)
	}
	checks[name] = c
	CheckDocs[name] = doc
}

func init() {
	register("lost-acked", "lost-acked TOPIC/P: how many acknowledged records of the partition the invariant checker has reported lost (acks=1-loss, acked-record-lost, unclean-election-loss)", lostAcked)
	register("surviving-acked", "surviving-acked TOPIC/P: acknowledged records of the partition minus those reported lost", survivingAcked)
	register("leader", "leader TOPIC/P: the partition's leader broker id, or none", leader)
	register("hw", "hw TOPIC/P BROKER: the high watermark that broker's replica knows", highWatermark)
	register("last-error", "last-error: the Kafka error name (e.g. NOT_ENOUGH_REPLICAS) in the last command's error, \"none\" if it succeeded", lastError)
}

// CheckNames lists the registry sorted.
func CheckNames() []string {
	names := make([]string, 0, len(checks))
	for n := range checks {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Evaluate runs the named check.
func Evaluate(name string, s State, args []string) (string, error) {
	c, ok := checks[name]
	if !ok {
		return "", fmt.Errorf("no check named %q", name)
	}
	return c(s, args)
}

func partitionArg(s State, args []string, want int) (view.Partition, error) {
	if len(args) != want {
		return view.Partition{}, fmt.Errorf("wants %d argument(s), got %d", want, len(args))
	}
	topic, idx, ok := strings.Cut(args[0], "/")
	n, err := strconv.Atoi(idx)
	if !ok || err != nil {
		return view.Partition{}, fmt.Errorf("%q is not TOPIC/PARTITION", args[0])
	}
	for _, t := range s.Lab.View().Topics {
		if t.Name == topic && n >= 0 && n < len(t.Partitions) {
			return t.Partitions[n], nil
		}
	}
	return view.Partition{}, fmt.Errorf("no partition %s", args[0])
}

// lostCount counts the acknowledged records of tp reported lost. The
// checker reports a lost record again for each later leader that lacks it
// ("... is gone from leader N"), so records are told apart by what precedes
// that: their offset, value and acknowledgement time.
func lostCount(s State, tp string) int {
	seen := map[string]bool{}
	for _, v := range s.Lab.View().Checks {
		if v.LosesAckedRecord() && strings.HasPrefix(v.Detail, tp+" offset ") {
			record, _, _ := strings.Cut(v.Detail, " is gone from ")
			seen[record] = true
		}
	}
	return len(seen)
}

func lostAcked(s State, args []string) (string, error) {
	if _, err := partitionArg(s, args, 1); err != nil {
		return "", err
	}
	return strconv.Itoa(lostCount(s, args[0])), nil
}

func survivingAcked(s State, args []string) (string, error) {
	p, err := partitionArg(s, args, 1)
	if err != nil {
		return "", err
	}
	acked := 0
	for _, a := range s.Lab.Cluster().Acked() {
		if a.TP.Topic == p.Topic && int(a.TP.Partition) == p.Index {
			acked++
		}
	}
	return strconv.Itoa(acked - lostCount(s, args[0])), nil
}

func leader(s State, args []string) (string, error) {
	p, err := partitionArg(s, args, 1)
	if err != nil {
		return "", err
	}
	if p.Leader < 0 {
		return "none", nil
	}
	return strconv.Itoa(p.Leader), nil
}

func highWatermark(s State, args []string) (string, error) {
	if len(args) != 2 {
		return "", fmt.Errorf("wants TOPIC/P BROKER")
	}
	p, err := partitionArg(s, args[:1], 1)
	if err != nil {
		return "", err
	}
	for _, r := range p.Replicas {
		if strconv.Itoa(r.Broker) == args[1] {
			return strconv.FormatInt(r.HW, 10), nil
		}
	}
	return "", fmt.Errorf("broker %s holds no replica of %s", args[1], args[0])
}

// kafkaError finds Kafka's error names (NOT_ENOUGH_REPLICAS) in a message;
// a retrying producer reports them in its events before the final timeout.
var kafkaError = regexp.MustCompile(`\b[A-Z]+(?:_[A-Z]+)+\b`)

func lastError(s State, args []string) (string, error) {
	if len(args) != 0 {
		return "", fmt.Errorf("takes no arguments")
	}
	if s.LastErr == nil {
		return "none", nil
	}
	if name := kafkaError.FindString(s.LastErr.Error()); name != "" {
		return name, nil
	}
	return "other", nil
}
