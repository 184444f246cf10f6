package client

import (
	"math"
	"math/rand/v2"
	"time"
)

// Kafka's client backoff defaults (KIP-580, Kafka 3.7+): retry.backoff.ms
// doubles at each failed attempt up to retry.backoff.max.ms, with 20%
// jitter so that many clients do not retry in lockstep.
const (
	DefaultRetryBackoff    = 100 * time.Millisecond
	DefaultRetryBackoffMax = time.Second
	backoffMultiplier      = 2
	backoffJitter          = 0.2
)

// exponentialBackoff is Kafka's ExponentialBackoff: initial * 2^attempts,
// jittered by ±20%, capped at max. The jitter comes from the seeded RNG,
// so a run replays exactly.
type exponentialBackoff struct {
	initial, max time.Duration
}

// backoff is how long to wait after attempts failures (0: the first wait).
func (b exponentialBackoff) backoff(attempts int, rng *rand.Rand) time.Duration {
	initial := min(b.initial, b.max)
	if b.max <= initial {
		// Kafka's expMax == 0: no growth and no jitter.
		return initial
	}
	expMax := math.Log(float64(b.max)/float64(max(initial, time.Millisecond))) / math.Log(backoffMultiplier)
	term := float64(initial) * math.Pow(backoffMultiplier, min(float64(attempts), expMax))
	factor := 1.0
	if rng != nil {
		factor = 1 - backoffJitter + 2*backoffJitter*rng.Float64()
	}
	// Kafka truncates to whole milliseconds.
	d := time.Duration(factor*term) / time.Millisecond * time.Millisecond
	return min(d, b.max)
}
