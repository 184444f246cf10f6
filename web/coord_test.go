package web

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// coord prints what strconv.FormatFloat(f, 'f', 1, 64) prints, for the
// charts' coordinates and for the values that test its shortcut: halves,
// near-halves, whole numbers, tiny and huge values, negatives and NaN.
func TestCoordPrintsAsFormatFloat(t *testing.T) {
	values := []float64{0, 0.05, 0.15, 0.25, 0.35, 0.45, 1.05, 2.5, 12.95, 12.9499999999, 12.9500000001, 99.99, 99.95,
		chartW, chartH, chartPadL, 1e8 - 0.05, 1e8 + 0.05, 1e12, -0.05, -3.25, math.NaN(), math.Inf(1), math.SmallestNonzeroFloat64}
	r := rand.New(rand.NewPCG(1, 2))
	for range 200000 {
		values = append(values, r.Float64()*1000, float64(r.IntN(100000))/100, float64(r.IntN(100000))/20)
	}
	for _, f := range values {
		if got, want := coord(f), strconv.FormatFloat(f, 'f', 1, 64); got != want {
			t.Errorf("coord(%v) = %q, FormatFloat says %q", f, got, want)
		}
	}
}
