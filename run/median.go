package run

import (
	"math"
	"slices"
)

// stepTimer collects the wall time of every step for the summary's mean
// and median without growing with the run: it keeps the times themselves
// for the first exactSteps steps (8 MiB), then a histogram of them in
// logarithmic bins of 0.1 % width, from which the median is read to that
// precision. A run of a billion steps thus needs no more memory than one
// of a million.
type stepTimer struct {
	n     int
	total float64
	exact []float64
	bins  map[int32]int64 // bin → count, once past exactSteps
}

const (
	exactSteps = 1 << 20
	binWidth   = 1e-3 // relative width of a histogram bin
)

func binOf(s float64) int32 {
	if !(s > 0) {
		return math.MinInt32
	}
	return int32(math.Floor(math.Log(s) / math.Log1p(binWidth)))
}

// add records one step's wall time (s).
func (t *stepTimer) add(s float64) {
	t.n++
	t.total += s
	if t.bins == nil && len(t.exact) < exactSteps {
		t.exact = append(t.exact, s)
		return
	}
	if t.bins == nil {
		t.bins = make(map[int32]int64)
		for _, v := range t.exact {
			t.bins[binOf(v)]++
		}
		t.exact = nil
	}
	t.bins[binOf(s)]++
}

// mean returns the mean step time (0 without steps).
func (t *stepTimer) mean() float64 {
	if t.n == 0 {
		return 0
	}
	return t.total / float64(t.n)
}

// median returns the median step time: exact up to exactSteps steps, the
// geometric centre of the median's bin beyond (0 without steps).
func (t *stepTimer) median() float64 {
	if t.n == 0 {
		return 0
	}
	if t.bins == nil {
		v := slices.Clone(t.exact)
		slices.Sort(v)
		n := len(v)
		if n%2 == 0 {
			return (v[n/2-1] + v[n/2]) / 2
		}
		return v[n/2]
	}
	keys := make([]int32, 0, len(t.bins))
	for k := range t.bins {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	half := int64(t.n+1) / 2
	var c int64
	for _, k := range keys {
		if c += t.bins[k]; c >= half {
			if k == math.MinInt32 {
				return 0
			}
			return math.Pow(1+binWidth, float64(k)+0.5)
		}
	}
	return 0
}
