package dumplog

import (
	"strings"
	"unicode/utf8"
)

// javaString is new String(b, StandardCharsets.UTF_8), which Kafka's
// StringDecoder uses for keys and payloads: valid UTF-8 is kept, and each
// malformed sequence becomes one U+FFFD. The JDK (17+, String.decodeUTF8)
// replaces the longest prefix of a sequence that could still have been valid
// (Unicode's "maximal subpart"), with one twist: it reads a lead byte 0xED
// as if any continuation could follow, and replaces the whole three-byte
// encoding of a surrogate with a single U+FFFD.
func javaString(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	var s strings.Builder
	s.Grow(len(b) + 8)
	for i := 0; i < len(b); {
		if b[i] < utf8.RuneSelf {
			s.WriteByte(b[i])
			i++
			continue
		}
		if r, n := utf8.DecodeRune(b[i:]); r != utf8.RuneError || n > 1 {
			s.Write(b[i : i+n])
			i += n
			continue
		}
		s.WriteRune(utf8.RuneError)
		i += malformedLength(b[i:])
	}
	return s.String()
}

// malformedLength is how many bytes of the invalid sequence at the front of
// b the JDK replaces with one U+FFFD; at least 1.
func malformedLength(b []byte) int {
	lo, hi, need := byte(0x80), byte(0xBF), 0
	switch c := b[0]; {
	case c >= 0xC2 && c <= 0xDF:
		need = 1
	case c == 0xE0:
		lo, need = 0xA0, 2
	case c >= 0xE1 && c <= 0xEF: // 0xED included: surrogates are caught below
		need = 2
	case c == 0xF0:
		lo, need = 0x90, 3
	case c >= 0xF1 && c <= 0xF3:
		need = 3
	case c == 0xF4:
		hi, need = 0x8F, 3
	default:
		return 1
	}
	n := 1
	if n < len(b) && b[n] >= lo && b[n] <= hi {
		n++
		for n <= need && n < len(b) && b[n]&0xC0 == 0x80 {
			n++
		}
	}
	// n is now the bytes that fit the pattern. A full three-byte sequence
	// here is an encoded surrogate (0xED 0xA0-0xBF x), one U+FFFD in Java.
	return min(n, need+1)
}
