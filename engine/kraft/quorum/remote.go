package quorum

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/loglab/loglab/engine/kraft"
	"github.com/loglab/loglab/engine/protocol"
)

// RemoteConfig configures a Remote. Zero durations take the defaults.
type RemoteConfig struct {
	// APIs are the controllers' HTTP API addresses (host:port), APIs[i]
	// being controller i+1's.
	APIs []string
	// LeaderWait is how long a call waits for an active controller before
	// it fails with ErrNotController (5 s): long enough for an election
	// after the active controller's process died.
	LeaderWait time.Duration
	// RequestTimeout bounds one HTTP request (2 s); an append takes as long
	// as a commit, milliseconds normally.
	RequestTimeout time.Duration
	// StatusTimeout bounds one controller's /status answer (1 s): a
	// controller that does not answer in time shows as shutdown.
	StatusTimeout time.Duration
	// SettleWait bounds Settle (2 s).
	SettleWait time.Duration
}

// Remote is kraft.Quorum over the HTTP APIs of controllers that run as
// separate processes (Process, `loglab controller`). Appends and reads go
// to the active controller, found by asking and by following the 421
// redirects of the others; Status asks every controller. Its methods are
// safe for concurrent use.
//
// Crash and Restart cannot reach into another process: they fail and say
// how to stop or start that controller.
type Remote struct {
	cfg    RemoteConfig
	client *http.Client
	nonce  string
	seq    atomic.Uint64

	mu   sync.Mutex
	hint string // the API that last answered as the active controller
}

var _ kraft.Quorum = (*Remote)(nil)

// NewRemote returns a client of the controllers at cfg.APIs.
func NewRemote(cfg RemoteConfig) (*Remote, error) {
	if len(cfg.APIs) == 0 {
		return nil, errors.New("quorum: a remote quorum needs its controllers' API addresses")
	}
	for i, api := range cfg.APIs {
		if err := checkHostPort(api); err != nil {
			return nil, fmt.Errorf("quorum: controller %d's API address: %v", i+1, err)
		}
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&cfg.LeaderWait, 5*time.Second)
	def(&cfg.RequestTimeout, 2*time.Second)
	def(&cfg.StatusTimeout, time.Second)
	def(&cfg.SettleWait, 2*time.Second)
	cfg.APIs = slices.Clone(cfg.APIs)
	return &Remote{
		cfg:    cfg,
		client: &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()},
		// Proposal ids must not repeat across clients: the time this one
		// started and its process id.
		nonce: strconv.FormatInt(time.Now().UnixNano(), 36) + "." + strconv.Itoa(os.Getpid()),
	}, nil
}

// Controllers is how many controllers vote.
func (r *Remote) Controllers() int { return len(r.cfg.APIs) }

// Append sends the records, as one entry, to the active controller and
// returns them with their offsets once committed. It follows redirects and
// retries until LeaderWait has passed, then fails with ErrNotController;
// as for Quorum.Append, that means "not known to be committed".
//
// Every try carries the same proposal id, so a retry after an answer that
// was lost (the controller died, the connection broke) commits the records
// once: the active controller answers an id it applied with its offsets,
// and the state machine applies an id once however often it is proposed.
func (r *Remote) Append(records []protocol.MetadataRecord) ([]protocol.MetadataRecord, error) {
	if len(records) == 0 {
		return nil, nil
	}
	id := r.nonce + "-" + strconv.FormatUint(r.seq.Add(1), 36)
	data, err := encodeEntry(id, records)
	if err != nil {
		return nil, err
	}
	var resp appendResponse
	if err := r.onActive(http.MethodPost, "/append", data, &resp); err != nil {
		return nil, err
	}
	return resp.Records, nil
}

// ReadLog returns the committed records from offset from on, as the active
// controller holds them (the most advanced controller that answers when
// there is none for LeaderWait), and the first offset it holds; see
// Quorum.ReadLog.
func (r *Remote) ReadLog(from int64) ([]protocol.MetadataRecord, int64, error) {
	resp, err := r.read(from)
	if err != nil {
		return nil, 0, err
	}
	if resp.Compacted {
		return resp.Records, resp.Start, ErrCompacted
	}
	return resp.Records, resp.Start, nil
}

// Read returns the committed records with offsets >= from.
func (r *Remote) Read(from int64) []protocol.MetadataRecord {
	recs, _, _ := r.ReadLog(from)
	return recs
}

// End is the offset the next record will get (0 when no controller answers).
func (r *Remote) End() int64 {
	resp, err := r.read(math.MaxInt64)
	if err != nil {
		return 0
	}
	return resp.End
}

func (r *Remote) read(from int64) (readResponse, error) {
	var resp readResponse
	path := "/read?from=" + strconv.FormatInt(from, 10)
	err := r.onActive(http.MethodGet, path+"&active=1", nil, &resp)
	if err == nil {
		return resp, nil
	}
	// No active controller: the most advanced one that answers, as
	// Quorum.ReadLog does.
	st, best := r.Status(), -1
	for i, s := range st {
		if s.Role != "shutdown" && (best < 0 || s.MetadataEnd > st[best].MetadataEnd) {
			best = i
		}
	}
	if best < 0 {
		return resp, err
	}
	if code, _, e := r.do(context.Background(), http.MethodGet, r.cfg.APIs[best], path, nil, &resp); e != nil || code != http.StatusOK {
		return resp, err
	}
	return resp, nil
}

// ActiveImage is the active controller's image once it has applied
// everything committed before its term; nil when none answers within
// LeaderWait.
func (r *Remote) ActiveImage() *kraft.Image {
	var im kraft.Image
	if err := r.onActive(http.MethodGet, "/image?active=1", nil, &im); err != nil {
		return nil
	}
	return &im
}

// Status asks every controller for its status, in id order; one that does
// not answer within StatusTimeout shows as shutdown.
func (r *Remote) Status() []kraft.ControllerStatus {
	out := make([]kraft.ControllerStatus, len(r.cfg.APIs))
	var wg sync.WaitGroup
	for i, api := range r.cfg.APIs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), r.cfg.StatusTimeout)
			defer cancel()
			var s kraft.ControllerStatus
			if code, _, err := r.do(ctx, http.MethodGet, api, "/status", nil, &s); err != nil || code != http.StatusOK {
				s = kraft.ControllerStatus{ID: i + 1, Role: "shutdown", RestoredOffset: -1}
			}
			out[i] = s
		}()
	}
	wg.Wait()
	return out
}

// Leader is the active controller's id, 0 for none: of the controllers
// that say they lead, the one in the highest term (an old leader cut off
// from the others may not know yet that it was replaced).
func (r *Remote) Leader() int {
	if s := leaderOf(r.Status()); s != nil {
		return s.ID
	}
	return 0
}

func leaderOf(st []kraft.ControllerStatus) *kraft.ControllerStatus {
	var best *kraft.ControllerStatus
	for i := range st {
		if st[i].Role == "leader" && (best == nil || st[i].Term > best.Term) {
			best = &st[i]
		}
	}
	return best
}

// Settle waits, SettleWait at most, until every controller that answers
// has applied every entry the active controller had applied when Settle
// was called. Without an active controller it returns at once.
func (r *Remote) Settle() {
	leader := leaderOf(r.Status())
	if leader == nil {
		return
	}
	target := leader.AppliedIndex
	deadline := time.Now().Add(r.cfg.SettleWait)
	for time.Now().Before(deadline) {
		done := true
		for _, s := range r.Status() {
			if s.Role != "shutdown" && s.AppliedIndex < target {
				done = false
			}
		}
		if done {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Crash cannot crash a controller in another process.
func (r *Remote) Crash(id int) error {
	if err := r.checkID(id); err != nil {
		return err
	}
	return fmt.Errorf("quorum: controller %d runs in its own process: stop it there (Ctrl-C, or kill -9 for a crash)", id)
}

// Restart cannot start a controller in another process.
func (r *Remote) Restart(id int) error {
	if err := r.checkID(id); err != nil {
		return err
	}
	return fmt.Errorf("quorum: controller %d runs in its own process: start it again with `loglab controller -id %d` and the same -voters and -data-dir", id, id)
}

// Partition cannot cut the network between other processes; healing
// everything (nil) is a no-op.
func (r *Remote) Partition(connected func(a, b int) bool) error {
	if connected == nil {
		return nil
	}
	return fmt.Errorf("quorum: the controllers run in their own processes and talk over TCP: net partition cannot cut them apart (cut the network between the processes instead)")
}

// TransferLeadership cannot move another process's leadership; it
// reports where the leadership is instead.
func (r *Remote) TransferLeadership(id int) error {
	if leader := r.Leader(); leader != id {
		return fmt.Errorf("quorum: controller %d leads; controllers in their own processes elect on their own", leader)
	}
	return nil
}

func (r *Remote) checkID(id int) error {
	if id < 1 || id > len(r.cfg.APIs) {
		return fmt.Errorf("quorum: no controller %d (there are %d)", id, len(r.cfg.APIs))
	}
	return nil
}

// Close closes idle connections; the controllers keep running.
func (r *Remote) Close() error {
	r.client.CloseIdleConnections()
	return nil
}

// onActive sends a request to the active controller and decodes its answer
// into out. It tries the controller that answered last first, then the one
// a 421 names, then the others, and goes round again until LeaderWait.
// Another 4xx fails at once: asking again would not help.
func (r *Remote) onActive(method, path string, body []byte, out any) error {
	deadline := time.Now().Add(r.cfg.LeaderWait)
	var last error
	for {
		r.mu.Lock()
		queue := append([]string{r.hint}, r.cfg.APIs...)
		r.mu.Unlock()
		tried := map[string]bool{"": true}
		for len(queue) > 0 {
			api := queue[0]
			queue = queue[1:]
			if tried[api] {
				continue
			}
			tried[api] = true
			ctx, cancel := context.WithDeadline(context.Background(), r.tryDeadline(deadline))
			code, apiErr, err := r.do(ctx, method, api, path, body, out)
			cancel()
			switch {
			case err != nil:
				last = err
			case code == http.StatusOK:
				r.mu.Lock()
				r.hint = api
				r.mu.Unlock()
				return nil
			case code == http.StatusMisdirectedRequest:
				last = fmt.Errorf("controller at %s: %s", api, apiErr.Error)
				if apiErr.LeaderAPI != "" {
					queue = append([]string{apiErr.LeaderAPI}, queue...)
				}
			case code >= 400 && code < 500:
				return fmt.Errorf("quorum: controller at %s refused %s %s: %s", api, method, path, apiErr.Error)
			default:
				last = fmt.Errorf("controller at %s: %d %s", api, code, apiErr.Error)
			}
		}
		if !time.Now().Before(deadline) {
			return fmt.Errorf("%w: no active controller answered within %s (last: %v)", ErrNotController, r.cfg.LeaderWait, last)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// tryDeadline is one request's deadline: RequestTimeout, cut to the
// overall deadline but never below a short minimum, so the last round
// still gets its answers.
func (r *Remote) tryDeadline(deadline time.Time) time.Time {
	d := time.Now().Add(r.cfg.RequestTimeout)
	if deadline.Before(d) {
		d = deadline
	}
	if floor := time.Now().Add(100 * time.Millisecond); d.Before(floor) {
		d = floor
	}
	return d
}

// do sends one request. A 200 is decoded into out, anything else into the
// returned apiError; err is for a request that got no answer.
func (r *Remote) do(ctx context.Context, method, api, path string, body []byte, out any) (int, apiError, error) {
	var apiErr apiError
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	url := api
	if !strings.Contains(url, "://") {
		url = "http://" + url
	}
	req, err := http.NewRequestWithContext(ctx, method, url+path, rd)
	if err != nil {
		return 0, apiErr, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := r.client.Do(req)
	if err != nil {
		return 0, apiErr, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, apiErr, err
	}
	if resp.StatusCode != http.StatusOK {
		if json.Unmarshal(data, &apiErr) != nil || apiErr.Error == "" {
			apiErr.Error = strings.TrimSpace(string(data))
		}
		return resp.StatusCode, apiErr, nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return 0, apiErr, fmt.Errorf("controller at %s: %s %s: %w", api, method, path, err)
	}
	return resp.StatusCode, apiErr, nil
}
