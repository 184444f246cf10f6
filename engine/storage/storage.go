// Package storage is the engine's idea of a disk: a flat set of named files
// in directories, written by appending, read at offsets. The engine's logs
// only ever see this interface, so the same code writes real segment files
// natively (osfs), keeps them in memory in the browser (Mem), and can lose
// in a simulated power cut the writes neither fsynced nor written back by
// the OS (CrashableMem; its page cache follows Linux's flusher: data dirty
// for 30 s is written back at the flusher's next wake-up, every 5 s).
// Real files (osfs) are left to the real kernel.
package storage

import (
	"errors"
	"io"
)

// FS is a file system. Names are slash-separated paths.
type FS interface {
	MkdirAll(dir string) error
	// ReadDir lists the file names (not directories) directly in dir,
	// sorted, so that callers never depend on an implementation's order.
	ReadDir(dir string) ([]string, error)
	// Create makes a new empty file, replacing any file of that name.
	Create(name string) (File, error)
	// Open opens an existing file for reading and appending.
	Open(name string) (File, error)
	Remove(name string) error
	// RemoveAll removes a directory and everything in it.
	RemoveAll(dir string) error
	Rename(from, to string) error
}

// File is an append-only file that can be read anywhere and cut short.
type File interface {
	io.ReaderAt
	// Write appends p at the end of the file.
	Write(p []byte) (int, error)
	Size() int64
	// Truncate cuts the file to size bytes (never grows it).
	Truncate(size int64) error
	// Sync makes everything written so far survive a crash.
	Sync() error
	Close() error
	Name() string
}

// ErrNotExist is returned (wrapped) for a missing file or directory.
var ErrNotExist = errors.New("file does not exist")

// Slice is a region of a file: what a fetch returns instead of copying
// bytes, like Kafka's FileRecords.slice. The native server hands the region
// of an *os.File to sendfile; the memory backend copies it.
type Slice struct {
	File File
	Pos  int64
	Len  int64
}

// Bytes copies the region out of its file.
func (s Slice) Bytes() ([]byte, error) {
	b := make([]byte, s.Len)
	if _, err := s.File.ReadAt(b, s.Pos); err != nil {
		return nil, err
	}
	return b, nil
}

// ReadFull reads exactly len(p) bytes at off, failing with
// io.ErrUnexpectedEOF when the file ends first.
func ReadFull(f File, p []byte, off int64) error {
	n, err := f.ReadAt(p, off)
	if n == len(p) {
		return nil
	}
	if err == nil || errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

// ReadFile reads the whole of a file, as os.ReadFile does.
func ReadFile(fs FS, name string) ([]byte, error) {
	f, err := fs.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	raw := make([]byte, f.Size())
	if err := ReadFull(f, raw, 0); err != nil {
		return nil, err
	}
	return raw, nil
}
