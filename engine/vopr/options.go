package vopr

import "github.com/loglab/loglab/engine/cluster"

// Options shape a run. The zero value is the default: acks=all producers
// and DefaultMix.
type Options struct {
	// Acks is the producers' acks setting: "all" (the default) or "1".
	Acks string
	// Mix weighs the actions the workload draws from; the zero Mix means
	// DefaultMix.
	Mix Mix
	// MinEvents keeps the workload going until the scheduler has run at
	// least this many simulation steps (events), whatever steps says.
	MinEvents int
	// Transcript keeps the run's full transcript in Result.Transcript
	// (a long run's transcript runs to megabytes; its hash is always kept).
	Transcript bool
	// Pace is handed to the lab (lab.SetPace): under WASM the tests yield
	// there so that the controllers' raft timers run during long stretches.
	Pace func()

	// PlainTopics keeps to the workload's first topics: clean elections,
	// default retention, cleanup.policy=delete, acks=all producers only
	// (see topicKinds for what the others add): the workload as it was
	// before they found issue 9's livelocks 4 and 5, and what TestVOPR
	// runs while the full workload still finds bugs.
	PlainTopics bool

	// The workload keeps to what Kafka promises (see DefaultMix); these
	// lift its bounds, to reproduce what they keep out:
	//
	// QuickRestarts restarts a crashed broker before the controller has
	// fenced it. The controller refuses the registration while the old
	// session lives (DUPLICATE_BROKER_REGISTRATION); one that comes after
	// the session expired and before the next session check fences the
	// old incarnation first (it used to inherit its leaderships: 55 of 200
	// seeds failed, 1 does now). What remains is the power-loss case
	// UnboundedPowerLoss describes: a quick restart lets a power-lost
	// broker end up the last ISR member.
	QuickRestarts bool
	// UnboundedPowerLoss lets brokers lose power whatever the ISRs look
	// like, and others crash meanwhile: a power-lost broker left as a
	// partition's last ISR member is elected again after its restart,
	// with what it lost (the case KIP-966's eligible leader replicas close
	// in Kafka), and the checker reports acked-record-lost.
	UnboundedPowerLoss bool
	// ControllerPartitions lets net partition put the controller in a
	// group (ctl in the brokers' partitions, c1..cN in ControllerPartition's,
	// which then also puts brokers on the minority's side or cuts them off
	// from every controller), cutting brokers off from it: they are fenced while still
	// running, and a deposed leader keeps acting on its old epoch (the
	// checker takes the leader in the newest epoch). Fencing by partition
	// can shrink an ISR to one broker after the power-loss bound was
	// checked, so what remains (3 of 200 seeds, each with power losses) is
	// the case UnboundedPowerLoss describes; a stale fetch answer that
	// left a gap in a follower's log was found and fixed here, and so was
	// a checker false positive (seed 908): a group coordinator cut off
	// with its followers goes on answering on its old epoch, fences a
	// member whose session expired and gives its partitions away before
	// the member hears, which Kafka allows; the checker kept the member
	// list of its last description because the metadata named no leader
	// (testdata/seed908-checker-counted-a-fenced-member.lab). A stabilize
	// during such a cut may find a partition without a leader, its last
	// ISR member fenced behind the cut: the converged property excuses it
	// by that fault (it used to name none, and the workload did not
	// stabilize while a broker was cut off; testdata/seed32-*.lab).
	ControllerPartitions bool
	// afterLine, when set, runs after every line of the script: a test's
	// way to break a rule the lab cannot type (a replay must run it too).
	afterLine func(*cluster.Cluster)
}

// Mix is the relative weight of each action per step; 0 disables one.
type Mix struct {
	Produce   int // produce records (keyed, hot key, unkeyed or to a partition) via one of the producers
	TickSmall int // tick 1-300ms
	TickLarge int // tick 1-10s: sessions expire, ISRs shrink
	Step      int // step 1-50 events
	Stabilize int // run until nothing is in flight
	Consume   int // create a consumer (at most two) or poll one

	Crash     int // broker crash N: the process dies, its disk survives
	PowerLoss int // broker crash N power=true: unsynced writes are lost (bounded, see below)
	Restart   int // broker restart N
	Partition int // net partition: brokers (and perhaps the controller) split in two groups
	Heal      int // net heal: partitions, drop rules and delays removed
	Drop      int // net drop of Fetch, FetchResponse, Produce or ProduceResponse
	Delay     int // net delay on one link

	// ControllerCrash kills a KRaft controller (the active one half the
	// time), never leaving fewer than a connected majority running: a
	// failover must neither lose nor repeat a decision. ControllerRestart
	// starts one again (workload_quorum.go).
	ControllerCrash   int
	ControllerRestart int
	// ControllerPartition is a net partition naming controllers (c1..cN):
	// a minority of them (the active one half the time, which resigns by
	// check-quorum) cut off from the others, and half the time from the
	// brokers too, which stay with the majority: net partition (c1)
	// (c2,c3,1,2,3). A connected majority of the running controllers is
	// kept; one partition in eight is a no-majority window of a few
	// seconds that heals itself. ControllerCut is net cut between two
	// controllers (a partial partition: each still reaches the others) or
	// between a controller and a broker (whose metadata fetches fail
	// while that controller leads). Neither cuts a running broker off
	// from the active controller (Options.ControllerPartitions does).
	ControllerPartition int
	ControllerCut       int

	// LeaderLoss is the acks=1 lesson as one action: drop the FetchResponses
	// of a partition's leader (so its followers stop copying), produce to
	// that partition, crash the leader, heal. Acknowledged acks=1 records
	// that only the old leader had are then lost when a follower takes over.
	LeaderLoss int

	// UncleanLoss forces an unclean election on a topic that allows them
	// (none with PlainTopics): the leader of one of its partitions stops
	// feeding its followers, takes records, and crashes with every other
	// live ISR member, so the first replica to come back leads without
	// them. Two in a row on a partition leave a follower holding an epoch
	// its new leader never had (issue 9's livelock 4).
	UncleanLoss int

	// Group is the consumer groups' workload (workload_groups.go): the
	// setup makes one or two groups under the classic eager, classic
	// cooperative or KIP-848 protocol, and each Group step makes a member
	// join, leave, crash, restart, poll, commit or stall past
	// max.poll.interval.ms, or crashes a group's coordinator.
	Group int

	// Txn is the transactional producers' workload (workload_txn.go): the
	// setup makes one or two transactional.ids on a few
	// __transaction_state partitions and a read_committed consumer, and
	// each Txn step begins, writes in, commits or aborts a transaction,
	// crashes or restarts a transactional producer, starts a second
	// instance of a transactional.id (fencing the first, which goes on as
	// a zombie), polls the read_committed consumer, or runs a
	// consume-transform-produce turn with sendOffsetsToTransaction.
	Txn int
}

// DefaultMix is the workload with every fault: what the acks=all runs use.
//
// Faults are bounded so that acks=all can promise durability (unless
// Options lift the bounds):
//
//   - a broker may lose power only when every partition it hosts has at
//     least min.insync.replicas live, unfenced ISR members, and no other
//     broker is "power-tainted" (lost power and not yet back in the ISR
//     of each of its partitions): at most RF - min.insync.replicas = 1
//     replica of a partition is without its unsynced writes at a time;
//   - while a broker is power-tainted no other broker crashes and the
//     network is not partitioned, so it cannot end up as the last ISR
//     member of a partition (drops, delays and ticks go on);
//   - a crashed broker restarts only once the controller has fenced it,
//     as Kafka refuses to register a broker id whose session is alive;
//   - no network partition cuts a running broker off from the active
//     controller (ctl), so no fenced broker keeps running; a minority of
//     controllers may be cut off from the brokers (ControllerPartition),
//     or a controller's link to a broker (ControllerCut), and power losses
//     wait until that is healed.
//
// Plain crashes are otherwise not bounded (beyond keeping one broker up):
// the disk survives them. Registrations are not either: a crashed broker
// may restart while a partition or cut link separates controllers, or a
// broker from one, and controller faults strike before every broker has
// replayed its registration. A bound (UnsettledRegistrations) kept that
// out until the engine heartbeated as Kafka's BrokerLifecycleManager does
// (one loop, 10 ms apart while starting) and the checker told that loop,
// behind a cut from the quorum's leader, from a busy one
// (testdata/seed719-*.lab).
func DefaultMix() Mix {
	return Mix{
		Produce: 30, TickSmall: 14, TickLarge: 4, Step: 8, Stabilize: 3, Consume: 3,
		Crash: 3, PowerLoss: 2, Restart: 5, Partition: 2, Heal: 4, Drop: 4, Delay: 2,
		ControllerCrash: 2, ControllerRestart: 2, ControllerPartition: 2, ControllerCut: 1, UncleanLoss: 2, Group: 10, Txn: 14,
	}
}

// NoFaults is the workload alone: produce, tick, step, consume, the
// groups' members coming and going, and the transactions.
func NoFaults() Mix {
	return Mix{Produce: 30, TickSmall: 14, TickLarge: 4, Step: 8, Stabilize: 3, Consume: 3, Group: 10, Txn: 14}
}

// LeaderLossMix is the negative control's mix: DefaultMix without power
// losses plus the acks=1 leader-loss window, which must make the checker
// report "acks=1-loss" for acks=1 producers.
func LeaderLossMix() Mix {
	m := DefaultMix()
	m.PowerLoss = 0
	m.LeaderLoss = 4
	return m
}

func (o Options) withDefaults() Options {
	if o.Acks == "" {
		o.Acks = "all"
	}
	if o.Mix == (Mix{}) {
		o.Mix = DefaultMix()
	}
	return o
}
