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

// TestCountRunning reads a goroutine profile as pprof writes it (debug=1),
// the drains' group first, as the largest group is.
func TestCountRunning(t *testing.T) {
	profile := "goroutine profile: total 11\n" +
		"6 @ 0x48abae 0x467785 0x9d8ba9 0x492861\n" +
		"#\t0x9d8ba8\tgithub.com/loglab/loglab/engine/kraft/quorum.drain+0x148\t/x/transport.go:202\n" +
		"\n" +
		"3 @ 0x48abae 0x467785 0x99c814 0x9bf5f0 0x492861\n" +
		"#\t0x99c813\tgithub.com/hashicorp/raft.(*Raft).runFSM+0x253\t/y/fsm.go:240\n" +
		"#\t0x9bf5ef\tgithub.com/hashicorp/raft.(*raftState).goFunc.func1+0x4f\t/y/state.go:149\n" +
		"\n" +
		"2 @ 0x1 0x2\n" +
		"#\t0x1\tgithub.com/loglab/loglab/engine/kraft/quorum.drainer+0x1\t/x/other.go:1\n" +
		"#\t0x2\tgithub.com/loglab/loglab/engine/kraft/quorum.drain+0x9\t/x/transport.go:200\n" +
		"#\t0x2\tgithub.com/loglab/loglab/engine/kraft/quorum.drain+0x9\t/x/transport.go:200\n"
	if got := countRunning([]byte(profile), drainFunc); got != 8 {
		t.Errorf("counted %d goroutines in drain, want 8 (6 + 2, each group once)", got)
	}
}
