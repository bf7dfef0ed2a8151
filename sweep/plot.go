package sweep

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/gpusim/gpusim/viz"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// DefaultOver lists the varied keys a plot against x averages over when
// none are given: those whose last dotted element is "seed" (seed,
// generators.0.seed), except x.
func DefaultOver(keys []string, x string) []string {
	var over []string
	for _, k := range keys {
		if k != x && (k == "seed" || strings.HasSuffix(k, ".seed")) {
			over = append(over, k)
		}
	}
	return over
}

// PlotFile is the name of the plot of result y against parameter x:
// collect-Y-vs-X.png, characters other than letters, digits, '.', '_' and
// '-' replaced by '_'.
func PlotFile(x, y string) string {
	clean := func(s string) string {
		return strings.Map(func(r rune) rune {
			if r < 128 && (r == '.' || r == '_' || r == '-' || ('0' <= r && r <= '9') || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z')) {
				return r
			}
			return '_'
		}, s)
	}
	return "collect-" + clean(y) + "-vs-" + clean(x) + ".png"
}

// PlotOptions are Plot's options.
type PlotOptions struct {
	// LogX and LogY: logarithmic x and y axes.
	LogX, LogY bool
}

// point is the runs of one line at one x.
type point struct {
	x  float64
	ys []float64
}

// errPoints are a line's means with their error bars.
type errPoints struct {
	plotter.XYs
	plotter.YErrors
}

// Plot draws result y of the done runs against parameter x into
// c.Dir/PlotFile(x, y) and returns its path. The runs are grouped by the
// values of the varied parameters other than x and those in over: one line
// per group (legend: those values), through the mean of y over the runs at
// each x; where more than one run shares a point (several seeds, with over
// the seed keys) the point carries an error bar of ± one sample standard
// deviation. x must take numeric values; a done run that lacks y (escaped
// in a scene without a box) is left out. opt.LogX and opt.LogY make the
// axes logarithmic (for parameters spread over decades, such as a
// logspace of slab masses); every value plotted on such an axis must then
// be positive, and an error bar that would reach zero or below is cut at
// a tenth of its point's value.
func (c *Collection) Plot(x, y string, over []string, opt PlotOptions) (string, error) {
	if err := c.checkXY(x, y); err != nil {
		return "", err
	}
	for _, o := range over {
		if o == x || !slices.Contains(c.Manifest.Keys, o) {
			return "", fmt.Errorf("sweep: --over %q is not a varied parameter other than --x %s (have %s)", o, x, strings.Join(c.Manifest.Keys, ", "))
		}
	}
	var groups []string
	lines := map[string][]point{}
	for _, row := range c.Rows {
		v, ok := c.resultValue(row, y)
		if !ok || math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		raw, _ := row.Run.Params.Get(x)
		xv, err := strconv.ParseFloat(string(raw), 64)
		if err != nil {
			return "", fmt.Errorf("sweep: --x %s: run %d's value %s is not a number", x, row.Run.Index, raw)
		}
		if opt.LogX && !(xv > 0) {
			return "", fmt.Errorf("sweep: --x %s on a log axis: run %d's value %s is not positive", x, row.Run.Index, raw)
		}
		if opt.LogY && !(v > 0) {
			return "", fmt.Errorf("sweep: --y %s on a log axis: run %d's value %g is not positive", y, row.Run.Index, v)
		}
		var label []string
		for _, p := range row.Run.Params {
			if p.Key != x && !slices.Contains(over, p.Key) {
				label = append(label, p.Key+"="+paramText(p.Value))
			}
		}
		g := strings.Join(label, ", ")
		if _, ok := lines[g]; !ok {
			groups = append(groups, g)
		}
		pts := lines[g]
		k := slices.IndexFunc(pts, func(p point) bool { return p.x == xv })
		if k < 0 {
			pts = append(pts, point{x: xv})
			k = len(pts) - 1
		}
		pts[k].ys = append(pts[k].ys, v)
		lines[g] = pts
	}
	if len(groups) == 0 {
		return "", fmt.Errorf("sweep: %s: no done run has %s: nothing to plot", c.Dir, y)
	}
	pl := plot.New()
	pl.Title.Text = y + " vs " + x
	if len(over) > 0 {
		pl.Title.Text += " (mean ± sample std over " + strings.Join(over, ", ") + ")"
	}
	pl.X.Label.Text = Label(x)
	pl.Y.Label.Text = Label(y)
	if opt.LogX {
		pl.X.Scale, pl.X.Tick.Marker = plot.LogScale{}, viz.DecadeTicks{}
		pl.X.Label.Text += " (log scale)"
	}
	if opt.LogY {
		pl.Y.Scale, pl.Y.Tick.Marker = plot.LogScale{}, viz.DecadeTicks{}
		pl.Y.Label.Text += " (log scale)"
	}
	pl.Add(plotter.NewGrid())
	for i, g := range groups {
		pts := lines[g]
		slices.SortFunc(pts, func(a, b point) int {
			if a.x < b.x {
				return -1
			}
			if a.x > b.x {
				return 1
			}
			return 0
		})
		var ep errPoints
		bars := false
		for _, p := range pts {
			m, sd := meanStd(p.ys)
			low := sd
			if opt.LogY && m-low <= 0 {
				low = 0.9 * m // the log axis has no zero
			}
			ep.XYs = append(ep.XYs, plotter.XY{X: p.x, Y: m})
			ep.YErrors = append(ep.YErrors, struct{ Low, High float64 }{low, sd})
			bars = bars || len(p.ys) > 1
		}
		col := viz.LineColor(i)
		l, s, err := plotter.NewLinePoints(ep.XYs)
		if err != nil {
			return "", fmt.Errorf("sweep: plot: %w", err)
		}
		l.Color, l.Width = col, vg.Points(1.5)
		s.Color, s.Shape = col, draw.CircleGlyph{}
		pl.Add(l, s)
		if bars {
			eb, err := plotter.NewYErrorBars(ep)
			if err != nil {
				return "", fmt.Errorf("sweep: plot: %w", err)
			}
			eb.Color = col
			pl.Add(eb)
		}
		if len(groups) > 1 || g != "" {
			pl.Legend.Add(g, l, s)
		}
	}
	pl.Legend.Top = true
	pad(&pl.X, opt.LogX)
	pad(&pl.Y, opt.LogY)
	path := filepath.Join(c.Dir, PlotFile(x, y))
	if err := viz.WriteAll(pl, path, writeAtomic); err != nil {
		return "", err
	}
	return path, nil
}

// pad widens an axis by 5 % of its span on each side (a zero span by
// 5 % of its value, or by 1), so that points and error bars at the ends
// stay off the frame; a log axis by 5 % of its span in decades (a zero
// span by a factor 1.1).
func pad(a *plot.Axis, log bool) {
	if log {
		f := math.Pow(a.Max/a.Min, 0.05)
		if !(f > 1) || math.IsInf(f, 0) {
			f = 1.1
		}
		a.Min /= f
		a.Max *= f
		return
	}
	span := a.Max - a.Min
	if span == 0 {
		span = math.Abs(a.Max)
		if span == 0 {
			span = 1
		}
	}
	a.Min -= 0.05 * span
	a.Max += 0.05 * span
}

// meanStd returns the mean and the sample standard deviation (n − 1; 0 for
// one value).
func meanStd(v []float64) (mean, std float64) {
	for _, x := range v {
		mean += x
	}
	mean /= float64(len(v))
	if len(v) < 2 {
		return mean, 0
	}
	ss := 0.0
	for _, x := range v {
		ss += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(ss / float64(len(v)-1))
}

// unitSuffixes are the endings of collect's keys that name a unit (the
// summary's fields: wall_s, max_penetration_m, fixed_force_N, …), longest
// first.
var unitSuffixes = []struct{ suffix, unit string }{
	{"_rad_s", "rad/s"}, {"_m_s", "m/s"}, {"_s_total", "s, total"}, {"_s_median", "s, median"},
	{"_s_mean", "s, mean"}, {"_mm", "mm"}, {"_ms", "ms"}, {"_kg", "kg"}, {"_Nm", "N·m"},
	{"_s", "s"}, {"_m", "m"}, {"_N", "N"}, {"_J", "J"},
}

// Label is the axis label of a collect key: its last dotted element in
// words, with the unit its ending names in parentheses
// (final.max_penetration_m: "max penetration (m)"; wall_s: "wall (s)";
// a parameter such as mu: "mu").
func Label(key string) string {
	base := key
	if i := strings.LastIndex(key, "."); i >= 0 && i+1 < len(key) {
		base = key[i+1:]
	}
	unit := ""
	for _, u := range unitSuffixes {
		if s, ok := strings.CutSuffix(base, u.suffix); ok && s != "" {
			base, unit = s, u.unit
			break
		}
	}
	words := strings.ReplaceAll(base, "_", " ")
	if unit != "" {
		return words + " (" + unit + ")"
	}
	return words
}
