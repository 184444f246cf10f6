package kafkawire

import (
	"strconv"
	"unicode/utf8"
)

// JSONObject builds a JSON object (kafka-dump-log's decoders print the
// generated JsonConverter's output) the way Jackson's ObjectNode.toString
// prints it: no spaces, members in insertion order.
type JSONObject struct{ b []byte }

func (o *JSONObject) Raw(name, value string) {
	if len(o.b) == 0 {
		o.b = append(o.b, '{')
	} else {
		o.b = append(o.b, ',')
	}
	o.b = AppendJSONString(o.b, name)
	o.b = append(o.b, ':')
	o.b = append(o.b, value...)
}

func (o *JSONObject) Str(name, s string) { o.Raw(name, string(AppendJSONString(nil, s))) }
func (o *JSONObject) Num(name string, n int64) {
	o.Raw(name, strconv.FormatInt(n, 10))
}

func (o *JSONObject) NullableStr(name string, s *string) {
	if s == nil {
		o.Raw(name, "null")
		return
	}
	o.Str(name, *s)
}

func (o *JSONObject) Close() string {
	if len(o.b) == 0 {
		return "{}"
	}
	return string(append(o.b, '}'))
}

// AppendJSONString quotes s as Jackson does: '"' and '\\' escaped, the
// control characters below 0x20 as \b \t \n \f \r or \u00XX (upper-case
// hex), everything else, non-ASCII included, as is. Bytes that are not UTF-8
// become U+FFFD, as Java's UTF-8 decoder made them when it read the string.
func AppendJSONString(b []byte, s string) []byte {
	const hex = "0123456789ABCDEF"
	b = append(b, '"')
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == '"' || r == '\\':
			b = append(b, '\\', byte(r))
		case r == '\b':
			b = append(b, '\\', 'b')
		case r == '\t':
			b = append(b, '\\', 't')
		case r == '\n':
			b = append(b, '\\', 'n')
		case r == '\f':
			b = append(b, '\\', 'f')
		case r == '\r':
			b = append(b, '\\', 'r')
		case r < 0x20:
			b = append(b, '\\', 'u', '0', '0', hex[r>>4], hex[r&0xf])
		default:
			b = utf8.AppendRune(b, r)
		}
	}
	return append(b, '"')
}
