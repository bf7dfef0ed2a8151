package scene

import (
	"fmt"
	"math"
)

// Built-in scenes of issue 17 (joints, motors and kinematic bodies): the
// papers' mechanisms. Each names its figure of merit (Doc.Merit), which
// package run computes.

func boxShape(hx, hy, hz float64) ShapeSpec {
	return ShapeSpec{Type: "box", HalfExtents: &[3]Size{{Value: hx}, {Value: hy}, {Value: hz}}}
}

// evenCount reads a parameter that counts bodies made in pairs.
func evenCount(p map[string]float64, name string) (int, error) {
	n, err := count(p, name)
	if err == nil && n%2 != 0 {
		err = fmt.Errorf("parameter %s = %d must be even", name, n)
	}
	return n, err
}

// chainDoc is benchmark B1 of the SPG paper (Fig. 3: "network of 3500
// bilateral constraints between 1000 parts") as a rope ladder: two rails
// of n/2 steel links each (boxes 50 × 10 × 10 mm, 7800 kg/m³), each link
// joined to the one before by a spherical joint at their shared end and
// the first of each rail to the world; the links k of the two rails are
// joined by a distance joint (a rung) between their centres, 0.1 m apart.
// Rows: 3 per spherical joint, 1 per rung, 3.5·n in all (3500 for
// n = 1000). Link k of rail s is body 2k + s. The ladder starts straight,
// at angle degrees from the downward vertical in the xz plane, rails at
// y = ±0.05 m, anchors on the y axis, and falls from rest.
func chainDoc(p map[string]float64) (*Doc, error) {
	n, err := evenCount(p, "n")
	if err != nil {
		return nil, err
	}
	const (
		half, thick, width = 0.025, 0.005, 0.1
	)
	th := p["angle"] * math.Pi / 180
	if math.IsNaN(th) || math.Abs(th) > math.Pi {
		return nil, fmt.Errorf("parameter angle = %v must be in [−180, 180] degrees", p["angle"])
	}
	// dir is the unit vector along the rails, from the anchor outwards;
	// rot turns the body x axis (the link's long axis) onto it.
	dir := Vec3{math.Sin(th), 0, -math.Cos(th)}
	a := (th - math.Pi/2) / 2 // rotation about y taking +x to dir
	rot := Quat{math.Cos(a), 0, -math.Sin(a), 0}
	at := func(s float64, y float64) *Vec3 { return &Vec3{s * dir[0], y, s * dir[2]} }
	var bodies []BodySpec
	var joints []JointSpec
	links := n / 2
	for k := 0; k < links; k++ {
		for s := 0; s < 2; s++ {
			y := width * (float64(s) - 0.5)
			id := 2*k + s
			bodies = append(bodies, BodySpec{Shape: boxShape(half, thick, thick), Pos: at(float64(2*k+1)*half, y),
				Rot: &rot, Density: ptr(7800.0), Material: "steel"})
			j := JointSpec{Type: "spherical", Body1: ptr(id), Point: at(float64(2*k)*half, y)}
			if k > 0 {
				j.Body2 = ptr(id - 2)
			}
			joints = append(joints, j)
		}
		joints = append(joints, JointSpec{Type: "distance", Body1: ptr(2 * k), Body2: ptr(2*k + 1),
			Point1: at(float64(2*k+1)*half, -width/2), Point2: at(float64(2*k+1)*half, width/2)})
	}
	return &Doc{
		Name: "chain",
		Description: fmt.Sprintf("Benchmark B1 of the SPG paper (Fig. 3, 3500 bilateral constraints between 1000 parts) as a rope "+
			"ladder of %d steel links (boxes 50 × 10 × 10 mm): two rails on spherical joints anchored to the world, rungs as "+
			"distance joints between the rails' links; %d bilateral rows. Link k of rail s is body 2k + s. Released from rest "+
			"at %v° from the vertical. Figure of merit: the largest joint error, the anchors' reaction against the weight, and "+
			"the iterations each solver takes to the tolerance on the last step's problem from zero (CPU path: joints).",
			n, 3*n+n/2, p["angle"]),
		Gravity:   &Vec3{0, 0, -9.81},
		Materials: []MaterialSpec{{Name: "steel", Friction: ptr(0.3)}},
		Settings:  SettingsSpec{Dt: ptr(0.001), Solver: ptr("apgd"), Tol: ptr(1e-6), MaxIter: ptr(5000)},
		Run:       RunSpec{Duration: ptr(0.2), Trace: []int{}},
		Bodies:    bodies,
		Joints:    joints,
		Merit:     &MeritSpec{Type: "chain"},
	}, nil
}

// kinematicBox is a box of half-extents hx, hy, hz at centre c moving as
// mo.
func kinematicBox(hx, hy, hz float64, c Vec3, mo *MotionSpec, mat string) BodySpec {
	return BodySpec{Shape: boxShape(hx, hy, hz), Pos: &c, Motion: mo, Material: mat}
}

// fixedBox is a fixed box of half-extents hx, hy, hz at centre c.
func fixedBox(hx, hy, hz float64, c Vec3, mat string) BodySpec {
	return BodySpec{Shape: boxShape(hx, hy, hz), Pos: &c, Fixed: true, Material: mat}
}

// shakerDoc is the benchmark of the GS paper's Fig. 2 ("shaker with steel
// spheres, about 6500 unilateral constraints"): n steel spheres (r = 5 mm,
// 7800 kg/m³, μ = mu) in an open box 0.2 m × 0.2 m × 0.15 m whose floor
// (body 0, the plate) and four walls (bodies 1 to 4) are kinematic and
// move together as z = amplitude·sin(2π·frequency·t); the spheres follow
// (bodies 5 …). The paper gives no size, amplitude or frequency: the
// defaults (2 mm at 25 Hz, a peak acceleration of 5 g) shake the bed
// loose, and n = 2000 makes about the paper's 6500 contacts at rest.
func shakerDoc(p map[string]float64) (*Doc, error) {
	n, err := count(p, "n")
	if err != nil {
		return nil, err
	}
	a, f := p["amplitude"], p["frequency"]
	if !(a >= 0) || !(f > 0) {
		return nil, fmt.Errorf("parameters amplitude = %v and frequency = %v must be ≥ 0 and > 0", a, f)
	}
	const (
		r, half, height, t = 0.005, 0.1, 0.15, 0.01
	)
	mo := &MotionSpec{Amplitude: &Vec3{0, 0, a}, Frequency: ptr(f)}
	bodies := []BodySpec{
		kinematicBox(half+t, half+t, t/2, Vec3{0, 0, -t / 2}, mo, "steel"),
		kinematicBox(t/2, half+t, height/2, Vec3{-half - t/2, 0, height / 2}, mo, "steel"),
		kinematicBox(t/2, half+t, height/2, Vec3{half + t/2, 0, height / 2}, mo, "steel"),
		kinematicBox(half, t/2, height/2, Vec3{0, -half - t/2, height / 2}, mo, "steel"),
		kinematicBox(half, t/2, height/2, Vec3{0, half + t/2, height / 2}, mo, "steel"),
	}
	return &Doc{
		Name: "shaker",
		Description: fmt.Sprintf("The GS paper's Fig. 2: %d steel spheres (r = 5 mm, 7800 kg/m³, μ = %v) in an open box "+
			"0.2 m × 0.2 m × 0.15 m whose plate (body 0) and walls (bodies 1 to 4) are kinematic and oscillate vertically, "+
			"%v m at %v Hz (peak acceleration %.3g g). Spheres are bodies 5 on. Figure of merit: the plate's offset against "+
			"A·sin(2πft) and the bed's mean height.", n, p["mu"], a, f, a*math.Pow(2*math.Pi*f, 2)/9.81),
		Gravity:   &Vec3{0, 0, -9.81},
		Materials: []MaterialSpec{{Name: "steel", Friction: ptr(p["mu"])}},
		Settings:  SettingsSpec{Dt: ptr(0.001), Solver: ptr("apgd"), Tol: ptr(1e-5), MaxIter: ptr(200)},
		Run:       RunSpec{Duration: ptr(1.0), Trace: []int{}},
		Bodies:    bodies,
		Generators: []GeneratorSpec{{
			Type: "lattice", Count: n, Shape: sphere(r), Density: ptr(7800.0), Material: "steel",
			Spacing: ptr(0.0105), MaxPerRow: 19, Origin: &Vec3{0, 0, a + r + 0.001}, Jitter: 0.0002, Seed: 3,
		}},
		Merit: &MeritSpec{Type: "shaker", Bodies: []int{0}},
	}, nil
}

// shearDoc is the direct shear test of the PDIP paper (Fig. 1, Table 1):
// a box of n glass spheres (r = 4 mm, 2500 kg/m³, μ = mu) whose lower
// half is fixed and whose upper half is pushed along +x at v; a lid on
// the specimen, loaded by load N besides its 1 kg, is free to move
// vertically (a prismatic joint along z to the upper half, which it
// follows along x). The square box holds about ten lattice layers of
// spheres whatever n (nx = max(3, round(√(n/10))) per row, spacing
// 8.2 mm, the box 1 mm wider); the halves meet at 40 % of the lattice's
// height, below the middle of the bed once it has settled. Bodies: 0 the
// lid, 1 to 4 the upper half's walls (kinematic, −x, +x, −y, +y), 5 to 9
// the lower half (fixed: floor, −x, +x, −y, +y), then the spheres. The
// upper half moves from t = 0 (a kinematic motion cannot start late): the
// lattice settles under the lid in the first few hundredths of a second,
// while the displacement is still below 1 mm at the default speed.
func shearDoc(p map[string]float64) (*Doc, error) {
	n, err := count(p, "n")
	if err != nil {
		return nil, err
	}
	v, load := p["v"], p["load"]
	if !(load >= 0) || math.IsInf(v, 0) {
		return nil, fmt.Errorf("parameters load = %v must be ≥ 0 and v = %v finite", load, v)
	}
	const (
		r, spacing, t, lidHalf, lidMass = 0.004, 0.0082, 0.01, 0.005, 1.0
	)
	nx := max(3, int(math.Round(math.Sqrt(float64(n)/10))))
	row := latticeRow(n, nx) // the lattice's row: nx or fewer
	layers := (n + row*row - 1) / (row * row)
	height := float64(layers) * spacing
	half := float64(nx)*spacing/2 + 0.001
	zs := 0.4 * height
	top := height + 0.001 // lid underside
	wallTop := top + 2*lidHalf + 0.02
	up := (wallTop - zs) / 2
	mo := &MotionSpec{Vel: &Vec3{v, 0, 0}}
	lidPos := Vec3{0, 0, top + lidHalf}
	bodies := []BodySpec{
		{Shape: boxShape(half-0.0005, half-0.0005, lidHalf), Pos: &lidPos, Mass: ptr(lidMass),
			Force: &Vec3{0, 0, -load}, Material: "glass"},
		kinematicBox(t/2, half+t, up, Vec3{-half - t/2, 0, zs + up}, mo, "glass"),
		kinematicBox(t/2, half+t, up, Vec3{half + t/2, 0, zs + up}, mo, "glass"),
		kinematicBox(half, t/2, up, Vec3{0, -half - t/2, zs + up}, mo, "glass"),
		kinematicBox(half, t/2, up, Vec3{0, half + t/2, zs + up}, mo, "glass"),
		fixedBox(half+t, half+t, t/2, Vec3{0, 0, -t / 2}, "glass"),
		fixedBox(t/2, half+t, zs/2, Vec3{-half - t/2, 0, zs / 2}, "glass"),
		fixedBox(t/2, half+t, zs/2, Vec3{half + t/2, 0, zs / 2}, "glass"),
		fixedBox(half, t/2, zs/2, Vec3{0, -half - t/2, zs / 2}, "glass"),
		fixedBox(half, t/2, zs/2, Vec3{0, half + t/2, zs / 2}, "glass"),
	}
	return &Doc{
		Name: "shear",
		Description: fmt.Sprintf("Direct shear test of the PDIP paper (Fig. 1, Table 1): %d glass spheres (r = 4 mm, μ = %v) in a "+
			"%.3g m square box; the lower half is fixed, the upper half (bodies 1 to 4, kinematic) moves along +x at %v m/s, "+
			"the lid (body 0, 1 kg and %v N) is free to move vertically (prismatic joint). Figure of merit: the force of the "+
			"specimen on the moving half against the displacement, and the normal force on the lid (CPU path: joints).",
			n, p["mu"], 2*half, v, load),
		Gravity:   &Vec3{0, 0, -9.81},
		Materials: []MaterialSpec{{Name: "glass", Friction: ptr(p["mu"])}},
		Settings:  SettingsSpec{Dt: ptr(0.001), Solver: ptr("apgd"), Tol: ptr(1e-5), MaxIter: ptr(300)},
		Run:       RunSpec{Duration: ptr(1.0), Trace: []int{0}},
		Bodies:    bodies,
		Generators: []GeneratorSpec{{
			Type: "lattice", Count: n, Shape: sphere(r), Density: ptr(2500.0), Material: "glass",
			Spacing: ptr(spacing), MaxPerRow: nx, Origin: &Vec3{0, 0, r + 0.0001}, Jitter: 0.0001, Seed: 4,
		}},
		Joints: []JointSpec{{Type: "prismatic", Body1: ptr(0), Body2: ptr(1), Point: &lidPos, Axis: &Vec3{0, 0, 1}}},
		Merit:  &MeritSpec{Type: "shear", Bodies: []int{0, 1, 2, 3, 4}, Axis: &Vec3{1, 0, 0}},
	}, nil
}

// mixerDoc is the mixer of the APGD paper §4.1.2 (Fig. 6, Table III): a
// four-blade mixer turning counter-clockwise (about +z) at omega in a
// cylindrical drum, with the paper's mixture of n objects (density
// 1000 kg/m³, μ = 0.5, cohesion 200 N, h = 5e-4 s): a quarter each of
// spheres (radius uniform in 0.04–0.06 m), ellipsoids (semi-axes uniform
// in 0.04–0.06 m, random orientations), cylinders (radius and half-height
// uniform in 0.04–0.06 m, upright) and cubes (boxes of half-width 0.05 m:
// a generator draws each half-extent on its own, so a cube's size is not
// drawn), mean size 0.05 m; the first n mod 4 shapes in that order take
// one more. The drum is a 16-sided polygon of fixed boxes whose faces
// touch the circle of radius R (R chosen from n so that the settled bed is
// about R/2 deep), on a fixed floor. The blades are two kinematic boxes
// crossing on the drum axis (a kinematic body turns about its own centre,
// so one box through the axis makes two opposite blades and two boxes
// four), R − 0.03 m long from the axis, 0.04 m thick and 0.6·R high.
// Bodies: 0 and 1 the blades, 2 the floor, 3 to 18 the drum, then the
// mixture (spheres, ellipsoids, cylinders, cubes), from a lattice above
// the blades (spacing 0.125 m), which falls in first.
func mixerDoc(p map[string]float64) (*Doc, error) {
	n, err := count(p, "n")
	if err != nil {
		return nil, err
	}
	if n < 4 {
		return nil, fmt.Errorf("parameter n = %d must be at least 4 (a quarter of each shape)", n)
	}
	omega := p["omega"]
	if math.IsNaN(omega) || math.IsInf(omega, 0) {
		return nil, fmt.Errorf("parameter omega = %v must be finite", omega)
	}
	const (
		sides, t, spacing, mean = 16, 0.05, 0.125, 0.05
	)
	vol := float64(n) * 4 / 3 * math.Pi * mean * mean * mean / 0.6 // settled bed, packing 0.6
	rad := math.Max(0.4, math.Cbrt(2*vol/math.Pi))
	nx := max(1, int((math.Sqrt2*rad-0.1)/spacing))
	bladeH := 0.6 * rad
	var counts [4]int
	for k := range counts {
		counts[k] = n / 4
		if k < n%4 {
			counts[k]++
		}
	}
	z := bladeH + 0.07
	var gens []GeneratorSpec
	u := func() *Size { return &Size{Dist: "uniform", Min: 0.04, Max: 0.06} }
	shapes := []ShapeSpec{
		{Type: "sphere", Radius: u()},
		{Type: "ellipsoid", SemiAxes: &[3]Size{*u(), *u(), *u()}},
		{Type: "cylinder", Radius: u(), HalfHeight: u()},
		boxShape(mean, mean, mean),
	}
	for k, c := range counts {
		gens = append(gens, GeneratorSpec{Type: "lattice", Count: c, Shape: shapes[k], Density: ptr(1000.0),
			RandomOrientation: k == 1, Spacing: ptr(spacing), MaxPerRow: nx, Origin: &Vec3{0, 0, z},
			Jitter: 0.002, Seed: Seed(5 + k)})
		row := latticeRow(c, nx)
		z += float64((c+row*row-1)/(row*row)) * spacing
	}
	height := z + 0.1
	w := &Vec3{0, 0, omega}
	bl := rad - 0.03
	bodies := []BodySpec{
		{Shape: boxShape(bl, 0.02, bladeH/2), Pos: &Vec3{0, 0, bladeH / 2}, Motion: &MotionSpec{Omega: w}},
		{Shape: boxShape(bl, 0.02, bladeH/2), Pos: &Vec3{0, 0, bladeH / 2}, Motion: &MotionSpec{Omega: w},
			Rot: &Quat{math.Sqrt2 / 2, 0, 0, math.Sqrt2 / 2}},
		fixedBox(rad+t, rad+t, t/2, Vec3{0, 0, -t / 2}, ""),
	}
	side := (rad + t) * math.Tan(math.Pi/sides)
	for k := 0; k < sides; k++ {
		phi := 2 * math.Pi * float64(k) / sides
		c := Vec3{(rad + t/2) * math.Cos(phi), (rad + t/2) * math.Sin(phi), height / 2}
		b := fixedBox(t/2, side, height/2, c, "")
		b.Rot = &Quat{math.Cos(phi / 2), 0, 0, math.Sin(phi / 2)}
		bodies = append(bodies, b)
	}
	return &Doc{
		Name: "mixer",
		Description: fmt.Sprintf("Mixer of the APGD paper §4.1.2 (Fig. 6, Table III): two kinematic boxes crossing on the axis "+
			"make four blades turning at %v rad/s about +z in a drum of radius %.3g m (16 fixed boxes), with %d objects "+
			"(spheres, ellipsoids, cylinders and cubes in quarters, mean size 0.05 m, 1000 kg/m³, μ = 0.5, cohesion 200 N); "+
			"h = 5e-4 s. Bodies 0 and 1 are the blades, 2 the floor, 3 to 18 the drum. Figure of merit: the torque of the "+
			"mixture on the blades about the axis.", omega, rad, n),
		Gravity:    &Vec3{0, 0, -9.81},
		Materials:  []MaterialSpec{{Name: "mixture", Friction: ptr(0.5), Cohesion: 200}},
		Settings:   SettingsSpec{Dt: ptr(5e-4), Solver: ptr("apgd"), Tol: ptr(1e-4), MaxIter: ptr(200)},
		Run:        RunSpec{Duration: ptr(3.0), Trace: []int{}},
		Bodies:     bodies,
		Generators: gens,
		Merit:      &MeritSpec{Type: "mixer", Bodies: []int{0, 1}, Point: &Vec3{0, 0, 0}, Axis: &Vec3{0, 0, 1}},
	}, nil
}

// flowGapDoc is the granular flow validation of the APGD paper §4.2.4
// (Fig. 12; Heyn 2013): glass spheres (d = 0.5 mm, 2500 kg/m³, so
// 1.6362e-7 kg, μ = 0.3) in a trough whose right wall, at 45°, has slid to
// leave a gap between its lower edge and the end of the floor; the spheres
// run down the wall and out through the gap onto a catch plane 10 mm
// below. The paper has about 39 000 spheres (n = 39000) and gaps of 2.0,
// 2.5 and 3.0 mm; by default n = 4000. The trough's square section is
// W = nx·0.525 mm wide (nx = ⌊(n/2)^⅓⌋ spheres per lattice row) so that
// the column starts about twice as high as wide. The paper settles the
// spheres before opening the gap; here the wall is fixed at its open
// position from t = 0 (a kinematic motion cannot stop), so the lattice
// falls and flows at once, and the flow rate is read in the steady part of
// the discharge. Bodies: 0 the floor (x ≤ 0, top at z = 0), 1 the left
// wall, 2 the 45° wall (its lower inner edge at x = gap, z = 0), 3 and 4
// the front and back walls, 5 the catch plane, then the spheres.
func flowGapDoc(p map[string]float64) (*Doc, error) {
	n, err := count(p, "n")
	if err != nil {
		return nil, err
	}
	gap := p["gap"]
	if !(gap > 0) || math.IsInf(gap, 0) {
		return nil, fmt.Errorf("parameter gap = %v must be positive (m)", gap)
	}
	const (
		r, spacing, t = 0.25e-3, 0.525e-3, 1e-3
	)
	nx := max(2, int(math.Cbrt(float64(n)/2)))
	row := latticeRow(n, nx)
	w := float64(row)*spacing + 0.2e-3
	layers := (n + row*row - 1) / (row * row)
	top := float64(layers)*spacing + 0.002
	l := math.Sqrt2 * (top + 0.002) // the 45° wall's length
	s2 := math.Sqrt2 / 2
	dir, nrm := Vec3{s2, 0, s2}, Vec3{-s2, 0, s2}
	wc := Vec3{gap + dir[0]*l/2 - nrm[0]*t/2, 0, dir[2]*l/2 - nrm[2]*t/2}
	a := -math.Pi / 8 // half of −45° about y
	xEnd := gap + l*s2 + t
	bodies := []BodySpec{
		fixedBox(w/2+t/2, w/2, t/2, Vec3{-w/2 - t/2, 0, -t / 2}, ""),
		fixedBox(t/2, w/2, top/2, Vec3{-w - t/2, 0, top / 2}, ""),
		{Shape: boxShape(l/2, w/2, t/2), Pos: &wc, Rot: &Quat{math.Cos(a), 0, math.Sin(a), 0}, Fixed: true},
		fixedBox((xEnd+w+t)/2, t/2, top/2+0.001, Vec3{(xEnd - w - t) / 2, -w/2 - t/2, top/2 - 0.001}, ""),
		fixedBox((xEnd+w+t)/2, t/2, top/2+0.001, Vec3{(xEnd - w - t) / 2, w/2 + t/2, top/2 - 0.001}, ""),
		{Shape: ShapeSpec{Type: "plane"}, Pos: &Vec3{0, 0, -0.01}, Fixed: true},
	}
	mass := 2500 * 4 / 3 * math.Pi * r * r * r
	return &Doc{
		Name: "flow-gap",
		Description: fmt.Sprintf("Granular flow of the APGD paper §4.2.4 (Fig. 12): %d glass spheres (d = 0.5 mm, %.5g kg, "+
			"μ = 0.3) flow out of a trough %.3g mm square through a %.3g mm gap under its 45° wall (fixed at its open "+
			"position from t = 0). Figure of merit: the mass flow rate through the gap against time (merit.csv) and its mean "+
			"in the steady discharge.", n, mass, 1e3*w, 1e3*gap),
		Gravity:   &Vec3{0, 0, -9.81},
		Materials: []MaterialSpec{{Name: "glass", Friction: ptr(0.3)}},
		Settings:  SettingsSpec{Dt: ptr(1e-4), Solver: ptr("apgd"), Tol: ptr(1e-5), MaxIter: ptr(200)},
		Run:       RunSpec{Duration: ptr(0.6), Trace: []int{}},
		Bodies:    bodies,
		Generators: []GeneratorSpec{{
			Type: "lattice", Count: n, Shape: sphere(r), Density: ptr(2500.0), Material: "glass",
			Spacing: ptr(spacing), MaxPerRow: nx, Origin: &Vec3{-w / 2, 0, r + 0.0001}, Jitter: 0.01e-3, Seed: 8,
		}},
		Merit: &MeritSpec{Type: "flow-gap", Point: &Vec3{0, 0, -0.002}, Axis: &Vec3{0, 0, -1}},
	}, nil
}
