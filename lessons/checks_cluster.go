package lessons

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/loglab/loglab/engine/broker"
	"github.com/loglab/loglab/engine/log"
)

// Checks for the lessons on the cluster as a whole: KRaft (who is active,
// what the controller thinks of a broker, how far the metadata log got),
// log compaction (what a key's reader sees) and power loss (which
// acknowledged records a replica still holds). Each reads engine state
// through the lab's View or Cluster, never the transcript.
func init() {
	register("active-controller", "active-controller: the id of the active controller, or none without a majority", activeController)
	register("broker-state", "broker-state B: the broker as `show brokers` puts it: `running, unfenced`, `running, fenced`, `down, unfenced` (the controller has not noticed yet) or `down, fenced`", brokerState)
	register("metadata-offset", "metadata-offset: the offset of the last record committed to the metadata log", metadataOffset)
	register("key-value", "key-value TOPIC/P KEY: the value a consumer reading the partition from its start sees last for KEY (up to the leader's high watermark): the value, `tombstone` for a null value, or `none` if no record has the key", keyValue)
	register("key-records", "key-records TOPIC/P KEY: how many records with KEY the leader's log holds, tombstones included", keyRecords)
	register("acked-held", "acked-held TOPIC/P BROKER: how many of the partition's acknowledged records that broker's replica holds (same offset, same value; a record compaction removed counts as not held, so use it on topics that do not compact)", ackedHeld)
	register("acked-intact", "acked-intact TOPIC/P: `true` if the partition's leader holds every acknowledged record of it, `false` if one is missing (compaction's removals included, so use it on topics that do not compact), `no leader` while it has none that serves", ackedIntact)
}

func activeController(s State, args []string) (string, error) {
	if len(args) != 0 {
		return "", fmt.Errorf("takes no arguments")
	}
	if err := needCluster(s); err != nil {
		return "", err
	}
	if id := s.Lab.Cluster().ActiveController(); id != 0 {
		return strconv.Itoa(id), nil
	}
	return "none", nil
}

func brokerState(s State, args []string) (string, error) {
	if len(args) != 1 {
		return "", fmt.Errorf("wants a broker id")
	}
	if err := needCluster(s); err != nil {
		return "", err
	}
	for _, b := range s.Lab.View().BrokerNodes {
		if strconv.Itoa(b.ID) != args[0] {
			continue
		}
		run, fence := "running", "unfenced"
		if !b.Alive {
			run = "down"
		}
		if b.Fenced {
			fence = "fenced"
		}
		return run + ", " + fence, nil
	}
	return "", fmt.Errorf("no broker %s", args[0])
}

func metadataOffset(s State, args []string) (string, error) {
	if len(args) != 0 {
		return "", fmt.Errorf("takes no arguments")
	}
	if err := needCluster(s); err != nil {
		return "", err
	}
	return strconv.FormatInt(s.Lab.View().MetadataOffset, 10), nil
}

// leaderRecords reads the records of the partition's leader below its high
// watermark: what a consumer can read.
func leaderRecords(s State, tp string) ([]log.RecordAt, error) {
	r, err := replicaOf(s, tp, "0")
	if err != nil {
		return nil, err
	}
	recs, err := r.Log.Records(r.Log.StartOffset(), 0)
	if err != nil {
		return nil, err
	}
	for i, rec := range recs {
		if rec.Offset >= r.HW {
			return recs[:i], nil
		}
	}
	return recs, nil
}

// replicaOf returns a broker's replica of "topic/p" ("0": the leader's).
func replicaOf(s State, tp, brokerID string) (*broker.Replica, error) {
	if err := needCluster(s); err != nil {
		return nil, err
	}
	topic, idx, ok := strings.Cut(tp, "/")
	p, err := strconv.Atoi(idx)
	if !ok || err != nil {
		return nil, fmt.Errorf("%q is not TOPIC/PARTITION", tp)
	}
	id, err := strconv.Atoi(brokerID)
	if err != nil {
		return nil, fmt.Errorf("%q is not a broker id", brokerID)
	}
	r, _, err := s.Lab.Cluster().Replica(topic, p, id)
	return r, err
}

func keyValue(s State, args []string) (string, error) {
	if len(args) != 2 {
		return "", fmt.Errorf("wants TOPIC/P KEY")
	}
	recs, err := leaderRecords(s, args[0])
	if err != nil {
		return "", err
	}
	value := "none"
	for _, r := range recs {
		if string(r.Key) != args[1] {
			continue
		}
		value = string(r.Value)
		if r.Value == nil {
			value = "tombstone"
		}
	}
	return value, nil
}

func keyRecords(s State, args []string) (string, error) {
	if len(args) != 2 {
		return "", fmt.Errorf("wants TOPIC/P KEY")
	}
	r, err := replicaOf(s, args[0], "0")
	if err != nil {
		return "", err
	}
	recs, err := r.Log.Records(r.Log.StartOffset(), 0)
	if err != nil {
		return "", err
	}
	n := 0
	for _, rec := range recs {
		if string(rec.Key) == args[1] {
			n++
		}
	}
	return strconv.Itoa(n), nil
}

// heldAcked counts the partition's acknowledged records the replica holds
// and those it does not: a record counts as held only with the value that
// was acknowledged at its offset, since a lost offset can be written again.
func heldAcked(s State, tp string, r *broker.Replica) (held, missing int, err error) {
	recs, err := r.Log.Records(r.Log.StartOffset(), 0)
	if err != nil {
		return 0, 0, err
	}
	at := make(map[int64][]byte, len(recs))
	for _, rec := range recs {
		at[rec.Offset] = rec.Value
	}
	for _, a := range s.Lab.Cluster().Acked() {
		if a.TP.Topic+"/"+strconv.Itoa(int(a.TP.Partition)) != tp || a.Offset < r.Log.StartOffset() {
			continue
		}
		if v, ok := at[a.Offset]; ok && bytes.Equal(v, a.Value) {
			held++
		} else {
			missing++
		}
	}
	return held, missing, nil
}

func ackedHeld(s State, args []string) (string, error) {
	if len(args) != 2 {
		return "", fmt.Errorf("wants TOPIC/P BROKER")
	}
	r, err := replicaOf(s, args[0], args[1])
	if err != nil {
		return "", err
	}
	held, _, err := heldAcked(s, args[0], r)
	return strconv.Itoa(held), err
}

func ackedIntact(s State, args []string) (string, error) {
	p, err := partitionArg(s, args, 1)
	if err != nil {
		return "", err
	}
	if p.Leader < 0 || p.LeaderState() != "" {
		return "no leader", nil // none, or one the metadata names that cannot serve yet
	}
	r, err := replicaOf(s, args[0], strconv.Itoa(p.Leader))
	if err != nil {
		return "", err
	}
	_, missing, err := heldAcked(s, args[0], r)
	return strconv.FormatBool(missing == 0), err
}

func needCluster(s State) error {
	if s.Lab.Cluster() == nil {
		return fmt.Errorf("there is no cluster yet")
	}
	return nil
}
