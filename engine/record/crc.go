package record

import "hash/crc32"

// castagnoli is CRC-32C's table. Magic 2 switched from the CRC-32 of the
// legacy formats to CRC-32C (KIP-98) because CPUs compute it in hardware,
// which Go's hash/crc32 uses when it can.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// CRC32C is the checksum a batch stores in its crc field (Kafka's Crc32C).
func CRC32C(b []byte) uint32 { return crc32.Checksum(b, castagnoli) }
