package server

import (
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"

	"github.com/labstack/echo/v4"

	"github.com/loglab/loglab/engine/cluster"
	"github.com/loglab/loglab/engine/log"
	"github.com/loglab/loglab/engine/record"
)

// GET /api/v1/clusters/live/topics/{topic}/partitions/{partition}/records
// is a Kafka fetch over HTTP: the raw RecordBatch bytes of the partition
// leader's log, from the batch holding ?offset= on, sent straight from the
// segment file with sendfile(2) as a Kafka broker sends them with
// FileChannel.transferTo.
//
// Unlike Kafka's Fetch (see README, Differences from Kafka): one partition,
// no fetch session, no min.bytes/max.wait.ms long poll, and with
// read_committed no list of aborted transactions beside the bytes, so a
// reader cannot drop aborted records by itself yet.

const (
	// defaultFetchMaxBytes is the consumer's max.partition.fetch.bytes.
	defaultFetchMaxBytes = 1 << 20
	// brokerFetchMaxBytes is the broker's fetch.max.bytes (55 MiB): Kafka
	// clamps what a fetch asks for to it.
	brokerFetchMaxBytes = 55 << 20
	// maxTopicNameLength is Kafka's Topic.MAX_NAME_LENGTH.
	maxTopicNameLength = 249
)

// Which path served a fetch's bytes: zeroCopyFetches counts the responses
// handed to the connection's ReadFrom with an *os.File region (net/http
// then calls sendfile on a TCP connection), copiedFetches those copied
// through a user-space buffer. Tests read them to prove which path ran.
var zeroCopyFetches, copiedFetches atomic.Int64

// fetchError is the JSON body of a refused fetch, with Kafka's error name.
type fetchError struct {
	Error   string `json:"error"`
	Message string `json:"message"`
}

func answerFetchError(c echo.Context, status int, name, format string, args ...any) error {
	return c.JSON(status, fetchError{Error: name, Message: fmt.Sprintf(format, args...)})
}

// fetchParams is a parsed fetch request.
type fetchParams struct {
	topic         string
	partition     int
	offset        int64
	maxBytes      int64
	readCommitted bool
	json          bool
}

// parseFetchParams checks a fetch's parameters; the error is an
// INVALID_REQUEST (or INVALID_TOPIC_EXCEPTION for the name) message.
func parseFetchParams(topic, partition, offset, maxBytes, isolation, format string) (fetchParams, string, error) {
	p := fetchParams{topic: topic, maxBytes: defaultFetchMaxBytes}
	if err := validTopicName(topic); err != nil {
		return p, "INVALID_TOPIC_EXCEPTION", err
	}
	bad := func(format string, args ...any) (fetchParams, string, error) {
		return p, "INVALID_REQUEST", fmt.Errorf(format, args...)
	}
	n, err := strconv.ParseInt(partition, 10, 32)
	if err != nil || n < 0 {
		return bad("partition %q is not a partition number", partition)
	}
	p.partition = int(n)
	if offset == "" {
		return bad("offset is required: ?offset=N")
	}
	if p.offset, err = strconv.ParseInt(offset, 10, 64); err != nil {
		return bad("offset %q is not an offset", offset)
	}
	if maxBytes != "" {
		if p.maxBytes, err = strconv.ParseInt(maxBytes, 10, 64); err != nil || p.maxBytes < 0 {
			return bad("max_bytes %q is not a byte count", maxBytes)
		}
		p.maxBytes = min(p.maxBytes, brokerFetchMaxBytes)
	}
	switch isolation {
	case "", "read_uncommitted":
	case "read_committed":
		p.readCommitted = true
	default:
		return bad("isolation_level %q is neither read_uncommitted nor read_committed", isolation)
	}
	switch format {
	case "", "raw":
	case "json":
		p.json = true
	default:
		return bad("format %q is neither raw nor json", format)
	}
	return p, "", nil
}

// validTopicName is Kafka's Topic.validate: the name becomes a directory
// "<topic>-<partition>" in every broker's log directory, so only
// [a-zA-Z0-9._-], at most 249 characters, and neither "." nor "..": no
// name can leave the data directory.
func validTopicName(name string) error {
	switch {
	case name == "":
		return errors.New("topic name is illegal, it can't be empty")
	case name == "." || name == "..":
		return errors.New("topic name cannot be \".\" or \"..\"")
	case len(name) > maxTopicNameLength:
		return fmt.Errorf("topic name is illegal, it can't be longer than %d characters", maxTopicNameLength)
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-') {
			return fmt.Errorf("topic name %q is illegal, it contains a character other than ASCII alphanumerics, '.', '_' and '-'", name)
		}
	}
	return nil
}

// fetched is what the locked part of a fetch found.
type fetched struct {
	loc                          log.Location
	file                         *os.File // open on loc.Path, nil when there is nothing to send
	logStart, hw, lso, leaderEnd int64
}

// apiRecords answers a fetch on the live cluster.
func (s *Server) apiRecords(c echo.Context) error {
	q := c.QueryParams()
	p, name, err := parseFetchParams(c.Param("topic"), c.Param("partition"), q.Get("offset"), q.Get("max_bytes"), q.Get("isolation_level"), q.Get("format"))
	if err != nil {
		return answerFetchError(c, http.StatusBadRequest, name, "%v", err)
	}
	// A fetch takes the cluster's mutex as a command does, so it shares
	// the commands' per-address budget. Kafka throttles a fetch over its
	// quota by delaying it (throttle_time_ms) rather than refusing it; an
	// HTTP client gets a 429 with Kafka's name for a quota refusal.
	if !s.apiLimiter.allow(c.Request().RemoteAddr, s.now()) {
		c.Response().Header().Set("Retry-After", "1")
		return answerFetchError(c, http.StatusTooManyRequests, "THROTTLING_QUOTA_EXCEEDED", "%s", rateLimitMessage("client address"))
	}
	sess := s.clusters.get(c.Param("cluster"))
	if sess == nil {
		return answerFetchError(c, http.StatusNotFound, "UNKNOWN_CLUSTER", "no cluster %q on this server (GET /api/v1/clusters lists them)", c.Param("cluster"))
	}
	f, status, name, err := sess.locateFetch(p)
	if err != nil {
		return answerFetchError(c, status, name, "%v", err)
	}
	if f.file != nil {
		defer f.file.Close()
	}
	h := c.Response().Header()
	h.Set("X-Kafka-First-Batch-Offset", strconv.FormatInt(f.loc.FirstBatchOffset, 10))
	h.Set("X-Kafka-High-Watermark", strconv.FormatInt(f.hw, 10))
	h.Set("X-Kafka-Last-Stable-Offset", strconv.FormatInt(f.lso, 10))
	h.Set("X-Kafka-Log-Start-Offset", strconv.FormatInt(f.logStart, 10))
	if p.json {
		return answerDecoded(c, f)
	}
	return answerRaw(c, f)
}

// answerRaw sends a located fetch's bytes: the header first, then the
// region with sendfile. The fetch benchmark (bench_fetch.go) serves its
// "endpoint" path through it too.
func answerRaw(c echo.Context, f fetched) error {
	h := c.Response().Header()
	h.Set(echo.HeaderContentType, echo.MIMEOctetStream)
	h.Set(echo.HeaderContentLength, strconv.FormatInt(f.loc.Length, 10))
	c.Response().WriteHeader(http.StatusOK)
	if f.file == nil {
		return nil
	}
	// net/http copies the first 512 bytes of a ReadFrom through user
	// space when the header has not gone out yet (to sniff a Content-Type
	// and not to answer before the source is readable); sending the
	// header first leaves every byte of the batches to sendfile.
	if err := http.NewResponseController(c.Response().Unwrap()).Flush(); err != nil {
		return err
	}
	if _, err := f.file.Seek(f.loc.Position, io.SeekStart); err != nil {
		return err
	}
	// echo's Response does not pass ReadFrom on, so the bytes go to the
	// http.ResponseWriter underneath it.
	_, err := sendRegion(c.Response().Unwrap(), f.file, f.loc.Length)
	return err
}

// sendRegion writes n bytes of f from its current position to w. An
// io.LimitReader over an *os.File is what net/http's response.ReadFrom
// and net.TCPConn.ReadFrom hand to sendfile(2); anything else (a section
// reader, a wrapped writer) is a copy through user space.
func sendRegion(w io.Writer, f *os.File, n int64) (int64, error) {
	src := io.LimitReader(f, n)
	if rf, ok := w.(io.ReaderFrom); ok {
		zeroCopyFetches.Add(1)
		return rf.ReadFrom(src)
	}
	copiedFetches.Add(1)
	return io.Copy(w, src)
}

// locateFetch is the part of a fetch that needs the cluster: the leader's
// replica, the bound, the region, and the segment file opened, all under
// the cluster's mutex. The file is opened before the mutex is released,
// so that retention or the cleaner deleting the segment afterwards leaves
// this fetch its bytes (an unlinked file stays readable while open).
func (s *liveSession) locateFetch(p fetchParams) (fetched, int, string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.locateFetchLocked(p)
}

// locateFetchLocked is locateFetch with s.mu already held (by a native
// command such as `bench fetch`).
func (s *liveSession) locateFetchLocked(p fetchParams) (fetched, int, string, error) {
	var f fetched
	if s.dataDir == "" {
		return f, http.StatusNotImplemented, "INVALID_REQUEST",
			errors.New("the live cluster runs in memory: record fetches read segment files, start the server with `loglab serve -data-dir DIR`")
	}
	cl := s.lab.Cluster()
	if cl == nil {
		return f, http.StatusNotFound, "UNKNOWN_TOPIC_OR_PARTITION", errors.New("no cluster is running")
	}
	r, _, err := cl.Replica(p.topic, p.partition, 0)
	switch {
	case errors.Is(err, cluster.ErrUnknownTopicOrPartition):
		if _, infoErr := cl.PartitionInfo(p.topic, p.partition); infoErr != nil {
			return f, http.StatusNotFound, "UNKNOWN_TOPIC_OR_PARTITION", err
		}
		// The partition exists but its leader has not opened it yet.
		return f, http.StatusServiceUnavailable, "NOT_LEADER_OR_FOLLOWER", err
	case err != nil:
		return f, http.StatusServiceUnavailable, "NOT_LEADER_OR_FOLLOWER", err
	case !r.IsLeader():
		return f, http.StatusServiceUnavailable, "NOT_LEADER_OR_FOLLOWER",
			fmt.Errorf("the broker the metadata names leader of %s/%d does not lead it yet", p.topic, p.partition)
	}
	f.logStart, f.hw, f.lso, f.leaderEnd = r.Log.StartOffset(), r.HW, r.LastStableOffset(), r.Log.EndOffset()
	bound := f.hw
	if p.readCommitted {
		bound = f.lso
	}
	// Kafka's fetch from a consumer: an offset up to the log end is in
	// range (between the bound and the log end the answer is empty), one
	// beyond it or below the log start is OFFSET_OUT_OF_RANGE.
	if f.loc, err = r.Log.Locate(p.offset, p.maxBytes, bound); err != nil {
		if errors.Is(err, log.ErrOffsetOutOfRange) {
			return f, http.StatusRequestedRangeNotSatisfiable, "OFFSET_OUT_OF_RANGE", err
		}
		return f, http.StatusInternalServerError, "KAFKA_STORAGE_ERROR", err
	}
	if f.loc.Path == "" {
		return f, 0, "", nil
	}
	// Locate's path is relative to the cluster's storage, osfs rooted at
	// the data directory; the topic name was validated, so it stays inside.
	if f.file, err = os.Open(filepath.Join(s.dataDir, filepath.FromSlash(f.loc.Path))); err != nil {
		return f, http.StatusInternalServerError, "KAFKA_STORAGE_ERROR", err
	}
	return f, 0, "", nil
}

// decodedRecord is one record of a format=json fetch.
type decodedRecord struct {
	Offset    int64           `json:"offset"`
	Timestamp int64           `json:"timestamp"`
	Key       *string         `json:"key"`   // base64, null for a null key
	Value     *string         `json:"value"` // base64, null for a tombstone
	Headers   []decodedHeader `json:"headers"`
	// The batch's fields a consumer acts on: control records (transaction
	// markers) are skipped by consumers, and a read_committed consumer
	// drops the records of aborted transactions by producer id.
	ProducerID    int64 `json:"producer_id"`
	Transactional bool  `json:"transactional"`
	Control       bool  `json:"control"`
}

type decodedHeader struct {
	Key   string  `json:"key"`
	Value *string `json:"value"`
}

type decodedFetch struct {
	FirstBatchOffset int64           `json:"first_batch_offset"`
	HighWatermark    int64           `json:"high_watermark"`
	LastStableOffset int64           `json:"last_stable_offset"`
	LogStartOffset   int64           `json:"log_start_offset"`
	Records          []decodedRecord `json:"records"`
}

func b64(b []byte) *string {
	if b == nil {
		return nil
	}
	s := base64.StdEncoding.EncodeToString(b)
	return &s
}

// answerDecoded reads the region into memory and answers its records.
func answerDecoded(c echo.Context, f fetched) error {
	out := decodedFetch{FirstBatchOffset: f.loc.FirstBatchOffset, HighWatermark: f.hw, LastStableOffset: f.lso,
		LogStartOffset: f.logStart, Records: []decodedRecord{}}
	if f.file != nil {
		raw := make([]byte, f.loc.Length)
		if _, err := f.file.ReadAt(raw, f.loc.Position); err != nil {
			return answerFetchError(c, http.StatusInternalServerError, "KAFKA_STORAGE_ERROR", "%v", err)
		}
		for len(raw) > 0 {
			b, n, err := record.Decode(raw)
			if err != nil {
				return answerFetchError(c, http.StatusInternalServerError, "CORRUPT_MESSAGE", "%v", err)
			}
			raw = raw[n:]
			for _, r := range b.Records {
				d := decodedRecord{Offset: b.Offset(r), Timestamp: b.Timestamp(r), Key: b64(r.Key), Value: b64(r.Value),
					Headers: []decodedHeader{}, ProducerID: b.ProducerID, Transactional: b.IsTransactional(), Control: b.IsControl()}
				for _, h := range r.Headers {
					d.Headers = append(d.Headers, decodedHeader{Key: h.Key, Value: b64(h.Value)})
				}
				out.Records = append(out.Records, d)
			}
		}
	}
	return c.JSON(http.StatusOK, out)
}
