//go:build linux && cgo && (amd64 || arm64)

package gpu

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/engine"
)

// TestSpeedThreshold checks speedThreshold's defining property, s > t
// exactly when √s > m, at t and its neighbours, on seeded random bounds
// over many magnitudes and on the edge cases.
func TestSpeedThreshold(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 1))
	ms := []float64{0, 5e-324, 1e-300, 1, 2, 8400, 1e154, 1.3407807929942596e154, 1e200, math.MaxFloat64}
	for range 2000 {
		ms = append(ms, math.Exp(r.Float64()*1400-700))
	}
	for _, m := range ms {
		th := speedThreshold(m)
		up := math.Nextafter(th, math.Inf(1))
		if math.Sqrt(th) > m || !(math.Sqrt(up) > m) {
			t.Fatalf("m = %v: threshold %v: √t = %v, √next(t) = %v", m, th, math.Sqrt(th), math.Sqrt(up))
		}
	}
	if th := speedThreshold(-1); !math.IsInf(th, -1) {
		t.Errorf("m = −1: threshold %v, want −Inf (every speed exceeds it)", th)
	}
	if th := speedThreshold(math.NaN()); !math.IsNaN(th) {
		t.Errorf("m = NaN: threshold %v, want NaN (no speed exceeds it)", th)
	}
}

// guardCase is a state to check: a change of the loaded state.
type guardCase struct {
	name string
	edit func(s *engine.State)
}

// TestCheckStateMatchesHost checks guard_check's verdict, counts and
// first ids against engine.GuardOffenders on crafted states of 5000
// bodies (three chunks of guard_check) with planes among them: a NaN or
// ±Inf in each of pos, rot, vel, omega, a body too fast, bodies outside
// on each side of the domain, planes outside (skipped) and not finite
// (not skipped), bodies that fail two checks (counted in the first), a
// speed at the bound (not too fast) and one ulp over it, and many
// offenders of every kind spread over the chunks (the first 8 of each,
// ascending). On the unified-memory and the staging path.
func TestCheckStateMatchesHost(t *testing.T) {
	const n = 5000
	plane := engine.Body{Shape: engine.PlaneShape(), Rot: mgl64.QuatIdent(), Fixed: true}
	m := sphereModel(11, n, plane, plane)
	nb := len(m.Bodies)
	lim := engine.GuardLimits{Lo: mgl64.Vec3{-3, -2, -1}, Hi: mgl64.Vec3{3, 2, 5}, MaxSpeed: 40, Skip: make([]bool, nb+10)}
	for i, b := range m.Bodies {
		lim.Skip[i] = b.Shape.Kind == engine.Plane
	}
	p1, p2 := nb-2, nb-1 // the planes
	nan, inf := math.NaN(), math.Inf(1)
	// atBound gives body i the speed sp along x.
	atBound := func(s *engine.State, i int, sp float64) {
		s.Vel[3*i], s.Vel[3*i+1], s.Vel[3*i+2] = sp, 0, 0
	}
	cases := []guardCase{
		{"clean", func(*engine.State) {}},
		{"nan pos", func(s *engine.State) { s.Pos[3*7+1] = nan }},
		{"nan rot", func(s *engine.State) { s.Rot[4*2100+3] = nan }},
		{"nan vel", func(s *engine.State) { s.Vel[3*4999] = nan }},
		{"nan omega", func(s *engine.State) { s.Omega[3*0+2] = nan }},
		{"inf pos", func(s *engine.State) { s.Pos[3*2047] = -inf }},
		{"inf omega", func(s *engine.State) { s.Omega[3*2048+1] = inf }},
		{"fast", func(s *engine.State) { s.Vel[3*300+2] = -41 }},
		{"fast overflow", func(s *engine.State) { s.Vel[3*301] = 1e200 }},
		{"at bound", func(s *engine.State) { atBound(s, 12, 40) }},
		{"one ulp over", func(s *engine.State) { atBound(s, 12, math.Nextafter(40, 50)) }},
		{"out -x", func(s *engine.State) { s.Pos[3*5+0] = -3.5 }},
		{"out +x", func(s *engine.State) { s.Pos[3*6+0] = 3.5 }},
		{"out -y", func(s *engine.State) { s.Pos[3*2500+1] = -2.5 }},
		{"out +y", func(s *engine.State) { s.Pos[3*2501+1] = 2.5 }},
		{"out -z", func(s *engine.State) { s.Pos[3*4097+2] = -1.5 }},
		{"out +z", func(s *engine.State) { s.Pos[3*4998+2] = 5.5 }},
		{"on the boundary", func(s *engine.State) { s.Pos[3*9], s.Pos[3*9+1], s.Pos[3*9+2] = 3, -2, 5 }},
		{"planes outside skipped", func(s *engine.State) { s.Pos[3*p1] = 100; s.Pos[3*p2+2] = -100 }},
		{"plane not finite", func(s *engine.State) { s.Rot[4*p2] = nan }},
		{"plane too fast", func(s *engine.State) { s.Vel[3*p1+1] = 50 }},
		{"nan and out", func(s *engine.State) { s.Pos[3*20] = 10; s.Vel[3*20] = nan }},
		{"fast and out", func(s *engine.State) { s.Pos[3*21] = 10; s.Vel[3*21] = 100 }},
		{"many", func(s *engine.State) {
			r := rand.New(rand.NewPCG(5, 5))
			for range 300 {
				i := r.IntN(n)
				switch r.IntN(3) {
				case 0:
					s.Omega[3*i+r.IntN(3)] = nan
				case 1:
					s.Vel[3*i+r.IntN(3)] = 60
				default:
					s.Pos[3*i+r.IntN(3)] = -7
				}
			}
		}},
		{"few in the last chunk", func(s *engine.State) {
			for _, i := range []int{4996, 4097, 4999, 4100} {
				s.Pos[3*i] = 9
			}
		}},
	}
	forEachDevice(t, func(t *testing.T, d *Device) {
		b := newTestBackendOn(t, d)
		set := engine.DefaultSettings()
		if err := b.Load(m, &set); err != nil {
			t.Fatal(err)
		}
		if err := b.SetGuardLimits(&lim); err != nil {
			t.Fatal(err)
		}
		var base, good, kept engine.State
		if err := b.ReadState(&base); err != nil {
			t.Fatal(err)
		}
		if err := b.KeepState(false); err != nil {
			t.Fatal(err)
		}
		good.CopyFrom(&base)
		for _, c := range cases {
			var s engine.State
			s.CopyFrom(&base)
			c.edit(&s)
			if err := b.SetState(&s); err != nil {
				t.Fatal(err)
			}
			var got engine.GuardReport
			before := b.ReadBackBytes()
			if err := b.CheckState(&got, false); err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			read := b.ReadBackBytes() - before
			want := engine.GuardReportOf(engine.GuardOffenders(&s, &lim))
			if !sameReport(&got, &want) {
				t.Errorf("%s: device %+v, host %+v", c.name, got, want)
			}
			// 12 bytes of counts, and 96 of ids after a failure.
			if wantRead := int64(12 + 96*btoi(want.Failed())); read != wantRead {
				t.Errorf("%s: read back %d bytes, want %d", c.name, read, wantRead)
			}
			// A state that passes becomes the kept one; one that
			// fails leaves the last that passed.
			if !want.Failed() {
				good.CopyFrom(&s)
			}
			if err := b.ReadKept(&kept, nil); err != nil {
				t.Fatal(err)
			}
			if !sameBits(&kept, &good) {
				t.Errorf("%s: the kept state is not the last that passed", c.name)
			}
			switch c.name {
			case "clean", "at bound", "on the boundary", "planes outside skipped":
				if want.Failed() {
					t.Errorf("%s: the host check fails: %+v", c.name, want)
				}
			default:
				if !want.Failed() {
					t.Errorf("%s: the host check passes", c.name)
				}
			}
		}
	})
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func sameReport(a, b *engine.GuardReport) bool {
	return a.NonFinite == b.NonFinite && a.Fast == b.Fast && a.Out == b.Out &&
		slices.Equal(a.NonFiniteIDs, b.NonFiniteIDs) && slices.Equal(a.FastIDs, b.FastIDs) && slices.Equal(a.OutIDs, b.OutIDs)
}

// TestKeepState steps a scene with warm start (contacts persist, so the
// warm-start memory holds keys and impulses) and checks the state after
// step 3, which passes and is kept with its warm-start memory; steps on
// and checks a state that fails (a NaN): ReadKept returns the state and
// warm-start memory after step 3 bit for bit, as ReadState and
// WarmStartData returned them then. On the unified-memory and the
// staging path; and ReadKept asks for what was kept.
func TestKeepState(t *testing.T) {
	forEachDevice(t, func(t *testing.T, d *Device) {
		b := newTestBackendOn(t, d)
		set := engine.DefaultSettings()
		set.WarmStart = true
		m := sphereModel(4, 300)
		sim, err := engine.NewSim(m, set, b)
		if err != nil {
			t.Fatal(err)
		}
		var s engine.State
		if err := b.ReadKept(&s, nil); err == nil {
			t.Error("ReadKept before KeepState: no error")
		}
		inf := math.Inf(1)
		lim := engine.GuardLimits{Lo: mgl64.Vec3{-inf, -inf, -inf}, Hi: mgl64.Vec3{inf, inf, inf}, MaxSpeed: inf, Skip: make([]bool, len(m.Bodies))}
		if err := b.SetGuardLimits(&lim); err != nil {
			t.Fatal(err)
		}
		if err := b.KeepState(false); err != nil {
			t.Fatal(err)
		}
		var w engine.WarmStartData
		if err := b.ReadKept(&s, &w); err == nil {
			t.Error("ReadKept of warm-start data kept without: no error")
		}
		for range 3 {
			if _, err := sim.Step(); err != nil {
				t.Fatal(err)
			}
		}
		var r engine.GuardReport
		if err := b.CheckState(&r, true); err != nil || r.Failed() {
			t.Fatalf("check after step 3: %v, %+v", err, r)
		}
		var want engine.State
		var wantW engine.WarmStartData
		if _, err := sim.Snapshot(&want, &wantW); err != nil {
			t.Fatal(err)
		}
		if wantW.Len() == 0 {
			t.Fatal("no warm-start keys after 3 steps: the test needs contacts")
		}
		for range 2 {
			if _, err := sim.Step(); err != nil {
				t.Fatal(err)
			}
		}
		var bad engine.State
		if err := b.ReadState(&bad); err != nil {
			t.Fatal(err)
		}
		if slices.Equal(bad.Pos, want.Pos) {
			t.Fatal("the state did not change after step 3: the test shows nothing")
		}
		bad.Omega[5] = math.NaN()
		if err := b.SetState(&bad); err != nil {
			t.Fatal(err)
		}
		if err := b.CheckState(&r, true); err != nil || r.NonFinite != 1 {
			t.Fatalf("check of a NaN: %v, %+v", err, r)
		}
		if err := b.ReadKept(&s, &w); err != nil {
			t.Fatal(err)
		}
		if !sameBits(&s, &want) {
			t.Error("the kept state is not the state after step 3")
		}
		for _, f := range []struct {
			name      string
			got, want []float64
		}{{"gamma", w.Gamma, wantW.Gamma}, {"joints", w.Joints, wantW.Joints}, {"rolling", w.Rolling, wantW.Rolling}} {
			if !slices.Equal(math64bits(f.got), math64bits(f.want)) {
				t.Errorf("kept %s differs from that after step 3", f.name)
			}
		}
		if !slices.Equal(w.A, wantW.A) || !slices.Equal(w.B, wantW.B) || !slices.Equal(w.Sub, wantW.Sub) {
			t.Error("kept contact keys differ from those after step 3")
		}
	})
}

// sameBits reports whether a and b hold the same bits.
func sameBits(a, b *engine.State) bool {
	return slices.Equal(math64bits(a.Pos), math64bits(b.Pos)) && slices.Equal(math64bits(a.Rot), math64bits(b.Rot)) &&
		slices.Equal(math64bits(a.Vel), math64bits(b.Vel)) && slices.Equal(math64bits(a.Omega), math64bits(b.Omega))
}

func math64bits(v []float64) []uint64 {
	u := make([]uint64, len(v))
	for i, x := range v {
		u[i] = math.Float64bits(x)
	}
	return u
}

// TestCheckStateErrors: a check before the limits are set, or of more
// bodies than the limits have flags for, is an error, not a panic.
func TestCheckStateErrors(t *testing.T) {
	b := newTestBackend(t)
	set := engine.DefaultSettings()
	if err := b.Load(sphereModel(2, 20), &set); err != nil {
		t.Fatal(err)
	}
	var r engine.GuardReport
	if err := b.CheckState(&r, false); err == nil {
		t.Error("CheckState without limits: no error")
	}
	if err := b.KeepState(false); err == nil {
		t.Error("KeepState without limits: no error")
	}
	if err := b.SetGuardLimits(&engine.GuardLimits{MaxSpeed: 1, Skip: make([]bool, 3)}); err != nil {
		t.Fatal(err)
	}
	err := b.CheckState(&r, false)
	if want := "guard limits for 3"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("CheckState with limits for 3 bodies: %v, want an error saying %q", err, want)
	}
}
