package loadtest

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// readHeader reads a message's top-level "type", "id" and "at" without
// decoding the rest. An update is tens of KB of HTML in JSON strings, and
// two hundred in-process pages running encoding/json over every one took a
// third of the machine's CPU (a profile of a 100-page run), CPU the server
// under test then lacked. Skipping a string is a search for its closing
// quote (a raw '"' only ever ends a JSON string), so a page costs little
// more than the inflating a browser does too. ok is false when the message
// is not a JSON object this reader can walk; the caller then decodes it
// the slow way, which says what is wrong with it.
func readHeader(data []byte) (m message, ok bool) {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return m, false
	}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return m, true
	}
	for i < len(data) {
		if data[i] != '"' {
			return m, false
		}
		end := stringEnd(data, i)
		if end < 0 {
			return m, false
		}
		key := data[i+1 : end]
		i = skipSpace(data, end+1)
		if i >= len(data) || data[i] != ':' {
			return m, false
		}
		i = skipSpace(data, i+1)
		vend := valueEnd(data, i)
		if vend < 0 {
			return m, false
		}
		value := data[i:vend]
		switch string(key) {
		case "type":
			if json.Unmarshal(value, &m.Type) != nil {
				return m, false
			}
		case "id", "at":
			n, err := strconv.ParseInt(string(value), 10, 64)
			if err != nil {
				return m, false
			}
			if string(key) == "id" {
				m.ID = &n
			} else {
				m.At = &n
			}
		}
		i = skipSpace(data, vend)
		if i >= len(data) {
			return m, false
		}
		switch data[i] {
		case '}':
			return m, true
		case ',':
			i = skipSpace(data, i+1)
		default:
			return m, false
		}
	}
	return m, false
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// stringEnd is the index of the quote closing the string that opens at i,
// -1 when it does not close.
func stringEnd(data []byte, i int) int {
	for j := i + 1; ; {
		k := bytes.IndexByte(data[j:], '"')
		if k < 0 {
			return -1
		}
		q := j + k
		backslashes := 0
		for b := q - 1; b > i && data[b] == '\\'; b-- {
			backslashes++
		}
		if backslashes%2 == 0 {
			return q
		}
		j = q + 1
	}
}

// valueEnd is the index just after the value starting at i, -1 when it
// does not end.
func valueEnd(data []byte, i int) int {
	if i >= len(data) {
		return -1
	}
	switch data[i] {
	case '"':
		end := stringEnd(data, i)
		if end < 0 {
			return -1
		}
		return end + 1
	case '{', '[':
		depth := 0
		for j := i; j < len(data); j++ {
			switch data[j] {
			case '"':
				end := stringEnd(data, j)
				if end < 0 {
					return -1
				}
				j = end
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	}
	j := i
	for j < len(data) && data[j] != ',' && data[j] != '}' && data[j] != ' ' && data[j] != '\n' && data[j] != '\t' && data[j] != '\r' {
		j++
	}
	if j == i {
		return -1
	}
	return j
}
