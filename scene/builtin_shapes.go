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

// The bulldozer's sizes (m, kg): the paper gives the masses, the number of
// shoes, rollers and sprockets, the sprockets' speed and the materials;
// the sizes are chosen here.
const (
	bdPitch       = 0.3   // track pitch: a shoe's length between its joints
	bdShoeW       = 0.5   // shoe width (y)
	bdShoeT       = 0.05  // shoe thickness
	bdShoeMass    = 20.0  // per shoe
	bdWheelMass   = 250.0 // sprocket, idler, roller
	bdRollerR     = 0.12  // roller radius
	bdChassisMass = 5000.0
	bdChassisHW   = 0.8 // chassis half-width (y)
	bdTrackY      = 1.1 // track centre line |y|
	bdBladeMass   = 400.0
	bdBladeR      = 0.8 // blade's radius of curvature
	bdBladeT      = 0.04
	bdBladeHW     = 1.4 // blade half-width (y)
	bdBladeSlabs  = 6
	bdSoilA       = 0.025 // ellipsoid semi-axes: 0.067 kg at 2000 kg/m³
	bdSoilB       = 0.02
	bdSoilC       = 0.016
	bdSoilSpacing = 0.055
)

// trackLoop returns the 25 joint points (x, z) of a track loop in the
// vertical plane, counter-clockwise seen from −y (x to the right, z up),
// the first at (xRear, bdShoeT): a bottom run of 9 shoes along +x on
// z = bdShoeT (the shoes' inner faces; the plates below, on the ground),
// a cap of 4 shoes rising at 30°, 45°, 135° and 150°, a top run of 9
// shoes along −x, and a cap of 3 shoes at 225°, 270° and 315°: half a
// regular octagon, whose inscribed circle (the sprocket) touches that cap
// and both runs. The loop closes exactly: sin 30° + sin 45° = (1 + √2)/2.
// bulldozerDoc turns it front to back.
func trackLoop(xRear float64) [][2]float64 {
	var dirs []float64
	for range 9 {
		dirs = append(dirs, 0)
	}
	dirs = append(dirs, 30, 45, 135, 150)
	for range 9 {
		dirs = append(dirs, 180)
	}
	dirs = append(dirs, 225, 270, 315)
	pts := make([][2]float64, 0, len(dirs))
	x, z := xRear, bdShoeT
	for _, d := range dirs {
		pts = append(pts, [2]float64{x, z})
		s, c := math.Sincos(d * math.Pi / 180)
		x, z = x+bdPitch*c, z+bdPitch*s
	}
	return pts
}

// segDist is the distance from point q to the segment a–b (in the xz
// plane).
func segDist(q, a, b [2]float64) float64 {
	dx, dz := b[0]-a[0], b[1]-a[1]
	t := math.Max(0, math.Min(1, ((q[0]-a[0])*dx+(q[1]-a[1])*dz)/(dx*dx+dz*dz)))
	return math.Hypot(q[0]-a[0]-t*dx, q[1]-a[1]-t*dz)
}

// bulldozerDoc is the bulldozer of the APGD paper §4.2.2 (Fig. 9), as
// close as gpusim allows; the paper gives masses and counts, the sizes
// here are chosen. The vehicle drives along +x on the ground (a plane,
// z = 0, μ = 1). The chassis (body 0) is a box 5000 kg, 1.6 m wide,
// between two tracks centred on y = ±1.1 m. Each track is a closed loop
// of 25 shoes (boxes 0.3 × 0.5 × 0.05 m, 20 kg, μ = 1) joined by revolute
// joints about y at their ends (trackLoop, turned front to back: a bottom
// run of 9 on the ground, a front of 3 round the sprocket, a top run of
// 9, a rear of 4). The sprocket (a cylinder, 250 kg, radius 0.362 m: the
// octagon's inscribed circle, touching the bottom and top runs and the
// front shoes) turns on a revolute joint to the chassis driven at speed
// rad/s (a motor row, up to torque N·m; 0 lifts the limit, and the first
// step's jump to full speed then throws the vehicle up), rolling forward
// on the bottom run and pulling the top run forwards by friction (μ = 1;
// the paper's sprocket has teeth, which a cylinder lacks). It drives from
// the front: driven from the rear it pushed the rigid top run, which
// buckled and whipped. A free idler (250 kg, not in the paper) fills the
// rear of the loop, and five rollers (cylinders r = 0.12 m, 250 kg) on
// revolute joints carry the chassis on the bottom run. The blade (body 1)
// is a compound of 6 convex slabs (hulls, 0.04 m thick, 2.8 m wide) on an
// arc of radius 0.8 m over ±45°, concave forwards, its lower edge 5 cm
// above the ground, 400 kg (the paper gives no mass), frictionless
// (μ = 0), held to the chassis by a fixed joint (joint 0, body1 the
// blade: its reaction is the chassis's force on the blade). The pile is n
// ellipsoids (semi-axes 0.025, 0.02, 0.016 m: 0.067 kg at 2000 kg/m³, as
// the paper's; μ = 0.2, cohesion 500 N; random orientations) from a
// lattice 0.5 m in front of the blade, max(2, round((4n)^⅓)) a row, which
// falls into a pile as the vehicle sets off. Contacts take the smaller μ
// and cohesion of their two materials. Bodies: 0 the chassis, 1 the
// blade, then per track (−y, then +y) the sprocket, the idler, the five
// rollers and the 25 shoes (counter-clockwise seen from −y, the first
// rising from the front-bottom corner), then the ellipsoids, then the
// ground. Joints: 0 the blade's, then per track the sprocket's (with the
// motor), the idler's, the rollers' and the 25 shoe joints (shoe k to
// shoe k + 1). h = dt (paper: 1e-4 s); the solver is spg, whose diagonal
// preconditioner copes with the mass ratios (apgd stalls at max_iter, far
// from the tolerance, once the pile's contacts join the vehicle's rows);
// max_recovery_speed 0.5 m/s (at h = 1e-4 s a particle pinched 1 mm deep
// under the blade would otherwise be pushed out at 10 m/s).
func bulldozerDoc(p map[string]float64) (*Doc, error) {
	n, err := count(p, "n")
	if err != nil {
		return nil, err
	}
	speed, torque, dt := p["speed"], p["torque"], p["dt"]
	if math.IsNaN(speed) || math.IsInf(speed, 0) || math.Abs(speed) > 100 {
		return nil, fmt.Errorf("parameter speed = %v must be in [−100, 100] rad/s", speed)
	}
	if !(torque >= 0) || math.IsInf(torque, 0) {
		return nil, fmt.Errorf("parameter torque = %v must be ≥ 0 and finite (N·m; 0: unlimited)", torque)
	}
	if !(dt > 0 && dt <= 0.01) {
		return nil, fmt.Errorf("parameter dt = %v must be in (0, 0.01] s", dt)
	}
	loop := trackLoop(0)
	inR := bdPitch / (2 * math.Tan(math.Pi/8)) // the octagon's inscribed radius
	sprocket := [2]float64{bdPitch / 2, bdShoeT + inR}
	// The idler, in the 4-shoe cap (the rear once the loop is turned):
	// the point on the loop's mid-height line farthest from every shoe,
	// by a fine search.
	front := loop[9:14]
	zMid := bdShoeT + inR
	idler, idlerR := [2]float64{}, 0.0
	for x := front[0][0] - inR; x <= front[2][0]; x += 1e-4 {
		q := [2]float64{x, zMid}
		d := math.Inf(1)
		for i := range 25 {
			d = math.Min(d, segDist(q, loop[i], loop[(i+1)%25]))
		}
		if d > idlerR {
			idler, idlerR = q, d
		}
	}
	sprocketR := inR
	// Rollers: evenly between the sprocket and the idler, on the bottom
	// run.
	x0, x1 := sprocket[0]+sprocketR+bdRollerR+0.03, idler[0]-idlerR-bdRollerR-0.03
	var rollers [][2]float64
	for k := range 5 {
		rollers = append(rollers, [2]float64{x0 + (x1-x0)*float64(k)/4, bdShoeT + bdRollerR})
	}
	// Turn the loop front to back (x → −x, the order reversed to keep it
	// counter-clockwise seen from −y), so that the sprocket drives from
	// the front: its top pulls the top run forwards (in tension) rather
	// than pushing it (in compression: a rigid top run pushed from behind
	// buckles and whips). The first shoe now rises from the front-bottom
	// corner.
	mirror := func(q [2]float64) [2]float64 { return [2]float64{-q[0], q[1]} }
	flipped := make([][2]float64, 25)
	for i := range 25 {
		flipped[i] = mirror(loop[(25-i)%25])
	}
	loop = flipped
	sprocket, idler = mirror(sprocket), mirror(idler)
	for k := range rollers {
		rollers[k] = mirror(rollers[k])
	}
	// Centre the vehicle's footprint on x = 0.
	xFront, xRear := math.Inf(-1), math.Inf(1)
	for _, q := range loop {
		xFront, xRear = math.Max(xFront, q[0]+bdShoeT), math.Min(xRear, q[0]-bdShoeT)
	}
	xMid := (xRear + xFront) / 2
	chassisL := (xFront - xRear) / 2
	wheel := aboutX(-math.Pi / 2) // body z onto +y
	var bodies []BodySpec
	var joints []JointSpec
	chassisPos := Vec3{0, 0, 0.3 + 0.4}
	bodies = append(bodies, BodySpec{Shape: boxShape(chassisL, bdChassisHW, 0.4), Pos: &chassisPos,
		Mass: ptr(bdChassisMass), Material: "chassis"})
	// The blade: slabs between the arc (radius R about c) and R + t,
	// concave forwards.
	xBlade := xFront - xMid + 0.15 // the arc's rearmost point
	phiM := math.Pi / 4
	zc := 0.05 + bdBladeR*math.Sin(phiM)
	c := [2]float64{xBlade + bdBladeR, zc}
	var parts []PartSpec
	for k := range bdBladeSlabs {
		var pts []Vec3
		for _, phi := range []float64{-phiM + 2*phiM*float64(k)/bdBladeSlabs, -phiM + 2*phiM*float64(k+1)/bdBladeSlabs} {
			for _, r := range []float64{bdBladeR, bdBladeR + bdBladeT} {
				for _, y := range []float64{-bdBladeHW, bdBladeHW} {
					pts = append(pts, Vec3{c[0] - r*math.Cos(phi), y, c[1] + r*math.Sin(phi)})
				}
			}
		}
		parts = append(parts, PartSpec{Shape: ShapeSpec{Type: "convex", Points: pts}})
	}
	bladeMid := Vec3{xBlade, 0, zc}
	bodies = append(bodies, BodySpec{Shape: ShapeSpec{Type: "compound", Parts: parts}, Mass: ptr(bdBladeMass),
		Material: "blade"})
	joints = append(joints, JointSpec{Type: "fixed", Body1: ptr(1), Body2: ptr(0), Point: &bladeMid})
	motor := &MotorSpec{Speed: ptr(speed)}
	if torque > 0 {
		motor.MaxTorque = ptr(torque)
	}
	axis := Vec3{0, 1, 0}
	for _, y := range []float64{-bdTrackY, bdTrackY} {
		at := func(q [2]float64) *Vec3 { return &Vec3{q[0] - xMid, y, q[1]} }
		base := len(bodies)
		wheels := []struct {
			q [2]float64
			r float64
		}{{sprocket, sprocketR}, {idler, idlerR}}
		for _, q := range rollers {
			wheels = append(wheels, struct {
				q [2]float64
				r float64
			}{q, bdRollerR})
		}
		for k, w := range wheels {
			bodies = append(bodies, BodySpec{Shape: cylinderShape(w.r, bdShoeW/2-0.05), Pos: at(w.q), Rot: wheel,
				Mass: ptr(bdWheelMass), Material: "wheel"})
			j := JointSpec{Type: "revolute", Body1: ptr(base + k), Body2: ptr(0), Point: at(w.q), Axis: &axis}
			if k == 0 {
				j.Motor = motor
			}
			joints = append(joints, j)
		}
		shoes := len(bodies)
		for i := range 25 {
			a, b := loop[i], loop[(i+1)%25]
			ex, ez := (b[0]-a[0])/bdPitch, (b[1]-a[1])/bdPitch
			// The plate lies outside the loop: to the right of the
			// counter-clockwise direction (ez, −ex).
			mid := [2]float64{(a[0]+b[0])/2 + ez*bdShoeT/2, (a[1]+b[1])/2 - ex*bdShoeT/2}
			psi := -math.Atan2(ez, ex) // about y: body x onto (ex, 0, ez)
			bodies = append(bodies, BodySpec{Shape: boxShape(bdPitch/2-0.003, bdShoeW/2, bdShoeT/2), Pos: at(mid),
				Rot: &Quat{math.Cos(psi / 2), 0, math.Sin(psi / 2), 0}, Mass: ptr(bdShoeMass), Material: "shoe"})
		}
		for i := range 25 {
			joints = append(joints, JointSpec{Type: "revolute", Body1: ptr(shoes + i), Body2: ptr(shoes + (i+1)%25),
				Point: at(loop[(i+1)%25]), Axis: &axis})
		}
	}
	nx := max(2, int(math.Round(math.Cbrt(4*float64(n)))))
	xPile := xBlade + bdBladeR*(1-math.Cos(phiM)) + 0.5 + float64(latticeRow(n, nx)-1)/2*bdSoilSpacing
	return &Doc{
		Name: "bulldozer",
		Description: fmt.Sprintf("Bulldozer of the APGD paper §4.2.2 (Fig. 9; sizes chosen here): a 5000 kg chassis (body 0) on two "+
			"tracks of 25 shoes (20 kg) on revolute joints, each driven by a 250 kg cylindrical sprocket at %v rad/s (revolute "+
			"motor), with a free idler and five 250 kg rollers on revolute joints, pushes a frictionless curved blade (body 1, "+
			"6 convex slabs, 400 kg, fixed joint 0 to the chassis) into a pile of %d cohesive ellipsoids (0.067 kg, 2000 kg/m³, "+
			"μ = 0.2, cohesion 500 N); μ = 1 between shoes and ground; h = %v s. Read: trace.csv (the chassis's speed against "+
			"time), reactions.csv (joint 0: the chassis's force on the blade), merit.csv (the joints' error: the tracks stay "+
			"closed).", speed, n, dt),
		Gravity: &Vec3{0, 0, -9.81},
		Materials: []MaterialSpec{{Name: "ground", Friction: ptr(1.0)}, {Name: "shoe", Friction: ptr(1.0)},
			{Name: "wheel", Friction: ptr(1.0)}, {Name: "chassis", Friction: ptr(0.5)}, {Name: "blade", Friction: ptr(0.0)},
			{Name: "soil", Friction: ptr(0.2), Cohesion: 500}},
		Settings: SettingsSpec{Dt: ptr(dt), Solver: ptr("spg"), Tol: ptr(1e-5), MaxIter: ptr(500), MaxRecoverySpeed: ptr(0.5)},
		Run:      RunSpec{Duration: ptr(2.0), Trace: []int{0, 1}},
		Bodies:   bodies,
		Generators: []GeneratorSpec{{
			Type: "lattice", Count: n, Shape: ShapeSpec{Type: "ellipsoid", SemiAxes: &[3]Size{{Value: bdSoilA}, {Value: bdSoilB}, {Value: bdSoilC}}},
			Density: ptr(2000.0), Material: "soil", RandomOrientation: true, Spacing: ptr(bdSoilSpacing), MaxPerRow: nx,
			Origin: &Vec3{xPile, 0, bdSoilA + 0.002}, Jitter: 0.002, Seed: 9,
		}},
		Containers: []ContainerSpec{{Type: "plane", Point: &Vec3{0, 0, 0}, Normal: &Vec3{0, 0, 1}, Material: "ground"}},
		Joints:     joints,
		Merit:      &MeritSpec{Type: "chain"},
	}, nil
}
