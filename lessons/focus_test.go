package lessons

import "testing"

// TestParseFocus: every form of the vocabulary parses to itself (the
// data-focus value the page carries), with the state after ` = `.
func TestParseFocus(t *testing.T) {
	for _, c := range []struct{ in, form, state string }{
		{"partition orders/0", "partition orders/0", ""},
		{"partition orders/0 = 2", "partition orders/0", "2"},
		{"partition orders/0 leader = none", "partition orders/0 leader", "none"},
		{"partition orders/0 epoch = 1", "partition orders/0 epoch", "1"},
		{"partition orders/0 isr = 2,3,1", "partition orders/0 isr", "2,3,1"},
		{"partition orders/0 hw = 1", "partition orders/0 hw", "1"},
		{"partition orders/0 log-start", "partition orders/0 log-start", ""},
		{"partition orders/0 log-end = 2", "partition orders/0 log-end", "2"},
		{"partition orders/0 record 1 = uncommitted", "partition orders/0 record 1", "uncommitted"},
		{"partition orders/0 lost = 1", "partition orders/0 lost", "1"},
		{"partition my.topic-x/12 segments = 3", "partition my.topic-x/12 segments", "3"},
		{"partition orders/0 replica 2 = leader", "partition orders/0 replica 2", "leader"},
		{"partition  orders/0   replica 2 hw =  1 ", "partition orders/0 replica 2 hw", "1"},
		{"partition orders/0 replica 2 leo = 2", "partition orders/0 replica 2 leo", "2"},
		{"partition orders/0 replica 3 isr = false", "partition orders/0 replica 3 isr", "false"},
		{"broker 2 = running fenced", "broker 2", "running fenced"},
		{"controller 1 = active", "controller 1", "active"},
		{"metadata-log = 13", "metadata-log", "13"},
		{"violations = 1", "violations", "1"},
		{"inspector batch = 0", "inspector batch", "0"},
		{"inspector lookup = 42", "inspector lookup", "42"},
		{"group billing = Stable", "group billing", "Stable"},
		{"group billing epoch = 3", "group billing epoch", "3"},
		{"group billing member c1 = orders/0,orders/2", "group billing member c1", "orders/0,orders/2"},
		{"group billing member c2 = none", "group billing member c2", "none"},
		{"group  my.group-1  partition orders/1 = c2", "group my.group-1 partition orders/1", "c2"},
		{"group billing committed orders/0 = 42", "group billing committed orders/0", "42"},
		{"group billing timeline = 2", "group billing timeline", "2"},
		{"side-effects  worker = 1", "side-effects worker", "1"},
		{"group g-coop partition events/2 ownership = 3", "group g-coop partition events/2 ownership", "3"},
		{"group g-coop partition events/2 ownership = none", "group g-coop partition events/2 ownership", "none"},
		{"producer p1 = 0/1", "producer p1", "0/1"},
		{"producer p1 = none", "producer p1", "none"},
		{"producer  p1  state = IN_TRANSACTION", "producer p1 state", "IN_TRANSACTION"},
		{"txn tx-1 = Ongoing", "txn tx-1", "Ongoing"},
		{"txn tx-1 partitions = orders/0,orders/1", "txn tx-1 partitions", "orders/0,orders/1"},
	} {
		f, err := ParseFocus(c.in)
		if err != nil || f.Form != c.form || f.State != c.state {
			t.Errorf("ParseFocus(%q) = %+v, %v; want form %q state %q", c.in, f, err, c.form, c.state)
		}
	}
	for _, bad := range []string{"", "partition", "partition orders/x", "partition orders/01", "partition /0",
		"partition orders/0 replica", "partition orders/0 replica two", "partition orders/0 record -1",
		"partition orders/0 hw extra", "broker", "broker b2", "controller 1 2", "inspector", "inspector log",
		"metadata-log 3", "violations all", "topic orders", "partition orders/0 replica 2 hw leo",
		"group", "group billing member", "group billing member c1 c2", "group billing partition orders",
		"group billing partition orders/01", "group billing committed", "group billing epoch 3", "group billing lag orders/0",
		"group billing timeline all", "group billing partition orders ownership", "group billing partition orders/0 owners",
		"group billing committed orders/0 ownership", "group billing partition orders/0 ownership now", "producer", "producer p1 epoch", "producer p1 state x", "txn", "txn tx-1 state",
		"txn tx-1 partitions orders/0", "side-effects", "side-effects worker again"} {
		if f, err := ParseFocus(bad); err == nil {
			t.Errorf("ParseFocus(%q) = %+v, want an error", bad, f)
		}
	}
}

// TestFocusSelector: the selector quotes the form as a CSS string, so a
// topic name with a quote or backslash cannot break out of it.
func TestFocusSelector(t *testing.T) {
	for in, want := range map[string]string{
		"partition orders/0 replica 2 hw": `[data-focus="partition orders/0 replica 2 hw"]`,
		`partition a"b/0`:                 `[data-focus="partition a\"b/0"]`,
		`partition a\b/0`:                 `[data-focus="partition a\\b/0"]`,
		"partition a\nb/0":                `[data-focus="partition a\a b/0"]`,
	} {
		if got := FocusSelector(in); got != want {
			t.Errorf("FocusSelector(%q) = %s, want %s", in, got, want)
		}
	}
}
