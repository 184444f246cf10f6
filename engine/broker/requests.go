package broker

import (
	"reflect"

	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/sim"
)

// requests.go is the one place that says which messages a broker handles
// and where each is handled, as KafkaApis.handle's match over ApiKeys
// does. A request is what arrives on the broker's listener from a client
// (or from another broker acting as one: a leader verifying a
// transaction, a coordinator writing markers); until the broker serves
// (registered, caught up with the metadata log and unfenced: the
// BrokerLifecycleManager's RUNNING) it refuses them all by closing the
// connection, as a broker whose listener is not open yet does. Everything
// else is an answer to a request this broker sent, or the controller's
// metadata, and is taken whenever it arrives. A message no row names is
// ignored (KRaft's own messages reach the metadata observer first).
var routes = routeTable(
	// Clients' requests.
	request((*Broker).handleMetadata),
	request((*Broker).handleProduce),
	request((*Broker).handleFetch),
	request((*Broker).handleListOffsets),
	// The group coordinator (groups.go): FindCoordinator also finds a
	// transaction coordinator.
	request((*Broker).handleFindCoordinator),
	requestAs[protocol.JoinGroupRequest]((*Broker).handleGroupRequest),
	requestAs[protocol.SyncGroupRequest]((*Broker).handleGroupRequest),
	requestAs[protocol.HeartbeatRequest]((*Broker).handleGroupRequest),
	requestAs[protocol.LeaveGroupRequest]((*Broker).handleGroupRequest),
	requestAs[protocol.OffsetCommitRequest]((*Broker).handleGroupRequest),
	requestAs[protocol.OffsetFetchRequest]((*Broker).handleGroupRequest),
	requestAs[protocol.ConsumerGroupHeartbeatRequest]((*Broker).handleGroupRequest),
	requestAs[protocol.TxnOffsetCommitRequest]((*Broker).handleGroupRequest),
	// The transaction coordinator (txn_coordinator.go) and, as a
	// partition leader, the markers it is sent (txn_markers.go).
	request((*Broker).handleInitProducerID),
	request(func(b *Broker, from sim.NodeID, m protocol.AddPartitionsToTxnRequest) {
		b.handleTxnRequest(from, m, m.TransactionalID)
	}),
	request(func(b *Broker, from sim.NodeID, m protocol.EndTxnRequest) {
		b.handleTxnRequest(from, m, m.TransactionalID)
	}),
	request((*Broker).handleWriteTxnMarkers),

	// The controller's answers and its metadata (broker.go, isr.go,
	// producer_ids.go, groups.go).
	answer((*Broker).handleRegistrationResponse),
	answer((*Broker).handleHeartbeatResponse),
	answer(func(b *Broker, m protocol.MetadataUpdate) { b.applyMetadata(m.Records) }),
	answer((*Broker).handleAlterPartitionResponse),
	answer((*Broker).handleAllocateProducerIDs),
	answer((*Broker).handleCreateTopicsResponse),
	// Other brokers' answers: a leader's to this follower's fetch
	// (follower.go) or offset lookup (out_of_range.go), a transaction
	// coordinator's to a verification (txn_verify.go), a leader's to the
	// markers this coordinator wrote (txn_marker_channel.go).
	answer((*Broker).handleFetchResponse),
	answer((*Broker).handleListOffsetsResponse),
	answer((*Broker).handleAddPartitionsToTxnResponse),
	answer((*Broker).handleWriteTxnMarkersResponse),
	// The network's word that a peer's connection closed.
	answer((*Broker).handleDisconnected),
)

// A route is where one kind of message goes.
type route struct {
	kind string // the message's Kind()
	// request: it arrives on the listener, refused until the broker serves.
	request bool
	handle  func(b *Broker, env *sim.Envelope)
	typ     reflect.Type
}

// request routes a request of type M to its handler.
func request[M sim.Message](h func(*Broker, sim.NodeID, M)) route {
	var m M
	return route{kind: m.Kind(), request: true, typ: reflect.TypeOf(m),
		handle: func(b *Broker, env *sim.Envelope) { h(b, env.From, env.Msg.(M)) }}
}

// requestAs routes a request of type M to a handler shared by several
// kinds (the group coordinator's, which tells them apart itself).
func requestAs[M sim.Message](h func(*Broker, sim.NodeID, sim.Message)) route {
	var m M
	return route{kind: m.Kind(), request: true, typ: reflect.TypeOf(m),
		handle: func(b *Broker, env *sim.Envelope) { h(b, env.From, env.Msg) }}
}

// answer routes a message taken whenever it arrives.
func answer[M sim.Message](h func(*Broker, M)) route {
	var m M
	return route{kind: m.Kind(), typ: reflect.TypeOf(m),
		handle: func(b *Broker, env *sim.Envelope) { h(b, env.Msg.(M)) }}
}

// routeTable indexes the routes by the message's Go type (KRaft's Fetch
// shares its Kind name with the brokers' Fetch, so the name cannot be the
// key). A type routed twice is a programming error, caught at start.
func routeTable(rs ...route) map[reflect.Type]route {
	t := make(map[reflect.Type]route, len(rs))
	for _, r := range rs {
		if _, dup := t[r.typ]; dup {
			panic("broker: " + r.kind + " is routed twice")
		}
		t[r.typ] = r
	}
	return t
}

// dispatch hands env to its route: a request only while the broker serves.
func (b *Broker) dispatch(env *sim.Envelope) {
	r, ok := routes[reflect.TypeOf(env.Msg)]
	if !ok {
		return
	}
	if r.request && !b.serving {
		// Connection refused: the requester sees its connection close.
		b.send(env.From, sim.Disconnected{Peer: b.Node})
		return
	}
	r.handle(b, env)
}
