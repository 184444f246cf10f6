// Package osfs is the storage backend over real files, for native mode. It
// is one of the two engine packages allowed to touch the outside world
// (see engine/forbidden_test.go): everything else reaches disks through
// storage.FS.
package osfs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/loglab/loglab/engine/storage"
)

// FS is a storage.FS rooted at a directory on disk.
type FS struct {
	root string
}

// New returns a file system rooted at dir; every name is relative to it.
func New(dir string) *FS { return &FS{root: dir} }

func (f *FS) path(name string) string { return filepath.Join(f.root, filepath.FromSlash(name)) }

func wrap(err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return errors.Join(storage.ErrNotExist, err)
	}
	return diskFailure(err)
}

func (f *FS) MkdirAll(dir string) error { return diskFailure(os.MkdirAll(f.path(dir), 0o755)) }

func (f *FS) ReadDir(dir string) ([]string, error) {
	entries, err := os.ReadDir(f.path(dir))
	if err != nil {
		return nil, wrap(err)
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() {
			names = append(names, e.Name())
		}
	}
	slices.Sort(names)
	return names, nil
}

func (f *FS) Create(name string) (storage.File, error) {
	file, err := os.OpenFile(f.path(name), os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, wrap(err)
	}
	return &File{f: file, name: name}, nil
}

func (f *FS) Open(name string) (storage.File, error) {
	file, err := os.OpenFile(f.path(name), os.O_RDWR, 0)
	if err != nil {
		return nil, wrap(err)
	}
	st, err := file.Stat()
	if err != nil {
		file.Close()
		return nil, err
	}
	return &File{f: file, name: name, size: st.Size()}, nil
}

func (f *FS) Remove(name string) error     { return wrap(os.Remove(f.path(name))) }
func (f *FS) RemoveAll(dir string) error   { return os.RemoveAll(f.path(dir)) }
func (f *FS) Rename(from, to string) error { return wrap(os.Rename(f.path(from), f.path(to))) }

// File is a real file opened for reading and appending. Appends are
// positioned writes (pwrite) at the tracked size: they leave the
// descriptor's offset alone, and measured faster than O_APPEND writes.
//
// The size is tracked rather than asked of the kernel, as the append path
// needs it after every write.
type File struct {
	f    *os.File
	name string
	size int64
}

func (f *File) ReadAt(p []byte, off int64) (int, error) { return f.f.ReadAt(p, off) }
func (f *File) Sync() error                             { return diskFailure(f.f.Sync()) }
func (f *File) Close() error                            { return f.f.Close() }
func (f *File) Name() string                            { return f.name }

func (f *File) Size() int64 { return f.size }

func (f *File) Write(p []byte) (int, error) {
	n, err := f.f.WriteAt(p, f.size)
	f.size += int64(n)
	return n, diskFailure(err)
}

func (f *File) Truncate(size int64) error {
	if err := f.f.Truncate(size); err != nil {
		return diskFailure(err)
	}
	f.size = size
	return nil
}

// OSFile exposes the descriptor so the native server can sendfile a slice
// of it straight to a socket. Callers must not move its offset: open their
// own descriptor (os.Open(Path())) for a sendfile that seeks.
func (f *File) OSFile() *os.File { return f.f }

// Path is the file's location on disk.
func (f *File) Path() string { return f.f.Name() }
