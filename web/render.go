// Package web holds the templ components that draw loglab. They see only
// engine/view's plain values, so the same components render on the server
// and inside the WASM module.
package web

import (
	"context"
	"strings"

	"github.com/a-h/templ"
)

//go:generate go tool templ generate

// RenderString renders a component to HTML, for drivers that ship fragments
// (the websocket hub, the WASM bridge) rather than write to a response.
func RenderString(ctx context.Context, c templ.Component) (string, error) {
	var b strings.Builder
	if err := c.Render(ctx, &b); err != nil {
		return "", err
	}
	return b.String(), nil
}
