package viz

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/gpusim/gpusim/fclib"
	"github.com/gpusim/gpusim/internal/atomicfile"
)

// PlotResiduals writes to path the PNG plot of gpusim compare: the
// residual of eq. 25 of each solve in rs against the iteration, or with
// byTime against the wall time (fclib.IterTime: iterations × the mean time
// per iteration), both axes logarithmic but the iteration's, one line per
// solver (tab10 colours, solid for the first ten, dashed after), and tol,
// when positive, as a dashed grey line; like Fig. 5 of the APGD paper.
// Iterations whose residual or time is not positive and finite are left
// out.
func PlotResiduals(path, title string, rs []*fclib.Result, tol float64, byTime bool) error {
	pl := plot.New()
	pl.Title.Text = title
	pl.Y.Label.Text = "residual (eq. 25)"
	pl.Y.Scale = plot.LogScale{}
	pl.Y.Tick.Marker = DecadeTicks{}
	if byTime {
		pl.X.Label.Text = "wall time (s), iterations × mean time per iteration"
		pl.X.Scale = plot.LogScale{}
		pl.X.Tick.Marker = DecadeTicks{}
	} else {
		pl.X.Label.Text = "iteration"
	}
	pl.Add(plotter.NewGrid())
	xr, yr := span{}, span{}
	for i, r := range rs {
		var pts plotter.XYs
		for _, h := range r.Stats.History {
			x := float64(h.Iter)
			if byTime {
				x = fclib.IterTime(h.Iter, len(r.Stats.History), r.Wall)
			}
			if !(h.Residual > 0) || math.IsInf(h.Residual, 0) || !(x > 0) || math.IsInf(x, 0) {
				continue
			}
			pts = append(pts, plotter.XY{X: x, Y: h.Residual})
			xr.add(x)
			yr.add(h.Residual)
		}
		if len(pts) == 0 {
			continue
		}
		l, err := plotter.NewLine(pts)
		if err != nil {
			return fmt.Errorf("plot %s: %w", r.Solver, err)
		}
		l.Color = lineColors[i%len(lineColors)]
		l.Width = vg.Points(1.5)
		l.Dashes = plotutil.Dashes(i / len(lineColors)) // solid for the first ten
		pl.Add(l)
		pl.Legend.Add(r.Solver, l)
	}
	if tol > 0 && xr.ok() {
		yr.add(tol)
		l, err := plotter.NewLine(plotter.XYs{{X: xr.lo, Y: tol}, {X: xr.hi, Y: tol}})
		if err != nil {
			return fmt.Errorf("plot tolerance: %w", err)
		}
		l.Color = color.Gray{Y: 90}
		l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		pl.Add(l)
		pl.Legend.Add("tol", l)
	}
	pl.Legend.Top = true
	pl.X.Min, pl.X.Max = xr.rangeFor(byTime)
	pl.Y.Min, pl.Y.Max = yr.rangeFor(true)
	return WriteAll(pl, path, atomicfile.WriteBytes)
}

// span is the range of the values added to it.
type span struct{ lo, hi float64 }

func (s *span) ok() bool { return s.hi > 0 }

func (s *span) add(v float64) {
	if !s.ok() {
		s.lo, s.hi = v, v
		return
	}
	s.lo, s.hi = min(s.lo, v), max(s.hi, v)
}

// rangeFor returns an axis range that holds the span: widened to a decade
// each way on a log axis when it is a single value, to [1, 10] when empty.
func (s span) rangeFor(log bool) (float64, float64) {
	if !s.ok() {
		return 1, 10
	}
	if s.lo < s.hi {
		return s.lo, s.hi
	}
	if log {
		return s.lo / 10, s.hi * 10
	}
	return s.lo - 1, s.hi + 1
}
