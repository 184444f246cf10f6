package server

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
)

// A workshop has two roles. The instructor holds the token `loglab serve`
// prints (…/live?token=T): they drive the cluster everyone watches on
// /live. A participant is anyone else: identified by a random token the
// server hands out (a cookie for a browser, the answer of POST
// /api/v1/clusters for a script), they watch every cluster and drive
// only their own. Tokens are bearer secrets, so they are compared in
// constant time and a participant's is kept on disk only as a hash.
const (
	instructorCookie  = "loglab_instructor"
	participantCookie = "loglab_participant"
)

// role is who sent a request.
type role struct {
	instructor bool
	// participant is the hash of the participant's token (ownerKey), empty
	// when the request carries none.
	participant string
}

// roleOf reads a request's credentials: an Authorization: Bearer token
// (API clients), else the cookies a page was given.
func (s *Server) roleOf(r *http.Request) role {
	if auth := r.Header.Get(echo.HeaderAuthorization); auth != "" {
		token, ok := strings.CutPrefix(auth, "Bearer ")
		if !ok {
			return role{}
		}
		return s.roleOfToken(strings.TrimSpace(token))
	}
	if c, err := r.Cookie(instructorCookie); err == nil && s.isInstructorToken(c.Value) {
		return role{instructor: true}
	}
	if c, err := r.Cookie(participantCookie); err == nil && validParticipantToken(c.Value) {
		return role{participant: ownerKey(c.Value)}
	}
	return role{}
}

func (s *Server) roleOfToken(token string) role {
	if s.isInstructorToken(token) {
		return role{instructor: true}
	}
	if validParticipantToken(token) {
		return role{participant: ownerKey(token)}
	}
	return role{}
}

func (s *Server) isInstructorToken(token string) bool {
	return subtle.ConstantTimeCompare([]byte(token), []byte(s.instructorToken)) == 1
}

// newToken is a random 128-bit token, hex-encoded.
func newToken() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("server: no randomness for a token: " + err.Error())
	}
	return hex.EncodeToString(b[:])
}

// validParticipantToken accepts what newToken makes: a client cannot pick
// a short or odd identity (a name that would be a path, a huge cookie).
func validParticipantToken(t string) bool {
	if len(t) != 32 {
		return false
	}
	_, err := hex.DecodeString(t)
	return err == nil
}

// ownerKey is what the server keeps of a participant's token: its hash,
// so a leaked data directory does not hand out the participants' clusters.
func ownerKey(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// mayDrive reports whether r may run commands on the cluster: the
// instructor drives every cluster (a trainer helps a stuck participant), a
// participant only their own.
func (r role) mayDrive(s *liveSession) bool {
	return r.instructor || (r.participant != "" && r.participant == s.owner)
}

// refusalFor is the message a non-driver's command is answered with.
func refusalFor(s *liveSession, r role) string {
	if s.owner == "" {
		if r.participant != "" {
			return "error: CLUSTER_AUTHORIZATION_FAILED: this is the instructor's cluster: only the instructor runs commands on it, everyone watches; open a cluster of your own (the \"Open my own cluster\" button, or POST /api/v1/clusters) to try commands"
		}
		return "error: CLUSTER_AUTHORIZATION_FAILED: this is the instructor's cluster: only the instructor runs commands on it (open /live?token=… with the token `loglab serve` printed, or send Authorization: Bearer …)"
	}
	return "error: CLUSTER_AUTHORIZATION_FAILED: cluster " + s.id + " belongs to another participant: you may watch it, not drive it; open a cluster of your own to try commands"
}

// setCookie gives a page a credential: HttpOnly (no script reads it),
// SameSite=Lax (another site's page cannot send it with a POST or a
// websocket, which carry the commands and are checked for their origin
// too; but a participant who follows the /live link from a chat or a
// shared document still arrives with theirs, instead of being handed a
// new identity that no longer owns their cluster).
func setCookie(c echo.Context, name, value string) {
	c.SetCookie(&http.Cookie{Name: name, Value: value, Path: "/", HttpOnly: true, SameSite: http.SameSiteLaxMode, MaxAge: 30 * 24 * 3600})
}
