package scene

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gpusim/gpusim/engine"
)

// TestWreckingBallDoc: the wall's bricks in running bond (each whole brick
// above the first row spans a joint of the row below; the wall's ends
// flush, of half bricks in alternate rows), the chain's links and
// joints, and the parameters' range errors.
func TestWreckingBallDoc(t *testing.T) {
	sc, err := LoadBuiltin("wrecking-ball", []string{"n=60"})
	if err != nil {
		t.Fatal(err)
	}
	m := sc.Model
	const links = 8
	if len(m.Bodies) != 1+links+60+1 || len(m.Joints) != links+1 {
		t.Fatalf("%d bodies and %d joints, want ball, %d links, 60 bricks, ground and %d joints", len(m.Bodies), len(m.Joints), links, links+1)
	}
	if m.Bodies[0].Shape.Kind != engine.Sphere || m.Bodies[1].Shape.Kind != engine.Capsule || m.Bodies[len(m.Bodies)-1].Shape.Kind != engine.Plane {
		t.Errorf("bodies 0, 1 and the last are %v, %v, %v; want sphere, capsule, plane", m.Bodies[0].Shape.Kind, m.Bodies[1].Shape.Kind, m.Bodies[len(m.Bodies)-1].Shape.Kind)
	}
	bricks := m.Bodies[1+links : 1+links+60]
	// Joints below a brick of the next row: the x of each gap's middle.
	rowOf := func(z float64) int { return int(math.Round((z - brickHZ) / (2 * brickHZ))) }
	gaps := map[int][]float64{}
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, b := range bricks {
		lo, hi = math.Min(lo, b.Pos[0]-b.Shape.Size[0]), math.Max(hi, b.Pos[0]+b.Shape.Size[0])
		if b.Shape.Kind != engine.Box {
			t.Fatalf("brick %d is a %v", i, b.Shape.Kind)
		}
		if i+1 < len(bricks) && rowOf(bricks[i+1].Pos[2]) == rowOf(b.Pos[2]) {
			gaps[rowOf(b.Pos[2])] = append(gaps[rowOf(b.Pos[2])], (b.Pos[0]+bricks[i+1].Pos[0])/2)
		}
	}
	for i, b := range bricks {
		k := rowOf(b.Pos[2])
		if k == 0 || b.Shape.Size[0] < brickHX {
			continue // the ground row, or a half brick at a row's end
		}
		spans := false
		for _, x := range gaps[k-1] {
			spans = spans || math.Abs(x-b.Pos[0]) < brickHX-0.01
		}
		if !spans {
			t.Errorf("brick %d (row %d, x = %.3f) spans no joint of the row below: no bond", i, k, b.Pos[0])
		}
	}
	for i, b := range bricks {
		if rowOf(b.Pos[2]) < 7 { // the full rows: 60 = 3·(8 + 9) + 8 + 1
			l, r := b.Pos[0]-b.Shape.Size[0], b.Pos[0]+b.Shape.Size[0]
			if (math.Abs(l-lo) > 1e-12 && l-lo < brickHX) || (math.Abs(r-hi) > 1e-12 && hi-r < brickHX) {
				t.Errorf("brick %d [%.4f, %.4f] leaves less than half a brick at the wall's end [%.4f, %.4f]", i, l, r, lo, hi)
			}
		}
	}
	rod, err := LoadBuiltin("wrecking-ball", []string{"n=60", "links=0"})
	if err != nil {
		t.Fatal(err)
	}
	if len(rod.Model.Joints) != 1 || rod.Model.Joints[0].Kind != engine.JointDistance {
		t.Errorf("links = 0: joints %+v, want one distance joint", rod.Model.Joints)
	}
	for _, c := range []struct{ set, want string }{
		{"n=0", "parameter n = 0 must be an integer"},
		{"links=-1", "parameter links = -1 must be an integer in [0, 100]"},
		{"links=2.5", "parameter links = 2.5 must be an integer"},
		{"angle=91", "parameter angle = 91 must be in [0, 90]"},
	} {
		if _, err := LoadBuiltin("wrecking-ball", []string{c.set}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("--set %s: error %v, want one containing %q", c.set, err, c.want)
		}
	}
}

// TestMixerMixture: the mixer's objects are spheres, ellipsoids,
// cylinders and cubes in quarters, the first n mod 4 kinds one more; the
// blades, floor and drum come first; n < 4 is refused.
func TestMixerMixture(t *testing.T) {
	for _, c := range []struct {
		n    int
		want [4]int
	}{{60, [4]int{15, 15, 15, 15}}, {7, [4]int{2, 2, 2, 1}}, {4, [4]int{1, 1, 1, 1}}} {
		sc, err := LoadBuiltin("mixer", []string{"n=" + strconv.Itoa(c.n)})
		if err != nil {
			t.Fatal(err)
		}
		bodies := sc.Model.Bodies
		if len(bodies) != 19+c.n {
			t.Fatalf("n = %d: %d bodies, want 19 + n", c.n, len(bodies))
		}
		var got [4]int
		kinds := []engine.ShapeKind{engine.Sphere, engine.Ellipsoid, engine.Cylinder, engine.Box}
		for i, b := range bodies[19:] {
			k := slices.Index(kinds, b.Shape.Kind)
			if k < 0 {
				t.Fatalf("n = %d: object %d is a %v", c.n, i, b.Shape.Kind)
			}
			if k == 3 && (b.Shape.Size[0] != b.Shape.Size[1] || b.Shape.Size[1] != b.Shape.Size[2]) {
				t.Errorf("n = %d: object %d is a box %v, not a cube", c.n, i, b.Shape.Size)
			}
			got[k]++
		}
		if got != c.want {
			t.Errorf("n = %d: spheres, ellipsoids, cylinders, cubes %v, want %v", c.n, got, c.want)
		}
	}
	if _, err := LoadBuiltin("mixer", []string{"n=3"}); err == nil || !strings.Contains(err.Error(), "parameter n = 3 must be at least 4") {
		t.Errorf("n = 3: error %v, want one saying n must be at least 4", err)
	}
}

// TestBulldozerDoc: the vehicle's bodies, masses and joints, the
// materials' friction by pair, and the parameters' range errors.
func TestBulldozerDoc(t *testing.T) {
	sc, err := LoadBuiltin("bulldozer", []string{"n=10"})
	if err != nil {
		t.Fatal(err)
	}
	m := sc.Model
	if len(m.Bodies) != 2+2*32+10+1 || len(m.Joints) != 1+2*32 {
		t.Fatalf("%d bodies and %d joints, want %d and %d", len(m.Bodies), len(m.Joints), 2+2*32+10+1, 1+2*32)
	}
	mass := 0.0
	for _, b := range m.Bodies[:66] {
		mass += b.Mass
	}
	// 5000 + 400 (blade) + 2·(7·250 + 25·20)
	if math.Abs(mass-9900) > 1e-9 {
		t.Errorf("the vehicle weighs %v kg, want 9900", mass)
	}
	if m.Bodies[0].Shape.Kind != engine.Box || m.Bodies[1].Shape.Kind != engine.Compound {
		t.Errorf("chassis and blade are %v and %v, want a box and a compound", m.Bodies[0].Shape.Kind, m.Bodies[1].Shape.Kind)
	}
	if j := m.Joints[0]; j.Kind != engine.JointFixed || j.Body1 != 1 || j.Body2 != 0 {
		t.Errorf("joint 0 is %+v, want the blade fixed to the chassis", j)
	}
	motors := 0
	for s := range 2 {
		base := 2 + 32*s
		for k := range 7 {
			b := m.Bodies[base+k]
			if b.Shape.Kind != engine.Cylinder || b.Mass != 250 {
				t.Errorf("body %d is a %v of %v kg, want a 250 kg cylinder", base+k, b.Shape.Kind, b.Mass)
			}
		}
		for i := range 25 {
			j := m.Joints[1+32*s+7+i]
			if j.Kind != engine.JointRevolute || j.Body1 != base+7+i || j.Body2 != base+7+(i+1)%25 {
				t.Errorf("shoe joint %d of track %d: %+v", i, s, j)
			}
		}
	}
	for _, j := range m.Joints {
		if j.Motor != nil {
			motors++
			if j.Motor.Speed != 4 || j.Motor.MaxForce != 20000 || m.Bodies[j.Body1].Shape.Kind != engine.Cylinder || j.Body2 != 0 {
				t.Errorf("motor joint %+v, want a sprocket at 4 rad/s, up to 20 kN·m, on the chassis", j)
			}
		}
	}
	if motors != 2 {
		t.Errorf("%d motors, want 2 sprockets", motors)
	}
	mu := func(a, b int) float64 {
		return min(m.Materials[m.Bodies[a].Material].Friction, m.Materials[m.Bodies[b].Material].Friction)
	}
	ground, shoe, soil := len(m.Bodies)-1, 2+7, 66
	if mu(shoe, ground) != 1 || mu(1, soil) != 0 || mu(soil, soil+1) != 0.2 || mu(soil, ground) != 0.2 {
		t.Errorf("μ shoe–ground %v, blade–soil %v, soil–soil %v, soil–ground %v; want 1, 0, 0.2, 0.2",
			mu(shoe, ground), mu(1, soil), mu(soil, soil+1), mu(soil, ground))
	}
	for _, c := range []struct{ set, want string }{
		{"n=0", "parameter n = 0 must be an integer"},
		{"speed=101", "parameter speed = 101 must be in [−100, 100]"},
		{"torque=-1", "parameter torque = -1 must be ≥ 0"},
		{"dt=0", "parameter dt = 0 must be in (0, 0.01]"},
		{"dt=0.1", "parameter dt = 0.1 must be in (0, 0.01]"},
	} {
		if _, err := LoadBuiltin("bulldozer", []string{c.set}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("--set %s: error %v, want one containing %q", c.set, err, c.want)
		}
	}
}
