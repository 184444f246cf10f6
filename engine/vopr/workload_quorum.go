package vopr

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/loglab/loglab/engine/cluster"
	"github.com/loglab/loglab/engine/kraft"
)

// The KRaft controller quorum's faults: controllers crash and restart
// (`controller crash N`, `controller restart N`), net partitions name
// them (c1..cN) to cut them from each other and from brokers, and net
// cut severs one controller's link to another controller or to a broker
// (ctl1..ctlN there: a lab client may be named c1). The checker watches
// the quorum's safety on every event (engine/check/quorum.go) and the run's
// final stabilize its liveness (engine/check/liveness_quorum.go).
//
// A connected majority of running controllers is kept, so the workload
// goes on deciding: a crash, partition or cut that would leave none is
// not drawn, except the no-majority window (one controller partition in
// eight), which heals itself a few seconds later in the same step.

// controllerPartition cuts a minority of the controllers off from the
// others, and from the brokers half the time, a connected majority of the
// running ones kept together with every broker (but for the no-majority
// window); with Options.ControllerPartitions brokers go to either side.
func (w *workload) controllerPartition(c *cluster.Cluster) []string {
	r := w.rng
	n := c.Config().Controllers
	if r.IntN(8) == 0 {
		return w.noMajorityWindow(c)
	}
	up := w.controllersUp(c)
	// The minority side: one controller (the active one half the time),
	// or with five two.
	ids := make([]int, n)
	for i := range ids {
		ids[i] = i + 1
	}
	r.Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
	if a := c.ActiveController(); a != 0 && r.IntN(2) == 0 {
		k := slices.Index(ids, a)
		ids[0], ids[k] = ids[k], ids[0]
	}
	// Each in turn joins the minority if the rest keep a connected
	// majority of running controllers (a crashed one or a cut link may
	// already count against it).
	net := c.Network()
	sides, minority := map[int]int{}, 1+r.IntN((n-1)/2)
	for _, id := range ids {
		if len(sides) == minority {
			break
		}
		sides[id] = 1
		if !cluster.MajorityConnected(n, func(x int) bool { return up[x] }, func(a, b int) bool {
			return sides[a] == sides[b] && net.Connected(c.ControllerNode(a), c.ControllerNode(b))
		}) {
			delete(sides, id)
		}
	}
	if len(sides) == 0 {
		return []string{"tick 1s"} // no controller can go without the majority
	}
	var groups [2][]string
	for _, id := range ids {
		groups[sides[id]] = append(groups[sides[id]], "c"+strconv.Itoa(id))
	}
	switch {
	case w.opts.ControllerPartitions && r.IntN(2) == 0:
		// Brokers on either side, so some lose the active controller
		// while they run: fenced, they go on leading (and coordinating)
		// on their last metadata; half the time every controller is on
		// one side, the brokers there cut from them all (see
		// Options.ControllerPartitions).
		if r.IntN(2) == 0 {
			groups = [2][]string{strings.Split(controllerNames(n), ","), nil}
		}
		for _, b := range r.Perm(w.brokers) {
			side := r.IntN(2)
			groups[side] = append(groups[side], strconv.Itoa(b+1))
		}
		if len(groups[1]) == 0 {
			groups[1], groups[0] = groups[0][len(groups[0])-1:], groups[0][:len(groups[0])-1]
		}
	case r.IntN(2) == 0:
		// The minority cut off from everybody: the brokers stay with the
		// majority, and lose their quorum leader until it is elected
		// there if it was in the minority: net partition (c1) (c2,c3,1,2).
		groups[0] = append(groups[0], brokerNames(w.brokers)...)
	default:
		// Controllers only: brokers reach every controller, the isolated
		// one too (a leader among them keeps answering their fetches until
		// check-quorum makes it resign).
	}
	return []string{fmt.Sprintf("net partition (%s) (%s)", strings.Join(groups[0], ","), strings.Join(groups[1], ","))}
}

// noMajorityWindow splits the controllers so that no side holds a
// majority, for a few seconds: no leader, no decision, brokers keep their
// last metadata; then everything heals.
func (w *workload) noMajorityWindow(c *cluster.Cluster) []string {
	r := w.rng
	n := c.Config().Controllers
	size := max((n-1)/2, 1) // every group short of a majority
	var groups []string
	var group []string
	for _, i := range r.Perm(n) {
		group = append(group, "c"+strconv.Itoa(i+1))
		if len(group) == size {
			groups = append(groups, "("+strings.Join(group, ",")+")")
			group = nil
		}
	}
	if len(group) > 0 {
		groups = append(groups, "("+strings.Join(group, ",")+")")
	}
	w.delayed = false // the heal removes every delay
	return []string{"net partition " + strings.Join(groups, " "), fmt.Sprintf("tick %ds", 1+r.IntN(6)), "net heal"}
}

// controllerCut cuts one controller's link to another controller, or to
// a broker (whose metadata fetches to it then fail: a stale image while
// that controller leads).
func (w *workload) controllerCut(c *cluster.Cluster) []string {
	cuts := w.cuttableLinks(c)
	l := cuts[w.rng.IntN(len(cuts))]
	return []string{fmt.Sprintf("net cut %s %s", l[0], l[1])}
}

// cuttableLinks lists the links net cut may sever now: between two
// controllers when a connected majority survives it, between a controller
// and a broker; none already cut.
func (w *workload) cuttableLinks(c *cluster.Cluster) [][2]string {
	n := c.Config().Controllers
	net := c.Network()
	up := w.controllersUp(c)
	var out [][2]string
	for a := 1; a <= n; a++ {
		for b := a + 1; b <= n; b++ {
			na, nb := c.ControllerNode(a), c.ControllerNode(b)
			if net.LinkCut(na, nb) {
				continue
			}
			if cluster.MajorityConnected(n, func(id int) bool { return up[id] }, func(x, y int) bool {
				return (x != a || y != b) && (x != b || y != a) && net.Connected(c.ControllerNode(x), c.ControllerNode(y))
			}) {
				out = append(out, [2]string{string(na), string(nb)})
			}
		}
	}
	for a := 1; a <= n; a++ {
		for b := 1; b <= w.brokers; b++ {
			if !net.LinkCut(c.ControllerNode(a), c.Broker(b).Node) {
				out = append(out, [2]string{string(c.ControllerNode(a)), strconv.Itoa(b)})
			}
		}
	}
	return out
}

// crashableControllers lists the running controllers one of which may
// crash and leave a connected majority running.
func (w *workload) crashableControllers(c *cluster.Cluster) []int {
	n := c.Config().Controllers
	up := w.controllersUp(c)
	var ids []int
	for id := 1; id <= n; id++ {
		if up[id] && cluster.MajorityConnected(n, func(x int) bool { return up[x] && x != id }, w.controllersConnected(c)) {
			ids = append(ids, id)
		}
	}
	return ids
}

// crashController kills a controller, the active one half the time.
func (w *workload) crashController(c *cluster.Cluster) []string {
	up := w.crashableControllers(c)
	id := c.ActiveController()
	if !slices.Contains(up, id) || w.rng.IntN(2) == 0 {
		id = up[w.rng.IntN(len(up))]
	}
	return []string{fmt.Sprintf("controller crash %d", id)}
}

// metadataCommitted says whether a controller is active and everything
// its image holds is committed. The active controller applies its writes
// at once, committed or not: an image read without a majority may show an
// ISR expansion that the next controller never learns of, and a power
// loss bounded by it can leave the broker that lost its writes as the
// last ISR member (seed 981 of 1000 at 200 steps).
func (w *workload) metadataCommitted(c *cluster.Cluster) bool {
	return c.ActiveController() != 0 && c.Controller().Image().Offset == c.MetadataLog().End()-1
}

// quorumHealthy says whether a connected majority of controllers runs.
func (w *workload) quorumHealthy(c *cluster.Cluster) bool {
	up := w.controllersUp(c)
	return cluster.MajorityConnected(c.Config().Controllers, func(id int) bool { return up[id] }, w.controllersConnected(c))
}

// brokersCutFromControllers says whether a partition or a cut link keeps
// a broker from a controller (or from ctl, the active one's address).
// Power losses wait for the heal: a broker cut off from the active
// controller is fenced, which can shrink an ISR to the broker that lost
// its unsynced writes after the power-loss bound was checked (the case
// Options.ControllerPartitions describes).
func (w *workload) brokersCutFromControllers(c *cluster.Cluster) bool {
	net := c.Network()
	for b := 1; b <= w.brokers; b++ {
		node := c.Broker(b).Node
		if !net.Connected(node, kraft.ControllerNode) {
			return true
		}
		for id := 1; id <= c.Config().Controllers; id++ {
			if !net.Connected(node, c.ControllerNode(id)) {
				return true
			}
		}
	}
	return false
}

// controllersUp maps a controller id to whether it runs.
func (w *workload) controllersUp(c *cluster.Cluster) map[int]bool {
	up := map[int]bool{}
	for id := 1; id <= c.Config().Controllers; id++ {
		up[id] = true
	}
	for _, id := range c.ControllersDown() {
		up[id] = false
	}
	return up
}

func (w *workload) controllersConnected(c *cluster.Cluster) func(a, b int) bool {
	net := c.Network()
	return func(a, b int) bool { return net.Connected(c.ControllerNode(a), c.ControllerNode(b)) }
}

func controllerNames(n int) string {
	names := make([]string, n)
	for i := range names {
		names[i] = "c" + strconv.Itoa(i+1)
	}
	return strings.Join(names, ",")
}

func brokerNames(n int) []string {
	names := make([]string, n)
	for i := range names {
		names[i] = strconv.Itoa(i + 1)
	}
	return names
}
