package lab

import "testing"

// A template filled with the counted-up digits writes what expandIndex
// returns for every index in turn (across 9 -> 10, 99 -> 100, ...), each
// into its own capped slice of the shared buffer, and an empty expansion
// is an empty value, not a null one.
func TestTemplateIsExpandIndex(t *testing.T) {
	for _, s := range []string{"v{i}", "{i}{i}", "", "x", "{i", "{{i}}", "a{i}b{i}c", "{i}}", "k{i}"} {
		buf := make([]byte, 0) // as the command makes it: sized, never nil
		tmpl, index := newTemplate(s), newIndexDigits()
		for i := range 12346 {
			var v []byte
			v, buf = tmpl.appendTo(buf, index)
			if want := expandIndex(s, i); string(v) != want || v == nil || cap(v) != len(v) {
				t.Fatalf("%q at %d: %q (cap %d, nil %t), want %q", s, i, v, cap(v), v == nil, want)
			}
			index.next()
		}
	}
}
