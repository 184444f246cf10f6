package describe

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// The expected texts are built from the format strings of Kafka's
// ConsumerGroupCommand (the 4.x source: printOffsetFormat, printMembers,
// printStates, printGroupInfo), with each width worked out by hand from
// the data: Go's fmt reads Java's "%-15s" the same way. Where Kafka's own
// tests check a table (DescribeConsumerGroupTest, ListConsumerGroupTest),
// the case also checks the same whitespace-split tokens they do.

func i32(v int32) *int32 { return &v }

func p(topic string, parts ...int32) []Partition {
	var out []Partition
	for _, n := range parts {
		out = append(out, Partition{topic, n})
	}
	return out
}

func concat(pss ...[]Partition) []Partition { return slices.Concat(pss...) }

var coordinator = Node{ID: 2, Host: "broker-2", Port: 9092}

// tokens is how Kafka's tests read a table line: split on whitespace.
func tokens(line string) []string { return strings.Fields(line) }

// stableGroup: two consumer-protocol members, listed by the coordinator
// with the smaller assignment first, and a committed partition (baz-2)
// nobody owns whose leader is unknown.
func stableGroup() Group {
	return Group{
		ID: "orders", Type: "Consumer", State: "Stable", Coordinator: coordinator, AssignmentStrategy: "uniform",
		GroupEpoch: i32(7), TargetAssignmentEpoch: i32(7),
		Members: []Member{
			{ConsumerID: "m2-longer-consumer-id", Host: "/10.0.0.2", ClientID: "c2", Assignment: p("bar", 0),
				TargetAssignment: p("bar", 0), MemberEpoch: i32(7)},
			{ConsumerID: "m1", Host: "/10.0.0.1", ClientID: "c1", Assignment: p("foo", 1, 0),
				TargetAssignment: p("foo", 0, 1), MemberEpoch: i32(7)},
		},
		Committed: []Committed{
			{Partition{"foo", 0}, 5, i32(0)},
			{Partition{"baz", 2}, 7, nil},
			{Partition{"bar", 0}, 3, i32(1)},
		},
		LogEndOffsets: map[Partition]int64{{"foo", 0}: 10, {"foo", 1}: 4, {"bar", 0}: 3},
	}
}

func TestOffsets(t *testing.T) {
	// printOffsetFormat, widths: GROUP 15, TOPIC 15, CONSUMER-ID 21
	// ("m2-longer-consumer-id"), HOST 15.
	const f = "\n%-15s %-15s %-10s %-15s %-15s %-15s %-21s %-15s %s"
	const fv = "\n%-15s %-15s %-10s %-15s %-15s %-15s %-15s %-21s %-15s %s"
	empty := stableGroup()
	empty.State, empty.Members, empty.GroupEpoch = "Empty", nil, i32(8)
	rebalancing := stableGroup()
	rebalancing.State = "Reconciling"
	noOffsets := Group{ID: "idle", State: "Empty", Coordinator: coordinator}
	dead := stableGroup()
	dead.State = "Dead"
	stableWant := fmt.Sprintf(f, "GROUP", "TOPIC", "PARTITION", "CURRENT-OFFSET", "LOG-END-OFFSET", "LAG", "CONSUMER-ID", "HOST", "CLIENT-ID") +
		fmt.Sprintf(f, "orders", "foo", "0", "5", "10", "5", "m1", "/10.0.0.1", "c1") +
		fmt.Sprintf(f, "orders", "foo", "1", "-", "4", "-", "m1", "/10.0.0.1", "c1") +
		fmt.Sprintf(f, "orders", "bar", "0", "3", "3", "0", "m2-longer-consumer-id", "/10.0.0.2", "c2") +
		fmt.Sprintf(f, "orders", "baz", "2", "7", "-", "-", "-", "-", "-") + "\n"

	for _, tt := range []struct {
		name    string
		g       Group
		verbose bool
		want    string
	}{
		{
			// collectGroupsOffsets: m1 (2 partitions) before m2 (1), each
			// member's partitions in order, then baz-2 with "-" for the
			// consumer and for the unknown log end offset and lag; foo-1
			// has no committed offset, so no lag.
			name: "stable group",
			g:    stableGroup(),
			want: stableWant,
		},
		{
			name: "stable group --verbose: the committed leader epoch",
			g:    stableGroup(), verbose: true,
			want: fmt.Sprintf(fv, "GROUP", "TOPIC", "PARTITION", "LEADER-EPOCH", "CURRENT-OFFSET", "LOG-END-OFFSET", "LAG", "CONSUMER-ID", "HOST", "CLIENT-ID") +
				fmt.Sprintf(fv, "orders", "foo", "0", "0", "5", "10", "5", "m1", "/10.0.0.1", "c1") +
				fmt.Sprintf(fv, "orders", "foo", "1", "-", "-", "4", "-", "m1", "/10.0.0.1", "c1") +
				fmt.Sprintf(fv, "orders", "bar", "0", "1", "3", "3", "0", "m2-longer-consumer-id", "/10.0.0.2", "c2") +
				fmt.Sprintf(fv, "orders", "baz", "2", "-", "7", "-", "-", "-", "-", "-") + "\n",
		},
		{
			// shouldPrintMemberState's EMPTY line, then every committed
			// partition without an owner: the consumer columns are "-",
			// so CONSUMER-ID is back to 15 wide.
			name: "empty group with committed offsets",
			g:    empty,
			want: "\nConsumer group 'orders' has no active members.\n" +
				fmt.Sprintf("\n%-15s %-15s %-10s %-15s %-15s %-15s %-15s %-15s %s", "GROUP", "TOPIC", "PARTITION", "CURRENT-OFFSET", "LOG-END-OFFSET", "LAG", "CONSUMER-ID", "HOST", "CLIENT-ID") +
				fmt.Sprintf("\n%-15s %-15s %-10s %-15s %-15s %-15s %-15s %-15s %s", "orders", "bar", "0", "3", "3", "0", "-", "-", "-") +
				fmt.Sprintf("\n%-15s %-15s %-10s %-15s %-15s %-15s %-15s %-15s %s", "orders", "baz", "2", "7", "-", "-", "-", "-", "-") +
				fmt.Sprintf("\n%-15s %-15s %-10s %-15s %-15s %-15s %-15s %-15s %s", "orders", "foo", "0", "5", "10", "5", "-", "-", "-") + "\n",
		},
		{
			name: "a rebalancing group warns, then prints its table",
			g:    rebalancing,
			want: "\nWarning: Consumer group 'orders' is rebalancing.\n" + stableWant,
		},
		{
			name: "an empty group without offsets prints only its state line",
			g:    noOffsets,
			want: "\nConsumer group 'idle' has no active members.\n",
		},
		{
			name: "a dead group does not exist",
			g:    dead,
			want: "\nError: Consumer group 'orders' does not exist.\n",
		},
		{
			name: "an unknown state ends the command",
			g:    Group{ID: "odd", State: "Unknown"},
			want: "\nError: Executing consumer group command failed due to Expected a valid consumer group state, but found 'Unknown'.\n",
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := Offsets(tt.g, tt.verbose); got != tt.want {
				t.Errorf("got:\n%q\nwant:\n%q", got, tt.want)
			}
		})
	}
}

// TestDescribeGroupOffsets checks the tokens DescribeConsumerGroupTest's
// testDescribeGroupOffsets checks: one consumer on a one-partition topic
// holding one record, offset 1 committed (with no leader epoch).
func TestDescribeGroupOffsets(t *testing.T) {
	g := Group{ID: "test.group.CONSUMER", State: "Stable", Coordinator: coordinator,
		Members: []Member{{ConsumerID: "rPDc7zOBRxGL5Pb1pUWJqQ", Host: "/127.0.0.1", ClientID: "consumer-test.group.CONSUMER-1",
			Assignment: p("test.topic.CONSUMER", 0)}},
		Committed:     []Committed{{Partition{"test.topic.CONSUMER", 0}, 1, nil}},
		LogEndOffsets: map[Partition]int64{{"test.topic.CONSUMER", 0}: 1},
	}
	for _, tt := range []struct {
		verbose bool
		header  []string
		values  []string
	}{
		{false, []string{"GROUP", "TOPIC", "PARTITION", "CURRENT-OFFSET", "LOG-END-OFFSET", "LAG", "CONSUMER-ID", "HOST", "CLIENT-ID"},
			[]string{g.ID, "test.topic.CONSUMER", "0", "1", "1", "0", "rPDc7zOBRxGL5Pb1pUWJqQ", "/127.0.0.1", "consumer-test.group.CONSUMER-1"}},
		{true, []string{"GROUP", "TOPIC", "PARTITION", "LEADER-EPOCH", "CURRENT-OFFSET", "LOG-END-OFFSET", "LAG", "CONSUMER-ID", "HOST", "CLIENT-ID"},
			[]string{g.ID, "test.topic.CONSUMER", "0", "-", "1", "1", "0", "rPDc7zOBRxGL5Pb1pUWJqQ", "/127.0.0.1", "consumer-test.group.CONSUMER-1"}},
	} {
		lines := strings.Split(strings.TrimSpace(Offsets(g, tt.verbose)), "\n")
		if len(lines) != 2 || !slices.Equal(tokens(lines[0]), tt.header) || !slices.Equal(tokens(lines[1]), tt.values) {
			t.Errorf("verbose=%v: %q", tt.verbose, lines)
		}
	}
}

func TestMembers(t *testing.T) {
	classic := Group{ID: "shop", Type: "Classic", State: "Stable", Coordinator: coordinator, AssignmentStrategy: "range",
		Members: []Member{{ConsumerID: "consumer-shop-1-8f2c", Host: "/10.0.0.9", ClientID: "consumer-shop-1",
			Assignment: concat(p("t2", 0), p("t1", 1, 0))}}}
	static := stableGroup()
	static.Members[1].GroupInstanceID = "host-a"
	wide := stableGroup()
	wide.Members[1].Assignment = concat(p("payments", 0, 1, 2, 10), p("bar", 9))
	emptyGroup := Group{ID: "idle", State: "Empty", Coordinator: coordinator}

	// printMembers, "%-15s %-21s %-15s %-15s %-15s " with CONSUMER-ID 21
	// wide; --verbose adds "%-15s %-20s %-15s %-20s".
	const f = "%-15s %-21s %-15s %-15s %-15s "
	const fv = "%-15s %-20s %-15s %-20s"
	for _, tt := range []struct {
		name    string
		g       Group
		verbose bool
		want    string
	}{
		{
			name: "consumer group",
			g:    stableGroup(),
			want: "\n" + fmt.Sprintf(f, "GROUP", "CONSUMER-ID", "HOST", "CLIENT-ID", "#PARTITIONS") + "\n" +
				fmt.Sprintf(f, "orders", "m2-longer-consumer-id", "/10.0.0.2", "c2", "1") + "\n" +
				fmt.Sprintf(f, "orders", "m1", "/10.0.0.1", "c1", "2") + "\n",
		},
		{
			// printMembersHelper: the member's epoch and assignment, the
			// group's target assignment epoch and the member's target,
			// assignments as getAssignmentString writes them.
			name: "consumer group --verbose", g: stableGroup(), verbose: true,
			want: "\n" + fmt.Sprintf(f, "GROUP", "CONSUMER-ID", "HOST", "CLIENT-ID", "#PARTITIONS") +
				fmt.Sprintf(fv, "CURRENT-EPOCH", "CURRENT-ASSIGNMENT", "TARGET-EPOCH", "TARGET-ASSIGNMENT") + "\n" +
				fmt.Sprintf(f, "orders", "m2-longer-consumer-id", "/10.0.0.2", "c2", "1") + fmt.Sprintf(fv, "7", "bar:0", "7", "bar:0") + "\n" +
				fmt.Sprintf(f, "orders", "m1", "/10.0.0.1", "c1", "2") + fmt.Sprintf(fv, "7", "foo:0,1", "7", "foo:0,1") + "\n",
		},
		{
			// A classic group has no epochs and no target assignment.
			name: "classic group --verbose", g: classic, verbose: true,
			want: "\n" + fmt.Sprintf("%-15s %-20s %-15s %-15s %-15s ", "GROUP", "CONSUMER-ID", "HOST", "CLIENT-ID", "#PARTITIONS") +
				fmt.Sprintf(fv, "CURRENT-EPOCH", "CURRENT-ASSIGNMENT", "TARGET-EPOCH", "TARGET-ASSIGNMENT") + "\n" +
				fmt.Sprintf("%-15s %-20s %-15s %-15s %-15s ", "shop", "consumer-shop-1-8f2c", "/10.0.0.9", "consumer-shop-1", "3") +
				fmt.Sprintf(fv, "-", "t1:0,1;t2:0", "-", "-") + "\n",
		},
		{
			// formatWithGroupInstanceId: the column appears, at least 17
			// wide, once any member has an instance id; "" for the others.
			name: "static member", g: static,
			want: "\n" + fmt.Sprintf("%-15s %-21s %-17s %-15s %-15s %-15s ", "GROUP", "CONSUMER-ID", "GROUP-INSTANCE-ID", "HOST", "CLIENT-ID", "#PARTITIONS") + "\n" +
				fmt.Sprintf("%-15s %-21s %-17s %-15s %-15s %-15s ", "orders", "m2-longer-consumer-id", "", "/10.0.0.2", "c2", "1") + "\n" +
				fmt.Sprintf("%-15s %-21s %-17s %-15s %-15s %-15s ", "orders", "m1", "host-a", "/10.0.0.1", "c1", "2") + "\n",
		},
		{
			// maxCurrentAssignment follows the longest assignment string,
			// "bar:9;payments:0,1,2,10" (23); the targets stay within 20.
			name: "assignment columns widen", g: wide, verbose: true,
			want: "\n" + fmt.Sprintf(f, "GROUP", "CONSUMER-ID", "HOST", "CLIENT-ID", "#PARTITIONS") +
				fmt.Sprintf("%-15s %-23s %-15s %-20s", "CURRENT-EPOCH", "CURRENT-ASSIGNMENT", "TARGET-EPOCH", "TARGET-ASSIGNMENT") + "\n" +
				fmt.Sprintf(f, "orders", "m2-longer-consumer-id", "/10.0.0.2", "c2", "1") + fmt.Sprintf("%-15s %-23s %-15s %-20s", "7", "bar:0", "7", "bar:0") + "\n" +
				fmt.Sprintf(f, "orders", "m1", "/10.0.0.1", "c1", "5") + fmt.Sprintf("%-15s %-23s %-15s %-20s", "7", "bar:9;payments:0,1,2,10", "7", "foo:0,1") + "\n",
		},
		{
			// Kafka prints the header even for a group with no members.
			name: "empty group", g: emptyGroup,
			want: "\nConsumer group 'idle' has no active members.\n" +
				"\n" + fmt.Sprintf("%-15s %-15s %-15s %-15s %-15s ", "GROUP", "CONSUMER-ID", "HOST", "CLIENT-ID", "#PARTITIONS") + "\n",
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := Members(tt.g, tt.verbose); got != tt.want {
				t.Errorf("got:\n%q\nwant:\n%q", got, tt.want)
			}
		})
	}
}

// TestDescribeGroupMembers checks the tokens DescribeConsumerGroupTest's
// testDescribeGroupMembers checks: one member owning topic1-0, topic1-1
// and topic2-0, in a consumer group and in a classic group.
func TestDescribeGroupMembers(t *testing.T) {
	assignment := concat(p("test.topic.2", 0), p("test.topic.1", 1, 0))
	member := Member{ConsumerID: "rPDc7zOBRxGL5Pb1pUWJqQ", Host: "/127.0.0.1", ClientID: "consumer-1", Assignment: assignment}
	consumer := member
	consumer.MemberEpoch, consumer.TargetAssignment = i32(3), assignment
	for _, tt := range []struct {
		name string
		g    Group
		want []string
	}{
		{"consumer", Group{ID: "g", State: "Stable", TargetAssignmentEpoch: i32(3), Members: []Member{consumer}},
			[]string{"g", "rPDc7zOBRxGL5Pb1pUWJqQ", "/127.0.0.1", "consumer-1", "3", "3", "test.topic.1:0,1;test.topic.2:0", "3", "test.topic.1:0,1;test.topic.2:0"}},
		{"classic", Group{ID: "g", State: "Stable", Members: []Member{member}},
			[]string{"g", "rPDc7zOBRxGL5Pb1pUWJqQ", "/127.0.0.1", "consumer-1", "3", "-", "test.topic.1:0,1;test.topic.2:0", "-", "-"}},
	} {
		lines := strings.Split(strings.TrimSpace(Members(tt.g, true)), "\n")
		header := []string{"GROUP", "CONSUMER-ID", "HOST", "CLIENT-ID", "#PARTITIONS", "CURRENT-EPOCH", "CURRENT-ASSIGNMENT", "TARGET-EPOCH", "TARGET-ASSIGNMENT"}
		if len(lines) != 2 || !slices.Equal(tokens(lines[0]), header) || !slices.Equal(tokens(lines[1]), tt.want) {
			t.Errorf("%s: %q", tt.name, lines)
		}
	}
}

func TestState(t *testing.T) {
	classic := Group{ID: "shop", Type: "Classic", State: "Stable", Coordinator: coordinator, AssignmentStrategy: "range",
		Members: []Member{{ConsumerID: "a"}, {ConsumerID: "b"}}}
	emptyClassic := Group{ID: "a-rather-long-group-name", Type: "Classic", State: "Empty", Coordinator: Node{ID: 101, Host: "kafka-broker-101.internal", Port: 19092}}
	// printStates: "\n%-<group>s %-<coordinator>s %-20s %-20s %s", the
	// coordinator written "host:port  (id)", at least 25 wide.
	const f = "\n%-15s %-25s %-20s %-20s %s"
	const fv = "\n%-15s %-25s %-20s %-20s %-15s %-25s %s"
	for _, tt := range []struct {
		name    string
		g       Group
		verbose bool
		want    string
	}{
		{"consumer group", stableGroup(), false,
			fmt.Sprintf(f, "GROUP", "COORDINATOR (ID)", "ASSIGNMENT-STRATEGY", "STATE", "#MEMBERS") +
				fmt.Sprintf(f, "orders", "broker-2:9092  (2)", "uniform", "Stable", "2") + "\n"},
		{"consumer group --verbose", stableGroup(), true,
			fmt.Sprintf(fv, "GROUP", "COORDINATOR (ID)", "ASSIGNMENT-STRATEGY", "STATE", "GROUP-EPOCH", "TARGET-ASSIGNMENT-EPOCH", "#MEMBERS") +
				fmt.Sprintf(fv, "orders", "broker-2:9092  (2)", "uniform", "Stable", "7", "7", "2") + "\n"},
		{"classic group --verbose: no epochs", classic, true,
			fmt.Sprintf(fv, "GROUP", "COORDINATOR (ID)", "ASSIGNMENT-STRATEGY", "STATE", "GROUP-EPOCH", "TARGET-ASSIGNMENT-EPOCH", "#MEMBERS") +
				fmt.Sprintf(fv, "shop", "broker-2:9092  (2)", "range", "Stable", "-", "-", "2") + "\n"},
		{
			// GROUP 24 wide, COORDINATOR 38 wide ("kafka-broker-101.internal:19092  (101)"); an empty classic group
			// has no protocol: "-".
			"empty classic group, long names", emptyClassic, false,
			"\nConsumer group 'a-rather-long-group-name' has no active members.\n" +
				fmt.Sprintf("\n%-24s %-38s %-20s %-20s %s", "GROUP", "COORDINATOR (ID)", "ASSIGNMENT-STRATEGY", "STATE", "#MEMBERS") +
				fmt.Sprintf("\n%-24s %-38s %-20s %-20s %s", "a-rather-long-group-name", "kafka-broker-101.internal:19092  (101)", "-", "Empty", "0") + "\n"},
		{"dead group", Group{ID: "gone", State: "Dead"}, false, "\nError: Consumer group 'gone' does not exist.\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := State(tt.g, tt.verbose); got != tt.want {
				t.Errorf("got:\n%q\nwant:\n%q", got, tt.want)
			}
		})
	}
	// DescribeConsumerGroupTest's testDescribeGroupState tokens.
	lines := strings.Split(strings.TrimSpace(State(stableGroup(), true)), "\n")
	if want := []string{"orders", "broker-2:9092", "(2)", "uniform", "Stable", "7", "7", "2"}; !slices.Equal(tokens(lines[1]), want) {
		t.Errorf("tokens %q, want %q", tokens(lines[1]), want)
	}
	if want := []string{"GROUP", "COORDINATOR", "(ID)", "ASSIGNMENT-STRATEGY", "STATE", "GROUP-EPOCH", "TARGET-ASSIGNMENT-EPOCH", "#MEMBERS"}; !slices.Equal(tokens(lines[0]), want) {
		t.Errorf("header %q, want %q", tokens(lines[0]), want)
	}
}

func TestList(t *testing.T) {
	groups := []Group{
		{ID: "test.protocol.group.CONSUMER", Type: "Consumer", State: "Stable"},
		{ID: "test.topic.partitions.group.0", Type: "Classic", State: "Empty"},
	}
	// printGroupInfo: GROUP is the longest id (29) + 10 = 39 wide, TYPE
	// and STATE "%-20s".
	for _, tt := range []struct {
		name   string
		got    string
		want   string
		tokens [][]string // ListConsumerGroupTest's validateListOutput rows
	}{
		{"--list", List(groups, false), "test.protocol.group.CONSUMER\ntest.topic.partitions.group.0\n",
			[][]string{{"test.protocol.group.CONSUMER"}, {"test.topic.partitions.group.0"}}},
		{"--list --state", List(groups, true),
			fmt.Sprintf("%-39s %-20s\n", "GROUP", "STATE") + fmt.Sprintf("%-39s %-20s\n", "test.protocol.group.CONSUMER", "Stable") +
				fmt.Sprintf("%-39s %-20s\n", "test.topic.partitions.group.0", "Empty"),
			[][]string{{"GROUP", "STATE"}, {"test.protocol.group.CONSUMER", "Stable"}, {"test.topic.partitions.group.0", "Empty"}}},
		{"--list --type --state", ListWithType(groups, true),
			fmt.Sprintf("%-39s %-20s %-20s\n", "GROUP", "TYPE", "STATE") + fmt.Sprintf("%-39s %-20s %-20s\n", "test.protocol.group.CONSUMER", "Consumer", "Stable") +
				fmt.Sprintf("%-39s %-20s %-20s\n", "test.topic.partitions.group.0", "Classic", "Empty"),
			[][]string{{"GROUP", "TYPE", "STATE"}, {"test.protocol.group.CONSUMER", "Consumer", "Stable"}, {"test.topic.partitions.group.0", "Classic", "Empty"}}},
		{"--list --state without groups: GROUP 15 + 10 wide", List(nil, true), fmt.Sprintf("%-25s %-20s\n", "GROUP", "STATE"),
			[][]string{{"GROUP", "STATE"}}},
	} {
		if tt.got != tt.want {
			t.Errorf("%s: got\n%q\nwant\n%q", tt.name, tt.got, tt.want)
		}
		lines := strings.Split(strings.TrimSuffix(tt.got, "\n"), "\n")
		for i, want := range tt.tokens {
			if i >= len(lines) || !slices.Equal(tokens(lines[i]), want) {
				t.Errorf("%s: line %d tokens %q, want %q", tt.name, i, tokens(lines[min(i, len(lines)-1)]), want)
			}
		}
	}
}

// TestNotFound: DescribeConsumerGroupTest's testDescribeNonExistingGroup
// expects GroupIdNotFoundException "Group missing.group not found." from
// the Admin client; run() prints it after "Executing consumer group
// command failed due to".
func TestNotFound(t *testing.T) {
	want := "\nError: Executing consumer group command failed due to org.apache.kafka.common.errors.GroupIdNotFoundException: Group missing.group not found.\n"
	if got := NotFound("missing.group"); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
