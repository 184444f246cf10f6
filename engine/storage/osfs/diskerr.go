package osfs

import (
	"errors"
	"syscall"

	"github.com/loglab/loglab/engine/storage"
)

// diskFailure marks the kernel's answers for a full or failing disk with
// the engine's kinds (storage.ErrNoSpace, storage.ErrIO), so the broker
// answers KAFKA_STORAGE_ERROR and takes the replica offline as Kafka
// does, whichever backend failed. Other errors pass unchanged.
func diskFailure(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, syscall.ENOSPC), errors.Is(err, syscall.EDQUOT):
		return storage.DiskError(storage.ErrNoSpace, err)
	case errors.Is(err, syscall.EIO), errors.Is(err, syscall.EROFS):
		return storage.DiskError(storage.ErrIO, err)
	}
	return err
}
