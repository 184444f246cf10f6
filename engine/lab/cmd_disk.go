package lab

import "fmt"

// A broker's disk that fills or fails: what Kafka does with a log
// directory whose writes fail (engine/broker/logdir_failure.go), on the
// in-memory disks of the lab.

var brokerDiskFullCommand = &command{
	name:  "broker disk-full",
	usage: "broker disk-full ID [after=BYTES] [eio=false]",
	summary: "fill a broker's disk: after BYTES more bytes (default 0) its writes fail with ENOSPC (eio=true: EIO at once); " +
		"the producer is told KAFKA_STORAGE_ERROR and the replica goes offline on that broker until it restarts",
	run: func(l *Lab, a *args) (string, error) {
		id, err := l.brokerTarget(a)
		if err != nil {
			return "", err
		}
		after := a.integer("after", 0, 0, 1<<30)
		eio := a.boolean("eio", false)
		if err := a.finish(); err != nil {
			return "", err
		}
		if err := l.cluster.FillDisk(id, int64(after), eio); err != nil {
			return "", err
		}
		switch {
		case eio:
			return fmt.Sprintf("broker %d's disk fails every write with EIO (input/output error)", id), nil
		case after > 0:
			return fmt.Sprintf("broker %d's disk is full after %d more bytes: then writes fail with ENOSPC (no space left on device)", id, after), nil
		}
		return fmt.Sprintf("broker %d's disk is full: writes fail with ENOSPC (no space left on device)", id), nil
	},
}

var brokerDiskFreeCommand = &command{
	name:    "broker disk-free",
	usage:   "broker disk-free ID",
	summary: "free a broker's disk: writes succeed again; replicas already offline come back only when the broker restarts, as in Kafka",
	run: func(l *Lab, a *args) (string, error) {
		id, err := l.brokerTarget(a)
		if err != nil {
			return "", err
		}
		if err := a.finish(); err != nil {
			return "", err
		}
		if err := l.cluster.FreeDisk(id); err != nil {
			return "", err
		}
		msg := fmt.Sprintf("broker %d's disk has room again", id)
		if n := len(l.cluster.Broker(id).Offline()); n > 0 {
			msg += fmt.Sprintf("; its %d offline replica(s) stay offline until it restarts (broker crash %d, broker restart %d)", n, id, id)
		}
		return msg, nil
	},
}
