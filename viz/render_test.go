package viz

import (
	"context"
	"errors"
	"image"
	"image/color"
	"math"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/run"
	"github.com/gpusim/gpusim/scene"
	"github.com/gpusim/gpusim/vtk"
)

// ball is a unit-quaternion sphere of radius r at p moving along y at v.
func ball(id int, p mgl64.Vec3, r, v float64) vtk.Body {
	return vtk.Body{ID: id, Kind: engine.Sphere, SemiAxes: mgl64.Vec3{r, r, r}, Pos: p, Rot: mgl64.QuatIdent(), Vel: mgl64.Vec3{0, v, 0}}
}

// pixelAt returns the colour where the camera projects p.
func pixelAt(t *testing.T, img *image.RGBA, c *Camera, w, h int, p mgl64.Vec3) [3]uint8 {
	t.Helper()
	cam := userCamera(c, w, h)
	x, y := cam.project(cam.toCamera(p))
	i := img.PixOffset(int(x), int(y))
	return [3]uint8{img.Pix[i], img.Pix[i+1], img.Pix[i+2]}
}

func differingBytes(a, b *image.RGBA) int {
	n := 0
	for i := range a.Pix {
		if a.Pix[i] != b.Pix[i] {
			n++
		}
	}
	return n
}

// TestFixedRangeSameColour: body 0 in the same state in two frames whose
// other body differs in speed keeps its colour under a fixed range, and
// changes it under each frame's own range (the flicker of a movie before
// --range).
func TestFixedRangeSameColour(t *testing.T) {
	const w, h = 400, 300
	cam := &Camera{Pos: mgl64.Vec3{0, -8, 2}, Target: mgl64.Vec3{0, 0, 0}, FOV: 40}
	frame := func(other float64) []vtk.Body {
		return []vtk.Body{ball(0, mgl64.Vec3{-1, 0, 0}, 0.5, 1), ball(1, mgl64.Vec3{1, 0, 0}, 0.5, other),
			ball(2, mgl64.Vec3{0, 0, 1.2}, 0.3, 0)}
	}
	fixed := &[2]float64{0, 4}
	var own, kept [2][3]uint8
	for i, other := range []float64{2, 4} {
		img, err := Draw(frame(other), RenderOptions{Width: w, Height: h, Camera: cam, Range: fixed})
		if err != nil {
			t.Fatal(err)
		}
		kept[i] = pixelAt(t, img, cam, w, h, mgl64.Vec3{-1, 0, 0})
		img, err = Draw(frame(other), RenderOptions{Width: w, Height: h, Camera: cam})
		if err != nil {
			t.Fatal(err)
		}
		own[i] = pixelAt(t, img, cam, w, h, mgl64.Vec3{-1, 0, 0})
	}
	if kept[0] != kept[1] {
		t.Errorf("fixed range: body 0's colour %v in frame 1, %v in frame 2; want the same", kept[0], kept[1])
	}
	if own[0] == own[1] {
		t.Errorf("each frame's range: body 0's colour %v in both frames; want it to change (the test shows nothing otherwise)", own[0])
	}
	// Speed 1 of [0, 4] is viridis(0.25), shaded.
	if !proportional(colorRGBA(kept[0]), colormap(0.25)) {
		t.Errorf("body 0: %v, want a shade of viridis(0.25) = %v", kept[0], colormap(0.25))
	}
	for _, r := range [][2]float64{{1, 1}, {2, 1}, {math.Inf(-1), 1}} {
		if _, err := Draw(frame(2), RenderOptions{Width: w, Height: h, Range: &r}); err == nil || !strings.Contains(err.Error(), "colour range") {
			t.Errorf("range %v: %v, want an error", r, err)
		}
	}
}

// TestCameraMoved: moving the camera changes the picture, the automatic
// camera is AutoCamera, and bad cameras are refused.
func TestCameraMoved(t *testing.T) {
	const w, h = 400, 300
	bs := []vtk.Body{ball(0, mgl64.Vec3{0, 0, 0}, 0.5, 0), ball(1, mgl64.Vec3{2, 0, 0}, 0.5, 1),
		{ID: 2, Kind: engine.Plane, Pos: mgl64.Vec3{0, 0, -0.5}, Rot: mgl64.QuatIdent(), Fixed: true}}
	a := &Camera{Pos: mgl64.Vec3{1, -8, 3}, Target: mgl64.Vec3{1, 0, 0}, FOV: 30}
	b := &Camera{Pos: mgl64.Vec3{1, -6, 3}, Target: mgl64.Vec3{1, 0, 0}, FOV: 30}
	ia, err := Draw(bs, RenderOptions{Width: w, Height: h, Camera: a})
	if err != nil {
		t.Fatal(err)
	}
	ib, err := Draw(bs, RenderOptions{Width: w, Height: h, Camera: b})
	if err != nil {
		t.Fatal(err)
	}
	// A camera a quarter nearer: every sphere's outline moves, thousands of
	// bytes (a byte or two would be rounding).
	if d := differingBytes(ia, ib); d < 1000 {
		t.Errorf("camera moved: %d bytes differ, want ≥ 1000", d)
	}
	// Looking straight down (the up hint falls back to y): drawn.
	if _, err := Draw(bs, RenderOptions{Width: w, Height: h, Camera: &Camera{Pos: mgl64.Vec3{1, 0, 9}, Target: mgl64.Vec3{1, 0, 0}}}); err != nil {
		t.Errorf("camera looking down: %v", err)
	}
	// A camera among the bodies: the spheres behind it or across its
	// plane are left out or cut, not an error.
	if _, err := Draw(bs, RenderOptions{Width: w, Height: h, Camera: &Camera{Pos: mgl64.Vec3{1, 0, 0}, Target: mgl64.Vec3{3, 0, 0}, FOV: 90}}); err != nil {
		t.Errorf("camera among the bodies: %v", err)
	}
	// The printed automatic camera gives the automatic picture (to the
	// rounding of a few edge pixels).
	auto, err := Draw(bs, RenderOptions{Width: w, Height: h})
	if err != nil {
		t.Fatal(err)
	}
	ac := AutoCamera(Bounds(bs))
	same, err := Draw(bs, RenderOptions{Width: w, Height: h, Camera: &ac})
	if err != nil {
		t.Fatal(err)
	}
	if d := differingBytes(auto, same); d > 40 {
		t.Errorf("AutoCamera %+v: %d bytes differ from the automatic picture, want ≤ 40", ac, d)
	}
	for _, c := range []struct {
		cam  Camera
		want string
	}{
		{Camera{Pos: mgl64.Vec3{1, 2, 3}, Target: mgl64.Vec3{1, 2, 3}}, "same point"},
		{Camera{Pos: mgl64.Vec3{math.NaN(), 2, 3}}, "not finite"},
		{Camera{Pos: mgl64.Vec3{0, -5, 0}, FOV: 180}, "0 < fov < 180"},
		{Camera{Pos: mgl64.Vec3{0, -5, 0}, FOV: -1}, "0 < fov < 180"},
	} {
		if _, err := Draw(bs, RenderOptions{Width: w, Height: h, Camera: &c.cam}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("camera %+v: %v, want an error with %q", c.cam, err, c.want)
		}
	}
}

func colorRGBA(c [3]uint8) color.RGBA { return color.RGBA{c[0], c[1], c[2], 255} }

// TestQuantities: names, values and ranges of the colour quantities.
func TestQuantities(t *testing.T) {
	bs := []vtk.Body{ball(4, mgl64.Vec3{0, 0, 1}, 0.5, 3), ball(7, mgl64.Vec3{0, 0, 2.5}, 0.5, 1),
		{ID: 9, Kind: engine.Box, SemiAxes: mgl64.Vec3{1, 1, 1}, Pos: mgl64.Vec3{0, 0, -9}, Rot: mgl64.QuatIdent(), Vel: mgl64.Vec3{50, 0, 0}, Fixed: true}}
	for _, c := range []struct {
		name   string
		lo, hi float64
	}{{"speed", 1, 3}, {"z", 1, 2.5}, {"id", 4, 7}, {"force", 0.5, 2}, {"none", 0, 0}} {
		q, err := ParseQuantity(c.name)
		if err != nil || q.String() != c.name {
			t.Fatalf("%s: %v %v", c.name, q, err)
		}
		// The fixed box (fast, low, id 9, loaded) is left out.
		if lo, hi := ColorRange(q, bs, []float64{2, 0.5, 100}); lo != c.lo || hi != c.hi {
			t.Errorf("%s: range %v to %v, want %v to %v", c.name, lo, hi, c.lo, c.hi)
		}
		if q != ByNone {
			if _, err := Draw(bs, RenderOptions{Width: 300, Height: 200, ColorBy: q, Force: []float64{2, 0.5, 100}}); err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
		}
	}
	if _, err := ParseQuantity("colour"); err == nil || !strings.Contains(err.Error(), "speed, z, id, force, none") {
		t.Errorf("bad quantity: %v", err)
	}
	if _, err := Draw(bs, RenderOptions{Width: 300, Height: 200, ColorBy: ByForce}); err == nil || !strings.Contains(err.Error(), "contact") {
		t.Errorf("force without forces: %v", err)
	}
	// One colour, no bar: the picture's colours are shades of plainColor,
	// the white background, text and walls (no viridis).
	img, err := Draw(bs[:2], RenderOptions{Width: 300, Height: 200, ColorBy: ByNone})
	if err != nil {
		t.Fatal(err)
	}
	for y := 0; y < 200; y++ {
		for x := 300 - barMargin; x < 300; x++ {
			if c := img.RGBAAt(x, y); c.R != 255 || c.G != 255 || c.B != 255 {
				t.Fatalf("colour none: pixel (%d, %d) in the bar's margin is %v, want white", x, y, c)
			}
		}
	}
}

// TestScanRunAndForces: a settle with contact frames: the run's range
// holds every frame's, its box every frame's bodies; each contact's force
// counts for both its bodies; a run without contacts says so.
func TestScanRunAndForces(t *testing.T) {
	sc, err := scene.LoadBuiltin("settle", []string{"n=20", "run.steps=8"})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := run.Run(context.Background(), sc, run.Options{Backend: "cpu", OutDir: dir, VTKEvery: 4, VTKContacts: true}); err != nil {
		t.Fatal(err)
	}
	if n, err := NumFrames(dir); n != 3 || err != nil {
		t.Fatalf("NumFrames: %d, %v; want 3", n, err)
	}
	for _, q := range []Quantity{BySpeed, ByZ, ByForce} {
		st, err := ScanRun(dir, q)
		if err != nil {
			t.Fatalf("%v: %v", q, err)
		}
		if st.Frames != 3 || !(st.Lo < st.Hi) {
			t.Errorf("%v: %+v", q, st)
		}
		for k := range 3 {
			fr, err := LoadFrame(dir, k)
			if err != nil {
				t.Fatal(err)
			}
			if err := LoadForces(dir, fr); err != nil {
				t.Fatal(err)
			}
			lo, hi := ColorRange(q, fr.Bodies, fr.Force)
			if lo < st.Lo || hi > st.Hi {
				t.Errorf("%v: frame %d range %v to %v outside the run's %v to %v", q, k, lo, hi, st.Lo, st.Hi)
			}
			b := Bounds(fr.Bodies)
			for a := range 3 {
				if b.Min[a] < st.Bounds.Min[a] || b.Max[a] > st.Bounds.Max[a] {
					t.Errorf("frame %d: box %v outside the run's %v", k, b, st.Bounds)
				}
			}
		}
	}
	last, err := LoadFrame(dir, -1)
	if err != nil {
		t.Fatal(err)
	}
	if err := LoadForces(dir, last); err != nil {
		t.Fatal(err)
	}
	p, err := vtk.ReadFile(dir + "/" + vtk.ContactsFile(8))
	if err != nil {
		t.Fatal(err)
	}
	fn, ft := p.CellArray(vtk.ArrayNormalForce).Data, p.CellArray(vtk.ArrayFrictionForce).Data
	var want, got float64
	for c := range fn {
		want += 2 * math.Hypot(fn[c], ft[c])
	}
	for _, f := range last.Force {
		got += f
	}
	// 1e-9 of the sum: the same terms added in another order (per body,
	// then over the bodies), which differs by roundings of some 1e-16 of
	// the sum per term: far below 1e-9 for any number of contacts this
	// small run has.
	if want == 0 || math.Abs(got-want) > 1e-9*want {
		t.Errorf("Σ body forces %v, want twice Σ contact forces = %v", got, want)
	}
	// The spheres rest on the floor by step 8: the floor carries their
	// weight (20 × 9.81 N) and more (a contact's force counts its friction).
	floor := last.Force[20]
	if last.Bodies[20].Kind != engine.Box || floor < 0.9*20*9.81 {
		t.Errorf("floor (body 20, %v): force %v N, want ≥ 0.9 × 196 N", last.Bodies[20].Kind, floor)
	}
	noContacts := runScene(t, "settle", 4, "n=5", "run.steps=4")
	fr, err := LoadFrame(noContacts, -1)
	if err != nil {
		t.Fatal(err)
	}
	if err := LoadForces(noContacts, fr); !errors.Is(err, ErrNoContacts) {
		t.Errorf("run without contacts: %v, want ErrNoContacts", err)
	}
	if _, err := ScanRun(noContacts, ByForce); !errors.Is(err, ErrNoContacts) {
		t.Errorf("ScanRun by force without contacts: %v", err)
	}
}
