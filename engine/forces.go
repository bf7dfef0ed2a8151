package engine

import (
	"fmt"
	"math"
)

// ContactForce is the force one contact carried over a time step, in N.
type ContactForce struct {
	// Normal is the normal force: positive when it pushes the two bodies
	// apart, negative (down to −cohesion) when cohesion holds them together.
	Normal float64
	// Friction is the magnitude of the tangential (friction) force; the
	// friction cone bounds it by μ·(Normal + cohesion).
	Friction float64
}

// ContactForces converts the contact impulses of a step of length h (s),
// as Sim.Impulses returns them (3 per contact, (γ_n, γ_u, γ_w) in N·s in
// the contact frame), into forces: Normal = γ_n/h and Friction =
// ‖(γ_u, γ_w)‖/h. Both are independent of the choice of the tangent
// directions u, w. The result is written into dst (grown if needed) and
// returned; contact k of the result is contact k of Backend.ReadContacts
// read after the same step.
//
// It panics if len(impulses) is not a multiple of 3 or h is not positive.
func ContactForces(dst []ContactForce, impulses []float64, h float64) []ContactForce {
	if len(impulses)%3 != 0 {
		panic(fmt.Sprintf("engine: ContactForces: %d impulses is not 3 per contact", len(impulses)))
	}
	if !(h > 0) {
		panic(fmt.Sprintf("engine: ContactForces: step h = %v must be positive", h))
	}
	nc := len(impulses) / 3
	if cap(dst) < nc {
		dst = make([]ContactForce, nc)
	}
	dst = dst[:nc]
	for k := range dst {
		g := impulses[3*k : 3*k+3]
		dst[k] = ContactForce{Normal: g[0] / h, Friction: math.Hypot(g[1], g[2]) / h}
	}
	return dst
}
