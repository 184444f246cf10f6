package lab

import "testing"

// appendExpanded writes what expandIndex returns, each into its own
// capped slice of the shared buffer, and an empty expansion is an empty
// value, not a null one.
func TestAppendExpandedIsExpandIndex(t *testing.T) {
	var buf []byte
	var got [][]byte
	var want []string
	for _, s := range []string{"v{i}", "{i}{i}", "", "x", "{i", "{{i}}", "a{i}b{i}c", "{i}}"} {
		for _, i := range []int{0, 7, 12345} {
			var v []byte
			v, buf = appendExpanded(buf, s, i)
			got, want = append(got, v), append(want, expandIndex(s, i))
		}
	}
	for i := range got {
		if string(got[i]) != want[i] || got[i] == nil || cap(got[i]) != len(got[i]) {
			t.Errorf("%d: %q (cap %d, nil %t), want %q", i, got[i], cap(got[i]), got[i] == nil, want[i])
		}
	}
}
