package scene

import (
	"fmt"
	"math"
)

// Built-in scenes with the newer shapes (capsules, cylinders, convex
// hulls): the SPG paper's wrecking ball (benchmark B4) and the APGD
// paper's bulldozer (§4.2.2).

// capsuleShape is a capsule of radius r whose axis, along the body z axis,
// is 2·hh long between the centres of its end balls.
func capsuleShape(r, hh float64) ShapeSpec {
	return ShapeSpec{Type: "capsule", Radius: &Size{Value: r}, HalfHeight: &Size{Value: hh}}
}

// cylinderShape is a cylinder of radius r and height 2·hh along the body
// z axis.
func cylinderShape(r, hh float64) ShapeSpec {
	return ShapeSpec{Type: "cylinder", Radius: &Size{Value: r}, HalfHeight: &Size{Value: hh}}
}

// aboutX is the rotation by a (rad) about the x axis.
func aboutX(a float64) *Quat { return &Quat{math.Cos(a / 2), math.Sin(a / 2), 0, 0} }

// intParam reads an integer parameter in [lo, hi].
func intParam(p map[string]float64, name string, lo, hi int) (int, error) {
	v := p[name]
	if v != math.Trunc(v) || v < float64(lo) || v > float64(hi) {
		return 0, fmt.Errorf("parameter %s = %v must be an integer in [%d, %d]", name, v, lo, hi)
	}
	return int(v), nil
}

// The wrecking ball's sizes (the paper gives none but the 750 bricks).
const (
	brickHX, brickHY, brickHZ = 0.2, 0.1, 0.075 // brick half-extents (m): 0.4 × 0.2 × 0.15 m
	brickGap                  = 0.002           // gap between bricks of a row (m)
	brickDensity              = 2000.0          // kg/m³: 24 kg a brick
	wbBallR                   = 0.5             // ball radius (m)
	wbLength                  = 4.0             // pivot to ball centre (m)
	wbLinkR                   = 0.04            // chain links' radius (m)
	steelDensity              = 7800.0          // kg/m³
)

// wreckingBallDoc is benchmark B4 of the SPG paper (Fig. 6 and 7: "750
// bricks being impacted by a wrecking ball"). The paper gives only the
// number of bricks; the rest is chosen here. A wall of n bricks (boxes
// 0.4 × 0.2 × 0.15 m, 2000 kg/m³, 24 kg; half bricks 0.199 m long at the
// ends of alternate rows) stands on the ground (a plane, z = 0) along x,
// 0.2 m thick, centred on y = 0, in running bond with flush ends: even
// rows (from the ground, 0) of c = max(2, round(√(1.2·n))) bricks, odd
// rows of c − 1 bricks between two half bricks, a 2 mm gap between
// neighbours, so that each whole brick above the first row sits across a
// joint of the row below; the last row holds what is left of n in its
// middle slots (for n = 750: c = 30, 24 full rows and 18 bricks on top).
// A steel ball (r = 0.5 m, 7800 kg/m³, 4084 kg) hangs 4 m below a fixed
// pivot above the wall's face (y = −0.1 m), its centre at half the wall's
// height (its bottom at least 0.3 m above the ground): it would hang
// 0.5 m into the wall, so it strikes the wall near the bottom of its
// swing, 7° before. The chain
// is links steel capsules (r = 0.04 m) end to end on spherical joints,
// the first to the world at the pivot, the last to the ball's surface; or,
// for links = 0, one distance joint (a massless rod) from the pivot to the
// ball's centre. The pendulum starts at rest, turned back (towards −y) by
// angle degrees. Bodies: 0 the ball, 1 to links the chain from the pivot
// down, then the bricks row by row from the ground up, each row along +x,
// then the ground. Materials: brick (μ = 0.6), steel (μ = 0.3), ground
// (μ = 0.8); contacts take the smaller μ. Figure of merit: chain (the
// joints' error, the pivot's force and, at the end, the iterations each
// solver takes on the last step's problem).
func wreckingBallDoc(p map[string]float64) (*Doc, error) {
	n, err := count(p, "n")
	if err != nil {
		return nil, err
	}
	links, err := intParam(p, "links", 0, 100)
	if err != nil {
		return nil, err
	}
	deg := p["angle"]
	if !(deg >= 0 && deg <= 90) {
		return nil, fmt.Errorf("parameter angle = %v must be in [0, 90] degrees", deg)
	}
	th := deg * math.Pi / 180
	cols := max(2, int(math.Round(math.Sqrt(1.2*float64(n)))))
	pitch := 2*brickHX + brickGap
	// Row k's slots (centre and half-length along x): c bricks for even
	// k, c − 1 bricks between two half bricks for odd k; a row with fewer
	// bricks left takes the middle slots.
	slots := func(k int) [][2]float64 {
		var s [][2]float64
		if k%2 == 0 {
			for i := 0; i < cols; i++ {
				s = append(s, [2]float64{(float64(i) - float64(cols-1)/2) * pitch, brickHX})
			}
			return s
		}
		end := float64(cols-1)/2*pitch + brickHX // the wall's end
		half := (brickHX - brickGap/2) / 2
		s = append(s, [2]float64{-end + half, half})
		for i := 0; i < cols-1; i++ {
			s = append(s, [2]float64{(float64(i) - float64(cols-2)/2) * pitch, brickHX})
		}
		return append(s, [2]float64{end - half, half})
	}
	var bricks []BodySpec
	rows := 0
	for left := n; left > 0; rows++ {
		s := slots(rows)
		m := min(len(s), left)
		first := (len(s) - m) / 2
		for _, sl := range s[first : first+m] {
			bricks = append(bricks, BodySpec{Shape: boxShape(sl[1], brickHY, brickHZ),
				Pos: &Vec3{sl[0], 0, brickHZ + float64(rows)*2*brickHZ}, Density: ptr(brickDensity), Material: "brick"})
		}
		left -= m
	}
	wallH := float64(rows) * 2 * brickHZ
	zBall := math.Max(wallH/2, wbBallR+0.3)
	pivot := Vec3{0, -brickHY, zBall + wbLength}
	d := Vec3{0, -math.Sin(th), -math.Cos(th)} // from the pivot down the chain
	at := func(s float64) Vec3 { return Vec3{pivot[0] + s*d[0], pivot[1] + s*d[1], pivot[2] + s*d[2]} }
	ballPos := at(wbLength)
	bodies := []BodySpec{{Shape: sphere(wbBallR), Pos: &ballPos, Density: ptr(steelDensity), Material: "steel"}}
	var joints []JointSpec
	if links == 0 {
		joints = append(joints, JointSpec{Type: "distance", Body1: ptr(0), Point1: &ballPos, Point2: &pivot})
	} else {
		seg := (wbLength - wbBallR) / float64(links)
		if seg < 2*wbLinkR+0.01 {
			return nil, fmt.Errorf("parameter links = %d makes links %.3g m long, shorter than their width %.2g m", links, seg, 2*wbLinkR)
		}
		rot := aboutX(-th) // body z onto −d
		for i := 0; i < links; i++ {
			c := at((float64(i) + 0.5) * seg)
			bodies = append(bodies, BodySpec{Shape: capsuleShape(wbLinkR, seg/2-wbLinkR), Pos: &c, Rot: rot,
				Density: ptr(steelDensity), Material: "steel"})
			top := at(float64(i) * seg)
			j := JointSpec{Type: "spherical", Body1: ptr(i + 1), Point: &top}
			if i > 0 {
				j.Body2 = ptr(i)
			}
			joints = append(joints, j)
		}
		end := at(wbLength - wbBallR)
		joints = append(joints, JointSpec{Type: "spherical", Body1: ptr(0), Body2: ptr(links), Point: &end})
	}
	bodies = append(bodies, bricks...)
	chain := fmt.Sprintf("a chain of %d steel capsules (r = 0.04 m) on spherical joints", links)
	if links == 0 {
		chain = "a distance joint (a massless rod)"
	}
	ballMass := steelDensity * 4 / 3 * math.Pi * wbBallR * wbBallR * wbBallR
	return &Doc{
		Name: "wrecking-ball",
		Description: fmt.Sprintf("Benchmark B4 of the SPG paper (Fig. 6, 7: 750 bricks impacted by a wrecking ball; the paper gives no "+
			"other size, these are chosen): a wall of %d bricks (0.4 × 0.2 × 0.15 m, 24 kg; %d rows, of %d bricks and of %d between "+
			"two half bricks in turn: running bond) on "+
			"the ground, struck by a steel ball (r = 0.5 m, %.0f kg, body 0) swinging from %v° on %s 4 m long from a fixed pivot "+
			"above the wall's face. Bodies: 0 the ball, 1 to %d the chain, then the bricks row by row, then the ground. Figure of "+
			"merit: the joints' error, the pivot's force and the iterations each solver takes on the last step's problem "+
			"(`gpusim compare wrecking-ball --step K` for a step of the impact); trace.csv follows the ball.",
			n, rows, cols, cols-1, ballMass, deg, chain, links),
		Gravity: &Vec3{0, 0, -9.81},
		Materials: []MaterialSpec{{Name: "brick", Friction: ptr(0.6)}, {Name: "steel", Friction: ptr(0.3)},
			{Name: "ground", Friction: ptr(0.8)}},
		Settings:   SettingsSpec{Dt: ptr(0.005), Solver: ptr("apgd"), Tol: ptr(1e-6), MaxIter: ptr(1000)},
		Run:        RunSpec{Duration: ptr(3.0), Trace: []int{0}},
		Bodies:     bodies,
		Containers: []ContainerSpec{{Type: "plane", Point: &Vec3{0, 0, 0}, Normal: &Vec3{0, 0, 1}, Material: "ground"}},
		Joints:     joints,
		Merit:      &MeritSpec{Type: "chain"},
	}, nil
}
