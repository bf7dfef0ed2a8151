package tests

import (
	"math"
	"testing"

	"github.com/gpusim/gpusim/engine"
)

// rollingRun runs the rolling-ball scene with the given solver and returns
// per step the time, the slip speed v_x − Rω_y of the contact point, v_x
// and the height z of the ball.
func rollingRun(t *testing.T, b engine.Backend, solver string) (ts, slip, vx, z []float64) {
	sc := loadScene(t, "rolling-ball")
	set := sc.Settings
	set.Solver = solver
	sim := newSim(t, &sc.Model, set, b)
	const R = 1.0 // the scene's radius (m)
	var s engine.State
	for k := 0; k < 320; k++ { // 0.8 s at h = 0.0025 s
		st := step(t, sim)
		readState(t, sim, &s)
		w := quat(s.Rot, 0).Rotate(vec3(s.Omega, 0))
		v := vec3(s.Vel, 0)
		ts = append(ts, st.Time)
		slip = append(slip, v[0]-R*w[1])
		vx = append(vx, v[0])
		z = append(z, s.Pos[2])
	}
	return
}

// TestRollingBall is the benchmark of section 2.3 of the APGD paper: a ball
// of radius 1 m sliding at v0 = 2 m/s with μ = 0.2 must stop slipping at
// t = 2v0/(7μg) = 0.2912 s and then roll at 5v0/7 = 1.4286 m/s. With
// anti-relaxation the solution matches the unrelaxed dynamics.
func TestRollingBall(t *testing.T) {
	forEachBackend(t, func(t *testing.T, newBackend func() engine.Backend) {
		ts, slip, vx, z := rollingRun(t, newBackend(), "apgd-ar")
		const v0, mu, g = 2.0, 0.2, 9.81
		tWant := 2 * v0 / (7 * mu * g)
		k := 0
		for k < len(slip) && slip[k] > 1e-9 {
			k++
		}
		if k < 2 || k == len(slip) {
			t.Fatalf("slip never reached zero: %v", slip[len(slip)-1])
		}
		// While sliding the slip falls linearly (by 3.5μg per second):
		// the crossing of zero is found by extrapolating the last two
		// sliding steps.
		rate := (slip[k-2] - slip[k-1]) / (ts[k-1] - ts[k-2])
		tTrn := ts[k-1] + slip[k-1]/rate
		t.Logf("transition at %.5f s (analytic %.5f s), first rolling step at %.4f s; rolling speed %.6f m/s (analytic %.6f)",
			tTrn, tWant, ts[k], vx[len(vx)-1], 5*v0/7)
		// The bounds: 1% on the time, 0.5% on the speed.
		if math.Abs(tTrn-tWant) > 0.01*tWant {
			t.Errorf("transition time %.5f s, want %.5f s ± 1%%", tTrn, tWant)
		}
		if v := vx[len(vx)-1]; math.Abs(v-5*v0/7) > 0.005*5*v0/7 {
			t.Errorf("rolling speed %.6f m/s, want %.6f ± 0.5%%", v, 5*v0/7)
		}
		// The slip stays zero after the transition (a stuck contact).
		for j := k; j < len(slip); j++ {
			if math.Abs(slip[j]) > 1e-6 { // solver tolerance scale
				t.Fatalf("slip %.3g at t = %.4f after the transition", slip[j], ts[j])
			}
		}
		// The ball stays on the plane: no hop (the relaxation artefact).
		for j := range z {
			// 1e-6 m: far below the 0.05 m envelope, the scale of the
			// solver's tolerance on the normal velocity times h.
			if math.Abs(z[j]-1) > 1e-6 {
				t.Fatalf("ball left the plane: z = %.9f at t = %.4f", z[j], ts[j])
			}
		}
	})
}

// TestRollingBallRelaxationArtefact: with plain APGD (the relaxed CCP) the
// ball is pushed off the plane while it slides, as in Fig. 3 of the APGD
// paper: the relaxed normal impulse exceeds the weight's, so the ball
// gains upward speed μ‖v_T‖ per step.
func TestRollingBallRelaxationArtefact(t *testing.T) {
	forEachBackend(t, func(t *testing.T, newBackend func() engine.Backend) {
		_, _, _, z := rollingRun(t, newBackend(), "apgd")
		maxZ := 0.0
		for _, v := range z {
			maxZ = math.Max(maxZ, v)
		}
		t.Logf("highest centre with plain APGD: %.4f m", maxZ)
		// The relaxed problem gives the ball an upward speed of about
		// μ·v_slip ≈ 0.2·2 = 0.4 m/s at the first step, a hop of order
		// v²/2g ≈ 8 mm; require 1 mm.
		if maxZ-1 < 1e-3 {
			t.Errorf("no hop with the relaxed solver (max z %.6f): the artefact should appear", maxZ)
		}
	})
}
