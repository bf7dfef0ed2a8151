package viz

import (
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
)

// DecadeTicks marks a log axis: a labelled major tick at each power of ten
// in range (every second or third one labelled when more than eight
// decades would crowd the axis), and unlabelled minor ticks at 2…9 times
// each power where at most five decades are shown. gonum/plot's LogTicks
// labels every tick it draws, which over a residual's 10 decades prints
// some fifty overlapping labels.
type DecadeTicks struct{}

// Ticks implements plot.Ticker.
func (DecadeTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(lo > 0) || !(hi >= lo) || math.IsInf(hi, 0) {
		return nil
	}
	e0, e1 := int(math.Floor(math.Log10(lo))), int(math.Ceil(math.Log10(hi)))
	decades := e1 - e0
	every := 1
	switch {
	case decades > 16:
		every = 4
	case decades > 12:
		every = 3
	case decades > 8:
		every = 2
	}
	var ts []plot.Tick
	for e := e0; e <= e1; e++ {
		v := math.Pow(10, float64(e))
		if v >= lo*(1-1e-12) && v <= hi*(1+1e-12) {
			label := ""
			if e%every == 0 {
				label = Number(v)
			}
			ts = append(ts, plot.Tick{Value: v, Label: label})
		}
		if decades <= 5 {
			for m := 2; m <= 9; m++ {
				if w := float64(m) * v; w >= lo && w <= hi {
					ts = append(ts, plot.Tick{Value: w})
				}
			}
		}
	}
	if len(ts) == 0 || !hasLabel(ts) {
		// Less than a decade with no power of ten in it: label the ends.
		ts = append(ts, plot.Tick{Value: lo, Label: Number(lo)}, plot.Tick{Value: hi, Label: Number(hi)})
	}
	return ts
}

// LinearTicks marks a linear axis at round numbers: labelled major ticks
// every 1, 2 or 5 times a power of ten, the step that gives 4 to 10 of
// them in range (0, 1, 2, 3, 4 over [0, 4], not gonum/plot's default
// 0.5, 2, 3.5), and unlabelled minor ticks that split each step in 5 (or
// 4 for a step of 2·10ᵏ). An empty or reversed range gets its ends.
type LinearTicks struct{}

// Ticks implements plot.Ticker.
func (LinearTicks) Ticks(lo, hi float64) []plot.Tick {
	if math.IsNaN(lo) || math.IsNaN(hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) || !(hi > lo) {
		return []plot.Tick{{Value: lo, Label: Number(lo)}, {Value: hi, Label: Number(hi)}}
	}
	p := math.Pow(10, math.Floor(math.Log10(hi-lo)))
	step, minor := p, 5
	// The largest step of 1, 2, 5 × 10ᵏ (down from the range's own power)
	// that leaves at least 4 major ticks in range.
	for _, c := range []struct {
		m     float64
		minor int
	}{{5, 5}, {2, 4}, {1, 5}, {0.5, 5}, {0.2, 4}, {0.1, 5}} {
		step, minor = c.m*p, c.minor
		if math.Floor(hi/step)-math.Ceil(lo/step)+1 >= 4 {
			break
		}
	}
	var ts []plot.Tick
	sub := step / float64(minor)
	eps := 1e-9 * step
	for i := math.Ceil((lo - eps) / sub); i*sub <= hi+eps; i++ {
		v := i * sub
		if math.Abs(v) < eps {
			v = 0 // no −0 or rounding crumbs
		}
		if math.Mod(i, float64(minor)) == 0 {
			// A multiple of the step: i·sub is rounded, i/minor·step is the
			// exact multiple's nearest float.
			v = i / float64(minor) * step
			if v == 0 {
				v = 0 // not −0
			}
			ts = append(ts, plot.Tick{Value: v, Label: Number(v)})
		} else {
			ts = append(ts, plot.Tick{Value: v})
		}
	}
	return ts
}

func hasLabel(ts []plot.Tick) bool {
	for _, t := range ts {
		if t.Label != "" {
			return true
		}
	}
	return false
}

// Number formats a tick value plainly: decimals between 1e-4 and 1e6
// (0.001, 2.5, 3000, not 1e-03 or 3e+03), else a mantissa and a signed
// exponent without padding (1e-07, 2.5e8 become 1e-7, 2.5e8), with the
// fewest digits that give v back to 6 significant digits.
func Number(v float64) string {
	return number(v, -1)
}

// number formats v rounded to prec significant digits (-1: 6), with no
// more digits than that takes.
func number(v float64, prec int) string {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	if prec < 0 {
		prec = 6
	}
	// Rounded to prec digits first: a tick at 3·0.1 prints 0.3.
	v, _ = strconv.ParseFloat(strconv.FormatFloat(v, 'g', prec, 64), 64)
	a := math.Abs(v)
	if a >= 1e-4 && a < 1e6 {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	s := strconv.FormatFloat(v, 'e', -1, 64)
	mant, exp, _ := strings.Cut(s, "e")
	sign := ""
	if exp[0] == '-' {
		sign = "-"
	}
	exp = strings.TrimLeft(exp[1:], "0")
	return mant + "e" + sign + exp
}
