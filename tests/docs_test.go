package tests

import (
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gpusim/gpusim/cpuref"
	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/engine/enginetest"
	"github.com/gpusim/gpusim/fclib"
	"github.com/gpusim/gpusim/gpu"
)

// The docs check (make docs-check): figures printed in docs/ are
// recomputed here and compared with the number the page prints, read
// from the page itself, so that a figure that drifts when the code
// changes fails a test instead of going stale. Cheap cases run in every
// go test ./tests (and so in make test); GPUSIM_DOCS_CHECK=all adds the
// expensive ones (make docs-check).

// docsAll reports whether the expensive cases run too.
func docsAll() bool { return os.Getenv("GPUSIM_DOCS_CHECK") == "all" }

// docText returns the text of docs/NAME.
func docText(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "docs", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// docNumber returns the number captured by the first group of pattern in
// docs/NAME; the test fails if the page does not match (it was reworded:
// update the pattern with it).
func docNumber(t *testing.T, name, pattern string) float64 {
	t.Helper()
	m := regexp.MustCompile(pattern).FindStringSubmatch(docText(t, name))
	if m == nil {
		t.Fatalf("docs/%s has no match for %q: the figure's text changed; update the docs check with it", name, pattern)
	}
	v, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		t.Fatalf("docs/%s: %q in %q is not a number", name, m[1], m[0])
	}
	return v
}

// checkFigure fails unless the computed value rounds to the printed one:
// |got − printed| ≤ half a unit of the printed figure's last digit (tol,
// given by the caller from the digits printed).
func checkFigure(t *testing.T, what string, got, printed, tol float64) {
	t.Helper()
	if math.Abs(got-printed) > tol {
		t.Errorf("%s: docs print %v, the code gives %v (beyond ±%g): update the page (with the command beside it) or find what changed", what, printed, got, tol)
	} else {
		t.Logf("%s: printed %v, computed %v", what, printed, got)
	}
}

// TestDocsRollingBall: docs/validation.md's rolling-ball row (transition
// time and rolling speed with apgd-ar, the relaxed apgd's hop), computed
// as TestRollingBall does, on the CPU backend.
func TestDocsRollingBall(t *testing.T) {
	ts, slip, vx, _ := rollingRun(t, cpuref.New(0), "apgd-ar")
	k := 0
	for k < len(slip) && slip[k] > 1e-9 {
		k++
	}
	if k < 2 || k == len(slip) {
		t.Fatalf("slip never reached zero")
	}
	rate := (slip[k-2] - slip[k-1]) / (ts[k-1] - ts[k-2])
	tTrn := ts[k-1] + slip[k-1]/rate
	const doc = "validation.md"
	// Printed to 5 decimals (s) and 6 decimals (m/s): half a unit of the
	// last digit.
	checkFigure(t, "rolling ball: transition time (s)", tTrn,
		docNumber(t, doc, `\| apgd-ar \(default of the scene\) \| ([0-9.]+) s`), 0.5e-5)
	checkFigure(t, "rolling ball: rolling speed (m/s)", vx[len(vx)-1],
		docNumber(t, doc, `\| apgd-ar \(default of the scene\) \| [0-9.]+ s \([^)]*\) \| ([0-9.]+) m/s`), 0.5e-6)
	_, _, _, z := rollingRun(t, cpuref.New(0), "apgd")
	top := 0.0
	for _, v := range z {
		top = math.Max(top, v)
	}
	// Printed to 4 decimals (m).
	checkFigure(t, "rolling ball, apgd: highest centre (m)", top, docNumber(t, doc, `centre up to ([0-9.]+) m`), 0.5e-4)
}

// TestDocsShapes: docs/validation.md's shape rows — the cylinder's and
// the capsule's speed after rolling down the incline (printed to 9
// decimals, m/s) and the cylinder's stop time and distance sliding on its
// face (4 and 5 decimals), computed as TestRollingDownIncline and
// TestCylinderSlidesOnFace do, on the CPU backend.
func TestDocsShapes(t *testing.T) {
	const doc = "validation.md"
	cyl, _, _, _ := rollDownIncline(t, engine.CylinderShape(0.2, 0.3), cpuref.New(0))
	checkFigure(t, "cylinder down the incline: v (m/s)", cyl,
		docNumber(t, doc, `solid\s+cylinder \(r = 0\.2 m[^)]*\) reaches\s+v = ([0-9.]+) m/s`), 0.5e-9)
	cap, _, _, _ := rollDownIncline(t, engine.CapsuleShape(0.2, 0.3), cpuref.New(0))
	checkFigure(t, "capsule down the incline: v (m/s)", cap,
		docNumber(t, doc, `a capsule of the same r and h, on its two end balls, ([0-9.]+) m/s`), 0.5e-9)
	stopped, x := slideOnFace(t, cpuref.New(0))
	checkFigure(t, "cylinder sliding on its face: stop (s)", stopped,
		docNumber(t, doc, `four points of its rim, stops at ([0-9.]+) s`), 0.5e-4)
	checkFigure(t, "cylinder sliding on its face: distance (m)", x,
		docNumber(t, doc, `the first step after it\) after\s+([0-9.]+) m`), 0.5e-5)
}

// TestDocsRollingFriction: docs/validation.md's rolling and spinning
// friction rows — "all five solvers" stop at the printed time (5
// decimals, s) after the printed distance (6 decimals, m) or angle (5
// decimals, rad), computed by enginetest's RollingBallStops and
// SpinningBallStops on the CPU backend for each solver.
func TestDocsRollingFriction(t *testing.T) {
	const doc = "validation.md"
	stop := docNumber(t, doc, `All five\s+solvers \(apgd, apgd-ar, gs, jacobi, spg\): stop at ([0-9.]+) s`)
	dist := docNumber(t, doc, `the step containing t\*: [^)]*\) after ([0-9.]+) m`)
	spin := docNumber(t, doc, `All five solvers: ([0-9.]+) s \(\|Δ\|`)
	angle := docNumber(t, doc, `turned ([0-9.]+) rad \(analytic`)
	for _, s := range []string{"apgd", "apgd-ar", "gs", "jacobi", "spg"} {
		ts, x := enginetest.RollingBallStops(t, s, cpuref.New(0))
		checkFigure(t, s+": rolling ball stops (s)", ts, stop, 0.5e-5)
		checkFigure(t, s+": rolling ball's distance (m)", x, dist, 0.5e-6)
		ts, a := enginetest.SpinningBallStops(t, s, cpuref.New(0))
		checkFigure(t, s+": spinning ball stops (s)", ts, spin, 0.5e-5)
		checkFigure(t, s+": spinning ball's angle (rad)", a, angle, 0.5e-5)
	}
}

// fclibCell is one cell of docs/solvers.md's FCLib table.
type fclibCell struct {
	problem, solver string
	it6, it8        int // iterations to 1e-6 and 1e-8; −1: not reached (—)
	ms              float64
	measure         float64
	ok              bool
}

// fclibTable parses the FCLib table of docs/solvers.md (gpusim compare
// over ../shared/fclib, fclib.CollectionMD's layout).
func fclibTable(t *testing.T) (cells []fclibCell, maxIter int, maxIterOf map[string]int) {
	text := docText(t, "solvers.md")
	head := regexp.MustCompile(`gpusim compare \.\./shared/fclib --max-iter (\d+) --max-iter-of (\S+)`).FindStringSubmatch(text)
	if head == nil {
		t.Fatal("docs/solvers.md: the FCLib table's command is not found")
	}
	maxIter, _ = strconv.Atoi(head[1])
	maxIterOf = map[string]int{}
	for _, f := range strings.Split(head[2], ",") {
		name, v, _ := strings.Cut(f, "=")
		maxIterOf[name], _ = strconv.Atoi(v)
	}
	var solvers []string
	cell := regexp.MustCompile(`^ *(\d+|—) / (\d+|—) it, ([0-9.e+—-]+)(?: ms)?, ([0-9.e+-]+) (✓|✗) *$`)
	for _, line := range strings.Split(text, "\n") {
		f := strings.Split(strings.Trim(line, "|"), "|")
		if len(f) < 3 {
			continue
		}
		if strings.TrimSpace(f[0]) == "problem" && strings.TrimSpace(f[1]) == "nc" {
			solvers = solvers[:0]
			for _, s := range f[2:] {
				solvers = append(solvers, strings.TrimSpace(s))
			}
			continue
		}
		if solvers == nil || len(f) != 2+len(solvers) {
			continue
		}
		for k, s := range f[2:] {
			m := cell.FindStringSubmatch(s)
			if m == nil {
				continue
			}
			c := fclibCell{problem: strings.TrimSpace(f[0]), solver: solvers[k], it6: -1, it8: -1, ok: m[5] == "✓"}
			if m[1] != "—" {
				c.it6, _ = strconv.Atoi(m[1])
			}
			if m[2] != "—" {
				c.it8, _ = strconv.Atoi(m[2])
			}
			c.ms, _ = strconv.ParseFloat(m[3], 64)
			c.measure, _ = strconv.ParseFloat(m[4], 64)
			cells = append(cells, c)
		}
	}
	if len(cells) == 0 {
		t.Fatal("docs/solvers.md: no cell of the FCLib table parsed")
	}
	return cells, maxIter, maxIterOf
}

// TestDocsFCLibTable recomputes the cells of docs/solvers.md's FCLib table:
// every cell with GPUSIM_DOCS_CHECK=all, else those of problems of at most
// 60 contacts whose solve reached 1e-8 within 20 000 iterations (about ten
// seconds in all). Iterations are compared within 2 % + 2 (the stopping
// iteration moves by a few when rounding of the iterates changes, see the
// page), ✓ and ✗ exactly, the final measure within a factor of 3 (it sits
// between the stopping test and the bound).
func TestDocsFCLibTable(t *testing.T) {
	if _, err := os.Stat(fclibDir); err != nil {
		t.Skipf("no FCLib problems at %s", fclibDir)
	}
	cells, maxIter, maxIterOf := fclibTable(t)
	for _, c := range cells {
		if !docsAll() {
			if c.it8 < 0 || c.it8 > 20000 {
				continue
			}
			if nc, ok := metaContacts(filepath.Join(fclibDir, c.problem)); !ok || nc > 60 {
				continue
			}
		}
		t.Run(c.problem+"/"+c.solver, func(t *testing.T) {
			opt := fclib.CollectionOptions{Options: fclib.Options{MaxIter: maxIter}, Targets: []float64{1e-6, 1e-8}, MaxIterOf: maxIterOf}
			es, err := fclib.CompareCollection([]string{filepath.Join(fclibDir, c.problem)}, []string{c.solver}, opt, 0)
			if err != nil {
				t.Fatal(err)
			}
			r := es[0].Results[0]
			near := func(got, want int) bool {
				if want < 0 || got < 0 {
					return got == want
				}
				return math.Abs(float64(got-want)) <= 0.02*float64(want)+2
			}
			it := func(target float64) int {
				k, _, ok := r.Reached(target)
				if !ok {
					return -1
				}
				return k
			}
			i6, i8 := it(1e-6), it(1e-8)
			v := r.Measures.CCPResChrono
			bound := 1e-8
			if c.solver == "apgd-ar" {
				v, bound = r.Measures.FCErrSiconos, 1e-6
			}
			ok := v <= bound
			t.Logf("printed %d / %d it, %.1e %v; computed %d / %d it, %.1e %v", c.it6, c.it8, c.measure, c.ok, i6, i8, v, ok)
			if !near(i6, c.it6) || !near(i8, c.it8) || ok != c.ok || !(v <= 3*c.measure && v >= c.measure/3 || v == c.measure) {
				t.Errorf("docs/solvers.md prints %d / %d it, %.1e %v; the code gives %d / %d it, %.1e %v: regenerate the table with its command",
					c.it6, c.it8, c.measure, c.ok, i6, i8, v, ok)
			}
		})
	}
}

// TestDocsFill (GPUSIM_DOCS_CHECK=all: about a minute and a half):
// docs/validation.md's last row of the fill test (contacts and container
// force at 5 s). The pile is chaotic: any change of rounding moves these,
// so the tolerances are the run's own fluctuation, 2 % of the contacts and
// 1 % of the force (its step-to-step spread at the end, see the page).
func TestDocsFill(t *testing.T) {
	if !docsAll() {
		t.Skip("GPUSIM_DOCS_CHECK=all (make docs-check) runs it")
	}
	sc := loadScene(t, "fill")
	sim := newSim(t, &sc.Model, sc.Settings, cpuref.New(0))
	steps := int(math.Round(sc.Duration / sc.Settings.Dt))
	last := step(t, sim)
	for k := 1; k < steps; k++ {
		last = step(t, sim)
	}
	contacts := docNumber(t, "validation.md", `\| 5\.00 \| (\d+) \| \d+ \(`)
	force := docNumber(t, "validation.md", `\| 5\.00 \| \d+ \| (\d+) \(`)
	checkFigure(t, "fill at 5 s: contacts", float64(last.Contacts), contacts, 0.02*contacts)
	checkFigure(t, "fill at 5 s: container force (N)", -last.FixedForce[2], force, 0.01*force)
}

// TestDocsTrafficModel: docs/bench-gpu.md's traffic model — the table that
// `gpusim bench --traffic` prints stands in the page as printed, the
// bytes per contact-iteration the page names as the model's now are the
// model's, and the H200's implied rate follows from the bytes the page
// names for its measurement (the model at that commit) and its measured
// 152 ms solve.
func TestDocsTrafficModel(t *testing.T) {
	const doc = "bench-gpu.md"
	var b strings.Builder
	const bodies, contacts = 1_000_000, 2_980_000 // gpusim bench --traffic's bed
	for _, f32 := range []bool{false, true} {
		b.Reset()
		if err := gpu.WriteTrafficModel(&b, float64(bodies)/contacts, contacts, gpu.DatasheetBandwidths, gpu.APGDTraffic{F32: f32, Arms: true}); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(docText(t, doc), b.String()) {
			t.Errorf("docs/%s does not hold the traffic model (f32 %v) as gpusim bench --traffic prints it now:\n%s", doc, f32, b.String())
		}
	}
	per := gpu.APGDBytesPerContactIteration(float64(bodies) / contacts)
	// The page prints whole bytes: half a byte either way.
	checkFigure(t, "bytes per contact-iteration", per, docNumber(t, doc, `and the model from [0-9]+ to ([0-9]+) B per\s+contact-iteration`), 0.5)
	// 100 iterations in the H200's measured 152 ms of solve (the page's
	// table) at the bytes of the model of that run, in TB/s to two
	// decimals.
	then := docNumber(t, doc, `by the model ([0-9]+) B × 2\.98 M contacts`)
	checkFigure(t, "implied rate (TB/s)", then*contacts*100/0.152/1e12, docNumber(t, doc, `iterations / 0\.152 s = ([0-9.]+) TB/s`), 0.005)
}
