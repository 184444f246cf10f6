package storage

import "errors"

// A disk fails a write in two ways that Kafka cares about: it is full
// (ENOSPC, or EDQUOT over a quota) or it cannot do the I/O (EIO, or a
// file system remounted read-only). Kafka turns either into a
// KafkaStorageException and takes the log directory offline
// (LogDirFailureChannel); the engine recognises them with these kinds,
// whichever backend failed: osfs maps the kernel's errno to them, Faulty
// makes them up for tests and lessons.
var (
	ErrNoSpace = errors.New("no space left on device")
	ErrIO      = errors.New("input/output error")
)

// IsDiskFailure says whether err is a disk that failed a write (ErrNoSpace
// or ErrIO, wrapped anywhere in err), as opposed to a refused request or a
// missing file.
func IsDiskFailure(err error) bool {
	return errors.Is(err, ErrNoSpace) || errors.Is(err, ErrIO)
}

// DiskError marks err as a disk failure of the given kind (ErrNoSpace or
// ErrIO) and keeps err's own message, which names the file and the call
// ("write broker-1/orders-0/...: no space left on device").
func DiskError(kind, err error) error { return &diskError{kind: kind, err: err} }

type diskError struct{ kind, err error }

func (e *diskError) Error() string   { return e.err.Error() }
func (e *diskError) Unwrap() []error { return []error{e.kind, e.err} }
