package lab

import "strings"

// template is a key or value of `produce` cut at its {i} holes once, so
// that writing it for record after record is copying: searching for {i}
// and formatting the index anew for each record was a tenth of a large
// produce under WASM.
type template []string

func newTemplate(s string) template { return strings.Split(s, "{i}") }

// appendTo appends the template with each hole filled by index (the
// index's decimal digits) to buf and returns it as its own slice (never
// nil, capped so appending to it cannot reach the next one) with the
// grown buf: what appendExpanded(buf, s, i) returns.
func (t template) appendTo(buf []byte, index []byte) ([]byte, []byte) {
	start := len(buf)
	buf = append(buf, t[0]...)
	for _, part := range t[1:] {
		buf = append(buf, index...)
		buf = append(buf, part...)
	}
	return buf[start:len(buf):len(buf)], buf
}

// indexDigits is a record index as decimal digits, counted up in place.
type indexDigits []byte

func newIndexDigits() indexDigits { return indexDigits{'0'} }

// next makes the digits the following index.
func (d *indexDigits) next() {
	s := *d
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] < '9' {
			s[i]++
			return
		}
		s[i] = '0'
	}
	*d = append(indexDigits{'1'}, s...) // 9...9 + 1
}
