package collide

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/engine"
)

// gridScene is the input of Grid.Pairs.
type gridScene struct {
	boxes   []AABB // a plane's: point and normal (PlaneBox)
	bounded []bool
	fixed   []bool
	binSize float64
}

func (s *gridScene) pairs(g *Grid, out [][2]int32) ([][2]int32, error) {
	return g.Pairs(s.boxes, s.bounded, s.fixed, s.binSize, out)
}

// add appends a body: box b when bounded, else the plane through p with
// normal n.
func (s *gridScene) add(b AABB, bounded, fixed bool, p, n mgl64.Vec3) {
	if !bounded {
		b = AABB{Min: p, Max: n}
	}
	s.boxes = append(s.boxes, b)
	s.bounded = append(s.bounded, bounded)
	s.fixed = append(s.fixed, fixed)
}

// randomScene returns n bodies in a 4 m cube: mostly small boxes (half
// extents 0.02–0.4 m, a third of them with corners on a 1/16 m lattice so
// that many boxes touch exactly), about 2% big boxes (half extents up
// to 4 m), about 2% planes with random normals, about 20% fixed. Planes get
// NaN boxes and bounded bodies NaN plane data, which Pairs must not read.
func randomScene(rng *rand.Rand, n int) *gridScene {
	s := &gridScene{binSize: 0.25}
	nan := mgl64.Vec3{math.NaN(), math.NaN(), math.NaN()}
	for range n {
		fixed := rng.Float64() < 0.2
		switch u := rng.Float64(); {
		case u < 0.02:
			normal := mgl64.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}.Normalize()
			point := mgl64.Vec3{4 * rng.Float64(), 4 * rng.Float64(), 4 * rng.Float64()}
			s.add(AABB{nan, nan}, false, fixed, point, normal)
		case u < 0.04:
			var b AABB
			for k := range 3 {
				c, h := 4*rng.Float64(), 0.05+4*rng.Float64()
				b.Min[k], b.Max[k] = c-h, c+h
			}
			s.add(b, true, fixed, nan, nan)
		default:
			var b AABB
			snap := rng.IntN(3) == 0
			for k := range 3 {
				c, h := 4*rng.Float64(), 0.02+0.38*rng.Float64()*rng.Float64()
				if snap {
					c, h = math.Round(c*16)/16, math.Max(1, math.Round(h*16))/16
				}
				b.Min[k], b.Max[k] = c-h, c+h
			}
			s.add(b, true, fixed, nan, nan)
		}
	}
	return s
}

// bruteForcePairs is the O(n²) definition of Grid.Pairs.
func bruteForcePairs(s *gridScene) [][2]int32 {
	var out [][2]int32
	reaches := func(p, b int) bool {
		n, o := s.boxes[p].Max, s.boxes[p].Min
		var d float64
		for k := range 3 {
			c := s.boxes[b].Max[k]
			if n[k] > 0 {
				c = s.boxes[b].Min[k]
			}
			d += n[k] * (c - o[k])
		}
		return d <= 0
	}
	for i := range s.boxes {
		for j := i + 1; j < len(s.boxes); j++ {
			if s.fixed[i] && s.fixed[j] {
				continue
			}
			var hit bool
			switch {
			case s.bounded[i] && s.bounded[j]:
				a, b := s.boxes[i], s.boxes[j]
				hit = true
				for k := range 3 {
					if a.Min[k] > b.Max[k] || b.Min[k] > a.Max[k] {
						hit = false
					}
				}
			case s.bounded[j]:
				hit = reaches(i, j)
			case s.bounded[i]:
				hit = reaches(j, i)
			}
			if hit {
				out = append(out, [2]int32{int32(i), int32(j)})
			}
		}
	}
	return out
}

// checkPairList fails unless got is sorted strictly by (i, j) with i < j,
// has no fixed–fixed pair and equals want.
func checkPairList(t *testing.T, s *gridScene, got, want [][2]int32) {
	t.Helper()
	for k, p := range got {
		if p[0] >= p[1] {
			t.Fatalf("pair %d is %v: want i < j", k, p)
		}
		if k > 0 && !(got[k-1][0] < p[0] || got[k-1][0] == p[0] && got[k-1][1] < p[1]) {
			t.Fatalf("pairs %d, %d are %v, %v: not strictly ascending", k-1, k, got[k-1], p)
		}
		if s.fixed[p[0]] && s.fixed[p[1]] {
			t.Fatalf("pair %v joins two fixed bodies", p)
		}
	}
	if !slices.Equal(got, want) {
		missing, extra := pairDiff(want, got), pairDiff(got, want)
		t.Fatalf("got %d pairs, want %d; missing %v; extra %v", len(got), len(want), head(missing), head(extra))
	}
}

// pairDiff returns the pairs of a not in b.
func pairDiff(a, b [][2]int32) [][2]int32 {
	var d [][2]int32
	for _, p := range a {
		if !slices.Contains(b, p) {
			d = append(d, p)
		}
	}
	return d
}

func head(p [][2]int32) [][2]int32 { return p[:min(len(p), 10)] }

// sharedSlots counts the slots of g that hold entries of more than one bin:
// hash collisions, which the owner-bin test must see through.
func sharedSlots(g *Grid) int {
	shared := 0
	for s := 0; s+1 < len(g.start); s++ {
		var first [3]int32
		for e := g.start[s]; e < g.start[s+1]; e++ {
			r := g.ranges[g.entryID[e]]
			at := int32(g.entryAt[e])
			nx, ny := int32(r.n[0]), int32(r.n[1])
			c := [3]int32{r.lo[0] + at%nx, r.lo[1] + at/nx%ny, r.lo[2] + at/(nx*ny)}
			if e == g.start[s] {
				first = c
			} else if c != first {
				shared++
				break
			}
		}
	}
	return shared
}

func TestGridPairsMatchesBruteForce(t *testing.T) {
	var g Grid
	var out [][2]int32
	shared := 0
	for seed := range uint64(6) {
		rng := rand.New(rand.NewPCG(seed, 1))
		s := randomScene(rng, 300+rng.IntN(1500))
		want := bruteForcePairs(s)
		if len(want) == 0 {
			t.Fatalf("seed %d: scene has no pairs", seed)
		}
		// From bins far smaller than most boxes (most bodies big) to bins
		// larger than the scene (one bin).
		for _, bin := range []float64{0.04, 0.1, 0.25, 0.3, 1, 7} {
			t.Run(fmt.Sprintf("seed=%d/bin=%g", seed, bin), func(t *testing.T) {
				s.binSize = bin
				var err error
				out, err = s.pairs(&g, out)
				if err != nil {
					t.Fatal(err)
				}
				checkPairList(t, s, out, want)
				shared += sharedSlots(&g)
			})
		}
	}
	if shared == 0 {
		t.Error("no hash collisions in any scene: the owner-bin test under collisions went untested")
	}
}

func TestGridPairsTouching(t *testing.T) {
	unit := AABB{Max: mgl64.Vec3{1, 1, 1}}
	shift := func(b AABB, d mgl64.Vec3) AABB { return AABB{b.Min.Add(d), b.Max.Add(d)} }
	up := mgl64.Vec3{0, 0, 1}
	s := &gridScene{}
	s.add(unit, true, false, mgl64.Vec3{}, mgl64.Vec3{})                             // 0
	s.add(shift(unit, mgl64.Vec3{1, 0, 0}), true, false, mgl64.Vec3{}, mgl64.Vec3{}) // 1: shares a face with 0
	s.add(shift(unit, mgl64.Vec3{1, 1, 0}), true, false, mgl64.Vec3{}, mgl64.Vec3{}) // 2: shares an edge with 0, a face with 1
	s.add(shift(unit, mgl64.Vec3{1, 1, 1}), true, false, mgl64.Vec3{}, mgl64.Vec3{}) // 3: shares a corner with 0
	gap := math.Nextafter(-1, math.Inf(-1))
	s.add(shift(unit, mgl64.Vec3{gap, 0, 0}), true, false, mgl64.Vec3{}, mgl64.Vec3{}) // 4: one ulp short of 0
	s.add(AABB{}, false, true, mgl64.Vec3{}, up)                                       // 5: floor z ≤ 0 touched by 0, 1, 2, 4
	s.add(shift(unit, mgl64.Vec3{0, 0, 5}), true, true, mgl64.Vec3{}, mgl64.Vec3{})    // 6: fixed, above the floor
	s.add(shift(unit, mgl64.Vec3{0, 0, 6}), true, true, mgl64.Vec3{}, mgl64.Vec3{})    // 7: fixed, touches 6: dropped
	lift := math.Nextafter(0, 1)
	s.add(shift(unit, mgl64.Vec3{5, 5, lift}), true, false, mgl64.Vec3{}, mgl64.Vec3{}) // 8: one ulp above the floor
	want := [][2]int32{{0, 1}, {0, 2}, {0, 3}, {0, 5}, {1, 2}, {1, 3}, {1, 5}, {2, 3}, {2, 5}, {4, 5}}
	if got := bruteForcePairs(s); !slices.Equal(got, want) {
		t.Fatalf("brute force gives %v, want %v", got, want)
	}
	var g Grid
	// Faces on bin boundaries (1, 0.5, 1/8) and inside bins (0.3, 1/3, 3).
	for _, bin := range []float64{1, 0.5, 0.125, 0.3, 1.0 / 3, 3} {
		s.binSize = bin
		got, err := s.pairs(&g, nil)
		if err != nil {
			t.Fatalf("bin %g: %v", bin, err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("bin %g: got %v, want %v", bin, got, want)
		}
	}
}

func TestGridPairsDeterministic(t *testing.T) {
	s := randomScene(rand.New(rand.NewPCG(42, 7)), 3000)
	var g1, g2 Grid
	first, err := s.pairs(&g1, nil)
	if err != nil {
		t.Fatal(err)
	}
	again, err := s.pairs(&g1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(first, again) {
		t.Fatal("the same Grid gave different pairs for the same input")
	}
	for _, bin := range []float64{0.05, 0.17, 0.5, 2} {
		s.binSize = bin
		other, err := s.pairs(&g2, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(first, other) {
			t.Fatalf("bin %g gave %d pairs, bin 0.25 gave %d", bin, len(other), len(first))
		}
	}
}

// TestGridPairsSpread puts clusters of bodies up to 10⁷ m apart with 0.2 m
// bins: a dense grid would need ~10²⁴ bins, the hashed one a table sized by
// the number of entries.
func TestGridPairsSpread(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	s := &gridScene{binSize: 0.2}
	for c := range 8 {
		centre := mgl64.Vec3{float64(c%2*2-1) * 1e7, float64(c/2%2*2-1) * 3e6, float64(c/4*2-1) * 1e5}
		for range 200 {
			var b AABB
			for k := range 3 {
				x, h := centre[k]+2*rng.Float64(), 0.05+0.1*rng.Float64()
				b.Min[k], b.Max[k] = x-h, x+h
			}
			s.add(b, true, false, mgl64.Vec3{}, mgl64.Vec3{})
		}
	}
	var g Grid
	got, err := s.pairs(&g, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkPairList(t, s, got, bruteForcePairs(s))
	entries := len(g.entryID)
	if slots := len(g.start) - 1; slots >= 2*entries {
		t.Errorf("table has %d slots for %d entries, want fewer than twice as many", slots, entries)
	}
}

func TestGridPairsEmpty(t *testing.T) {
	var g Grid
	out, err := g.Pairs(nil, nil, nil, 1, make([][2]int32, 3))
	if err != nil || len(out) != 0 {
		t.Fatalf("empty input: got %v, %v; want no pairs, no error", out, err)
	}
}

func TestGridPairsAllocs(t *testing.T) {
	s := randomScene(rand.New(rand.NewPCG(9, 9)), 4000)
	var g Grid
	var out [][2]int32
	var err error
	for range 3 {
		if out, err = s.pairs(&g, out); err != nil {
			t.Fatal(err)
		}
	}
	allocs := testing.AllocsPerRun(10, func() { out, _ = s.pairs(&g, out) })
	if allocs != 0 {
		t.Errorf("Pairs makes %v allocations per call in steady state, want 0", allocs)
	}
}

func TestGridPairsErrors(t *testing.T) {
	base := func() *gridScene {
		s := &gridScene{binSize: 0.5}
		for i := range 6 {
			x := float64(i)
			s.add(AABB{mgl64.Vec3{x, 0, 0}, mgl64.Vec3{x + 1, 1, 1}}, true, false, mgl64.Vec3{}, mgl64.Vec3{})
		}
		s.add(AABB{}, false, true, mgl64.Vec3{}, mgl64.Vec3{0, 0, 1})
		return s
	}
	nan, inf := math.NaN(), math.Inf(1)
	cases := []struct {
		name   string
		edit   func(s *gridScene, g *Grid)
		substr string
	}{
		{"short bounded", func(s *gridScene, _ *Grid) { s.bounded = s.bounded[:3] }, "bounded"},
		{"short fixed", func(s *gridScene, _ *Grid) { s.fixed = s.fixed[:3] }, "fixed"},
		{"long fixed", func(s *gridScene, _ *Grid) { s.fixed = append(s.fixed, false) }, "fixed"},
		{"zero bin", func(s *gridScene, _ *Grid) { s.binSize = 0 }, "bin size"},
		{"negative bin", func(s *gridScene, _ *Grid) { s.binSize = -1 }, "bin size"},
		{"NaN bin", func(s *gridScene, _ *Grid) { s.binSize = nan }, "bin size"},
		{"infinite bin", func(s *gridScene, _ *Grid) { s.binSize = inf }, "bin size"},
		{"NaN box", func(s *gridScene, _ *Grid) { s.boxes[2].Min[1] = nan }, "body 2"},
		{"infinite box", func(s *gridScene, _ *Grid) { s.boxes[4].Max[0] = inf }, "body 4"},
		{"inverted box", func(s *gridScene, _ *Grid) { s.boxes[3].Min[2] = 2 }, "body 3"},
		{"NaN plane point", func(s *gridScene, _ *Grid) { s.boxes[6].Min[0] = nan }, "body 6"},
		{"infinite plane normal", func(s *gridScene, _ *Grid) { s.boxes[6].Max[2] = -inf }, "body 6"},
		{"zero plane normal", func(s *gridScene, _ *Grid) { s.boxes[6].Max = mgl64.Vec3{} }, "body 6"},
		{"far from origin", func(s *gridScene, _ *Grid) {
			s.boxes[5] = AABB{mgl64.Vec3{1e12, 0, 0}, mgl64.Vec3{1e12, 0, 0}}
			s.binSize = 1e-3
		}, "body 5"},
		{"too many entries", func(_ *gridScene, g *Grid) { g.MaxEntries = 40 }, "larger bin size"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := base()
			var g Grid
			if _, err := s.pairs(&g, nil); err != nil {
				t.Fatalf("base scene: %v", err)
			}
			c.edit(s, &g)
			out, err := s.pairs(&g, make([][2]int32, 2))
			if err == nil || !strings.Contains(err.Error(), c.substr) {
				t.Fatalf("got error %v, want one naming %q", err, c.substr)
			}
			if len(out) != 0 {
				t.Errorf("got %d pairs with the error, want none", len(out))
			}
			// The Grid stays usable after an error.
			g.MaxEntries = 0
			if _, err := base().pairs(&g, nil); err != nil {
				t.Errorf("after the error, a valid call failed: %v", err)
			}
		})
	}
}

// aabbTol is the tolerance of ShapeAABB checks relative to the scale of the
// numbers involved: the brief's 1e-12, far above the few-ulp (~1e-15)
// rounding of a rotation and a sum of three terms.
const aabbTol = 1e-12

func TestShapeAABBSphere(t *testing.T) {
	pos := mgl64.Vec3{1, -2, 3}
	rot := mgl64.QuatRotate(0.7, mgl64.Vec3{1, 2, 3}.Normalize())
	box, ok := ShapeAABB(engine.SphereShape(0.25), pos, rot, 0.5)
	// 0.75, 1, 2 and 3 are exact in binary, so the sums are exact.
	want := AABB{mgl64.Vec3{0.25, -2.75, 2.25}, mgl64.Vec3{1.75, -1.25, 3.75}}
	if !ok || box != want {
		t.Errorf("got %v, %v; want %v, true", box, ok, want)
	}
}

func TestShapeAABBUnbounded(t *testing.T) {
	for _, s := range []engine.Shape{engine.PlaneShape(), {Kind: 200, Size: mgl64.Vec3{1, 1, 1}}} {
		if _, ok := ShapeAABB(s, mgl64.Vec3{}, mgl64.QuatIdent(), 0.1); ok {
			t.Errorf("%v got a bounded box", s.Kind)
		}
	}
}

func TestShapeAABBRotatedClosedForm(t *testing.T) {
	const h = 0.5
	theta := 0.3
	c, s := math.Cos(theta), math.Sin(theta)
	a, b, e := 1.0, 0.4, 0.2
	for _, tc := range []struct {
		name  string
		shape engine.Shape
		angle float64
		want  mgl64.Vec3 // half-widths without margin
	}{
		{"cube 45°", engine.BoxShape(h, h, h), math.Pi / 4, mgl64.Vec3{h * math.Sqrt2, h * math.Sqrt2, h}},
		{"box 45°", engine.BoxShape(a, b, e), math.Pi / 4, mgl64.Vec3{(a + b) / math.Sqrt2, (a + b) / math.Sqrt2, e}},
		{"box 0.3", engine.BoxShape(a, b, e), theta, mgl64.Vec3{a*c + b*s, a*s + b*c, e}},
		{"ellipsoid 0.3", engine.EllipsoidShape(a, b, e), theta, mgl64.Vec3{math.Sqrt(a*a*c*c + b*b*s*s), math.Sqrt(a*a*s*s + b*b*c*c), e}},
		{"ellipsoid 90°", engine.EllipsoidShape(a, b, e), math.Pi / 2, mgl64.Vec3{b, a, e}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const margin = 0.01
			pos := mgl64.Vec3{2, 3, -1}
			box, ok := ShapeAABB(tc.shape, pos, mgl64.QuatRotate(tc.angle, mgl64.Vec3{0, 0, 1}), margin)
			if !ok {
				t.Fatal("not bounded")
			}
			for k := range 3 {
				w := tc.want[k] + margin
				// Scale: the coordinates are of order |pos| + w ≤ 5.
				if math.Abs(box.Max[k]-(pos[k]+w)) > aabbTol*5 || math.Abs(box.Min[k]-(pos[k]-w)) > aabbTol*5 {
					t.Errorf("axis %d: got [%v, %v], want %v ± %v", k, box.Min[k], box.Max[k], pos[k], w)
				}
			}
		})
	}
}

// TestShapeAABBContainsAndTouches samples points on the surfaces of random
// boxes and ellipsoids (rotated with mgl64's Quat.Rotate, independent of
// ShapeAABB's matrix) and checks that the AABB holds them all and that the
// shape's extreme points along ±x, ±y, ±z lie on the AABB's faces.
func TestShapeAABBContainsAndTouches(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	randUnit := func() mgl64.Vec3 {
		return mgl64.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}.Normalize()
	}
	for trial := range 200 {
		size := mgl64.Vec3{0.05 + 2*rng.Float64(), 0.05 + 2*rng.Float64(), 0.05 + 2*rng.Float64()}
		shape := engine.Shape{Kind: engine.Box, Size: size}
		if trial%2 == 1 {
			shape.Kind = engine.Ellipsoid
		}
		pos := mgl64.Vec3{10 * rng.NormFloat64(), 10 * rng.NormFloat64(), 10 * rng.NormFloat64()}
		rot := mgl64.QuatRotate(2*math.Pi*rng.Float64(), randUnit())
		box, ok := ShapeAABB(shape, pos, rot, 0)
		if !ok {
			t.Fatalf("trial %d: %v not bounded", trial, shape.Kind)
		}
		// Scale of the coordinates compared.
		tol := aabbTol * (pos.Len() + size.Len())
		world := func(p mgl64.Vec3) mgl64.Vec3 { return pos.Add(rot.Rotate(p)) }
		for range 500 {
			var p mgl64.Vec3
			if shape.Kind == engine.Ellipsoid {
				u := randUnit()
				p = mgl64.Vec3{size[0] * u[0], size[1] * u[1], size[2] * u[2]}
			} else {
				for k := range 3 {
					p[k] = size[k] * (2*rng.Float64() - 1)
				}
				face := rng.IntN(3)
				p[face] = size[face] * float64(2*rng.IntN(2)-1)
			}
			w := world(p)
			for k := range 3 {
				if w[k] < box.Min[k]-tol || w[k] > box.Max[k]+tol {
					t.Fatalf("trial %d: %v surface point %v outside %v–%v on axis %d", trial, shape.Kind, w, box.Min, box.Max, k)
				}
			}
		}
		for k := range 3 {
			var d mgl64.Vec3
			d[k] = 1
			u := rot.Conjugate().Rotate(d) // e_k in the body frame
			var p mgl64.Vec3               // the shape's support point along u
			if shape.Kind == engine.Ellipsoid {
				su := mgl64.Vec3{size[0] * u[0], size[1] * u[1], size[2] * u[2]}
				p = mgl64.Vec3{size[0] * su[0], size[1] * su[1], size[2] * su[2]}.Mul(1 / su.Len())
			} else {
				for j := range 3 {
					p[j] = math.Copysign(size[j], u[j])
				}
			}
			hi, lo := world(p), world(p.Mul(-1))
			if math.Abs(hi[k]-box.Max[k]) > tol || math.Abs(lo[k]-box.Min[k]) > tol {
				t.Fatalf("trial %d: %v extent on axis %d is [%v, %v], box [%v, %v]", trial, shape.Kind, k, lo[k], hi[k], box.Min[k], box.Max[k])
			}
		}
	}
}

// BenchmarkGridPairs bins n spheres of radius r = 0.1 m in a dense random
// packing: centres on a cubic lattice of spacing 2r, each moved by up to
// ±0.1r per axis, boxes inflated by a 0.01 m margin, bins of 0.2 m +
// margin. Each box meets about 21–25 other boxes (10.5–12.3 pairs per body,
// reported as pairs/body).
func BenchmarkGridPairs(b *testing.B) {
	const r, margin = 0.1, 0.01
	for _, n := range []int{1000, 8000, 64000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, uint64(n)))
			side := int(math.Ceil(math.Cbrt(float64(n))))
			s := &gridScene{binSize: 2*r + margin}
			for i := range n {
				var box AABB
				for k, c := range [3]int{i % side, i / side % side, i / (side * side)} {
					x := 2*r*float64(c) + 0.1*r*(2*rng.Float64()-1)
					box.Min[k], box.Max[k] = x-r-margin, x+r+margin
				}
				s.add(box, true, false, mgl64.Vec3{}, mgl64.Vec3{})
			}
			var g Grid
			out, err := s.pairs(&g, nil)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				out, _ = s.pairs(&g, out)
			}
			b.ReportMetric(float64(len(out))/float64(n), "pairs/body")
		})
	}
}

// TestGridPairsRunner: with a runner that takes the body pairs' parts in
// parallel and in random order, Pairs gives the serial pairs exactly: on
// random scenes of 3000 bodies (planes, big bodies, fixed ones; three
// parts in one wave) against brute force, and on a packing of 40 000 boxes
// with planes and big bodies (three waves) against the serial Grid, each
// twice (the wave's buffers reused).
func TestGridPairsRunner(t *testing.T) {
	for seed := range uint64(3) {
		s := randomScene(rand.New(rand.NewPCG(seed, 5)), 3000)
		var g Grid
		g.SetRunner(shuffledRunner(seed))
		want := bruteForcePairs(s)
		var out [][2]int32
		for range 2 {
			var err error
			if out, err = s.pairs(&g, out); err != nil {
				t.Fatal(err)
			}
			checkPairList(t, s, out, want)
		}
	}
	rng := rand.New(rand.NewPCG(11, 11))
	s := &gridScene{binSize: 0.21}
	const side = 35 // 42 875 boxes of 0.2 m on a lattice of 0.2 m, moved
	for i := range side * side * side {
		var box AABB
		for k, c := range [3]int{i % side, i / side % side, i / (side * side)} {
			x := 0.2*float64(c) + 0.01*(2*rng.Float64()-1)
			box.Min[k], box.Max[k] = x-0.105, x+0.105
		}
		s.add(box, true, rng.IntN(10) == 0, mgl64.Vec3{}, mgl64.Vec3{})
		if i%9000 == 4000 { // a plane and a big box among the bodies
			s.add(AABB{}, false, true, mgl64.Vec3{0, 0, 0.3}, mgl64.Vec3{0, 0.6, 0.8})
			s.add(AABB{mgl64.Vec3{1, 1, 1}, mgl64.Vec3{3, 2.5, 4}}, true, false, mgl64.Vec3{}, mgl64.Vec3{})
		}
	}
	var serial, par Grid
	par.SetRunner(shuffledRunner(3))
	var want, got [][2]int32
	for range 2 {
		var err error
		if want, err = s.pairs(&serial, want); err != nil {
			t.Fatal(err)
		}
		if got, err = s.pairs(&par, got); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("packing: parallel Pairs gave %d pairs, serial %d, or different ones", len(got), len(want))
		}
	}
	if waves := (len(s.boxes) + waveParts*bodyGrain - 1) / (waveParts * bodyGrain); waves < 3 || len(serial.extra) == 0 {
		t.Fatalf("packing: %d waves and %d big or plane pairs; the test wants several of each", waves, len(serial.extra))
	}
}

// TestGridPairsAtBinLimit: boxes whose bins end at 2³¹ − 1, the last bin
// Pairs accepts, still pair up (a loop bound lo + n would overflow int32
// there and skip their bins).
func TestGridPairsAtBinLimit(t *testing.T) {
	const top = math.MaxInt32 // the bin index of x in [top, top+1) at bin size 1
	boxes := []AABB{
		{Min: mgl64.Vec3{top - 0.8, 0, 0}, Max: mgl64.Vec3{top + 0.5, 0.5, 0.5}},
		{Min: mgl64.Vec3{top + 0.1, 0.1, 0.1}, Max: mgl64.Vec3{top + 0.9, 0.6, 0.6}},
		{Min: mgl64.Vec3{top - 0.9, 0.7, 0}, Max: mgl64.Vec3{top - 0.85, 0.8, 0.1}},
	}
	var g Grid
	got, err := g.Pairs(boxes, []bool{true, true, true}, []bool{false, false, false}, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := [][2]int32{{0, 1}}; !slices.Equal(got, want) {
		t.Fatalf("pairs %v, want %v", got, want)
	}
}
