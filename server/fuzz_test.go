package server

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/loglab/loglab/engine/view"
	"github.com/loglab/loglab/internal/syncbuf"
	"github.com/loglab/loglab/lessons"
)

// The server fuzzer drives every endpoint a workshop's pages (and whatever
// else is on their network) can reach with random and mutated input: every
// lab command with mutated arguments, lesson actions (instructor mode:
// valid ones, so commands run inside lessons too, and malformed ones),
// participants' predictions (each must leave the cluster and the lesson as
// they were), malformed and huge messages, binary frames, odd paths. It asserts that the server survives (a panic that
// escaped would end this test's process), answers every request, runs a
// normal command afterwards, and that a command answered ok=false changed
// nothing, unless it failed with a Kafka outcome (NOT_ENOUGH_REPLICAS,
// REQUEST_TIMED_OUT, ...), which legitimately moves time or appends.
//
// A short fixed run is part of `go test`; `make fuzz-server` runs it for ten
// minutes (LOGLAB_FUZZ_DURATION=10m or -fuzz-duration=10m, LOGLAB_FUZZ_SEED
// picks another sequence, LOGLAB_FUZZ_VERBOSE=1 logs every command line
// with its answer).
var fuzzDuration = flag.Duration("fuzz-duration", 0, "run TestFuzzServer for this long instead of its short fixed run (also LOGLAB_FUZZ_DURATION)")

// fuzzShortInputs is the short run's length: a few seconds.
const fuzzShortInputs = 300

func TestFuzzServer(t *testing.T) {
	duration := *fuzzDuration
	if env := os.Getenv("LOGLAB_FUZZ_DURATION"); env != "" && duration == 0 {
		d, err := time.ParseDuration(env)
		if err != nil {
			t.Fatalf("LOGLAB_FUZZ_DURATION: %v", err)
		}
		duration = d
	}
	seed := uint64(1)
	if env := os.Getenv("LOGLAB_FUZZ_SEED"); env != "" {
		n, err := strconv.ParseUint(env, 10, 64)
		if err != nil {
			t.Fatalf("LOGLAB_FUZZ_SEED: %v", err)
		}
		seed = n
	}
	f := newFuzzer(t, seed)
	// slowInput is the fairness target: no command should hold the
	// shared cluster longer. Inputs past it are logged, not failed: wall
	// time depends on the machine.
	const slowInput = 2 * time.Second
	start := time.Now()
	n := 0
	var slowest time.Duration
	var slowestInput string
	for ; duration > 0 && time.Since(start) < duration || duration == 0 && n < fuzzShortInputs; n++ {
		began := time.Now()
		f.one()
		took := time.Since(began)
		if took > slowest {
			slowest, slowestInput = took, f.last
		}
		if took > slowInput {
			t.Logf("slow input (%v): %.200q", took.Round(time.Millisecond), f.last)
		}
	}
	f.normalCommandStillRuns()
	if logged := f.logs.String(); strings.Contains(logged, "panicked") {
		t.Errorf("the server recovered from panics; each is an engine or server bug:\n%s", logged)
	}
	for _, line := range f.changedOnError {
		t.Errorf("failed without a Kafka error yet changed the cluster: %s", line)
	}
	// The slowest input is what held every other page up the longest.
	msg := fmt.Sprintf("fuzzed the server with %d inputs (seed %d; %d lesson actions, %d of them refused; %d predictions, %d taken) in %v; the slowest took %v: %.200q",
		n, seed, f.lessonActions, f.lessonRefused, f.predictions, f.predictionsTaken, time.Since(start).Round(time.Millisecond), slowest.Round(time.Millisecond), slowestInput)
	t.Log(msg)
	fmt.Println(msg)
}

type fuzzer struct {
	t        *testing.T
	s        *Server
	ts       *httptest.Server
	rng      *rand.Rand
	commands []fuzzCommand
	logs     *syncbuf.Buffer
	last     string // the input being sent, for the report of the slowest
	// changedOnError lists the command lines answered ok=false without a
	// Kafka outcome error whose cluster view differed afterwards.
	changedOnError []string
	// lessonActions and lessonRefused count the lesson actions sent and
	// refused, for the report: a run that never opened a lesson fuzzed
	// no command inside one.
	lessonActions, lessonRefused int
	// predictions and predictionsTaken count the participants'
	// predictions sent and accepted.
	predictions, predictionsTaken int
}

// fuzzCommand is a lab command as `help` describes it: its name and the
// usage's placeholders and options.
type fuzzCommand struct {
	name     string
	params   []string // placeholders in order: NAME, TOPIC/PARTITION, ...
	required []string // key=PLACEHOLDER options outside brackets
	options  []string // key=default, from [key=default]
}

func newFuzzer(t *testing.T, seed uint64) *fuzzer {
	logs := &syncbuf.Buffer{}
	s, err := New(Options{StaticDir: t.TempDir(), Logger: slog.New(slog.NewTextHandler(logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	// Every input a second apart: the rate limiter has its own test.
	var tick atomic.Int64
	s.now = func() time.Time { return time.Unix(tick.Add(1), 0) }
	ts := httptest.NewServer(instructorHandler(s))
	t.Cleanup(func() { s.Close(); ts.Close() })
	f := &fuzzer{t: t, s: s, ts: ts, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), logs: logs}
	f.commands = parseHelp(t, s.live.run("help").Output)
	for _, line := range fuzzSetup {
		if e := s.live.run(line); !e.OK && !strings.Contains(e.Output, "TOPIC_ALREADY_EXISTS") {
			t.Fatalf("%s: %s", line, e.Output)
		}
	}
	return f
}

// parseHelp reads the command list from `help`: usage lines start at the
// margin, their summaries are indented.
func parseHelp(t *testing.T, help string) []fuzzCommand {
	// The lab's language only: the server's own commands (realtime, bench
	// fetch) run on the wall clock and the machine, beside the commands
	// whose effects the fuzzer checks.
	help, _, _ = strings.Cut(help, "\n\non this server")
	var out []fuzzCommand
	for _, line := range strings.Split(help, "\n") {
		if line == "" || line[0] == ' ' {
			continue
		}
		var c fuzzCommand
		fields := strings.Fields(line)
		i := 0
		for ; i < len(fields) && regexp.MustCompile(`^[a-z]+$`).MatchString(fields[i]); i++ {
			c.name = strings.TrimSpace(c.name + " " + fields[i])
		}
		for _, f := range fields[i:] {
			optional := strings.HasPrefix(f, "[")
			// value=V|tombstone=true: one of them.
			alts := strings.Split(strings.Trim(f, "[]"), "|")
			alt := alts[0]
			if k, v, ok := strings.Cut(alt, "="); ok {
				if optional {
					c.options = append(c.options, k+"="+v)
				} else {
					c.required = append(c.required, k+"="+v)
				}
			} else {
				c.params = append(c.params, alt)
			}
		}
		out = append(out, c)
	}
	if len(out) < 20 {
		t.Fatalf("help listed %d commands; expected the lab's whole language:\n%s", len(out), help)
	}
	return out
}

func (f *fuzzer) pick(xs ...string) string { return xs[f.rng.IntN(len(xs))] }

// weird is a value meant to break a parser or a limit.
func (f *fuzzer) weird() string {
	switch f.rng.IntN(6) {
	case 0:
		return f.pick("", "-1", "0", "-0", "1e9", "0x10", "1.5", "NaN", "+Inf", "∞", "٣", "true", "null")
	case 1:
		return f.pick("9223372036854775807", "9223372036854775808", "-9223372036854775808", "18446744073709551616",
			"99999999999999999999999", "2147483648", "4294967296", "100000", "100001")
	case 2:
		return f.pick("-5m", "1x", "5 m", "1h1h", "2562047h47m16.854775807s", "2562047h47m16.854775808s",
			"-4758660480865194781", "876000h", "876001h", "100y", "1d", "0.0000001ns", "9999999999h")
	case 3:
		return strings.Repeat(f.pick("a", "é", "🦀", "{i}", "=", " ", "/"), 1+f.rng.IntN(1500))
	case 4:
		return f.pick("\x00", "\x1b[31m", "\t", "\r\n", "\u202e", "\xff\xfe", "a\x00b", "<script>alert(1)</script>", `"`, `\`, "%n%s")
	default:
		return f.pick("orders", "orders/0", "orders/2", "orders/3", "orders/-1", "nope", "nope/0", "1", "2", "3", "9", "c1", "p1", "ctl", "c2")
	}
}

// value fills a placeholder or an option with something that often works
// and sometimes does not.
func (f *fuzzer) value(kind string) string {
	if f.rng.IntN(4) == 0 {
		return f.weird()
	}
	switch {
	case kind == "T/P,T/P":
		return f.pick("orders/0", "orders/1,orders/2", "events/0")
	case kind == "T1,T2":
		return f.pick("orders", "events", "orders,events")
	case kind == "V" || kind == "K":
		return f.pick("v", "a", "v{i}", "k{i}", "hello")
	case kind == "NODE":
		return f.pick("1", "2", "3", "ctl", "p1", "c1")
	case kind == "OFFSET" || kind == "BATCHES":
		return f.pick("0", "1", "3", "10")
	case kind == "COMMAND":
		return f.commands[f.rng.IntN(len(f.commands))].name
	case strings.Contains(kind, "/"):
		return f.pick("orders/0", "orders/1", "orders/2", "events/0")
	case kind == "TOPIC" || kind == "NAME" && f.rng.IntN(2) == 0:
		return f.pick("orders", "events")
	case kind == "NAME" || kind == "CONSUMER":
		return f.pick("p1", "c1", "console-producer")
	case kind == "ID":
		return f.pick("1", "2", "3")
	case kind == "DURATION" || kind == "1s" || kind == "0s" || strings.HasSuffix(kind, "ms"):
		return f.pick("1ms", "100ms", "1s", "3s", "10")
	case kind == "true" || kind == "false" || strings.Contains(kind, "true"):
		return f.pick("true", "false")
	case kind == "N" || strings.Trim(kind, "0123456789") == "":
		return f.pick("0", "1", "2", "5", "20")
	case strings.HasPrefix(kind, "("):
		return f.pick("(1,2)", "(3)", "(c1,c2)", "(1)", "(ctl,1)")
	}
	return kind
}

// line is one command from the lab's language, mutated.
func (f *fuzzer) line() string {
	c := f.commands[f.rng.IntN(len(f.commands))]
	parts := []string{c.name}
	for _, p := range c.params {
		if f.rng.IntN(8) != 0 {
			parts = append(parts, f.value(p))
		}
	}
	for _, o := range c.required {
		if f.rng.IntN(8) != 0 {
			k, v, _ := strings.Cut(o, "=")
			parts = append(parts, k+"="+f.value(v))
		}
	}
	for _, o := range c.options {
		if f.rng.IntN(4) == 0 {
			k, v, _ := strings.Cut(o, "=")
			parts = append(parts, k+"="+f.value(v))
		}
	}
	for range max(0, f.rng.IntN(5)-2) {
		switch i := f.rng.IntN(len(parts)); f.rng.IntN(5) {
		case 0:
			parts = append(parts, "bogus="+f.weird())
		case 1:
			parts[i] = f.weird()
		case 2:
			parts = append(parts[:i], parts[i+1:]...)
			if len(parts) == 0 {
				parts = []string{""}
			}
		case 3:
			parts = append(parts, parts[i])
		default:
			parts = append(parts, f.weird())
		}
	}
	return strings.Join(parts, " ")
}

// setup are commands that give the fuzzed ones something to work on; a
// fuzzed `cluster` starts over without them.
var fuzzSetup = []string{
	"topic create orders partitions=3 rf=3", "topic create events rf=3 segment.bytes=2000 index.interval.bytes=100",
	"producer create p1 linger.ms=0", "consumer create c1 topics=orders,events", "produce events value=e{i} count=30",
}

func (f *fuzzer) one() {
	switch n := f.rng.IntN(100); {
	case n < 3:
		f.postCommand(fuzzSetup[f.rng.IntN(len(fuzzSetup))])
	case n < 45:
		f.postCommand(f.line())
	case n < 65:
		f.websocketEpisode()
	case n < 80:
		f.postGarbage()
	default:
		f.getPath()
	}
}

// kafkaOutcome matches a command's failure that is an outcome of the
// simulated Kafka (an error code or a client exception), not a refusal:
// time may have passed and a leader may have appended before it failed.
var kafkaOutcome = regexp.MustCompile(`\b[A-Z]+(_[A-Z]+)+\b|TimeoutException`)

// clusterState is what "nothing changed" compares: the whole view, the
// controller quorum's epochs and offsets included.
func (f *fuzzer) clusterState() view.Cluster {
	v, _ := f.s.live.snapshot()
	return v
}

func (f *fuzzer) post(contentType string, body []byte) (int, []byte) {
	f.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, f.ts.URL+"/api/command", bytes.NewReader(body))
	if err != nil {
		f.t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	f.last = "POST " + string(body)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		f.t.Fatalf("POST %.200q got no answer: %v", body, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		f.t.Fatalf("POST %.200q: reading the answer: %v", body, err)
	}
	if resp.StatusCode >= 500 {
		f.t.Fatalf("POST %.200q: %d %.500s", body, resp.StatusCode, b)
	}
	return resp.StatusCode, b
}

func (f *fuzzer) postCommand(line string) {
	body, err := json.Marshal(commandRequest{Line: line})
	if err != nil {
		f.t.Fatal(err)
	}
	before := f.clusterState()
	code, answer := f.post("application/json", body)
	var resp commandResponse
	if code == http.StatusOK {
		if err := json.Unmarshal(answer, &resp); err != nil {
			f.t.Fatalf("POST %.200q: answer %.300s is not a command response: %v", line, answer, err)
		}
	}
	if os.Getenv("LOGLAB_FUZZ_VERBOSE") != "" {
		f.t.Logf("%.120q -> %d ok=%v %.150q", line, code, resp.OK, resp.Output)
	}
	if resp.OK || kafkaOutcome.MatchString(resp.Output) {
		return
	}
	if after := f.clusterState(); !reflect.DeepEqual(before, after) {
		f.changedOnError = append(f.changedOnError, fmt.Sprintf("%.300q -> %d %.200q (changed: %s)", line, code, resp.Output, changedFields(before, after)))
	}
}

// changedFields names the view's top-level fields that differ.
func changedFields(a, b view.Cluster) string {
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	var names []string
	for i := range va.NumField() {
		if !reflect.DeepEqual(va.Field(i).Interface(), vb.Field(i).Interface()) {
			names = append(names, va.Type().Field(i).Name)
		}
	}
	return strings.Join(names, ", ")
}

// postGarbage sends bodies and content types no page sends: each gets a
// 4xx answer (or runs, when it happens to be a command) and, when
// refused, changes nothing.
func (f *fuzzer) postGarbage() {
	bodies := []string{"", "null", "[]", "{}", `{"line":123}`, `{"line":null}`, `{"line":["a"]}`, `{"line":"help"`,
		`{"line":"` + strings.Repeat("x", maxCommandMessage) + `"}`, "\x00\x01\x02", `{"type":"command","line":"help","extra":1}`,
		`{"line":"` + f.line() + `"}`, strings.Repeat("{", 5000)}
	body := bodies[f.rng.IntN(len(bodies))]
	ctype := f.pick("application/json", "", "text/plain", "application/json; charset=utf-8", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/json;;;")
	before := f.clusterState()
	code, answer := f.post(ctype, []byte(body))
	switch code {
	case http.StatusOK:
		return
	case http.StatusBadRequest, http.StatusUnsupportedMediaType, http.StatusRequestEntityTooLarge, http.StatusTooManyRequests:
	default:
		f.t.Fatalf("POST %q as %q: unexpected %d %.300s", body, ctype, code, answer)
	}
	if after := f.clusterState(); !reflect.DeepEqual(before, after) {
		f.t.Fatalf("POST %q as %q was refused (%d) but changed %s", body, ctype, code, changedFields(before, after))
	}
}

func (f *fuzzer) getPath() {
	path := f.pick("/", "/lab", "/live", "/static/app.js", "/static/", "/static/%2e%2e/live.go", "/static/../../etc/passwd",
		"/static/"+strings.Repeat("a", 3000), "/ws", "/api/command", "/nope", "/live?x="+url.QueryEscape(f.weird()), "//", "/%00")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, f.pick(http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodPut, http.MethodDelete), f.ts.URL, nil)
	if err != nil {
		f.t.Fatal(err)
	}
	req.URL.Opaque = path // sent as is, unescaped
	f.last = req.Method + " " + path
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		f.t.Fatalf("%s %q got no answer: %v", req.Method, path, err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode >= 500 {
		f.t.Fatalf("%s %q: %d", req.Method, path, resp.StatusCode)
	}
}

// websocketEpisode opens a page's connection, sends it a few messages and
// checks each gets its answer: an update for a command (and the lesson's
// status after it while a lesson is open), for a lesson action its status
// or a refusal to this page that changed nothing, the connection closed
// with the reason for anything else.
func (f *fuzzer) websocketEpisode() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// A third of the pages are a participant's.
	conn := f.dial(ctx, f.rng.IntN(3) == 0)
	defer conn.CloseNow()
	for range 1 + f.rng.IntN(4) {
		typ, msg := f.websocketMessage()
		f.last = "websocket " + string(msg)
		before := f.state()
		if err := conn.Write(ctx, typ, msg); err != nil {
			return // closed by the server after an earlier refusal: fine
		}
		var req commandRequest
		isCommand := len(msg) <= maxCommandMessage && json.Unmarshal(msg, &req) == nil && req.Type == "command"
		if isLessonAction(msg) {
			f.lessonAnswer(ctx, conn, msg, before)
			continue
		}
		if isMessageOf(msg, "predict") {
			f.predictAnswer(ctx, conn, msg, before)
			continue
		}
		data, err := readPageAnswer(ctx, conn)
		if !isCommand {
			status := websocket.CloseStatus(err)
			if status != websocket.StatusUnsupportedData && status != websocket.StatusMessageTooBig {
				f.t.Fatalf("websocket message %.200q: want the connection closed as unsupported or too big, got %v (%.200s)", msg, err, data)
			}
			return
		}
		if err != nil {
			f.t.Fatalf("websocket command %.200q got no answer: %v", msg, err)
		}
		var u update
		if err := json.Unmarshal(data, &u); err != nil || u.Type != "update" || u.Entry == "" {
			f.t.Fatalf("websocket command %.200q: answer %.300s is not an update with an entry (%v)", msg, data, err)
		}
		if strings.Contains(u.Entry, "rate limit") {
			f.t.Fatalf("the fuzzer's clock should keep it under the rate limit: %.300s", u.Entry)
		}
		// A command that ran while a lesson was open is followed by the
		// lesson's status (the goal may be reached); a refused one (its
		// entry alone, no view) by nothing.
		if before.lesson != nil && !u.Private {
			if m := f.readLessonMessage(ctx, conn, msg); m.Error != "" || m.Status == nil {
				f.t.Fatalf("websocket command %.200q in a lesson: want the lesson's status after its update, got %.300s", msg, m.raw)
			}
		}
	}
}

// fuzzState is what a refused lesson action must leave as it was: the
// cluster and the lesson's status.
type fuzzState struct {
	view   view.Cluster
	lesson *lessons.Status
}

func (f *fuzzer) state() fuzzState {
	st := fuzzState{view: f.clusterState()}
	f.s.live.mu.Lock()
	defer f.s.live.mu.Unlock()
	if f.s.live.lesson != nil {
		status := f.s.live.lesson.Status()
		st.lesson = &status
	}
	return st
}

// isLessonAction reports whether the server takes msg as a lesson action
// (and so answers it, never closing the connection).
func isLessonAction(msg []byte) bool {
	var kind struct {
		Type string `json:"type"`
	}
	return len(msg) <= maxCommandMessage && json.Unmarshal(msg, &kind) == nil && kind.Type == "lesson"
}

// isMessageOf reports whether the server takes msg as a message of type typ.
func isMessageOf(msg []byte, typ string) bool {
	var kind struct {
		Type string `json:"type"`
	}
	return len(msg) <= maxCommandMessage && json.Unmarshal(msg, &kind) == nil && kind.Type == typ
}

// readPageAnswer is readAnswer past what the server tells a page about the
// room's predictions on its own (a participant's pick coming back when it
// connects, a tally for a driver): those answer nothing the page sent.
func readPageAnswer(ctx context.Context, conn *websocket.Conn) ([]byte, error) {
	for {
		data, err := readAnswer(ctx, conn)
		if err != nil || !isMessageOf(data, "predict") && !isMessageOf(data, "tally") {
			return data, err
		}
	}
}

// predictAnswer checks a prediction's answer: the page's own pick, taken
// or refused with why, and neither the cluster nor the lesson moved: a
// prediction never reaches the engine.
func (f *fuzzer) predictAnswer(ctx context.Context, conn *websocket.Conn, msg []byte, before fuzzState) {
	f.predictions++
	for {
		data, err := readAnswer(ctx, conn)
		if err != nil {
			f.t.Fatalf("prediction %.200q got no answer: %v", msg, err)
		}
		if isMessageOf(data, "tally") {
			continue
		}
		var m predictMessage
		if err := json.Unmarshal(data, &m); err != nil || m.Type != "predict" {
			f.t.Fatalf("prediction %.200q: answer %.300s is not the page's pick (%v)", msg, data, err)
		}
		if m.Error == "" {
			f.predictionsTaken++
		}
		if strings.Contains(m.Error, "panicked") {
			f.t.Fatalf("prediction %.200q: %s", msg, m.Error)
		}
		if after := f.state(); !reflect.DeepEqual(before, after) {
			f.t.Fatalf("prediction %.200q (%s) changed the cluster (%s) or the lesson (%+v -> %+v)",
				msg, data, changedFields(before.view, after.view), before.lesson, after.lesson)
		}
		return
	}
}

// predictMessageOf is a prediction as a participant's page sends it,
// often valid, often not.
func (f *fuzzer) predictMessageOf() []byte {
	value := f.pick(`"1"`, `"2"`, `"0"`, `"3"`, `1`, `null`, `[]`, `{"v":1}`, `"`+strings.Repeat("x", 300)+`"`, `"\u0000"`)
	switch f.rng.IntN(4) {
	case 0:
		return []byte(`{"type":"predict","value":` + value + `}`)
	case 1:
		return []byte(`{"type":"predict","value":` + value + `,"at":` + f.pick(`1`, `0`, `"2"`, `-1`, `99999999999999999999`, `"x"`, `null`) + `}`)
	case 2:
		return []byte(f.pick(`{"type":"predict"}`, `{"type":"predict","value":"1","extra":[1]}`, `{"type":"predict","at":1}`))
	default:
		return []byte(`{"type":"predict","value":` + value + `,"at":` + fmt.Sprint(f.rng.IntN(8)) + `}`)
	}
}

// lessonAnswer checks a lesson action's answer: a refusal that changed
// nothing, or the change's update (when it ran commands) and then the
// status, the lesson's lab being the one the room sees.
func (f *fuzzer) lessonAnswer(ctx context.Context, conn *websocket.Conn, msg []byte, before fuzzState) {
	m := f.readLessonMessage(ctx, conn, msg)
	f.lessonActions++
	if m.Error != "" {
		f.lessonRefused++
		if strings.Contains(m.Error, "panicked") {
			f.t.Fatalf("lesson action %.200q: %s", msg, m.Error)
		}
		if after := f.state(); !reflect.DeepEqual(before, after) {
			f.t.Fatalf("lesson action %.200q was refused (%s) but changed the cluster (%s) or the lesson (%+v -> %+v)",
				msg, m.Error, changedFields(before.view, after.view), before.lesson, after.lesson)
		}
		return
	}
	f.s.live.mu.Lock()
	defer f.s.live.mu.Unlock()
	if l := f.s.live.lesson; (l == nil) != (m.Status == nil) || l != nil && (l.Lab() != f.s.live.lab || l.Status() != *m.Status) {
		f.t.Fatalf("lesson action %.200q: the status sent (%.300s) is not the live session's lesson", msg, m.raw)
	}
}

// fuzzLessonMessage is a lesson message with the raw bytes, for reports.
type fuzzLessonMessage struct {
	raw    []byte
	Status *lessons.Status `json:"status"`
	Error  string          `json:"error"`
}

// readLessonMessage reads up to the next lesson message; any update before
// it must be a well-formed one.
func (f *fuzzer) readLessonMessage(ctx context.Context, conn *websocket.Conn, msg []byte) fuzzLessonMessage {
	for {
		data, err := readAnswer(ctx, conn)
		if err != nil {
			f.t.Fatalf("websocket %.200q: no lesson message came: %v", msg, err)
		}
		var kind struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal(data, &kind); err != nil {
			f.t.Fatalf("websocket %.200q: answer %.300s: %v", msg, data, err)
		}
		switch kind.Type {
		case "lesson":
			m := fuzzLessonMessage{raw: data}
			if err := json.Unmarshal(data, &m); err != nil {
				f.t.Fatalf("websocket %.200q: lesson message %.300s: %v", msg, data, err)
			}
			return m
		case "update":
			var u update
			if err := json.Unmarshal(data, &u); err != nil || u.ID == 0 {
				f.t.Fatalf("websocket %.200q: update %.300s has no id (%v)", msg, data, err)
			}
		case "predict", "tally":
			// The room's predictions, told to this page on its own.
		default:
			f.t.Fatalf("websocket %.200q: unexpected answer %.300s", msg, data)
		}
	}
}

// lessonAction is a lesson action as a page sends it, often valid (so the
// fuzzed commands also run inside lessons), often not.
func (f *fuzzer) lessonAction() []byte {
	ids := []string{"acks1-leader-crash", "acks-all-min-isr"}
	if all, err := lessons.All(); err == nil {
		ids = ids[:0]
		for _, l := range all {
			ids = append(ids, l.ID)
		}
	}
	step := func() string {
		if f.rng.IntN(3) == 0 {
			return f.pick(`-1`, `99`, `1.5`, `"2"`, `"x"`, `null`, `[]`, `{}`, `1e3`, `9223372036854775808`, `true`)
		}
		return strconv.Itoa(f.rng.IntN(7))
	}
	id := func() string {
		if f.rng.IntN(4) == 0 {
			b, _ := json.Marshal(f.weird())
			return string(b)
		}
		return `"` + ids[f.rng.IntN(len(ids))] + `"`
	}
	switch f.rng.IntN(10) {
	case 0, 1, 2:
		return []byte(`{"type":"lesson","action":"open","lesson":` + id() + `,"step":` + step() + `}`)
	case 3:
		v, _ := json.Marshal(f.pick("1", "2", "3", "0", "none", "NOT_ENOUGH_REPLICAS", f.weird()))
		return []byte(`{"type":"lesson","action":"answer","value":` + f.pick(string(v), `1`, `null`, `[]`) + `}`)
	case 4:
		return []byte(`{"type":"lesson","action":"goto","step":` + step() + `}`)
	case 5:
		return []byte(`{"type":"lesson","action":` + f.pick(`"dance"`, `""`, `5`, `null`, `["next"]`, `"NEXT"`) + `}`)
	case 6:
		return []byte(f.pick(`{"type":"lesson"}`, `{"type":"lesson","action":"open"}`, `{"type":"lesson","action":"open","lesson":{"id":1}}`,
			`{"type":"lesson","action":"answer"}`, `{"type":"lesson","action":"next","extra":[1,2]}`))
	default:
		return []byte(`{"type":"lesson","action":"` + f.pick("next", "back", "reset", "close", "next", "back") + `"}`)
	}
}

// dial opens a page's connection; while a lesson is open the page first
// catches up (the transcript, then the lesson's status), which is read
// here so that the episode's answers come next.
func (f *fuzzer) dial(ctx context.Context, participant bool) *websocket.Conn {
	open := f.state().lesson != nil
	// A participant's page predicts (and its commands and lesson actions
	// on the instructor's cluster are refused); the same participant each
	// time, so their pick comes back.
	var opts *websocket.DialOptions
	if participant {
		opts = &websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"Bearer " + strings.Repeat("f", 32)}}}
	}
	conn, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(f.ts.URL, "http")+"/ws", opts)
	if err != nil {
		f.t.Fatalf("dialing the websocket: %v", err)
	}
	conn.SetReadLimit(64 << 20)
	if open {
		if m := f.readLessonMessage(ctx, conn, []byte("(connecting)")); m.Error != "" || m.Status == nil {
			f.t.Fatalf("a page connecting mid-lesson got %.300s, want the lesson's status", m.raw)
		}
	}
	return conn
}

func (f *fuzzer) websocketMessage() (websocket.MessageType, []byte) {
	command := func(line string) []byte {
		b, _ := json.Marshal(commandRequest{Type: "command", Line: line})
		return b
	}
	switch f.rng.IntN(15) {
	case 0:
		return websocket.MessageText, nil
	case 1:
		return websocket.MessageText, command(strings.Repeat("tick 1ms ", 1000))
	case 2:
		return websocket.MessageText, []byte(`{"type":"command","line":`)
	case 3:
		return websocket.MessageText, []byte(f.pick(`{"type":"command","line":5}`, `{"type":1,"line":"help"}`, `[]`, `"command"`, `{"type":"command","line":{"a":1}}`))
	case 4:
		return websocket.MessageText, []byte(`{"type":"` + f.pick("cmd", "", "COMMAND", "update", "\u0000") + `","line":"help"}`)
	case 5:
		return websocket.MessageBinary, command(f.line())
	case 6:
		b := make([]byte, f.rng.IntN(100))
		for i := range b {
			b[i] = byte(f.rng.IntN(256))
		}
		return websocket.MessageBinary, b
	case 7:
		return websocket.MessageText, []byte(`{"type":"command"}`)
	case 8, 9, 10:
		return websocket.MessageText, f.lessonAction()
	case 11, 12:
		return websocket.MessageText, f.predictMessageOf()
	default:
		return websocket.MessageText, command(f.line())
	}
}

// normalCommandStillRuns: after all that, a page's ordinary command runs.
func (f *fuzzer) normalCommandStillRuns() {
	f.closeLesson()
	code, answer := f.post("application/json", []byte(`{"line":"help"}`))
	if code != http.StatusOK || !strings.Contains(string(answer), `"ok":true`) {
		f.t.Fatalf("after the fuzzing, help: %d %.300s", code, answer)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn := f.dial(ctx, false)
	defer conn.CloseNow()
	if err := conn.Write(ctx, websocket.MessageText, []byte(`{"type":"command","line":"help"}`)); err != nil {
		f.t.Fatal(err)
	}
	if data, err := readAnswer(ctx, conn); err != nil || !strings.Contains(string(data), "list the commands") {
		f.t.Fatalf("after the fuzzing, help over the websocket: %v %.300s", err, data)
	}
}

// closeLesson closes a lesson the fuzzing left open: one left at an
// unanswered question refuses commands by design ("answer the question
// first"), so a page closes it before typing freely.
func (f *fuzzer) closeLesson() {
	f.s.live.mu.Lock()
	open := f.s.live.lesson != nil
	f.s.live.mu.Unlock()
	if !open {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn := f.dial(ctx, false)
	defer conn.CloseNow()
	if err := conn.Write(ctx, websocket.MessageText, []byte(`{"type":"lesson","action":"close"}`)); err != nil {
		f.t.Fatal(err)
	}
	for {
		f.s.live.mu.Lock()
		open = f.s.live.lesson != nil
		f.s.live.mu.Unlock()
		if !open {
			return
		}
		if _, _, err := conn.Read(ctx); err != nil {
			f.t.Fatalf("closing the lesson the fuzzing left open: %v", err)
		}
	}
}
