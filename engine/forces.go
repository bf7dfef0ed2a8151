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
	// Rolling is the magnitude of the rolling resistance torque (N·m),
	// ‖(γ_ru, γ_rw)‖/h, at most μ_r·Normal; Spinning the magnitude of the
	// spinning resistance torque |γ_s|/h, at most μ_s·Normal. Both are 0
	// for a contact without rolling rows, and as ContactForces fills them.
	Rolling, Spinning float64
}

// ContactForcesRolling is ContactForces for the whole γ of a step
// (Sim.Impulses: contact rows, joint rows, rolling rows; see RollingRows)
// with the step's contacts c (Backend.ReadContacts after the same step):
// it also fills Rolling and Spinning from the rolling block of each
// contact that has one (Contacts.HasRollingRows), the blocks being the
// last 3·nr rows of gamma. It returns an error when gamma is shorter
// than the contacts and their rolling blocks need.
func ContactForcesRolling(dst []ContactForce, c *Contacts, gamma []float64, h float64) ([]ContactForce, error) {
	nc := c.Len()
	nr := c.RollingContacts()
	if len(gamma) < 3*nc+3*nr {
		return dst, fmt.Errorf("contact forces: %d impulses for %d contacts and %d rolling blocks", len(gamma), nc, nr)
	}
	if !(h > 0) {
		return dst, fmt.Errorf("contact forces: step h = %v must be positive", h)
	}
	dst = ContactForces(dst, gamma[:3*nc], h)
	ro := len(gamma) - 3*nr
	for k := range dst {
		if !c.HasRollingRows(k) {
			continue
		}
		g := gamma[ro : ro+3]
		ro += 3
		dst[k].Rolling = math.Hypot(g[0], g[1]) / h
		dst[k].Spinning = math.Abs(g[2]) / h
	}
	return dst, nil
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
