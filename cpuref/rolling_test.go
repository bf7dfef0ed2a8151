package cpuref_test

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/cpuref"
	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/engine/enginetest"
)

// TestRollingFrictionBallStops and TestSpinningFrictionStops run
// enginetest's analytic checks (RollingBallStops, SpinningBallStops) with
// every solver that takes rolling rows.
func TestRollingFrictionBallStops(t *testing.T) {
	for _, solver := range enginetest.RollingSolvers {
		t.Run(solver, func(t *testing.T) { enginetest.RollingBallStops(t, solver, cpuref.New(1)) })
	}
}

func TestSpinningFrictionStops(t *testing.T) {
	for _, solver := range enginetest.RollingSolvers {
		t.Run(solver, func(t *testing.T) { enginetest.SpinningBallStops(t, solver, cpuref.New(1)) })
	}
}

// TestRollingZeroCoefficientsIdentical: a contact whose combined rolling
// and spinning coefficients are 0 has its 3 rows only, and the run is the
// same bit for bit as without the fields. The model with the fields gives
// one material rolling and spinning friction and the other none, so that
// the backend's rolling path runs (the model has rolling friction) while
// every contact's min is 0.
func TestRollingZeroCoefficientsIdentical(t *testing.T) {
	build := func(withFields bool) *engine.Model {
		mdl := &engine.Model{
			Materials: []engine.Material{{Name: "ground", Friction: 0.4}, {Name: "ball", Friction: 0.4}},
			Gravity:   mgl64.Vec3{0, 0, -9.81},
		}
		if withFields {
			mdl.Materials[1].RollingFriction, mdl.Materials[1].SpinningFriction = 0.05, 0.02
		}
		mdl.Bodies = append(mdl.Bodies, engine.Body{Shape: engine.PlaneShape(), Rot: mgl64.QuatIdent(), Fixed: true})
		for i := range 4 {
			b := engine.Body{Shape: engine.SphereShape(0.1), Pos: mgl64.Vec3{0.3 * float64(i), 0, 0.1 + 0.05*float64(i)},
				Rot: mgl64.QuatIdent(), Vel: mgl64.Vec3{1, 0.2 * float64(i), 0}, Omega: mgl64.Vec3{0, 3, 1}, Material: 1}
			b.SetMass(1)
			mdl.Bodies = append(mdl.Bodies, b)
		}
		return mdl
	}
	for _, solver := range enginetest.RollingSolvers {
		t.Run(solver, func(t *testing.T) {
			var states [2]engine.State
			var gammas [2][]float64
			for i, with := range []bool{false, true} {
				s := engine.DefaultSettings()
				s.Solver = solver
				sim, err := engine.NewSim(build(with), s, cpuref.New(1))
				if err != nil {
					t.Fatal(err)
				}
				for range 60 {
					if _, err := sim.Step(); err != nil {
						t.Fatal(err)
					}
					if p := sim.Problem(); engine.Rows(p) != 3*p.Contacts() || engine.RollingBlocks(p) != 0 {
						t.Fatalf("%d rows for %d contacts, %d rolling blocks: want 3 per contact, none", engine.Rows(p), p.Contacts(), engine.RollingBlocks(p))
					}
				}
				if err := sim.Backend().ReadState(&states[i]); err != nil {
					t.Fatal(err)
				}
				gammas[i] = sim.Impulses(nil)
			}
			a, b := states[0], states[1]
			for _, f := range []struct {
				name string
				x, y []float64
			}{{"pos", a.Pos, b.Pos}, {"rot", a.Rot, b.Rot}, {"vel", a.Vel, b.Vel}, {"omega", a.Omega, b.Omega}, {"gamma", gammas[0], gammas[1]}} {
				if len(f.x) != len(f.y) {
					t.Fatalf("%s: lengths %d and %d", f.name, len(f.x), len(f.y))
				}
				for i := range f.x {
					if math.Float64bits(f.x[i]) != math.Float64bits(f.y[i]) {
						t.Fatalf("%s[%d]: %v without the fields, %v with zero combined coefficients", f.name, i, f.x[i], f.y[i])
					}
				}
			}
		})
	}
}

// TestProjectRollingCases checks the rolling block's projection: inside
// the composite set unchanged; outside, (γ_ru, γ_rw) scaled back onto the
// disc of radius μ_r γ_n and γ_s clamped to ±μ_s γ_n, γ_n being the
// contact's already projected normal impulse, as Chrono's rolling
// contacts do with γ_n held; a pulling or zero γ_n leaves no torque.
// Exact values: each case's arithmetic is one or two roundings of
// simple numbers, compared within 1e-15.
func TestProjectRollingCases(t *testing.T) {
	cases := []struct {
		name              string
		gn, ru, rw, s     float64
		mur, mus          float64
		wantU, wantW, wSp float64
	}{
		{"inside", 1, 0.003, 0.004, 0.001, 0.01, 0.002, 0.003, 0.004, 0.001},
		{"on the rim", 1, 0.006, 0.008, 0.002, 0.01, 0.002, 0.006, 0.008, 0.002},
		// ‖(0.03, 0.04)‖ = 0.05 > μ_r γ_n = 0.01: scaled by 0.2.
		{"rolling outside", 1, 0.03, 0.04, 0, 0.01, 0.002, 0.006, 0.008, 0},
		{"spinning outside", 2, 0, 0, -0.5, 0.01, 0.002, 0, 0, -0.004},
		{"both outside", 0.5, -0.3, 0.4, 0.7, 0.02, 0.01, -0.006, 0.008, 0.005},
		{"pulling contact", -1, 0.3, 0.4, 0.7, 0.02, 0.01, 0, 0, 0},
		{"no rolling friction", 1, 0.3, 0.4, 0.001, 0, 0.01, 0, 0, 0.001},
		{"no spinning friction", 1, 0.001, 0, 0.001, 0.01, 0, 0.001, 0, 0},
	}
	for _, c := range cases {
		u, w, s := cpuref.ProjectRolling(c.gn, c.ru, c.rw, c.s, c.mur, c.mus)
		if math.Abs(u-c.wantU) > 1e-15 || math.Abs(w-c.wantW) > 1e-15 || math.Abs(s-c.wSp) > 1e-15 {
			t.Errorf("%s: got (%v, %v, %v), want (%v, %v, %v)", c.name, u, w, s, c.wantU, c.wantW, c.wSp)
		}
		// Idempotent: the result is inside the set.
		u2, w2, s2 := cpuref.ProjectRolling(c.gn, u, w, s, c.mur, c.mus)
		if u2 != u || w2 != w || s2 != s {
			t.Errorf("%s: projecting again moved (%v, %v, %v) to (%v, %v, %v)", c.name, u, w, s, u2, w2, s2)
		}
	}
}

// TestRollingProjectComposite projects through the backend's Problem: the
// contact's rows first onto the friction cone (as without rolling), then
// its rolling block with that projected γ_n.
func TestRollingProjectComposite(t *testing.T) {
	const mu, mur, mus = 0.5, 0.01, 0.004
	mdl := enginetest.BallOnPlane(0.1, 1, mgl64.Vec3{}, mgl64.Vec3{}, mu, mur, mus)
	b := cpuref.New(1)
	if err := b.Load(mdl, ptr(engine.DefaultSettings())); err != nil {
		t.Fatal(err)
	}
	if nc, err := b.Collide(); err != nil || nc != 1 {
		t.Fatalf("%d contacts (%v), want 1", nc, err)
	}
	p, err := b.Build(0.01)
	if err != nil {
		t.Fatal(err)
	}
	if n := engine.Rows(p); n != 6 {
		t.Fatalf("%d rows, want 6", n)
	}
	x := p.NewVec(6)
	// γ_n = 0, ‖γ_t‖ = 2 outside the cone: n' = (μ·2 + 0)/(μ² + 1) = 0.8,
	// t' = t·μ n'/‖t‖ = (0.4, 0) … then the rolling disc of radius
	// μ_r·0.8 = 0.008 (the block (0, 1) scaled to (0, 0.008)) and the
	// spinning interval ±μ_s·0.8 = ±0.0032.
	p.Write(x, []float64{0, 2, 0, 0, 1, -1})
	p.Project(x, x)
	got := make([]float64, 6)
	p.Read(got, x)
	want := []float64{0.8, 0.4, 0, 0, 0.008, -0.0032}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-15 {
			t.Fatalf("Π(x) = %v, want %v", got, want)
		}
	}
	// A point inside the composite set is left unchanged, bit for bit.
	in := []float64{1, 0.2, -0.1, 0.003, -0.004, 0.001}
	p.Write(x, in)
	p.Project(x, x)
	p.Read(got, x)
	for i := range in {
		if got[i] != in[i] {
			t.Fatalf("Π(inside) = %v, want %v", got, in)
		}
	}
}

func ptr[T any](v T) *T { return &v }

// TestRollingPDIPRefuses: pdip does not take rolling rows and says so.
func TestRollingPDIPRefuses(t *testing.T) {
	mdl := enginetest.BallOnPlane(0.1, 1, mgl64.Vec3{1, 0, 0}, mgl64.Vec3{0, 10, 0}, 0.5, 0.01, 0)
	s := enginetest.RollingSettings(1e-3, "pdip")
	sim, err := engine.NewSim(mdl, s, cpuref.New(1))
	if err != nil {
		t.Fatal(err)
	}
	_, err = sim.Step()
	if !errors.Is(err, engine.ErrRollingPDIP) {
		t.Fatalf("pdip on a rolling problem: %v, want ErrRollingPDIP", err)
	}
	t.Log(err)
}

// TestRollingReactionsAndForces: the contact reactions on the rolling ball
// include the rolling torque. With the ball rolling at constant
// deceleration, the torque the contact puts on it equals I·Δω/h (nothing
// else acts on its spin), which holds only with the rolling torque
// (−μ_r m g about y, plus the friction force's arm). ContactReactions
// takes the arms with the orientation of the state it is given: with the
// state the step started from (whose orientation the contact points were
// found at) the balance is exact up to the solver's tolerance (1e-9
// relative: its 1e-12 tolerance and a few roundings); BodyReactions uses
// the end of the step's, as ContactReactions with that state does, bit
// for bit. ContactForcesRolling reports the torque μ_r N.
func TestRollingReactionsAndForces(t *testing.T) {
	const R, m, v0, mur, g, h = 0.1, 1.0, 1.0, 0.01, 9.81, 1e-3
	mdl := enginetest.BallOnPlane(R, m, mgl64.Vec3{v0, 0, 0}, mgl64.Vec3{0, v0 / R, 0}, 0.5, mur, 0.002)
	sim, err := engine.NewSim(mdl, enginetest.RollingSettings(h, "apgd"), cpuref.New(1))
	if err != nil {
		t.Fatal(err)
	}
	var s0, s1 engine.State
	for range 10 {
		if _, err := sim.Step(); err != nil {
			t.Fatal(err)
		}
	}
	if err := sim.Backend().ReadState(&s0); err != nil {
		t.Fatal(err)
	}
	if _, err := sim.Step(); err != nil {
		t.Fatal(err)
	}
	if err := sim.Backend().ReadState(&s1); err != nil {
		t.Fatal(err)
	}
	slot := []int32{-1, 0}
	dst := make([]engine.Reaction, 1)
	if err := sim.BodyReactions(slot, dst); err != nil {
		t.Fatal(err)
	}
	var c engine.Contacts
	if err := sim.Backend().ReadContacts(&c); err != nil {
		t.Fatal(err)
	}
	gamma := sim.Impulses(nil)
	if len(gamma) != 6 {
		t.Fatalf("%d impulses, want 6", len(gamma))
	}
	dst1 := make([]engine.Reaction, 1)
	if err := engine.ContactReactions(&s1, &c, gamma, h, slot, dst1); err != nil {
		t.Fatal(err)
	}
	if dst1[0] != dst[0] {
		t.Errorf("ContactReactions %v, BodyReactions %v", dst1[0], dst[0])
	}
	dst0 := make([]engine.Reaction, 1)
	if err := engine.ContactReactions(&s0, &c, gamma, h, slot, dst0); err != nil {
		t.Fatal(err)
	}
	inertia := 2.0 / 5 * m * R * R
	wantTy := inertia * (s1.Omega[4] - s0.Omega[4]) / h
	ty := dst0[0].Torque[1]
	if math.Abs(ty-wantTy) > 1e-9*math.Abs(wantTy) {
		t.Errorf("contact torque on the ball about y %.9g N·m, want I·Δω/h = %.9g", ty, wantTy)
	}
	// Without the rolling block the balance fails by μ_r m g.
	noRoll := c
	noRoll.Rolling, noRoll.Spinning = nil, nil
	if err := engine.ContactReactions(&s0, &noRoll, gamma[:3], h, slot, dst0); err != nil {
		t.Fatal(err)
	}
	if d := dst0[0].Torque[1] - wantTy; math.Abs(d-mur*m*g) > 1e-6 {
		t.Errorf("without the rolling torque the balance is off by %.6g N·m, want μ_r m g = %.6g", d, mur*m*g)
	}
	f, err := engine.ContactForcesRolling(nil, &c, gamma, h)
	if err != nil {
		t.Fatal(err)
	}
	if len(f) != 1 || math.Abs(f[0].Rolling-mur*f[0].Normal) > 1e-9*mur*m*g || f[0].Spinning > 1e-9 {
		t.Errorf("contact forces %+v, want rolling torque μ_r N = %.6g N·m and no spinning torque", f, mur*f[0].Normal)
	}
	t.Logf("torque about y %.9g N·m (I·Δω/h %.9g); rolling torque %.9g N·m = μ_r·N with N = %.9g N", ty, wantTy, f[0].Rolling, f[0].Normal)
}

// TestRollingWarmStartRestore: the rolling rows' warm-start impulses go
// through Snapshot and Restore: a run restored at step 100 continues bit
// for bit as the run that did not stop.
func TestRollingWarmStartRestore(t *testing.T) {
	mdl := enginetest.BallOnPlane(0.1, 1, mgl64.Vec3{1, 0, 0}, mgl64.Vec3{0, 10, 3}, 0.5, 0.01, 0.002)
	s := engine.DefaultSettings()
	s.Dt, s.Tol, s.MaxIter = 1e-3, 1e-8, 20 // a capped solve: its result depends on the warm start
	run := func(sim *engine.Sim, n int) {
		for range n {
			if _, err := sim.Step(); err != nil {
				t.Fatal(err)
			}
		}
	}
	a, err := engine.NewSim(mdl, s, cpuref.New(1))
	if err != nil {
		t.Fatal(err)
	}
	run(a, 100)
	var st engine.State
	ws, err := a.Snapshot(&st, &engine.WarmStartData{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ws.Rolling) != 3 || ws.Rolling[0] == 0 && ws.Rolling[1] == 0 && ws.Rolling[2] == 0 {
		t.Fatalf("warm-start data's rolling impulses %v, want 3 nonzero values", ws.Rolling)
	}
	run(a, 50)
	b, err := engine.NewSim(mdl, s, cpuref.New(1))
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Restore(100, &st, ws); err != nil {
		t.Fatal(err)
	}
	run(b, 50)
	var sa, sb engine.State
	_ = a.Backend().ReadState(&sa)
	_ = b.Backend().ReadState(&sb)
	if fmt.Sprint(sa) != fmt.Sprint(sb) {
		t.Fatalf("restored run differs:\n%v\n%v", sa, sb)
	}
	// Without the rolling impulses (an older checkpoint) the run restores
	// and its rolling rows start from zero.
	ws.Rolling = nil
	c, err := engine.NewSim(mdl, s, cpuref.New(1))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Restore(100, &st, ws); err != nil {
		t.Fatal(err)
	}
	run(c, 1)
}

// TestRollingRowsConsistent checks the rolling rows' Jacobian end to end
// on a heap of spheres with rolling and spinning friction (sphere–sphere
// and sphere–plane contacts, several rolling blocks per body): for a
// random γ, the velocities the step ends with, read along every row from
// the state (the contact rows' D_iᵀv as Build defines them, the rolling
// rows' (ω_B − ω_A)·d in the world frame), equal Nγ + r from Schur and R;
// N is symmetric (xᵀNy = yᵀNx); and BlockDiag's value on a rolling block
// is the mean of e_kᵀNe_k over its three rows. Tolerance 1e-12 relative
// to the largest velocity: sums of a few dozen products of O(1) values.
func TestRollingRowsConsistent(t *testing.T) {
	t.Run("contacts", func(t *testing.T) { testRollingRowsConsistent(t, false) })
	// With joint rows between the contact rows and the rolling rows: a
	// spherical joint (3 rows) holding the first sphere to the world.
	t.Run("joints", func(t *testing.T) { testRollingRowsConsistent(t, true) })
}

func testRollingRowsConsistent(t *testing.T, joint bool) {
	mdl := &engine.Model{
		Materials: []engine.Material{{Name: "m", Friction: 0.4, RollingFriction: 0.02, SpinningFriction: 0.01}},
		Gravity:   mgl64.Vec3{0, 0, -9.81},
	}
	mdl.Bodies = append(mdl.Bodies, engine.Body{Shape: engine.PlaneShape(), Rot: mgl64.QuatIdent(), Fixed: true})
	for i := range 3 {
		for j := range 3 {
			for k := range 2 {
				b := engine.Body{Shape: engine.SphereShape(0.1), Pos: mgl64.Vec3{0.2005 * float64(i), 0.2005 * float64(j), 0.1005 + 0.2005*float64(k)},
					Rot: mgl64.QuatRotate(float64(i+2*j+3*k), mgl64.Vec3{1, 2, 3}.Normalize()), Vel: mgl64.Vec3{0.1 * float64(j), 0, 0}, Omega: mgl64.Vec3{1, float64(k), 2}}
				b.SetMass(1 + 0.1*float64(i))
				b.Inertia[2] *= 1.5 // not a sphere's: the body frame matters
				mdl.Bodies = append(mdl.Bodies, b)
			}
		}
	}
	nj := 0
	if joint {
		mdl.Joints = append(mdl.Joints, engine.Joint{Kind: engine.JointSpherical, Body1: 1, Body2: engine.World, Point: mgl64.Vec3{-0.1, 0, 0.1}})
		nj = 3
	}
	b := cpuref.New(1)
	s := engine.DefaultSettings()
	if err := b.Load(mdl, &s); err != nil {
		t.Fatal(err)
	}
	nc, err := b.Collide()
	if err != nil {
		t.Fatal(err)
	}
	h := 0.01
	p, err := b.Build(h)
	if err != nil {
		t.Fatal(err)
	}
	rr := p.(engine.RollingRows)
	n := engine.Rows(p)
	if nc < 20 {
		t.Fatalf("%d contacts, want the heap's ≥ 20", nc)
	}
	if rr.Rolling() != nc || n != 6*nc+nj {
		t.Fatalf("%d contacts, %d rolling blocks, %d rows: want a block per contact and %d joint rows", nc, rr.Rolling(), n, nj)
	}
	ro := 3*nc + nj // the first rolling row
	var c engine.Contacts
	if err := b.ReadContacts(&c); err != nil {
		t.Fatal(err)
	}
	x, y := make([]float64, n), make([]float64, n)
	for i := range x {
		x[i] = math.Sin(float64(3*i+1)) * 0.01
		y[i] = math.Cos(float64(5*i+2)) * 0.01
	}
	xv, yv, nxv, nyv := p.NewVec(n), p.NewVec(n), p.NewVec(n), p.NewVec(n)
	p.Write(xv, x)
	p.Write(yv, y)
	p.Schur(nxv, xv)
	p.Schur(nyv, yv)
	if a, bb := p.Dot(yv, nxv), p.Dot(xv, nyv); math.Abs(a-bb) > 1e-12*math.Abs(a) {
		t.Errorf("yᵀNx = %v, xᵀNy = %v", a, bb)
	}
	// Diagonal of N on the rolling rows, against BlockDiag.
	diag, e, ne := p.NewVec(n), p.NewVec(n), p.NewVec(n)
	p.BlockDiag(diag)
	dg := make([]float64, n)
	p.Read(dg, diag)
	unit := make([]float64, n)
	for k := range rr.Rolling() {
		sum := 0.0
		for d := range 3 {
			i := ro + 3*k + d
			clear(unit)
			unit[i] = 1
			p.Write(e, unit)
			p.Schur(ne, e)
			sum += p.Dot(e, ne)
		}
		if g := dg[ro+3*k]; math.Abs(g-sum/3) > 1e-12*g {
			t.Errorf("rolling block %d: BlockDiag %v, mean of N_kk's diagonal %v", k, g, sum/3)
		}
	}
	// u = Nx + r against the velocities Integrate(x) leaves.
	u := make([]float64, n)
	p.Axpby(nxv, 1, nxv, 1, p.R())
	p.Read(u, nxv)
	var st0 engine.State
	if err := b.ReadState(&st0); err != nil {
		t.Fatal(err)
	}
	if err := b.Integrate(xv, h); err != nil {
		t.Fatal(err)
	}
	var st engine.State
	if err := b.ReadState(&st); err != nil {
		t.Fatal(err)
	}
	// The Jacobian was built at the start-of-step orientations st0;
	// angular velocities are in the body frame.
	wWorld := func(i int) mgl64.Vec3 {
		q := mgl64.Quat{W: st0.Rot[4*i], V: mgl64.Vec3{st0.Rot[4*i+1], st0.Rot[4*i+2], st0.Rot[4*i+3]}}
		return q.Rotate(mgl64.Vec3{st.Omega[3*i], st.Omega[3*i+1], st.Omega[3*i+2]})
	}
	scale := 0.0
	for _, v := range u {
		scale = math.Max(scale, math.Abs(v))
	}
	for k := range rr.Rolling() {
		ci := rr.RollingContact(k)
		nrm := mgl64.Vec3{c.Normal[3*ci], c.Normal[3*ci+1], c.Normal[3*ci+2]}
		tu, tw := engine.TangentBasis(nrm)
		rel := wWorld(int(c.B[ci])).Sub(wWorld(int(c.A[ci])))
		for d, dir := range [3]mgl64.Vec3{tu, tw, nrm} {
			got, want := rel.Dot(dir), u[ro+3*k+d]
			if math.Abs(got-want) > 1e-12*scale {
				t.Errorf("rolling block %d (contact %d) row %d: (ω_B − ω_A)·d = %.15g after the step, Nγ + r = %.15g", k, ci, d, got, want)
			}
		}
	}
	// Every solver that takes rolling rows steps the heap (joint rows
	// too) and converges to the default tolerance 1e-6. The cap is high:
	// the rolling rows make N stiffer (their diagonal is ~1/I against
	// ~1/m + R²/I on a contact's rows, 70× here) and the rolling
	// projection is not a Euclidean projection, and this first fall of an
	// unsettled heap costs apgd up to 5000 iterations a step (244 in all
	// over the 20 steps without rolling friction, about 19 000 with).
	for _, solver := range []string{"apgd", "apgd-ar", "gs", "jacobi"} {
		s := engine.DefaultSettings()
		s.Solver, s.MaxIter = solver, 20000
		sim, err := engine.NewSim(mdl, s, cpuref.New(2))
		if err != nil {
			t.Fatal(err)
		}
		total := 0
		for range 20 {
			st, err := sim.Step()
			if err != nil {
				t.Fatalf("%s: %v", solver, err)
			}
			total += st.Solve.Iterations
			if !st.Solve.Converged {
				t.Errorf("%s: step %d not converged (residual %.3g after %d iterations)", solver, st.Step, st.Solve.Residual, st.Solve.Iterations)
			}
		}
		t.Logf("%s: %d iterations over 20 steps", solver, total)
	}
}
