// Package consumerprotocol is Kafka's ConsumerProtocol: the bytes a classic
// group's consumers put in JoinGroup's protocol metadata
// (ConsumerProtocolSubscription) and SyncGroup's assignments
// (ConsumerProtocolAssignment). The coordinator never reads them; the leader
// member decodes every member's subscription to run its assignor and encodes
// each member's assignment. Both are non-flexible schemas prefixed with an
// int16 version; Kafka 4.x writes version 3 of both.
//
// The sticky assignors' own user data (StickyAssignorUserData and the
// cooperative-sticky generation) is here too: it rides inside the
// subscription's userData.
package consumerprotocol

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/loglab/loglab/engine/group/assignor"
)

// Version is the version Kafka 4.x's ConsumerProtocol writes
// (ConsumerProtocolSubscription and ConsumerProtocolAssignment v3).
const Version int16 = 3

// Subscription is ConsumerProtocolSubscription: what a member reads and,
// since KIP-429 (v1) and KIP-792 (v2), what it owns and in which generation.
type Subscription struct {
	Topics   []string
	UserData []byte // nil: null
	// OwnedPartitions (v1+) is what the member owns now; grouped by topic
	// on the wire in the order topics first appear here.
	OwnedPartitions []assignor.TopicPartition
	GenerationID    int32   // v2+; -1 when unknown (and when absent)
	RackID          *string // v3+; client.rack, nil when unset
}

// Assignment is ConsumerProtocolAssignment: one member's partitions.
type Assignment struct {
	Partitions []assignor.TopicPartition
	UserData   []byte
}

// ErrMalformed is returned for bytes that do not decode.
var ErrMalformed = errors.New("malformed consumer protocol bytes")

// EncodeSubscription writes s at Version.
func EncodeSubscription(s Subscription) []byte {
	var w writer
	w.int16(Version)
	w.int32(int32(len(s.Topics)))
	for _, t := range s.Topics {
		w.string(t)
	}
	w.nullableBytes(s.UserData)
	w.topicPartitions(s.OwnedPartitions)
	w.int32(s.GenerationID)
	if s.RackID == nil {
		w.int16(-1)
	} else {
		w.string(*s.RackID)
	}
	return w.buf
}

// DecodeSubscription reads any version (0-3; a later version reads as 3,
// as Kafka's schemas only ever append fields).
func DecodeSubscription(b []byte) (Subscription, error) {
	r := reader{buf: b}
	v := r.int16()
	s := Subscription{GenerationID: -1}
	n := r.arrayLen()
	for i := 0; i < n && r.err == nil; i++ {
		s.Topics = append(s.Topics, r.string())
	}
	s.UserData = r.nullableBytes()
	if v >= 1 {
		s.OwnedPartitions = r.topicPartitions()
	}
	if v >= 2 {
		s.GenerationID = r.int32()
	}
	if v >= 3 {
		s.RackID = r.nullableString()
	}
	if r.err != nil {
		return Subscription{}, fmt.Errorf("subscription: %w", r.err)
	}
	return s, nil
}

// EncodeAssignment writes a at Version.
func EncodeAssignment(a Assignment) []byte {
	var w writer
	w.int16(Version)
	w.topicPartitions(a.Partitions)
	w.nullableBytes(a.UserData)
	return w.buf
}

// DecodeAssignment reads any version (all have the same two fields). Empty
// bytes are an empty assignment, as Kafka's ConsumerCoordinator treats the
// assignment of a member the leader left out.
func DecodeAssignment(b []byte) (Assignment, error) {
	if len(b) == 0 {
		return Assignment{}, nil
	}
	r := reader{buf: b}
	r.int16()
	a := Assignment{Partitions: r.topicPartitions(), UserData: r.nullableBytes()}
	if r.err != nil {
		return Assignment{}, fmt.Errorf("assignment: %w", r.err)
	}
	return a, nil
}

// EncodeStickyUserData is StickyAssignor's user data (StickyAssignorUserData
// v1): the member's previous assignment and its generation. The eager sticky
// assignor needs it because an eager member revokes everything before it
// joins, so its ownedPartitions are empty.
func EncodeStickyUserData(prev []assignor.TopicPartition, generation int32) []byte {
	var w writer
	w.topicPartitions(prev)
	w.int32(generation)
	return w.buf
}

// DecodeStickyUserData reads it; v0 (no generation) reads generation -1.
func DecodeStickyUserData(b []byte) ([]assignor.TopicPartition, int32, error) {
	r := reader{buf: b}
	prev := r.topicPartitions()
	gen := int32(-1)
	if r.err == nil && len(r.buf) >= 4 {
		gen = r.int32()
	}
	if r.err != nil {
		return nil, -1, fmt.Errorf("sticky user data: %w", r.err)
	}
	return prev, gen, nil
}

// EncodeCooperativeUserData is CooperativeStickyAssignor's user data: just
// the generation, for leaders older than subscription v2's generationId.
func EncodeCooperativeUserData(generation int32) []byte {
	return binary.BigEndian.AppendUint32(nil, uint32(generation))
}

type writer struct{ buf []byte }

func (w *writer) int16(v int16) { w.buf = binary.BigEndian.AppendUint16(w.buf, uint16(v)) }
func (w *writer) int32(v int32) { w.buf = binary.BigEndian.AppendUint32(w.buf, uint32(v)) }
func (w *writer) string(s string) {
	w.int16(int16(len(s)))
	w.buf = append(w.buf, s...)
}
func (w *writer) nullableBytes(b []byte) {
	if b == nil {
		w.int32(-1)
		return
	}
	w.int32(int32(len(b)))
	w.buf = append(w.buf, b...)
}

// topicPartitions writes [{topic, [partition]}], topics in the order they
// first appear.
func (w *writer) topicPartitions(tps []assignor.TopicPartition) {
	var topics []string
	parts := map[string][]int32{}
	for _, tp := range tps {
		if _, ok := parts[tp.Topic]; !ok {
			topics = append(topics, tp.Topic)
		}
		parts[tp.Topic] = append(parts[tp.Topic], tp.Partition)
	}
	w.int32(int32(len(topics)))
	for _, t := range topics {
		w.string(t)
		w.int32(int32(len(parts[t])))
		for _, p := range parts[t] {
			w.int32(p)
		}
	}
}

type reader struct {
	buf []byte
	err error
}

func (r *reader) take(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > len(r.buf) {
		r.err = ErrMalformed
		return nil
	}
	b := r.buf[:n]
	r.buf = r.buf[n:]
	return b
}

func (r *reader) int16() int16 {
	if b := r.take(2); b != nil {
		return int16(binary.BigEndian.Uint16(b))
	}
	return 0
}

func (r *reader) int32() int32 {
	if b := r.take(4); b != nil {
		return int32(binary.BigEndian.Uint32(b))
	}
	return 0
}

func (r *reader) arrayLen() int {
	n := int(r.int32())
	if n < 0 || n > len(r.buf) {
		if r.err == nil && n != 0 {
			r.err = ErrMalformed
		}
		return 0
	}
	return n
}

func (r *reader) string() string {
	n := int(r.int16())
	return string(r.take(n))
}

func (r *reader) nullableString() *string {
	n := int(r.int16())
	if n < 0 || r.err != nil {
		return nil
	}
	s := string(r.take(n))
	return &s
}

func (r *reader) nullableBytes() []byte {
	n := int(r.int32())
	if n < 0 || r.err != nil {
		return nil
	}
	return append([]byte{}, r.take(n)...)
}

func (r *reader) topicPartitions() []assignor.TopicPartition {
	var out []assignor.TopicPartition
	n := r.arrayLen()
	for i := 0; i < n && r.err == nil; i++ {
		t := r.string()
		m := r.arrayLen()
		for j := 0; j < m && r.err == nil; j++ {
			out = append(out, assignor.TopicPartition{Topic: t, Partition: r.int32()})
		}
	}
	return out
}
