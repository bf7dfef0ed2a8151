package scene

import (
	"strconv"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/engine"
)

// splitmix64 transcribes the generator of bench/settle.md line by line,
// independently of SplitMix64.
func splitmix64(s *uint64) float64 {
	*s += 0x9E3779B97F4A7C15
	z := *s
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	z ^= z >> 31
	return float64(z>>11) / (1 << 53)
}

func TestSplitMix64(t *testing.T) {
	// First output for seed 0 of Vigna's reference splitmix64.c.
	if got := (&SplitMix64{}).Next(); got != 0xE220A8397B1DCDAF {
		t.Errorf("SplitMix64{0}.Next() = %#x, want 0xE220A8397B1DCDAF", got)
	}
	r, s := &SplitMix64{State: 0x5EED5EED}, uint64(0x5EED5EED)
	for i := range 1000 {
		if got, want := r.Float64(), splitmix64(&s); got != want {
			t.Fatalf("draw %d: Float64() = %v, want %v", i, got, want)
		}
	}
}

// TestSettle checks the settle scene against bench/settle.md bit for bit:
// every sphere position recomputed here from the spec's formulas, and the
// container boxes as the spec lists them. Comparisons are exact (==): the
// benchmark must be reproducible across engines.
func TestSettle(t *testing.T) {
	for _, tc := range []struct {
		n, nx int // nx = min(ceil(cbrt(N)), 19) from the spec
	}{{1000, 10}, {8000, 19}} {
		sc, err := LoadBuiltin("settle", []string{"n=" + strconv.Itoa(tc.n)})
		if err != nil {
			t.Fatal(err)
		}
		m := sc.Model
		if len(m.Bodies) != tc.n+5 {
			t.Fatalf("n=%d: %d bodies, want %d spheres + 5 boxes", tc.n, len(m.Bodies), tc.n)
		}
		if got := latticeRow(tc.n, 19); got != tc.nx {
			t.Errorf("n=%d: nx = %d, want %d", tc.n, got, tc.nx)
		}
		if len(m.Materials) != 1 || m.Materials[0].Friction != 0.25 || m.Materials[0].Cohesion != 0 {
			t.Errorf("materials %+v, want one with μ = 0.25", m.Materials)
		}
		if m.Gravity != (mgl64.Vec3{0, 0, -9.81}) {
			t.Errorf("gravity %v", m.Gravity)
		}
		seed := uint64(0x5EED5EED)
		for n := range tc.n {
			i, j, k := n%tc.nx, (n/tc.nx)%tc.nx, n/(tc.nx*tc.nx)
			x := (float64(i) - float64(tc.nx-1)/2) * 0.21
			y := (float64(j) - float64(tc.nx-1)/2) * 0.21
			z := 0.11 + float64(k)*0.21
			x += (2*splitmix64(&seed) - 1) * 0.005
			y += (2*splitmix64(&seed) - 1) * 0.005
			z += (2*splitmix64(&seed) - 1) * 0.005
			b := m.Bodies[n]
			if b.Pos != (mgl64.Vec3{x, y, z}) {
				t.Fatalf("n=%d: sphere %d at %v, want %v", tc.n, n, b.Pos, mgl64.Vec3{x, y, z})
			}
			if b.Shape != engine.SphereShape(0.1) || b.Mass != 1 || b.Fixed || b.Rot != mgl64.QuatIdent() ||
				b.Vel != (mgl64.Vec3{}) || b.Omega != (mgl64.Vec3{}) || b.Material != 0 {
				t.Fatalf("n=%d: sphere %d is %+v", tc.n, n, b)
			}
			if want := engine.SphereShape(0.1).UnitInertia(); b.Inertia != want {
				t.Fatalf("sphere %d inertia %v, want %v", n, b.Inertia, want)
			}
		}
		if tc.n == 1000 {
			// Spot checks written out: sphere 0 is at lattice (−4.5·0.21,
			// −4.5·0.21, 0.11) plus the first three draws; sphere 999 is
			// the last of layer 9.
			s := uint64(0x5EED5EED)
			u1, u2, u3 := splitmix64(&s), splitmix64(&s), splitmix64(&s)
			want0 := mgl64.Vec3{-0.945 + (2*u1-1)*0.005, -0.945 + (2*u2-1)*0.005, 0.11 + (2*u3-1)*0.005}
			if d := m.Bodies[0].Pos.Sub(want0); d.Len() > 1e-15 { // 1e-15: −4.5·0.21 vs −0.945 differ by rounding only
				t.Errorf("sphere 0 at %v, want %v", m.Bodies[0].Pos, want0)
			}
			if p := m.Bodies[999].Pos; p[2] < 0.11+9*0.21-0.005 || p[2] > 0.11+9*0.21+0.005 {
				t.Errorf("sphere 999 at z = %v, want layer 9 (1.999 ± 0.005)", p[2])
			}
		}
		walls := []struct{ pos, half mgl64.Vec3 }{
			{mgl64.Vec3{0, 0, -0.1}, mgl64.Vec3{2.2, 2.2, 0.1}},
			{mgl64.Vec3{-2.1, 0, 2}, mgl64.Vec3{0.1, 2.2, 2}},
			{mgl64.Vec3{2.1, 0, 2}, mgl64.Vec3{0.1, 2.2, 2}},
			{mgl64.Vec3{0, -2.1, 2}, mgl64.Vec3{2, 0.1, 2}},
			{mgl64.Vec3{0, 2.1, 2}, mgl64.Vec3{2, 0.1, 2}},
		}
		for w, want := range walls {
			b := m.Bodies[tc.n+w]
			if b.Pos != want.pos || b.Shape != engine.BoxShape(want.half[0], want.half[1], want.half[2]) ||
				!b.Fixed || b.Rot != mgl64.QuatIdent() || b.Material != 0 {
				t.Errorf("n=%d: wall %d is %+v, want a fixed box at %v with half-extents %v", tc.n, w, b, want.pos, want.half)
			}
		}
		if want := (Region{Min: Vec3{-2, -2, 0}, Max: Vec3{2, 2, 4}}); sc.Domain == nil || *sc.Domain != want {
			t.Errorf("domain %v, want %v", sc.Domain, want)
		}
		s := sc.Settings
		if s.Dt != 0.01 || s.Solver != "apgd" || s.Tol != 0 || s.MaxIter != 100 || sc.Duration != 2 || sc.Steps != 0 || len(sc.Trace) != 0 {
			t.Errorf("settings %+v, duration %v, steps %d, trace %v", s, sc.Duration, sc.Steps, sc.Trace)
		}
	}
}
