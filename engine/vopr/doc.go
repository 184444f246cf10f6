// Package vopr is loglab's seeded random-workload simulator, after
// TigerBeetle's VOPR (Viewstamped Operation Replicator): for a seed it
// builds a cluster, topics and producers, then runs a random sequence of
// produces, ticks, steps, crashes, power losses, restarts, network
// partitions, drops and delays, and consumer groups under the three
// protocols whose members join, leave, crash, restart, stall and commit
// while their coordinators fail over (workload_groups.go), and
// idempotent (every plain producer, Kafka 3.0's default) and transactional
// producers whose transactions commit, abort, time out, are fenced by a
// restarted or second instance and carry a group's offsets, read by a
// read_committed consumer (workload_txn.go), and the KRaft controllers
// crashing, restarting, partitioned from each other and from the brokers
// and cut from them link by link (workload_quorum.go), with the invariant
// checker watching every event (`check invariants always=true`), the
// quorum's safety included, and the run's last stabilize, every fault
// healed, its liveness (a leader, every voter at its high watermark,
// every broker's metadata image at the committed end).
//
// The workload is written in the lab language, one command line at a time,
// and run through engine/lab: the script a run prints is the run. A failing
// seed therefore reports its violations together with a script that
// `loglab script FILE` (or lab.RunScript) replays exactly, event for event.
//
// Every choice comes from one math/rand/v2 PCG seeded from the seed, and the
// generator reads the cluster's state (who leads, who is down) only through
// ordered slices, so the same seed gives the same script and the same
// transcript on every run, natively and in WASM.
package vopr
