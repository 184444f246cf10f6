// Package replica holds the decisions a partition's replicas make about
// each other, as pure functions of offsets and (virtual) time: the leader's
// bookkeeping of its followers (Kafka's Replica and the ISR/high-watermark
// half of Partition) and the follower's truncation choices (Kafka's
// AbstractFetcherThread). Nothing here sends a message, reads a clock or
// touches a log: engine/broker feeds it what it saw and acts on the answer,
// so every rule can be tested as a table, each case naming the Kafka
// method it mirrors.
package replica
