package sim

// Trace keeps the most recent messages for the UI to draw.
type Trace struct {
	limit int
	envs  []*Envelope
}

// NewTrace keeps up to limit envelopes.
func NewTrace(limit int) *Trace { return &Trace{limit: limit} }

func (t *Trace) add(e *Envelope) {
	t.envs = append(t.envs, e)
	if len(t.envs) > t.limit {
		t.envs = t.envs[len(t.envs)-t.limit:]
	}
}

// Recent returns the recorded envelopes, oldest first.
func (t *Trace) Recent() []*Envelope { return append([]*Envelope(nil), t.envs...) }
