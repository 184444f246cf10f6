package lessons

import (
	"embed"
	"fmt"
	"io/fs"
	"sort"
)

//go:embed *.lesson
var files embed.FS

// All parses every embedded lesson, in the order trainers set with
// `order:` (then by file name), so the catalogue reads the same everywhere.
// A lesson without a module, or with a prerequisite that is no lesson or
// comes later, fails it as a parse error does (checkCatalogue).
func All() ([]*Lesson, error) {
	names, err := fs.Glob(files, "*.lesson")
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	var all []*Lesson
	ids := map[string]string{} // id -> file: progress and links key on the id
	for _, name := range names {
		src, err := files.ReadFile(name)
		if err != nil {
			return nil, err
		}
		l, err := Parse(name, string(src))
		if err != nil {
			return nil, err
		}
		if other, dup := ids[l.ID]; dup {
			return nil, fmt.Errorf("%s:1: id %q is already the id of %s", name, l.ID, other)
		}
		ids[l.ID] = name
		all = append(all, l)
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].Order < all[j].Order })
	if err := checkCatalogue(all); err != nil {
		return nil, err
	}
	return all, nil
}

// Source returns an embedded lesson file's text.
func Source(name string) (string, error) {
	b, err := files.ReadFile(name)
	return string(b), err
}
