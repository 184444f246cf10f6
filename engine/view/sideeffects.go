package view

// SideEffect is the external side effect (an email sent, a payment API
// called) a consume-transform-produce loop performed for one input
// record, and how many times: what a Kafka transaction covers nothing
// of, so a record processed again after an aborted transaction has its
// side effect performed again.
type SideEffect struct {
	Consumer string // the lab consumer whose application performed it
	Input    string // the input record's partition, "T/P"
	Offset   int64
	Value    string // the input record's value
	Times    int
}
