package loadtest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"
)

// apiClient drives the server over its HTTP API as a script or a browser
// would: one per role (the instructor, each participant), each from its
// own loopback address when the machine has them, so that per-address
// budgets (POST /api/command's 10 per second) count each participant
// apart, as they would on a workshop's network.
type apiClient struct {
	base  string // http://127.0.0.1:PORT
	token string // sent as Authorization: Bearer
	http  *http.Client
}

// newHTTPClient makes an http.Client whose connections leave from local
// (nil: the kernel's choice), and counts what it reads in wire when wire
// is not nil.
func newHTTPClient(local net.Addr, wire *counter) *http.Client {
	d := &net.Dialer{LocalAddr: local, Timeout: 10 * time.Second}
	return &http.Client{
		Transport: &http.Transport{
			DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
				c, err := d.DialContext(ctx, network, addr)
				if err != nil || wire == nil {
					return c, err
				}
				return &countingConn{Conn: c, read: wire}, nil
			},
			MaxIdleConnsPerHost: 2,
			// The websocket handshake must reach the server as HTTP/1.1
			// with an Upgrade header: no HTTP/2 on loopback anyway.
			ForceAttemptHTTP2: false,
		},
	}
}

// apiError is an answer the API gave with a status that is not 2xx.
type apiError struct {
	status int
	body   string
}

func (e *apiError) Error() string {
	return fmt.Sprintf("HTTP %d: %s", e.status, strings.TrimSpace(e.body))
}

// statusOf is err's HTTP status, 0 when err is not an answer (a transport
// failure).
func statusOf(err error) int {
	var ae *apiError
	if errors.As(err, &ae) {
		return ae.status
	}
	return 0
}

// do sends a JSON request and decodes a 2xx JSON answer into out.
func (c *apiClient) do(ctx context.Context, method, path string, in, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, body)
	if err != nil {
		return err
	}
	if method != http.MethodGet {
		// The server takes a state-changing request only with a JSON
		// Content-Type (sameOriginOnly), a body or not.
		req.Header.Set("Content-Type", "application/json")
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 {
		return &apiError{status: resp.StatusCode, body: string(b)}
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(b, out)
}

// commandResult is the API's answer to a command.
type commandResult struct {
	Output string `json:"output"`
	OK     bool   `json:"ok"`
}

// command runs one lab command on cluster id.
func (c *apiClient) command(ctx context.Context, cluster, line string) (commandResult, error) {
	var r commandResult
	err := c.do(ctx, http.MethodPost, "/api/v1/clusters/"+cluster+"/commands", map[string]string{"line": line}, &r)
	if statusOf(err) == http.StatusNotFound && cluster == instructorCluster {
		// A server from before the clusters API: its one cluster is the
		// instructor's, behind the old endpoint.
		r = commandResult{}
		err = c.do(ctx, http.MethodPost, "/api/command", map[string]string{"line": line}, &r)
	}
	return r, err
}

// createdCluster is POST /api/v1/clusters's answer.
type createdCluster struct {
	ID    string `json:"id"`
	Token string `json:"token"`
	URL   string `json:"url"`
}

// createCluster opens a participant's cluster; the answer's token is then
// the participant's credential.
func (c *apiClient) createCluster(ctx context.Context, name string) (createdCluster, error) {
	var r createdCluster
	err := c.do(ctx, http.MethodPost, "/api/v1/clusters", map[string]string{"name": name}, &r)
	return r, err
}

// deleteCluster removes a participant's cluster (its owner's request).
func (c *apiClient) deleteCluster(ctx context.Context, id string) error {
	return c.do(ctx, http.MethodDelete, "/api/v1/clusters/"+id, nil, nil)
}
