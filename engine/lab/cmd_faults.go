package lab

import (
	"fmt"
	"strings"

	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/sim"
)

var brokerCrashCommand = &command{
	name:    "broker crash",
	usage:   "broker crash ID [power=false]",
	summary: "kill a broker; power=true also loses the writes the OS had not written back (about the last 30 s; Kafka does not fsync by default)",
	run: func(l *Lab, a *args) (string, error) {
		id, err := l.brokerTarget(a)
		if err != nil {
			return "", err
		}
		power := a.boolean("power", false)
		if err := a.finish(); err != nil {
			return "", err
		}
		if err := l.cluster.CrashBroker(id, power); err != nil {
			return "", err
		}
		if power {
			return fmt.Sprintf("broker %d lost power", id), nil
		}
		return fmt.Sprintf("broker %d crashed", id), nil
	},
}

var brokerRestartCommand = &command{
	name:    "broker restart",
	usage:   "broker restart ID",
	summary: "start a crashed broker again: it recovers its logs, registers and catches up",
	run: func(l *Lab, a *args) (string, error) {
		id, err := l.brokerTarget(a)
		if err != nil {
			return "", err
		}
		if err := a.finish(); err != nil {
			return "", err
		}
		if err := l.cluster.RestartBroker(id); err != nil {
			return "", err
		}
		return fmt.Sprintf("broker %d restarting", id), nil
	},
}

func brokerArg(a *args) (int, error) { return idArg(a, "broker") }

// brokerTarget is the broker a fault command acts on, once a cluster runs.
func (l *Lab) brokerTarget(a *args) (int, error) {
	if err := l.requireCluster(); err != nil {
		return 0, err
	}
	return brokerArg(a)
}

// idArg reads the one positional argument, a broker or controller id.
func idArg(a *args, what string) (int, error) {
	s, err := onePositional(a, what+" id")
	if err != nil {
		return 0, err
	}
	var id int
	if _, err := fmt.Sscan(s, &id); err != nil || fmt.Sprint(id) != s {
		return 0, fmt.Errorf("%q is not a %s id", s, what)
	}
	return id, nil
}

var netPartitionCommand = &command{
	name:    "net partition",
	usage:   "net partition (A,B) (C) ...",
	summary: "split the network: nodes in different groups cannot talk. Name brokers by id, clients by name, controllers as c1, c2... (raft's own links: a controller cut off from its majority steps down and the majority elects another; ctl, the active controller's address, then follows the active controller's side) or the active controller as ctl; nodes not named reach everyone",
	run: func(l *Lab, a *args) (string, error) {
		if err := l.requireCluster(); err != nil {
			return "", err
		}
		if err := a.finish(); err != nil {
			return "", err
		}
		if len(a.positional) < 2 {
			return "", fmt.Errorf("give at least two groups, e.g. net partition (1) (2,3)")
		}
		var groups [][]sim.NodeID
		seen := map[sim.NodeID]bool{}
		for _, g := range a.positional {
			if !strings.HasPrefix(g, "(") || !strings.HasSuffix(g, ")") {
				return "", fmt.Errorf("%q is not a group like (1,2)", g)
			}
			var group []sim.NodeID
			for _, name := range strings.Split(strings.Trim(g, "()"), ",") {
				name = strings.TrimSpace(name)
				node := sim.NodeID(name)
				if id, ok := l.cluster.ControllerFor(name); ok {
					node = l.cluster.ControllerNode(id)
				} else {
					var err error
					if node, err = l.cluster.NodeFor(name); err != nil {
						return "", err
					}
				}
				if seen[node] {
					return "", fmt.Errorf("%s is in two groups", name)
				}
				seen[node] = true
				group = append(group, node)
			}
			groups = append(groups, group)
		}
		if err := l.cluster.PartitionNetwork(groups); err != nil {
			return "", err
		}
		return l.cluster.Network().Describe(), nil
	},
}

var netCutCommand = &command{
	name:    "net cut",
	usage:   "net cut A B",
	summary: "cut one link both ways: nothing crosses between A and B (not even what is on the wire) until net heal A B; each still reaches every other node. Name brokers by id, clients by name, controllers c1, c2..., the active controller as ctl",
	run: func(l *Lab, a *args) (string, error) {
		x, y, err := l.linkEnds(a, "net cut 2 3")
		if err != nil {
			return "", err
		}
		if err := l.cluster.CutLink(x, y); err != nil {
			return "", err
		}
		return l.cluster.Network().Describe(), nil
	},
}

var netHealCommand = &command{
	name:    "net heal",
	usage:   "net heal [A B]",
	summary: "remove every partition (between controllers too), cut link, drop rule and delay; with A B, reconnect only that cut link",
	run: func(l *Lab, a *args) (string, error) {
		if len(a.positional) > 0 {
			x, y, err := l.linkEnds(a, "net heal 2 3")
			if err != nil {
				return "", err
			}
			if err := l.cluster.HealLink(x, y); err != nil {
				return "", err
			}
			return l.cluster.Network().Describe(), nil
		}
		if err := l.noArgs(a); err != nil {
			return "", err
		}
		if err := l.cluster.HealNetwork(); err != nil {
			return "", err
		}
		return l.cluster.Network().Describe(), nil
	},
}

// linkEnds reads the two nodes a link joins, A and B.
func (l *Lab) linkEnds(a *args, example string) (sim.NodeID, sim.NodeID, error) {
	if err := l.requireCluster(); err != nil {
		return "", "", err
	}
	if err := a.finish(); err != nil {
		return "", "", err
	}
	if len(a.positional) != 2 {
		return "", "", fmt.Errorf("name the link's two ends, e.g. %s", example)
	}
	var ends [2]sim.NodeID
	for i, name := range a.positional {
		id, err := l.cluster.NodeFor(name)
		if err != nil {
			return "", "", err
		}
		ends[i] = id
	}
	return ends[0], ends[1], nil
}

var netDropCommand = &command{
	name:    "net drop",
	usage:   "net drop [from=NODE] [to=NODE] [type=Fetch] [count=1] | net drop id=N",
	summary: "drop matching messages (count=0: until healed); NODE is a broker id, ctl, a controller (c1, c2...) or a client; type is a request or response name such as Produce, FetchResponse, Vote, BeginQuorumEpoch. id=N drops the one message numbered N now on the wire (show network numbers them)",
	run: func(l *Lab, a *args) (string, error) {
		if a.has("id") {
			id := a.uint64("id", 0)
			if err := l.noArgs(a); err != nil {
				return "", err
			}
			e, err := l.cluster.Network().DropInFlight(id)
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("dropped #%d %s %s -> %s (sent %v): it never arrives", e.ID, e.Msg.Kind(), e.From, e.To, e.SentAt), nil
		}
		from, to := a.str("from", ""), a.str("to", "")
		kind := a.enum("type", "", protocol.Kinds...)
		count := a.integer("count", 1, 0, 1_000_000)
		if err := l.noArgs(a); err != nil {
			return "", err
		}
		rule := sim.DropRule{Kind: kind, Remaining: count}
		if count == 0 {
			rule.Remaining = -1
		}
		var err error
		if rule.From, rule.To, err = l.link(from, to); err != nil {
			return "", err
		}
		l.cluster.Network().Drop(rule)
		return l.cluster.Network().Describe(), nil
	},
}

var netDelayCommand = &command{
	name:    "net delay",
	usage:   "net delay from=NODE to=NODE latency=DURATION",
	summary: "slow a link (one way), e.g. to make a follower fall behind",
	run: func(l *Lab, a *args) (string, error) {
		from, to := a.str("from", ""), a.str("to", "")
		hasLatency := a.has("latency")
		d := a.duration("latency", 0)
		if err := l.noArgs(a); err != nil {
			return "", err
		}
		if from == "" || to == "" || !hasLatency {
			return "", fmt.Errorf("give from=, to= and latency=")
		}
		f, t, err := l.link(from, to)
		if err != nil {
			return "", err
		}
		l.cluster.Network().Delay(f, t, d)
		return l.cluster.Network().Describe(), nil
	},
}

var checkInvariantsCommand = &command{
	name:    "check invariants",
	usage:   "check invariants [always=true|false]",
	summary: "run the invariant checker now and list every violation found so far; always=true also checks after every event from now on",
	run: func(l *Lab, a *args) (string, error) {
		if err := l.requireCluster(); err != nil {
			return "", err
		}
		hasAlways := a.has("always")
		always := a.boolean("always", false)
		if err := a.finish(); err != nil {
			return "", err
		}
		if hasAlways {
			l.cluster.Checker().EveryStep = always
		}
		l.cluster.Checker().Check()
		vs := l.cluster.Checker().Violations()
		if len(vs) == 0 {
			return "all invariants hold", nil
		}
		var lines []string
		for _, v := range vs {
			lines = append(lines, v.String())
		}
		return strings.Join(lines, "\n"), nil
	},
}

// link resolves the from= and to= nodes of a network command; an empty
// name stays empty, meaning any node.
func (l *Lab) link(from, to string) (sim.NodeID, sim.NodeID, error) {
	var ids [2]sim.NodeID
	for i, name := range []string{from, to} {
		if name == "" {
			continue
		}
		id, err := l.cluster.NodeFor(name)
		if err != nil {
			return "", "", err
		}
		ids[i] = id
	}
	return ids[0], ids[1], nil
}
