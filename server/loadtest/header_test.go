package loadtest

import (
	"encoding/json"
	"testing"
)

// TestReadHeaderAgreesWithEncodingJSON: the fast reader must find what
// encoding/json finds, wherever the fields sit and whatever the strings
// around them hold (escaped quotes and backslashes, keys of nested
// objects named like ours), and give up on what is not an object.
func TestReadHeaderAgreesWithEncodingJSON(t *testing.T) {
	for _, in := range []string{
		`{"type":"update","id":7,"at":1764600000123,"view":"<div class=\"x\">"}`,
		`{"view":"a \"quoted\" \\\\ \\\"at\\\":1 and \"id\":3","type":"update","at":42}`,
		`{"type":"update","fragments":[{"id":"p-0","html":"<b>\"}\"</b>"},{"id":"p-1"}],"id":12}`,
		`{"clear":true,"entry":"","type":"update","id":3,"at":5,"nested":{"at":99,"x":[1,{"id":8}]}}`,
		` { "type" : "realtime" , "state" : {"on":true} } `,
		`{"type":"update","view":"` + "\u00e9\\u003c" + `","n":null,"f":false,"x":-1.5e3}`,
		`{}`,
	} {
		got, ok := readHeader([]byte(in))
		var want message
		if err := json.Unmarshal([]byte(in), &want); err != nil {
			t.Fatalf("bad test input %s: %v", in, err)
		}
		if !ok || got.Type != want.Type || !samePtr(got.ID, want.ID) || !samePtr(got.At, want.At) {
			t.Errorf("%s:\n got %v %q id %v at %v\nwant %q id %v at %v", in, ok, got.Type, show(got.ID), show(got.At), want.Type, show(want.ID), show(want.At))
		}
	}
	for _, in := range []string{``, `[1]`, `{"type":"upd`, `{"type":"update" "id":1}`, `{"id":"seven"}`, `{"a":{"b":1}`, `{"type":"update",}`, `nope`} {
		if _, ok := readHeader([]byte(in)); ok {
			t.Errorf("%q read as an object", in)
		}
	}
}

func samePtr(a, b *int64) bool { return a == nil && b == nil || a != nil && b != nil && *a == *b }

func show(p *int64) any {
	if p == nil {
		return nil
	}
	return *p
}
