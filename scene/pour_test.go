package scene

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/engine"
)

const pourDoc = `{"materials": [{"name": "m", "friction": 0.3}],
  "bodies": [{"shape": {"type": "sphere", "radius": 0.05}, "pos": [0, 0, 0.05], "mass": 1}],
  "containers": [{"type": "box", "inner_min": [-0.5, -0.5, 0], "inner_max": [0.5, 0.5, 1], "thickness": 0.1}],
  "generators": [
    {"type": "pour", "count": 50, "rate": 200, "seed": 3, "density": 1000, "velocity": [0, 0, -1],
     "region": {"min": [-0.5, -0.5, 0.6], "max": [0.5, 0.5, 1]},
     "shape": {"type": "sphere", "radius": {"dist": "uniform", "min": 0.03, "max": 0.05}}},
    {"type": "random", "count": 5, "seed": 1, "mass": 1, "region": {"min": [-0.5, -0.5, 0.1], "max": [0.5, 0.5, 0.3]},
     "shape": {"type": "box", "half_extents": [0.03, 0.03, 0.03]}}],
  "run": {"trace": [0, 59]}}`

// TestPour: a pour's bodies come after the body, the random generator's
// and the box's (ids of the others as without it), body 0 at t = 0 in the
// model, the others in Entering at start + k/rate with the given velocity,
// inside the region, clear of the pour bodies due while
// one moves clear of its spot; two builds are equal; run.trace may name a
// pour body; ModelWith and EntersAt.
func TestPour(t *testing.T) {
	sc, err := Parse([]byte(pourDoc), "pour.json", nil)
	if err != nil {
		t.Fatal(err)
	}
	// 1 body, 5 random, 5 walls, pour body 0 (due at t = 0).
	if n := len(sc.Model.Bodies); n != 12 || len(sc.Entering) != 49 || len(sc.EntryTimes) != 49 || sc.TotalBodies() != 61 {
		t.Fatalf("%d bodies at t = 0, %d entering (%d times); want 12, 49", n, len(sc.Entering), len(sc.EntryTimes))
	}
	without, err := Parse([]byte(strings.NewReplacer(`"type": "pour", "count": 50`, `"type": "pour", "count": 1`, `[0, 59]`, `[0]`).Replace(pourDoc)), "pour.json", nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 11 {
		if !reflect.DeepEqual(sc.Model.Bodies[i], without.Model.Bodies[i]) {
			t.Fatalf("body %d depends on the pour's count", i)
		}
	}
	if sc.Model.Bodies[10].Shape.Kind != engine.Box || !sc.Model.Bodies[10].Fixed {
		t.Fatalf("body 10 is not the last wall: %+v", sc.Model.Bodies[10])
	}
	all := append(append([]engine.Body{}, sc.Model.Bodies[11:]...), sc.Entering...)
	for k, tk := range sc.EntryTimes {
		// (k+1)/200 exactly as the generator computes it.
		if want := 0 + float64(k+1)/200; tk != want {
			t.Fatalf("entry %d at %v s, want %v", k, tk, want)
		}
	}
	// The bodies due within the time one needs to fall clear of its spot
	// (2·0.05 m from 1 m/s under 9.81 m/s²: ½·9.81·t² + t = 0.1 at
	// t = 0.0735 s, 14.7 bodies at 200/s) must not overlap: W = 16.
	const w = 16
	if got := pourWindow(50, 200, 0.1, mgl64.Vec3{0, 0, -1}, mgl64.Vec3{0, 0, -9.81}); got != w {
		t.Fatalf("window %d, want %d", got, w)
	}
	for k, b := range all {
		r := b.Shape.BoundingRadius()
		if b.Vel != (mgl64.Vec3{0, 0, -1}) {
			t.Fatalf("pour body %d: velocity %v", k, b.Vel)
		}
		for c := range 3 {
			lo, hi := -0.5, 0.5
			if c == 2 {
				lo, hi = 0.6, 1
			}
			if b.Pos[c]-r < lo || b.Pos[c]+r > hi {
				t.Fatalf("pour body %d at %v (radius %v) leaves the region", k, b.Pos, r)
			}
		}
		for j := max(0, k-w+1); j < k; j++ {
			if b.Pos.Sub(all[j].Pos).Len() < r+all[j].Shape.BoundingRadius() {
				t.Fatalf("pour bodies %d and %d overlap", j, k)
			}
		}
	}
	again, err := Parse([]byte(pourDoc), "pour.json", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(again.Entering, sc.Entering) || !reflect.DeepEqual(again.Model, sc.Model) {
		t.Fatal("two builds differ")
	}
	if m := sc.ModelWith(12); len(m.Bodies) != 12 {
		t.Fatalf("ModelWith(12): %d bodies", len(m.Bodies))
	}
	if m := sc.ModelWith(20); len(m.Bodies) != 20 || !reflect.DeepEqual(m.Bodies[19], sc.Entering[7]) || len(sc.Model.Bodies) != 12 {
		t.Fatalf("ModelWith(20): %d bodies", len(m.Bodies))
	}
	for _, c := range []struct {
		t float64
		n int
	}{{0, 12}, {0.0049, 12}, {0.005, 13}, {0.1, 32}, {10, 61}} {
		if got := sc.EntersAt(c.t); got != c.n {
			t.Errorf("EntersAt(%v) = %d, want %d", c.t, got, c.n)
		}
	}
}

// TestPourCylinderInterleave: two pours into cylinders interleave by entry
// time (a tie in generator order); a scene of pours alone and a plane;
// start > 0 leaves no pour body in the model; no gravity and no velocity
// make every spot distinct.
func TestPourCylinderInterleave(t *testing.T) {
	src := `{"materials": [{"name": "m", "friction": 0.3}], "gravity": [0, 0, 0],
	  "containers": [{"type": "plane"}],
	  "generators": [
	    {"type": "pour", "count": 4, "rate": 10, "start": 0.1, "mass": 1, "cylinder": {"centre": [0, 0, 1], "radius": 0.5, "height": 0.5},
	     "shape": {"type": "sphere", "radius": 0.05}},
	    {"type": "pour", "count": 30, "rate": 20, "start": 0.1, "mass": 2, "seed": 9, "random_orientation": true,
	     "cylinder": {"centre": [3, 0, 1], "radius": 0.5, "height": 0.5},
	     "shape": {"type": "box", "half_extents": [0.05, 0.05, 0.05]}}]}`
	sc, err := Parse([]byte(src), "cyl.json", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(sc.Model.Bodies) != 1 || len(sc.Entering) != 34 {
		t.Fatalf("%d bodies at t = 0, %d entering", len(sc.Model.Bodies), len(sc.Entering))
	}
	// Times 0.1, 0.2, 0.3, 0.4 (first pour) and 0.1, 0.15, … (second).
	want := []float64{0.1, 0.1, 0.15, 0.2, 0.2, 0.25}
	mass := []float64{1, 2, 2, 1, 2, 2}
	for k := range want {
		// 1e-15 s: start + k/rate rounds once or twice (an ulp of 0.25 is
		// 5.6e-17); the literal times are the nearest floats.
		if math.Abs(sc.EntryTimes[k]-want[k]) > 1e-15 || sc.Entering[k].Mass != mass[k] {
			t.Fatalf("entry %d: %v s, mass %v; want %v s, mass %v", k, sc.EntryTimes[k], sc.Entering[k].Mass, want[k], mass[k])
		}
	}
	for k, b := range sc.Entering {
		c := mgl64.Vec3{0, 0, 1}
		if b.Mass == 2 {
			c[0] = 3
		}
		r := b.Shape.BoundingRadius()
		if d := b.Pos.Sub(c); math.Hypot(d[0], d[1])+r > 0.5 || d[2]-r < 0 || d[2]+r > 0.5 {
			t.Fatalf("body %d at %v leaves its cylinder", k, b.Pos)
		}
		for j, q := range sc.Entering[:k] {
			if b.Pos.Sub(q.Pos).Len() < r+q.Shape.BoundingRadius() {
				t.Fatalf("bodies %d and %d overlap (nothing moves them: all must be apart)", j, k)
			}
		}
	}
}

// TestPourOnlyFields: a document without a pour has no Entering, and the
// pour's fields are refused elsewhere.
func TestPourOnlyFields(t *testing.T) {
	sc, err := Load("settle", []string{"n=27"})
	if err != nil {
		t.Fatal(err)
	}
	if sc.Entering != nil || sc.EntryTimes != nil || sc.TotalBodies() != len(sc.Model.Bodies) {
		t.Fatal("a scene without a pour has entering bodies")
	}
	lattice := `{"materials": [{"name": "m", "friction": 0.3}],
	  "generators": [{"type": "lattice", "count": 4, "mass": 1, "start": 1, "shape": {"type": "sphere", "radius": 0.05}}]}`
	if _, err := Parse([]byte(lattice), "l.json", nil); err == nil || !strings.Contains(err.Error(), "generators[0].start: applies to pour generators only") {
		t.Fatalf("start in a lattice: %v", err)
	}
	late := `{"materials": [{"name": "m", "friction": 0.3}],
	  "generators": [{"type": "pour", "count": 4, "mass": 1, "rate": 1, "start": 1, "region": {"min": [0, 0, 0], "max": [1, 1, 1]},
	    "shape": {"type": "sphere", "radius": 0.05}}]}`
	if _, err := Parse([]byte(late), "late.json", nil); err == nil || !strings.Contains(err.Error(), "no body at t = 0") {
		t.Fatalf("a pour alone starting late: %v", err)
	}
}
