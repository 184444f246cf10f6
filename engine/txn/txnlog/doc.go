// Package txnlog holds the records a transaction coordinator writes to the
// internal compacted topic __transaction_state, byte for byte as Kafka 4.x
// writes them, and the coordinator's transaction states with their allowed
// transitions.
package txnlog
