package engine

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"
)

// TangentBasis returns unit vectors u, w with (n, u, w) right-handed and
// orthonormal: u is n × e normalised, e the coordinate axis least aligned
// with n, and w = n × u. It is a pure function of n, so every backend
// builds the same contact frame, and impulses γ = (γ_n, γ_u, γ_w) mean the
// same forces on all of them.
func TangentBasis(n mgl64.Vec3) (u, w mgl64.Vec3) {
	u0, u1, u2 := TangentU(n[0], n[1], n[2])
	u = mgl64.Vec3{u0, u1, u2}
	return u, n.Cross(u)
}

// TangentU is TangentBasis's u from the components of n: n × e with mgl64's
// Vec3.Cross, then its Normalize (1/‖c‖ times each component), operation
// for operation, so the same bits. In scalars for the per-contact loops:
// Go keeps a [3]float64 value in memory, and TangentBasis written with
// mgl64's methods took 57 ns per call against 7 ns (random normals, this
// project's 2-core machine).
func TangentU(n0, n1, n2 float64) (u0, u1, u2 float64) {
	ax, ay, az := math.Abs(n0), math.Abs(n1), math.Abs(n2)
	var e0, e1, e2 float64
	switch {
	case ax <= ay && ax <= az:
		e0 = 1
	case ay <= az:
		e1 = 1
	default:
		e2 = 1
	}
	c0, c1, c2 := n1*e2-n2*e1, n2*e0-n0*e2, n0*e1-n1*e0
	l := 1.0 / math.Sqrt(c0*c0+c1*c1+c2*c2)
	return c0 * l, c1 * l, c2 * l
}

// BodyReactor is implemented by backends that sum the contact forces on
// chosen bodies without handing the contacts and impulses to the host
// (see ContactReactions, which it must match bit for bit). Sim's
// BodyReactions uses it when the backend has it and ContactReactions on
// read-back contacts and impulses otherwise. Implemented by cpuref.
type BodyReactor interface {
	// BodyReactions adds into dst[slot[i]] the force and torque that the
	// impulses gamma of a step of length h put on body i, for every body
	// with slot[i] ≥ 0 (dst is zeroed first).
	BodyReactions(gamma Vec, h float64, slot []int32, dst []Reaction) error
}

// ContactReactions sets dst[slot[i]], for every body i with slot[i] ≥ 0,
// to the total contact force (N, world frame) and torque about the body's
// centre of mass (N·m, world frame) that the impulses gamma (3 per contact
// in the frame n, u, w of TangentBasis, N·s) of a step of length h put on
// it: contact k applies F_k = (γ_n n + γ_u u + γ_w w)/h to B and −F_k to
// A at its contact point, whose arm from the centre is R·s̄ with s̄ the
// point in the body frame (Contacts.PA, PB) and R the body's orientation
// in s (the end of the step, as for JointReactions). A contact with
// rolling rows (Contacts.HasRollingRows) adds its rolling and spinning
// torque T_k = (γ_ru u + γ_rw w + γ_s n)/h to B and −T_k to A (no force),
// its block read from the last 3·nr rows of gamma (RollingRows), so gamma
// must then be the step's whole γ (Sim.Impulses); without such contacts
// only the contact rows of gamma are read (joint rows may follow). Terms
// are summed in contact order, a contact's rolling torque after its
// force's. dst must have a Reaction per slot.
func ContactReactions(s *State, c *Contacts, gamma []float64, h float64, slot []int32, dst []Reaction) error {
	nc := c.Len()
	if len(gamma) < 3*nc {
		return fmt.Errorf("contact reactions: %d impulses for %d contacts", len(gamma), nc)
	}
	if len(slot) != s.Len() {
		return fmt.Errorf("contact reactions: %d slots for %d bodies", len(slot), s.Len())
	}
	nr := 0
	if len(c.Rolling) > 0 || len(c.Spinning) > 0 {
		nr = c.RollingContacts()
	}
	ro := len(gamma) - 3*nr // the first rolling row
	if nr > 0 && ro < 3*nc {
		return fmt.Errorf("contact reactions: %d impulses for %d contacts and %d rolling blocks", len(gamma), nc, nr)
	}
	clear(dst)
	arm := func(i int, p []float64) mgl64.Vec3 {
		q := mgl64.Quat{W: s.Rot[4*i], V: mgl64.Vec3{s.Rot[4*i+1], s.Rot[4*i+2], s.Rot[4*i+3]}}
		return q.Rotate(mgl64.Vec3{p[0], p[1], p[2]})
	}
	for k := 0; k < nc; k++ {
		a, b := c.A[k], c.B[k]
		sa, sb := slot[a], slot[b]
		var tr []float64 // the rolling block of contact k, if any
		if nr > 0 && c.HasRollingRows(k) {
			tr = gamma[ro : ro+3]
			ro += 3
		}
		if sa < 0 && sb < 0 {
			continue
		}
		n := mgl64.Vec3{c.Normal[3*k], c.Normal[3*k+1], c.Normal[3*k+2]}
		u, w := TangentBasis(n)
		g := gamma[3*k : 3*k+3]
		var f mgl64.Vec3
		for j := 0; j < 3; j++ {
			f[j] = (g[0]*n[j] + g[1]*u[j] + g[2]*w[j]) / h
		}
		if sa >= 0 {
			r := &dst[sa]
			r.Force = r.Force.Sub(f)
			r.Torque = r.Torque.Add(arm(int(a), c.PA[3*k:]).Cross(f.Mul(-1)))
		}
		if sb >= 0 {
			r := &dst[sb]
			r.Force = r.Force.Add(f)
			r.Torque = r.Torque.Add(arm(int(b), c.PB[3*k:]).Cross(f))
		}
		if tr != nil {
			var t mgl64.Vec3
			for j := 0; j < 3; j++ {
				t[j] = (tr[0]*u[j] + tr[1]*w[j] + tr[2]*n[j]) / h
			}
			if sa >= 0 {
				dst[sa].Torque = dst[sa].Torque.Sub(t)
			}
			if sb >= 0 {
				dst[sb].Torque = dst[sb].Torque.Add(t)
			}
		}
	}
	return nil
}

// StaticBodies returns the indices of the bodies of m that cannot move
// under forces (fixed bodies, planes and kinematic bodies: Body.Static),
// in scene order: the bodies whose contact reactions a run reports.
func (m *Model) StaticBodies() []int {
	var ids []int
	for i := range m.Bodies {
		if m.Bodies[i].Static() {
			ids = append(ids, i)
		}
	}
	return ids
}

// bodyReactions is Sim's scratch for BodyReactions on backends without
// BodyReactor.
type bodyReactions struct {
	state    State
	contacts Contacts
	gamma    []float64
}

// BodyReactions sets dst[slot[i]], for every body i with slot[i] ≥ 0 (a
// slice of one entry per body), to the total contact force and torque on
// body i over the last step, as ContactReactions defines them; zero before
// the first step. It uses the backend's BodyReactor when it has one, else
// reads the state, the contacts and the impulses back to the host (on a
// device backend that is about 128 bytes per contact and step).
func (s *Sim) BodyReactions(slot []int32, dst []Reaction) error {
	if s.gamma == nil {
		clear(dst)
		return nil
	}
	if r, ok := s.backend.(BodyReactor); ok {
		return r.BodyReactions(s.gamma, s.h, slot, dst)
	}
	w := &s.reactions
	if err := s.backend.ReadState(&w.state); err != nil {
		return err
	}
	if err := s.backend.ReadContacts(&w.contacts); err != nil {
		return err
	}
	w.gamma = s.Impulses(w.gamma)
	return ContactReactions(&w.state, &w.contacts, w.gamma, s.h, slot, dst)
}
