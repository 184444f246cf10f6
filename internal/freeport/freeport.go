// Package freeport picks loopback TCP ports for tests that must name their
// addresses before anything listens on them: a raft voter set is fixed
// before the first controller starts.
package freeport

import (
	"fmt"
	"math/rand/v2"
	"net"
	"testing"
)

// Range of the ports handed out: below the kernel's ephemeral range (32768
// and up on Linux, 49152 on macOS), so that a test's own outgoing
// connections cannot take one between the choice and a (re)start's bind.
const (
	low  = 20000
	high = 31000
)

// Ports returns n distinct ports free now, each also free at port+companion
// when companion is not 0 (a controller's API sits 1000 above its raft port).
func Ports(t testing.TB, n, companion int) []int {
	t.Helper()
	var out []int
	taken := map[int]bool{}
	for tries := 0; len(out) < n; tries++ {
		if tries > 1000 {
			t.Fatalf("found no %d free ports between %d and %d", n, low, high)
		}
		port := low + rand.IntN(high-low)
		pair := []int{port}
		if companion != 0 {
			pair = append(pair, port+companion)
		}
		if !allFree(taken, pair) {
			continue
		}
		for _, p := range pair {
			taken[p] = true
		}
		out = append(out, port)
	}
	return out
}

// Addrs is Ports(t, n, 0) as 127.0.0.1:PORT addresses.
func Addrs(t testing.TB, n int) []string {
	t.Helper()
	var out []string
	for _, p := range Ports(t, n, 0) {
		out = append(out, fmt.Sprintf("127.0.0.1:%d", p))
	}
	return out
}

func allFree(taken map[int]bool, ports []int) bool {
	for _, p := range ports {
		if taken[p] {
			return false
		}
		ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p))
		if err != nil {
			return false
		}
		ln.Close()
	}
	return true
}
