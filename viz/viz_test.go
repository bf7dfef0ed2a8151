package viz

import (
	"context"
	"image"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/internal/testfile"
	"github.com/gpusim/gpusim/run"
	"github.com/gpusim/gpusim/scene"
	"github.com/gpusim/gpusim/vtk"
)

// runScene runs a built-in scene on the CPU backend into a new folder.
func runScene(t *testing.T, name string, vtkEvery int, sets ...string) string {
	t.Helper()
	sc, err := scene.LoadBuiltin(name, sets)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := run.Run(context.Background(), sc, run.Options{Backend: "cpu", OutDir: dir, VTKEvery: vtkEvery}); err != nil {
		t.Fatal(err)
	}
	return dir
}

// census counts the distinct colours of an image, the fraction of pixels
// that differ from white, and the pixels of colour c: c itself, or c
// anti-aliased over white with at least half its weight (a line's pixels
// are mostly such blends where it runs at a slight slope).
func census(img image.Image, c color.Color) (distinct int, ink float64, exact int) {
	seen := map[color.RGBA]bool{}
	b := img.Bounds()
	want := color.RGBAModel.Convert(c).(color.RGBA)
	nonWhite := 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			p := color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)
			seen[p] = true
			if p != (color.RGBA{255, 255, 255, 255}) {
				nonWhite++
			}
			if p == want || blendOf(p, want) >= 0.5 {
				exact++
			}
		}
	}
	return len(seen), float64(nonWhite) / float64(b.Dx()*b.Dy()), exact
}

// blendOf returns a when p is a·c + (1 − a)·white to within 2 levels per
// channel (a ∈ [0, 1]), else −1: the rasteriser rounds the blend to 8 bits
// (±0.5) and a from the rounded pixel carries that error into the other
// channels (±1 more); grey grid lines under the line make bigger errors
// and do not count.
func blendOf(p, c color.RGBA) float64 {
	// a from the channel where c is darkest (the best conditioned).
	ch := func(x color.RGBA) [3]float64 { return [3]float64{float64(x.R), float64(x.G), float64(x.B)} }
	pc, cc := ch(p), ch(c)
	k := 0
	for i := range 3 {
		if cc[i] < cc[k] {
			k = i
		}
	}
	if cc[k] >= 255 {
		return -1
	}
	a := (255 - pc[k]) / (255 - cc[k])
	if a < 0 || a > 1 {
		return -1
	}
	for i := range 3 {
		if math.Abs(a*cc[i]+(1-a)*255-pc[i]) > 2 {
			return -1
		}
	}
	return a
}

func TestPlot(t *testing.T) {
	dir := runScene(t, "rolling-ball", 0, "run.steps=40")
	files, err := Plot(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"contacts.png", "iterations.png", "residual.png", "wall-time.png", "fixed-force.png", "trace-position.png", "trace-speed.png"}
	if len(files) != len(want) {
		t.Fatalf("wrote %v, want %v", files, want)
	}
	for i, f := range files {
		if filepath.Base(f) != want[i] {
			t.Errorf("file %d: %s, want %s", i, f, want[i])
		}
		img := testfile.PNG(t, f)
		// 8 × 5 inches at gonum/plot's 96 dpi.
		if b := img.Bounds(); b.Dx() != 768 || b.Dy() != 480 {
			t.Errorf("%s: %v, want 768 × 480", f, b)
		}
		distinct, ink, line := census(img, lineColors[0])
		// A blank or text-only plot has white, black and a few grey levels
		// of anti-aliasing; a drawn line adds its colour, and anti-aliased
		// edges many blends: 20 colours and 1% of the pixels are well under
		// what one line across the plot gives (measured: hundreds of
		// colours, several % ink).
		if distinct < 20 || ink < 0.01 {
			t.Errorf("%s looks blank: %d colours, %.3f of the pixels not white", f, distinct, ink)
		}
		// The first line's colour, or blends of it with white that are
		// mostly it: a line across the plot's 600-pixel-wide data area
		// leaves hundreds. (Exact pixels alone are too few where the line
		// runs at slight slopes: the wall-time plot of a run on a loaded
		// machine, a spike and small wiggles, had 42.)
		if line < 100 {
			t.Errorf("%s: %d pixels of the first line's colour, want ≥ 100", f, line)
		}
	}
}

func TestPlotErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := Plot(dir); err == nil || !strings.Contains(err.Error(), "stats.csv") {
		t.Errorf("no stats.csv: %v", err)
	}
	os.WriteFile(filepath.Join(dir, "stats.csv"), []byte("step,time,contacts\n1,0.01,x\n"), 0o644)
	if _, err := Plot(dir); err == nil || !strings.Contains(err.Error(), "row 2, column contacts") {
		t.Errorf("bad cell: %v", err)
	}
	os.WriteFile(filepath.Join(dir, "stats.csv"), []byte("step,time,contacts\n1,0.01,3\n"), 0o644)
	if _, err := Plot(dir); err == nil || !strings.Contains(err.Error(), `no column "iterations"`) {
		t.Errorf("missing column: %v", err)
	}
}

// proportional reports whether c is base scaled by one factor in
// [0.3, 1] (the shading's ambient to full light), up to the rounding of
// each channel to an integer (±0.5, so ±1 on the factor's scale).
func proportional(c color.RGBA, base mgl64.Vec3) bool {
	m := 0 // the largest channel gives the factor most accurately
	for i := range 3 {
		if base[i] > base[m] {
			m = i
		}
	}
	got := []float64{float64(c.R), float64(c.G), float64(c.B)}
	k := got[m] / base[m]
	if k < 0.3-0.01 || k > 1+0.01 {
		return false
	}
	for i := range 3 {
		if math.Abs(got[i]-k*base[i]) > 1+k {
			return false
		}
	}
	return true
}

// TestDrawColoursAndDepth draws three spheres, one in front of another,
// and a floor, and checks the colour at each sphere's projected centre:
// the speed's viridis colour shaded, the nearer sphere over the farther.
func TestDrawColoursAndDepth(t *testing.T) {
	sphere := func(id int, p mgl64.Vec3, r, speed float64) vtk.Body {
		return vtk.Body{ID: id, Kind: engine.Sphere, SemiAxes: mgl64.Vec3{r, r, r}, Pos: p, Rot: mgl64.QuatIdent(), Vel: mgl64.Vec3{0, speed, 0}}
	}
	bs := []vtk.Body{
		sphere(0, mgl64.Vec3{0, 0, 0}, 0.5, 0),
		sphere(1, mgl64.Vec3{4, 0, 0}, 0.5, 2),
		sphere(2, viewDir.Mul(1.5), 0.3, 1), // between sphere 0 and the camera
		{ID: 3, Kind: engine.Plane, Pos: mgl64.Vec3{0, 0, -1}, Rot: mgl64.QuatIdent(), Fixed: true},
	}
	const w, h = 640, 480
	img, err := Draw(bs, RenderOptions{Width: w, Height: h})
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != w || b.Dy() != h {
		t.Fatalf("size %v, want %d × %d", b, w, h)
	}
	cam := boxCamera(Bounds(bs), w, h)
	at := func(p mgl64.Vec3) color.RGBA {
		x, y := cam.project(cam.toCamera(p))
		return img.RGBAAt(int(x), int(y))
	}
	for _, c := range []struct {
		name string
		p    mgl64.Vec3
		u    float64
	}{
		{"fastest sphere", bs[1].Pos, 1},
		{"middle sphere, in front of the slowest", bs[0].Pos, 0.5},
		{"slowest sphere's top, beside the middle one", mgl64.Vec3{0, 0, 0}.Add(cam.up.Mul(0.45)), 0},
	} {
		if got := at(c.p); !proportional(got, colormap(c.u)) {
			t.Errorf("%s: colour %v, want a shade of viridis(%v) = %v", c.name, got, c.u, colormap(c.u))
		}
	}
	distinct, ink, _ := census(img, color.Black)
	// Shaded spheres give a colour per lighting level; the floor and the
	// colour bar add more: 50 colours and 2% ink are far below that and
	// far above a blank picture (1 colour, 0 ink).
	if distinct < 50 || ink < 0.02 {
		t.Errorf("picture looks blank: %d colours, %.3f ink", distinct, ink)
	}
	if _, err := Draw(bs, RenderOptions{Width: 10, Height: 10}); err == nil {
		t.Error("10 × 10 picture accepted")
	}
	bs[1].Pos[0] = math.NaN()
	if _, err := Draw(bs, RenderOptions{}); err == nil || !strings.Contains(err.Error(), "body 1") {
		t.Errorf("NaN position: %v", err)
	}
}

// TestBoxAndEllipsoidHits checks the ray casts against shapes whose
// answers are known: a ray along −z onto a box and an ellipsoid.
func TestBoxAndEllipsoidHits(t *testing.T) {
	o, d := mgl64.Vec3{0.1, 0.2, 5}, mgl64.Vec3{0, 0, -1}
	box := vtk.Body{Kind: engine.Box, SemiAxes: mgl64.Vec3{1, 2, 3}}
	if tt, n, ok := hit(&box, o, d); !ok || tt != 2 || n != (mgl64.Vec3{0, 0, 1}) {
		t.Errorf("box: t %v n %v ok %v, want 2, +z", tt, n, ok)
	}
	ell := vtk.Body{Kind: engine.Ellipsoid, SemiAxes: mgl64.Vec3{1, 2, 3}}
	// Surface at z = 3·sqrt(1 − 0.1² − 0.1²) = 3·sqrt(0.98).
	tt, _, ok := hit(&ell, o, d)
	if want := 5 - 3*math.Sqrt(0.98); !ok || math.Abs(tt-want) > 1e-12 { // 1e-12: roundings of the quadratic
		t.Errorf("ellipsoid: t %v, want %v", tt, want)
	}
	if _, _, ok := hit(&ell, mgl64.Vec3{1.5, 0, 5}, d); ok {
		t.Error("ray beside the ellipsoid hit it")
	}
}

// TestRenderFramesAndFinalAgree renders the last state of a run twice:
// from its ParaView frames, and from final.csv with the shapes of
// summary.json, in a run without frames. The two must be the same
// picture, and not a blank one.
func TestRenderFramesAndFinalAgree(t *testing.T) {
	withFrames := runScene(t, "settle", 5, "n=30", "run.steps=12")
	without := runScene(t, "settle", 0, "n=30", "run.steps=12")
	a, err := LoadFrame(withFrames, -1)
	if err != nil {
		t.Fatal(err)
	}
	b, err := LoadFrame(without, -1)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Bodies) != 35 || len(b.Bodies) != 35 {
		t.Fatalf("%d and %d bodies, want 30 spheres + 5 walls", len(a.Bodies), len(b.Bodies))
	}
	ia, err := Draw(a.Bodies, RenderOptions{Width: 400, Height: 300})
	if err != nil {
		t.Fatal(err)
	}
	ib, err := Draw(b.Bodies, RenderOptions{Width: 400, Height: 300})
	if err != nil {
		t.Fatal(err)
	}
	diff := 0
	for i := range ia.Pix {
		if ia.Pix[i] != ib.Pix[i] {
			diff++
		}
	}
	if diff != 0 {
		t.Errorf("%d bytes differ between the picture from the frames and from final.csv", diff)
	}
	distinct, ink, _ := census(ia, color.Black)
	// As in TestDrawColoursAndDepth: far from blank.
	if distinct < 50 || ink < 0.02 {
		t.Errorf("picture looks blank: %d colours, %.3f ink", distinct, ink)
	}
	first, err := LoadFrame(withFrames, 0)
	if err != nil || first.Time != 0 {
		t.Errorf("frame 0: time %v, %v", first.Time, err)
	}
	if _, err := LoadFrame(withFrames, 9); err == nil || !strings.Contains(err.Error(), "frames 0 to 3") {
		t.Errorf("frame 9 of 4: %v", err)
	}
	if _, err := LoadFrame(without, 2); err == nil || !strings.Contains(err.Error(), "--vtk") {
		t.Errorf("frame 2 of a run without frames: %v", err)
	}
}

func TestDistinctTicks(t *testing.T) {
	ts := distinctTicks{}.Ticks(1-3e-9, 1+4e-9)
	seen := map[string]bool{}
	labels := 0
	for _, tk := range ts {
		if tk.Label == "" {
			continue
		}
		labels++
		if seen[tk.Label] {
			t.Errorf("label %q twice in %+v", tk.Label, ts)
		}
		seen[tk.Label] = true
	}
	if labels < 2 {
		t.Errorf("%d labels: %+v", labels, ts)
	}
	if ts := (distinctTicks{}).Ticks(0, 10); ts[0].Label != "0" {
		t.Errorf("ticks of [0, 10] start %q, want 0", ts[0].Label)
	}
}

// TestReadTableCutLine: a last line without its newline (a run killed
// while writing it, or a full disk) is left out with a warning; before, it
// failed the plot ("wrong number of fields"), or, cut inside a number,
// gave a wrong value.
func TestReadTableCutLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "stats.csv")
	for _, tail := range []string{"3,0.", "3"} {
		if err := os.WriteFile(path, []byte("step,x\n1,0.5\n2,0.25\n"+tail), 0o644); err != nil {
			t.Fatal(err)
		}
		var warned []string
		tb, err := readTable(path, func(s string) { warned = append(warned, s) })
		if err != nil {
			t.Fatalf("tail %q: %v", tail, err)
		}
		if x, _ := tb.col("x"); tb.rows != 2 || len(x) != 2 || x[1] != 0.25 {
			t.Errorf("tail %q: %d rows, x %v; want the 2 complete rows", tail, tb.rows, x)
		}
		if len(warned) != 1 || !strings.Contains(warned[0], path+": the last line is incomplete") {
			t.Errorf("tail %q: warnings %q", tail, warned)
		}
	}
}
