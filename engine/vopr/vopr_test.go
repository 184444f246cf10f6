package vopr

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loglab/loglab/engine/lab"
)

// Long runs: go test ./engine/vopr -run TestVOPR -seeds=1000 -steps=2000
// (or make sim SEEDS=1000); one seed: go test ./engine/vopr -run TestVOPR -seed=42 -v
var (
	seedsFlag = flag.Int("seeds", 0, "how many seeds TestVOPR runs, from 1 (0: the default for this platform)")
	stepsFlag = flag.Int("steps", 0, "workload steps per seed (0: the default)")
	seedFlag  = flag.Uint64("seed", 0, "run only this seed and log its report (script included)")
	liftFlag  = flag.String("lift", "", "comma-separated bounds TestVOPR lifts, to reproduce what they keep out: "+
		"quick-restarts, unbounded-power-loss, controller-partitions")
	topicsFlag = flag.String("topics", "", "the workload's topics: all (plain, unclean, retention, compact) or plain; "+
		"empty: all once fullWorkloadPasses, plain until then")
)

// fullWorkloadPasses: every topic kind's seeds pass, so TestVOPR runs
// them all (-topics=plain keeps to plain topics). The full workload found
// issue 9's livelocks 4 (diverging epoch) and 5 (follower out of range),
// whose scripts are in testdata (TestVOPRLivelockScripts), then five more
// seeds of 200, all but 108 replayed there too: 25 (a truncation below
// the log start clamped to it, so a follower of an unclean leader whose
// log ended below it was out of range forever), 16 (a power cut brought
// back a truncated tail under a newer epoch checkpoint), 160 (a
// truncation into a compaction gap cut to the last record left, not to
// its target), and 5 and 108 (a checker false positive: replicas' reads
// cut at different segment boundaries). make sim's 1000 seeds of 200 steps
// then found 916 (a follower kept records below its leader's log start)
// and 928 (the flush after a roll skipped segments reopened unsynced);
// their scripts no longer reproduce on today's engine, so unit tests keep
// them (engine/log, engine/cluster TestFollowerTakesTheLeadersLogStartOffset).
const fullWorkloadPasses = true

// Defaults sized for `make test` on a 2-core machine: 200 seeds of 60
// workload steps and at least 2000 simulation steps each took ~35 s
// natively on every topic kind (~20 s on plain topics) before the groups'
// and transactions' workloads; with both, 70 s on an idle machine and
// 2.5 min on a shared one (issue 13). The cost grows
// faster than the steps (100 steps: ~75 s, 150: ~3.5 min, 2000: ~80 s a
// seed, measured on plain topics) because of event storms in the engine
// (a follower's fetch loop on an empty leader epoch, the producer's drain
// timers) and the checker's per-record batch decoding; longer runs belong
// to make sim. 100 seeds (~18 s natively on 2 cores) still exercise
// every controller, group and transaction fault the checks below demand
// of 50 or more; make sim runs 1000 of 200 steps. Under node (one thread)
// the engine's code is the same: what WASM must prove is that it behaves
// the same there (TestVOPRDeterminism, the lab's and lessons' transcripts),
// so a handful of seeds is run as a smoke test (30 took 113 s of make
// test's 10 minutes).
const (
	defaultSeeds     = 100
	defaultSeedsWASM = 6
	defaultSteps     = 60
)

// testOptions is what TestVOPR runs: acks=all, testMix, and the bounds
// -lift names lifted.
func testOptions(t *testing.T) Options {
	opts := Options{Mix: testMix()}
	switch *topicsFlag {
	case "":
		opts.PlainTopics = !fullWorkloadPasses
	case "plain":
		opts.PlainTopics = true
	case "all":
	default:
		t.Fatalf("-topics=%s: all or plain", *topicsFlag)
	}
	if runtime.GOOS == "js" {
		opts.Pace = yieldEvery(10 * time.Millisecond)
	}
	for _, name := range strings.Split(*liftFlag, ",") {
		switch name {
		case "":
		case "quick-restarts":
			opts.QuickRestarts = true
		case "unbounded-power-loss":
			opts.UnboundedPowerLoss = true
		case "controller-partitions":
			opts.ControllerPartitions = true
		default:
			t.Fatalf("-lift=%s: no such bound", name)
		}
	}
	return opts
}

// testMix is the full DefaultMix. Consumers were left out while a
// consumer without a leader refreshed metadata on every event; the client
// now backs off (retry.backoff.ms) and they are back in.
func testMix() Mix { return DefaultMix() }

func seedsToRun() []uint64 {
	if *seedFlag != 0 {
		return []uint64{*seedFlag}
	}
	n := *seedsFlag
	if n == 0 {
		n = defaultSeeds
		if runtime.GOOS == "js" {
			n = defaultSeedsWASM
		}
	}
	seeds := make([]uint64, n)
	for i := range seeds {
		seeds[i] = uint64(i + 1)
	}
	return seeds
}

func stepsToRun() int {
	if *stepsFlag > 0 {
		return *stepsFlag
	}
	return defaultSteps
}

// runSeeds runs every seed on GOMAXPROCS workers and returns the results
// in seed order.
func runSeeds(seeds []uint64, steps int, opts Options) []Result {
	results := make([]Result, len(seeds))
	next := make(chan int)
	var wg sync.WaitGroup
	for range max(1, min(runtime.GOMAXPROCS(0), len(seeds))) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				results[i] = Run(seeds[i], steps, opts)
			}
		}()
	}
	for i := range seeds {
		next <- i
	}
	close(next)
	wg.Wait()
	return results
}

// TestVOPR runs acks=all workloads with faults: no seed may break an
// invariant. A failure prints the seed, the violations and the script
// that replays them.
func TestVOPR(t *testing.T) {
	seeds, steps := seedsToRun(), stepsToRun()
	start := time.Now()
	wantEvents := 2000
	if *stepsFlag != 0 {
		wantEvents = 0
	}
	opts := testOptions(t)
	opts.MinEvents = wantEvents
	results := runSeeds(seeds, steps, opts)
	failed, errs := 0, 0
	minEvents := -1
	var virtual time.Duration
	var quorum quorumCounts
	var groups groupCounts
	var txns txnCounts
	for _, r := range results {
		errs += r.Errors
		virtual += r.Elapsed
		for _, line := range r.Script {
			quorum.count(line)
			groups.count(line)
			txns.count(line)
		}
		if r.OK() && (minEvents < 0 || r.Events < minEvents) {
			minEvents = r.Events // a failing seed stops at its violation
		}
		if *seedFlag != 0 {
			t.Log(r.Report())
		}
		if !r.OK() {
			failed++
			if failed <= 3 {
				t.Error(r.Report())
			} else {
				t.Errorf("vopr seed=%d: %s", r.Seed, r.Violations[0])
			}
		}
	}
	t.Logf("%d seeds x %d workload steps (each seed at least %d simulation steps): %d failed, %d commands refused by the cluster, %v of virtual time, %v",
		len(seeds), steps, minEvents, failed, errs, virtual.Round(time.Second), time.Since(start).Round(time.Millisecond))
	t.Logf("controllers: %s", quorum)
	if len(seeds) >= 50 {
		for _, c := range []struct {
			what   string
			weight int
			n      int
		}{{"crashed a controller", opts.Mix.ControllerCrash, quorum.crashes}, {"restarted a controller", opts.Mix.ControllerRestart, quorum.restarts},
			{"partitioned controllers from each other", opts.Mix.ControllerPartition, quorum.apart},
			{"partitioned controllers from brokers", opts.Mix.ControllerPartition, quorum.fromBrokers},
			{"left the quorum without a majority", opts.Mix.ControllerPartition, quorum.noMajority},
			{"cut a link between controllers", opts.Mix.ControllerCut, quorum.cutControllers},
			{"cut a controller's link to a broker", opts.Mix.ControllerCut, quorum.cutBrokers}} {
			if c.weight > 0 && c.n == 0 {
				t.Errorf("no seed %s: the workload does not exercise it", c.what)
			}
		}
	}
	t.Logf("groups: %s", groups)
	if opts.Mix.Group > 0 && len(seeds) >= 50 {
		for _, c := range []struct {
			what string
			n    int
		}{{"crashed a group coordinator", groups.coordinatorCrashes}, {"stalled a member past max.poll.interval.ms", groups.stalls},
			{"crashed a member", groups.crashes}, {"created a KIP-848 member", groups.kip848},
			{"created a cooperative member", groups.cooperative}, {"created an eager member", groups.eager}} {
			if c.n == 0 {
				t.Errorf("no seed %s: the workload does not exercise it", c.what)
			}
		}
	}
	t.Logf("transactions: %s", txns)
	if opts.Mix.Txn > 0 && len(seeds) >= 50 {
		for _, c := range []struct {
			what string
			n    int
		}{{"began a transaction", txns.begins}, {"committed a transaction", txns.commits}, {"aborted a transaction", txns.aborts},
			{"crashed a transactional producer", txns.crashes}, {"restarted a transactional producer", txns.restarts},
			{"started a zombie's replacement", txns.zombies}, {"sent offsets to a transaction", txns.sendOffsets},
			{"polled the read_committed consumer", txns.readCommittedPolls}} {
			if c.n == 0 {
				t.Errorf("no seed %s: the workload does not exercise it", c.what)
			}
		}
	}
	// Issue 4 asks for at least 2000 simulation steps (Cluster.Step events)
	// per seed; a workload step runs many.
	if minEvents >= 0 && minEvents < wantEvents {
		t.Errorf("a seed ran only %d simulation steps; the suite promises at least 2000", minEvents)
	}
}

// quorumCounts tallies the controller faults the scripts made.
type quorumCounts struct {
	crashes, restarts              int
	apart, fromBrokers, noMajority int // net partitions naming controllers
	cutControllers, cutBrokers     int // net cut ctlN ...
}

func (q *quorumCounts) count(line string) {
	switch {
	case strings.HasPrefix(line, "controller crash "):
		q.crashes++
	case strings.HasPrefix(line, "controller restart "):
		q.restarts++
	case strings.HasPrefix(line, "net partition ") && strings.Contains(line, "(c"):
		controllers, largest, brokers := 0, 0, false
		for _, g := range strings.Fields(strings.TrimPrefix(line, "net partition ")) {
			n := 0
			for _, name := range strings.Split(strings.Trim(g, "()"), ",") {
				if strings.HasPrefix(name, "c") {
					n++
				} else {
					brokers = true
				}
			}
			controllers += n
			largest = max(largest, n)
		}
		switch {
		case brokers:
			q.fromBrokers++
		case largest <= controllers/2:
			q.noMajority++
		default:
			q.apart++
		}
	case strings.HasPrefix(line, "net cut ctl"):
		if strings.Count(line, "ctl") == 2 {
			q.cutControllers++
		} else {
			q.cutBrokers++
		}
	}
}

func (q quorumCounts) String() string {
	return fmt.Sprintf("%d crashed, %d restarted; net partitions of controllers from each other %d, from brokers %d, without a majority %d; links cut between controllers %d, between a controller and a broker %d",
		q.crashes, q.restarts, q.apart, q.fromBrokers, q.noMajority, q.cutControllers, q.cutBrokers)
}

// groupCounts tallies the group actions the scripts made.
type groupCounts struct {
	eager, cooperative, kip848, static         int
	crashes, closes, restarts, stalls, commits int
	coordinatorCrashes                         int
}

func (g *groupCounts) count(line string) {
	switch {
	case strings.HasPrefix(line, "consumer create ") && strings.Contains(line, " group="):
		switch {
		case strings.Contains(line, "group.protocol=consumer"):
			g.kip848++
		case strings.Contains(line, "cooperative-sticky"):
			g.cooperative++
		default:
			g.eager++
		}
		if strings.Contains(line, "group.instance.id=") {
			g.static++
		}
	case strings.HasPrefix(line, "consumer crash "):
		g.crashes++
	case strings.HasPrefix(line, "consumer close "):
		g.closes++
	case strings.HasPrefix(line, "consumer restart "):
		g.restarts++
	case strings.HasPrefix(line, "poll ") && strings.Contains(line, " process="):
		g.stalls++
	case strings.HasPrefix(line, "commit "):
		g.commits++
	case strings.HasPrefix(line, coordinatorCrashComment):
		g.coordinatorCrashes++
	}
}

func (g groupCounts) String() string {
	return fmt.Sprintf("%d eager, %d cooperative, %d KIP-848 members created (%d static); %d crashed, %d closed, %d restarted, %d stalled past max.poll.interval.ms, %d commits, %d coordinator crashes",
		g.eager, g.cooperative, g.kip848, g.static, g.crashes, g.closes, g.restarts, g.stalls, g.commits, g.coordinatorCrashes)
}

// TestVOPRLivelockScripts replays the runs in which the full workload
// found issue 9's livelocks (seeds 26 and 12 on the code before the
// broker's fix, whose end-of-run stabilize reported "converged: not after
// 10m0s of stabilize: b2 t1/1 leader epochs [1@0], leader b3's [0@0 2@1]"
// with 517 fetches a second, and "b4 t1/0 log end 7, leader b2's 16 (the
// leader's log starts at 16)"): the cluster must now converge.
func TestVOPRLivelockScripts(t *testing.T) {
	for _, name := range []string{"livelock4-diverging-epoch.lab", "livelock5-out-of-range.lab",
		"seed25-truncate-below-log-start.lab", "seed16-power-cut-truncated-tail.lab",
		"seed160-truncate-into-compaction-gap.lab", "seed5-agreement-across-segments.lab",
		// Groups (issue 12): the final stabilize settled, then a preferred
		// leader election moved group g0's coordinator in the quiet window
		// and the group took a heartbeat to follow; stabilize once called
		// that a loop (group-converged), and must settle again instead.
		"seed304-coordinator-moves-in-quiet-window.lab"} {
		script, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		l := lab.New()
		var out strings.Builder
		if _, err := l.RunScript(strings.NewReader(string(script)), &out); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), "\n> stabilize\nstable at ") {
			t.Errorf("%s: the final stabilize did not converge", name)
		}
		for _, v := range (Options{Acks: "all"}).bugs(l.Cluster().Checker().Violations()) {
			t.Errorf("%s: %s", name, v)
		}
		l.Close()
	}
}

// TestVOPRNegativeControl: the checker must be able to fail. acks=1
// producers, and leaders that crash while their followers miss the
// latest records, must lose acknowledged records, and the checker must
// name it for what it is: acks=1-loss, nothing else.
func TestVOPRNegativeControl(t *testing.T) {
	nativeOnly(t, "the checker catching acks=1 loss over many seeds, 23 s under node")
	opts := Options{Acks: "1", Mix: LeaderLossMix()}
	opts.Mix.Consume = 0
	seeds := make([]uint64, 8)
	for i := range seeds {
		seeds[i] = uint64(i + 1)
	}
	lossy := 0
	for _, r := range runSeeds(seeds, 200, opts) {
		if r.Err != nil {
			t.Fatal(r.Err)
		}
		for _, v := range r.Violations {
			if v.Invariant != "acks=1-loss" {
				t.Errorf("vopr seed=%d acks=1: the checker reported %s, want only acks=1-loss\n%s", r.Seed, v, r.Report())
			}
		}
		if len(r.Violations) > 0 {
			lossy++
		}
	}
	if lossy == 0 {
		t.Fatalf("no seed of %d lost an acks=1 record: the checker (or the leader-loss window) cannot fail", len(seeds))
	}
	t.Logf("%d of %d seeds lost acknowledged acks=1 records", lossy, len(seeds))
}

// TestVOPRDeterminism: the same seed gives the same script and a
// byte-identical transcript.
func TestVOPRDeterminism(t *testing.T) {
	for _, seed := range []uint64{3, 11} {
		a := Run(seed, 150, Options{Mix: testMix(), Transcript: true})
		b := Run(seed, 150, Options{Mix: testMix(), Transcript: true})
		if a.Transcript == "" || a.Transcript != b.Transcript || a.TranscriptHash != b.TranscriptHash {
			t.Fatalf("seed %d: two runs differ (hashes %x, %x)\n%s", seed, a.TranscriptHash, b.TranscriptHash, firstDifference(a.Transcript, b.Transcript))
		}
		if !slices.Equal(a.Script, b.Script) {
			t.Fatalf("seed %d: two runs typed different scripts", seed)
		}
	}
	if Run(3, 150, Options{Mix: testMix()}).TranscriptHash == Run(4, 150, Options{Mix: testMix()}).TranscriptHash {
		t.Fatal("seeds 3 and 4 gave the same transcript: the seed does not reach the workload")
	}
}

// TestVOPRReplay: a failing seed's script, replayed through the lab as
// `loglab script` does, reproduces the run: the same transcript, byte for
// byte, and the same violations.
func TestVOPRReplay(t *testing.T) {
	opts := Options{Acks: "1", Mix: LeaderLossMix(), Transcript: true}
	opts.Mix.Consume = 0
	var failing Result
	for seed := uint64(1); seed <= 20 && failing.OK(); seed++ {
		failing = Run(seed, 200, opts)
	}
	if failing.OK() {
		t.Fatal("no failing acks=1 seed to replay")
	}
	l := lab.New()
	defer l.Close()
	var transcript strings.Builder
	if _, err := l.RunScript(strings.NewReader(failing.ScriptText()), &transcript); err != nil {
		t.Fatal(err)
	}
	if transcript.String() != failing.Transcript {
		t.Fatalf("seed %d: the replayed transcript differs from the run's\n%s", failing.Seed, firstDifference(failing.Transcript, transcript.String()))
	}
	got := l.Cluster().Checker().Violations()
	if !slices.Equal(got, failing.Violations) {
		t.Fatalf("seed %d: replay found %v, the run %v", failing.Seed, got, failing.Violations)
	}
	t.Logf("seed %d replays to the same %d violation(s), first: %s", failing.Seed, len(got), got[0])
}

// TestScriptsAreValidLab: every line the workload types is a command the
// lab accepts; what the cluster refuses (a produce timing out) is fine,
// a command the lab cannot parse is a workload bug.
func TestScriptsAreValidLab(t *testing.T) {
	nativeOnly(t, "the workload typing only valid lab commands, 10 s under node")
	for _, opts := range []Options{{Mix: DefaultMix(), Transcript: true}, {Acks: "1", Mix: LeaderLossMix(), Transcript: true}} {
		r := Run(5, 150, opts)
		for _, line := range strings.Split(r.Transcript, "\n") {
			// A commitSync Kafka refused (CommitFailedException after a
			// rebalance, a timeout) is the cluster's answer too.
			if strings.HasPrefix(line, "error: ") && !strings.HasPrefix(line, "error: produce:") && !strings.HasPrefix(line, "error: poll:") &&
				!strings.Contains(line, ": commitSync of ") && !transactionalAnswer(line) {
				t.Errorf("seed 5 acks=%s: %s", opts.Acks, line)
			}
		}
	}
}

// txnCounts tallies the transactional actions the scripts made.
type txnCounts struct {
	begins, commits, aborts, crashes, restarts, zombies, sendOffsets, readCommittedPolls int
}

func (c *txnCounts) count(line string) {
	switch {
	case strings.HasPrefix(line, "txn begin "):
		c.begins++
	case strings.HasPrefix(line, "txn commit "):
		c.commits++
	case strings.HasPrefix(line, "txn abort "):
		c.aborts++
	case strings.HasPrefix(line, "txn send-offsets "):
		c.sendOffsets++
	case strings.HasPrefix(line, "producer crash tx"):
		c.crashes++
	case strings.HasPrefix(line, "producer restart tx"):
		c.restarts++
	case strings.HasPrefix(line, "producer create tx") && !strings.Contains(line, "a transactional.id="):
		c.zombies++ // tx0b, tx0c: a later instance of the transactional.id
	case strings.HasPrefix(line, "poll "+readCommittedConsumer+" "):
		c.readCommittedPolls++
	}
}

func (c txnCounts) String() string {
	return fmt.Sprintf("%d begun, %d commits, %d aborts, %d sendOffsetsToTransaction, %d transactional producers crashed, %d restarted, %d second instances (zombies fenced), %d read_committed polls",
		c.begins, c.commits, c.aborts, c.sendOffsets, c.crashes, c.restarts, c.zombies, c.readCommittedPolls)
}

// transactionalAnswer reports whether an error line is an exception a
// transactional call threw (Kafka's answer: a fenced producer, a timeout,
// an abortable error that only abortTransaction clears), not a command
// the lab could not run. A create or restart whose initTransactions
// failed prints the created producer on the error line, and the
// exception on the next.
func transactionalAnswer(line string) bool {
	for _, call := range []string{"beginTransaction", "commitTransaction", "abortTransaction", "sendOffsetsToTransaction", "initTransactions"} {
		if strings.Contains(line, ": "+call+" failed: ") {
			return true
		}
	}
	// The member lost its partitions to a rebalance during the
	// transaction's produce, after the workload saw its position.
	return strings.HasPrefix(line, "error: producer create: created producer tx") ||
		strings.HasPrefix(line, "error: txn send-offsets: ") && strings.HasSuffix(line, " has no position to send yet: poll it first")
}

// firstDifference shows where two transcripts part.
func firstDifference(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			return fmt.Sprintf("line %d:\n  %q\n  %q", i+1, al[i], bl[i])
		}
	}
	return fmt.Sprintf("one is a prefix of the other (%d and %d lines)", len(al), len(bl))
}

// yieldEvery returns a pace function that sleeps a millisecond once budget
// has passed since it last did: in WASM that returns to the event loop, so
// raft's timers fire during a long simulation (as wasm/session.go's pacer).
func yieldEvery(budget time.Duration) func() {
	var mu sync.Mutex
	since := time.Now()
	return func() {
		mu.Lock()
		defer mu.Unlock()
		if time.Since(since) >= budget {
			time.Sleep(time.Millisecond)
			since = time.Now()
		}
	}
}
