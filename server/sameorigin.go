package server

import (
	"mime"
	"net/http"
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"
)

// sameOriginOnly guards every state-changing request (anything but GET,
// HEAD and OPTIONS): a workshop server listens on the participants'
// network, and any page a participant visits can make their browser POST
// to it. A "simple" cross-site POST (text/plain, no CORS preflight) once
// wiped a data directory. So such a request must come from this server's
// own origin, when the browser says where it comes from (Origin, Sec-Fetch-
// Site), and carry a JSON body, which no cross-site form or simple fetch
// can send without a preflight this server never grants. curl and scripts
// send no Origin and pass with a JSON Content-Type. The websocket checks
// its Origin itself (coder/websocket's Accept).
func sameOriginOnly(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		switch r.Method {
		case http.MethodGet, http.MethodHead, http.MethodOptions:
			return next(c)
		}
		if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" && site != "none" {
			return echo.NewHTTPError(http.StatusForbidden, "cross-site requests may not change the live cluster (Sec-Fetch-Site: "+site+")")
		}
		if origin := r.Header.Get("Origin"); origin != "" && !sameHost(origin, r.Host) {
			return echo.NewHTTPError(http.StatusForbidden, "requests from another origin may not change the live cluster ("+origin+")")
		}
		if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
			return echo.NewHTTPError(http.StatusUnsupportedMediaType, "expected Content-Type: application/json")
		}
		return next(c)
	}
}

// sameHost reports whether an Origin header names the host the request
// was sent to, as coder/websocket compares them for the websocket. An
// opaque origin ("null": a sandboxed frame, a file) is never this host.
func sameHost(origin, host string) bool {
	u, err := url.Parse(origin)
	return err == nil && u.Host != "" && strings.EqualFold(u.Host, host)
}
