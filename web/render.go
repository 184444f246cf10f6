// Package web holds the templ components that draw loglab. They see only
// engine/view's plain values, so the same components render on the server
// and inside the WASM module.
package web

import (
	"bytes"
	"context"
	"sync"

	"github.com/a-h/templ"
)

//go:generate go tool templ generate

// RenderString renders a component to HTML, for drivers that ship fragments
// (the websocket hub, the WASM bridge) rather than write to a response.
func RenderString(ctx context.Context, c templ.Component) (string, error) {
	b := renderBuffer()
	defer releaseRenderBuffer(b)
	if err := c.Render(ctx, b); err != nil {
		return "", err
	}
	return b.String(), nil
}

// renderBuffers are the buffers components are drawn into, kept for the
// next drawing: a topic of 12 partitions is 170 KB of HTML, and a fresh
// buffer growing to it by doubling (twice: keyed's and RenderString's)
// made about 750 KB of garbage at each drawing, which the browser lab's
// garbage collector then spent its time on.
var renderBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// keptBufferCap is the largest buffer kept: a whole view is a few hundred
// KB; a rare larger drawing's buffer is left to the collector.
const keptBufferCap = 1 << 20

func renderBuffer() *bytes.Buffer { return renderBuffers.Get().(*bytes.Buffer) }

func releaseRenderBuffer(b *bytes.Buffer) {
	if b.Cap() > keptBufferCap {
		return
	}
	b.Reset()
	renderBuffers.Put(b)
}
