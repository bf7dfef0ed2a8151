package engine

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"
)

// GuardLimits are the bounds a run's guard checks the body state against
// after every step (package run's guard sets them; StateGuard checks them
// on a device).
type GuardLimits struct {
	// Lo and Hi are the corners of the guard domain (m): a checked body's
	// centre must lie in [Lo, Hi] on every axis.
	Lo, Hi mgl64.Vec3
	// MaxSpeed is the largest speed |v| a body may have (m/s).
	MaxSpeed float64
	// Skip, one entry per body (at least as many as the state holds),
	// marks the bodies whose centre is not checked (planes); their state
	// must still be finite and their speed within MaxSpeed.
	Skip []bool
}

// GuardReportIDs is the number of body ids of each kind a GuardReport
// lists: enough for the five that a run's guard error names.
const GuardReportIDs = 8

// GuardReport is the outcome of a guard check. Each body counts in at most
// one kind, the first it fails in the order non-finite, too fast, outside
// the domain (GuardOffenders).
type GuardReport struct {
	// NonFinite, Fast and Out count the bodies whose position, quaternion,
	// velocity or angular velocity is not finite, whose speed exceeds
	// MaxSpeed, and whose centre lies outside the domain.
	NonFinite, Fast, Out int
	// NonFiniteIDs, FastIDs and OutIDs are the first GuardReportIDs (or
	// fewer, when fewer failed) ids of each kind, ascending.
	NonFiniteIDs, FastIDs, OutIDs []int
}

// Failed reports whether any body failed.
func (r *GuardReport) Failed() bool { return r.NonFinite+r.Fast+r.Out > 0 }

// GuardOffenders returns the ids, ascending, of the bodies of s that fail
// the checks of l, each in the first kind it fails:
//
//	for i := range bodies {
//		if any of pos_i, rot_i, vel_i, omega_i is NaN or ±Inf { nonFinite += i; continue }
//		if √(v_x·v_x + v_y·v_y + v_z·v_z) > l.MaxSpeed      { fast += i; continue }  // each product rounded
//		if !l.Skip[i] && pos_i ∉ [l.Lo, l.Hi]               { out += i }
//	}
//
// It is the host's check and the reference for StateGuard.CheckState.
func GuardOffenders(s *State, l *GuardLimits) (nonFinite, fast, out []int) {
	for i := 0; i < s.Len(); i++ {
		if !finite(s.Pos[3*i:3*i+3]) || !finite(s.Rot[4*i:4*i+4]) || !finite(s.Vel[3*i:3*i+3]) || !finite(s.Omega[3*i:3*i+3]) {
			nonFinite = append(nonFinite, i)
			continue
		}
		v := s.Vel[3*i : 3*i+3]
		// The conversions round each product, as the device's precise
		// arithmetic does (no fused multiply-add).
		if math.Sqrt(float64(v[0]*v[0])+float64(v[1]*v[1])+float64(v[2]*v[2])) > l.MaxSpeed {
			fast = append(fast, i)
			continue
		}
		if l.Skip[i] {
			continue
		}
		for k := 0; k < 3; k++ {
			if p := s.Pos[3*i+k]; p < l.Lo[k] || p > l.Hi[k] {
				out = append(out, i)
				break
			}
		}
	}
	return nonFinite, fast, out
}

// GuardReportOf returns the report of a check that found the offenders nonFinite,
// fast and out (as GuardOffenders returns them).
func GuardReportOf(nonFinite, fast, out []int) GuardReport {
	first := func(ids []int) []int { return append([]int(nil), ids[:min(len(ids), GuardReportIDs)]...) }
	return GuardReport{NonFinite: len(nonFinite), Fast: len(fast), Out: len(out),
		NonFiniteIDs: first(nonFinite), FastIDs: first(fast), OutIDs: first(out)}
}

func finite(v []float64) bool {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}
