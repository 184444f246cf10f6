package assignor

import (
	"encoding/base64"
	"encoding/binary"
	"slices"
)

// Kafka's uniform assignor tests name their topics by fixed Uuids, and the
// assignor walks a HashSet of those Uuids: the order of the expected
// assignments in those tests is that hash order. uniformKafkaTopicOrder rebuilds
// it (Uuid.hashCode, then HashMap's spread and bucket index), so the Go
// tests can hand the assignor the same topic order Kafka's tests had.
var uniformKafkaTopicIDs = map[string]string{
	"topic1": "T1-A4s3VTwiI5CTbEp6POw",
	"topic2": "T2-B4s3VTwiI5YHbPp6YUe",
	"topic3": "T3-CU8fVTLCz5YMkLoDQsa",
}

// uniformKafkaTopicOrder orders topics as Java iterates a HashSet of their ids
// (capacity 16 or more, as new HashSet<>(collection) sizes it).
func uniformKafkaTopicOrder(ids map[string]string) []string {
	capacity := 16
	for float64(capacity)*0.75 < float64(len(ids)) {
		capacity *= 2
	}
	bucket := func(name string) int {
		b, err := base64.RawURLEncoding.DecodeString(ids[name])
		if err != nil || len(b) != 16 {
			panic("bad Kafka Uuid " + ids[name])
		}
		x := binary.BigEndian.Uint64(b[:8]) ^ binary.BigEndian.Uint64(b[8:])
		h := uint32(x>>32) ^ uint32(x) // Uuid.hashCode
		h ^= h >> 16                   // HashMap.hash's spread
		return int(h) & (capacity - 1)
	}
	names := make([]string, 0, len(ids))
	for n := range ids {
		names = append(names, n)
	}
	slices.Sort(names)
	slices.SortStableFunc(names, func(a, b string) int { return bucket(a) - bucket(b) })
	return names
}
