package log

import (
	"fmt"

	"github.com/loglab/loglab/engine/storage"
)

// A write the disk failed (ENOSPC, EIO) may have left half a batch at the
// end of the segment and the log's idea of its end no longer matches the
// file's. Like Kafka's LocalLog, which refuses every operation once its
// log directory is in the LogDirFailureChannel ("the log dir is already
// offline due to a previous IO exception"), the log then refuses every
// append until it is opened again, and recovery cuts the torn tail.

// noteDiskFailure remembers err if the disk failed it, and returns it.
func (l *Log) noteDiskFailure(err error) error {
	if storage.IsDiskFailure(err) && l.diskFailure == nil {
		l.diskFailure = err
	}
	return err
}

// DiskFailure is the disk's failure of an earlier write, or nil.
func (l *Log) DiskFailure() error { return l.diskFailure }

// offlineError is what an append answers once the disk failed a write:
// still a disk failure, so the broker keeps answering KAFKA_STORAGE_ERROR.
func (l *Log) offlineError() error {
	return fmt.Errorf("the log dir of %s is offline due to a previous IO exception: %w", l.dir, l.diskFailure)
}
