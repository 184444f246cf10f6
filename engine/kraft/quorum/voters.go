package quorum

import (
	"fmt"
	"net"
	"strconv"
	"strings"
)

// ParseVoters reads a controller process's voter set, the fixed list of
// controllers that elect the active controller, as "1=host:port,2=host:port,
// 3=host:port": controller id, then the address its raft transport listens
// on. Kafka's controller.quorum.voters writes "1@host:port"; ParseVoters
// accepts that too. It returns the addresses in id order: voters[i] is
// controller i+1's.
//
// Ids must be 1 to N with none missing, as in the in-process quorum (so
// Status lists controller i at index i-1); Kafka allows any node.id.
func ParseVoters(s string) ([]string, error) {
	if strings.TrimSpace(s) == "" {
		return nil, fmt.Errorf("no voters: want id=host:port,... (e.g. 1=127.0.0.1:9091,2=127.0.0.1:9092,3=127.0.0.1:9093)")
	}
	byID := map[int]string{}
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		idText, addr, ok := strings.Cut(item, "=")
		if !ok {
			idText, addr, ok = strings.Cut(item, "@")
		}
		if !ok {
			return nil, fmt.Errorf("voter %q: want id=host:port", item)
		}
		id, err := strconv.Atoi(idText)
		if err != nil || id < 1 {
			return nil, fmt.Errorf("voter %q: the id must be a number from 1", item)
		}
		if err := checkHostPort(addr); err != nil {
			return nil, fmt.Errorf("voter %q: %v", item, err)
		}
		if prev, dup := byID[id]; dup {
			return nil, fmt.Errorf("voter %d is listed twice (%s and %s)", id, prev, addr)
		}
		byID[id] = addr
	}
	if len(byID) > 5 {
		return nil, fmt.Errorf("%d voters: a quorum has 1 to 5 controllers", len(byID))
	}
	voters := make([]string, len(byID))
	seen := map[string]int{}
	for id := 1; id <= len(byID); id++ {
		addr, ok := byID[id]
		if !ok {
			return nil, fmt.Errorf("voters must be numbered 1 to %d: controller %d is missing", len(byID), id)
		}
		if other, dup := seen[addr]; dup {
			return nil, fmt.Errorf("controllers %d and %d both use %s", other, id, addr)
		}
		seen[addr] = id
		voters[id-1] = addr
	}
	return voters, nil
}

// checkHostPort checks that addr is host:port with a host (raft tells the
// other controllers this address, so it must be one they can dial) and a
// port number.
func checkHostPort(addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("want host:port: %v", err)
	}
	if host == "" {
		return fmt.Errorf("no host in %q: the other controllers dial this address", addr)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return fmt.Errorf("port %q is not a number from 1 to 65535", port)
	}
	return nil
}

// apiPortOffset is how far above its raft port a controller serves its
// HTTP API unless told otherwise (see DefaultAPIAddr).
const apiPortOffset = 1000

// DefaultAPIAddr is the HTTP API address of the controller whose raft
// transport listens on raftAddr: the same host, the port 1000 higher
// (127.0.0.1:9091 serves its API on 127.0.0.1:10091).
func DefaultAPIAddr(raftAddr string) (string, error) {
	host, port, err := net.SplitHostPort(raftAddr)
	if err != nil {
		return "", fmt.Errorf("raft address %q: %v", raftAddr, err)
	}
	n, err := strconv.Atoi(port)
	if err != nil || n+apiPortOffset > 65535 {
		return "", fmt.Errorf("raft address %q: no port %d above it for the API; pass the API address", raftAddr, apiPortOffset)
	}
	return net.JoinHostPort(host, strconv.Itoa(n+apiPortOffset)), nil
}
