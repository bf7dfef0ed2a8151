package viz

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/gpusim/gpusim/internal/outdir"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgpdf"
	"gonum.org/v1/plot/vg/vgsvg"
)

// PlotWidth and PlotHeight are the size of every plot: 8 × 5 inches,
// 768 × 480 pixels at gonum/plot's 96 dpi.
const (
	PlotWidth  = 8 * vg.Inch
	PlotHeight = 5 * vg.Inch
)

// lineColors is Matplotlib's "tab10", whose colours stay distinct.
var lineColors = []color.Color{
	color.RGBA{31, 119, 180, 255}, color.RGBA{255, 127, 14, 255}, color.RGBA{44, 160, 44, 255}, color.RGBA{214, 39, 40, 255},
	color.RGBA{148, 103, 189, 255}, color.RGBA{140, 86, 75, 255}, color.RGBA{227, 119, 194, 255}, color.RGBA{127, 127, 127, 255},
	color.RGBA{188, 189, 34, 255}, color.RGBA{23, 190, 207, 255},
}

// LineColor returns the colour of a plot's i-th line: lineColors, cycled.
func LineColor(i int) color.Color { return lineColors[i%len(lineColors)] }

// Formats are the files every plot is written as, beside each other:
// PNG to look at, SVG and PDF (vector) for papers and slides.
var Formats = []string{"png", "svg", "pdf"}

// Encode draws pl alone on a PlotWidth × PlotHeight canvas and returns the
// bytes of the file in format (png, svg or pdf).
func Encode(pl *plot.Plot, format string) ([]byte, error) {
	wt, err := pl.WriterTo(PlotWidth, PlotHeight, format)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if _, err := wt.WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// PNG is Encode(pl, "png").
func PNG(pl *plot.Plot) ([]byte, error) { return Encode(pl, "png") }

// WriteAll writes pl as path, a .png, and as the other Formats beside it
// (the same name with .svg and .pdf), each through write (an atomic file
// writer, say).
func WriteAll(pl *plot.Plot, path string, write func(path string, data []byte) error) error {
	for _, f := range Formats {
		data, err := Encode(pl, f)
		if err != nil {
			return fmt.Errorf("viz: %s: %w", path, err)
		}
		if err := write(withExt(path, f), data); err != nil {
			return err
		}
	}
	return nil
}

// withExt is path with its extension replaced by ext.
func withExt(path, ext string) string {
	return strings.TrimSuffix(path, filepath.Ext(path)) + "." + ext
}

// table is a CSV file with a header row, as columns of numbers.
type table struct {
	path string
	cols map[string][]float64
	rows int
}

// readTable reads a CSV file of numbers with a header row. A cell that is
// not a number is an error naming the file, the row and the column. A last
// line without its newline is a row cut by a full disk or a killed run: it
// is left out, and warn (if set) says so.
func readTable(path string, warn func(string)) (*table, error) {
	t := &table{path: path, cols: map[string][]float64{}}
	err := readCSV(path, 0, warn, func(header, rec []string, row int) error {
		for i, s := range rec {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				return fmt.Errorf("viz: %s: row %d, column %s: %q is not a number", path, row, header[i], s)
			}
			t.cols[header[i]] = append(t.cols[header[i]], v)
		}
		t.rows++
		return nil
	})
	if err != nil {
		return nil, err
	}
	return t, nil
}

// readCSV reads the CSV file at path, a header row and then records of
// fields fields each (0: as many as the header), and calls f with the
// header, each record and its row number (the header is row 1), stopping
// at f's first error. A last line without its newline is a row cut by a
// full disk or a killed run: it is left out, and warn (if set) says so.
func readCSV(path string, fields int, warn func(string), f func(header, rec []string, row int) error) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("viz: %w", err)
	}
	data, cut := outdir.CompleteRows(data)
	if cut && warn != nil {
		warn(fmt.Sprintf("%s: the last line is incomplete (a run killed while writing it, or a full disk): left out", path))
	}
	r := csv.NewReader(bytes.NewReader(data))
	r.FieldsPerRecord = fields
	header, err := r.Read()
	if err != nil {
		return fmt.Errorf("viz: %s: header: %w", path, err)
	}
	for row := 2; ; row++ {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("viz: %s: %w", path, err)
		}
		if err := f(header, rec, row); err != nil {
			return err
		}
	}
}

// col returns the named column or an error naming the file and column.
func (t *table) col(name string) ([]float64, error) {
	c, ok := t.cols[name]
	if !ok {
		return nil, fmt.Errorf("viz: %s: no column %q", t.path, name)
	}
	return c, nil
}

// series is one line of a plot.
type series struct {
	name string
	x, y []float64
}

// panel is one plot: its title, axis labels and lines.
type panel struct {
	title, xLabel, yLabel string
	logY                  bool
	lines                 []series
}

// build makes the gonum plot of a panel. On a log axis only the positive
// values are drawn; a panel with none falls back to a linear axis.
func (p panel) build() (*plot.Plot, error) {
	pl := plot.New()
	pl.Title.Text = p.title
	pl.X.Label.Text = p.xLabel
	pl.Y.Label.Text = p.yLabel
	logY := false
	if p.logY {
		for _, s := range p.lines {
			for _, v := range s.y {
				logY = logY || (v > 0 && !math.IsInf(v, 0))
			}
		}
	}
	if logY {
		pl.Y.Scale = plot.LogScale{}
		pl.Y.Tick.Marker = DecadeTicks{}
	} else {
		pl.Y.Tick.Marker = distinctTicks{}
	}
	pl.X.Tick.Marker = distinctTicks{}
	pl.Add(plotter.NewGrid())
	for i, s := range p.lines {
		var pts plotter.XYs
		for k := range s.x {
			y := s.y[k]
			if math.IsNaN(y) || math.IsInf(y, 0) || math.IsNaN(s.x[k]) || (logY && !(y > 0)) {
				continue
			}
			pts = append(pts, plotter.XY{X: s.x[k], Y: y})
		}
		if len(pts) == 0 {
			continue
		}
		l, err := plotter.NewLine(pts)
		if err != nil {
			return nil, fmt.Errorf("viz: plot %s: %w", p.title, err)
		}
		l.Color = LineColor(i)
		l.Width = vg.Points(1.5)
		pl.Add(l)
		if len(p.lines) > 1 {
			pl.Legend.Add(s.name, l)
		}
	}
	pl.Legend.Top = true
	return pl, nil
}

// writePanels draws the panels stacked on one PlotWidth × PlotHeight
// page, written as path (a .png) and beside it in the other Formats.
func writePanels(path string, ps ...panel) error {
	plots := make([][]*plot.Plot, len(ps))
	for i, p := range ps {
		pl, err := p.build()
		if err != nil {
			return err
		}
		plots[i] = []*plot.Plot{pl}
	}
	for _, f := range Formats {
		var c vg.CanvasWriterTo
		switch f {
		case "png":
			c = vgimg.PngCanvas{Canvas: vgimg.New(PlotWidth, PlotHeight)}
		case "svg":
			c = vgsvg.New(PlotWidth, PlotHeight)
		case "pdf":
			c = vgpdf.New(PlotWidth, PlotHeight)
		}
		dc := draw.New(c)
		canvases := plot.Align(plots, draw.Tiles{Rows: len(ps), Cols: 1, PadTop: vg.Points(4), PadBottom: vg.Points(4), PadY: vg.Points(6)}, dc)
		for i := range plots {
			plots[i][0].Draw(canvases[i][0])
		}
		var buf bytes.Buffer
		if _, err := c.WriteTo(&buf); err != nil {
			return fmt.Errorf("viz: %s: %w", path, err)
		}
		if err := os.WriteFile(withExt(path, f), buf.Bytes(), 0o644); err != nil {
			return fmt.Errorf("viz: %w", err)
		}
	}
	return nil
}

// Plot writes the plots of the run in dir into dir/plots and returns
// their paths. From stats.csv, against simulated time: contacts.png,
// iterations.png, residual.png (log scale), wall-time.png (collision,
// solve and whole step, ms) and fixed-force.png (the contact force on the
// fixed bodies, N). From trace.csv, when the run has one, a line per
// traced body: trace-position.png (x, y, z) and trace-speed.png (speed and
// angular speed). From reactions.csv, when the run has one, a figure per
// kind of row: reactions-joint.png and reactions-body.png (|force| and
// |torque| of each joint or body).
func Plot(dir string) ([]string, error) {
	return PlotWarn(dir, nil)
}

// PlotWarn is Plot that tells warn (if set) what it left out: the cut
// last line of a CSV file.
func PlotWarn(dir string, warn func(string)) ([]string, error) {
	st, err := readTable(filepath.Join(dir, "stats.csv"), warn)
	if err != nil {
		return nil, err
	}
	if st.rows == 0 {
		return nil, fmt.Errorf("viz: %s: no steps to plot", st.path)
	}
	cols := map[string][]float64{}
	for _, name := range []string{"time", "contacts", "iterations", "residual", "collide_s", "solve_s", "step_s", "fixed_fx", "fixed_fy", "fixed_fz"} {
		if cols[name], err = st.col(name); err != nil {
			return nil, err
		}
	}
	t := cols["time"]
	ms := func(name string) series {
		v := make([]float64, len(cols[name]))
		for i, s := range cols[name] {
			v[i] = 1e3 * s
		}
		return series{name: name, x: t, y: v}
	}
	out := filepath.Join(dir, "plots")
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, fmt.Errorf("viz: %w", err)
	}
	const tl = "simulated time (s)"
	plots := []struct {
		file string
		ps   []panel
	}{
		{"contacts.png", []panel{{title: "Contacts", xLabel: tl, yLabel: "contacts", lines: []series{{"contacts", t, cols["contacts"]}}}}},
		{"iterations.png", []panel{{title: "Solver iterations per step", xLabel: tl, yLabel: "iterations", lines: []series{{"iterations", t, cols["iterations"]}}}}},
		{"residual.png", []panel{{title: "Solver residual at the end of each step (eq. 25)", xLabel: tl, yLabel: "residual (m/s)", logY: true,
			lines: []series{{"residual", t, cols["residual"]}}}}},
		{"wall-time.png", []panel{{title: "Wall time per step", xLabel: tl, yLabel: "wall time (ms)",
			lines: []series{ms("collide_s"), ms("solve_s"), ms("step_s")}}}},
		{"fixed-force.png", []panel{{title: "Contact force on the fixed bodies", xLabel: tl, yLabel: "force (N)",
			lines: []series{{"fx", t, cols["fixed_fx"]}, {"fy", t, cols["fixed_fy"]}, {"fz", t, cols["fixed_fz"]}}}}},
	}
	tracePath := filepath.Join(dir, "trace.csv")
	if _, err := os.Stat(tracePath); err == nil {
		tr, err := readTable(tracePath, warn)
		if err != nil {
			return nil, err
		}
		ps, err := tracePanels(tr)
		if err != nil {
			return nil, err
		}
		plots = append(plots, struct {
			file string
			ps   []panel
		}{"trace-position.png", ps[:3]}, struct {
			file string
			ps   []panel
		}{"trace-speed.png", ps[3:]})
	}
	rxnPath := filepath.Join(dir, "reactions.csv")
	if _, err := os.Stat(rxnPath); err == nil {
		figs, err := reactionFigures(rxnPath, warn)
		if err != nil {
			return nil, err
		}
		for _, f := range figs {
			plots = append(plots, struct {
				file string
				ps   []panel
			}{f.file, f.ps})
		}
	}
	mp, err := meritPanels(filepath.Join(dir, "merit.csv"), warn)
	if err != nil {
		return nil, err
	}
	if mp != nil {
		plots = append(plots, struct {
			file string
			ps   []panel
		}{"merit.png", mp})
	}
	var written []string
	for _, p := range plots {
		path := filepath.Join(out, p.file)
		if err := writePanels(path, p.ps...); err != nil {
			return written, err
		}
		written = append(written, path)
	}
	return written, nil
}

// tracePanels returns the panels x, y, z, speed and angular speed of the
// traced bodies, a line per body.
func tracePanels(tr *table) ([]panel, error) {
	var c [8][]float64
	for k, name := range []string{"time", "id", "x", "y", "z", "vx", "vy", "vz"} {
		v, err := tr.col(name)
		if err != nil {
			return nil, err
		}
		c[k] = v
	}
	w := [3][]float64{}
	for k, name := range []string{"wx", "wy", "wz"} {
		v, err := tr.col(name)
		if err != nil {
			return nil, err
		}
		w[k] = v
	}
	var ids []int
	rows := map[int][]int{}
	for r, v := range c[1] {
		id := int(v)
		if _, ok := rows[id]; !ok {
			ids = append(ids, id)
		}
		rows[id] = append(rows[id], r)
	}
	slices.Sort(ids)
	ps := []panel{
		{title: "Traced bodies: position", yLabel: "x (m)"},
		{yLabel: "y (m)"},
		{xLabel: "simulated time (s)", yLabel: "z (m)"},
		{title: "Traced bodies: speed", yLabel: "speed (m/s)"},
		{xLabel: "simulated time (s)", yLabel: "angular speed (rad/s)"},
	}
	for _, id := range ids {
		n := len(rows[id])
		var t, sp, om []float64
		xyz := [3][]float64{make([]float64, 0, n), make([]float64, 0, n), make([]float64, 0, n)}
		for _, r := range rows[id] {
			t = append(t, c[0][r])
			for k := range 3 {
				xyz[k] = append(xyz[k], c[2+k][r])
			}
			sp = append(sp, math.Sqrt(c[5][r]*c[5][r]+c[6][r]*c[6][r]+c[7][r]*c[7][r]))
			om = append(om, math.Sqrt(w[0][r]*w[0][r]+w[1][r]*w[1][r]+w[2][r]*w[2][r]))
		}
		name := fmt.Sprintf("body %d", id)
		for k := range 3 {
			ps[k].lines = append(ps[k].lines, series{name, t, xyz[k]})
		}
		ps[3].lines = append(ps[3].lines, series{name, t, sp})
		ps[4].lines = append(ps[4].lines, series{name, t, om})
	}
	return ps, nil
}

// distinctTicks are LinearTicks labelled with as many significant digits
// as it takes to tell the labels apart (a body resting at z = 1 m moves by
// nanometres, which plain labels show as 1, 1, 1).
type distinctTicks struct{}

func (distinctTicks) Ticks(lo, hi float64) []plot.Tick {
	ts := LinearTicks{}.Ticks(lo, hi)
	for prec := 1; prec <= 17; prec++ {
		seen := map[string]bool{}
		ok := true
		for i := range ts {
			if ts[i].Label == "" {
				continue
			}
			l := number(ts[i].Value, prec)
			ok = ok && !seen[l]
			seen[l] = true
		}
		if ok {
			for i := range ts {
				if ts[i].Label != "" {
					ts[i].Label = number(ts[i].Value, prec)
				}
			}
			break
		}
	}
	return ts
}
