package sim

import "math/rand/v2"

// NewRand returns the cluster's single source of randomness, a PCG seeded
// from the cluster seed so that the same seed replays the same choices.
func NewRand(seed uint64) *rand.Rand {
	// PCG takes two words of state; deriving the second from the first keeps
	// the lab language's single `seed=` number the whole story.
	return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
}
