package cpuref

import (
	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/traffic"
)

// APGDTraffic is the CPU path's model of the memory traffic of one
// iteration of its APGD (apgd.go) without anti-relaxation, pass by pass
// in the order solveAPGD makes them, for an iteration whose first
// line-search trial is accepted (each halving repeats the trial,
// body-impulse and velocity passes), for a model of the layout it
// selects. It is a count from the code, as gpu's model of the device
// iteration is: every array a pass touches counts once per direction,
// since a pass works chunk by chunk and what it writes and reads again
// within a chunk is in cache; between passes every array counts as a trip
// to memory, and a body's data, read by each of its contacts, counts once
// per contact (no reuse across contacts). So it bounds from above what an
// iteration streams from memory: at N = 1000 the whole state fits the
// caches. Both contact sides count as movable bodies, and bodies as
// isotropic (spheres): another body's M⁻¹ also reads its step matrix
// R J̄⁻¹ Rᵀ (invInertiaW: 48 bytes per body and body-impulse pass). The
// body impulses are the vector loops' scatter (bodyImpulses4), which reads
// each contact once, for contacts in the collider's order; the scalar
// loops' gather, and the vector loops for contacts in another order, read
// n, u and γ' at both of a contact's ends and its adjacency entries:
// 72 + 8 bytes per contact more.
type APGDTraffic struct {
	// Compact: the Jacobian as 8 values per contact (n, u, ρ_A, ρ_B),
	// which Build chooses from compactFrom contacts on where the arms lie
	// on the normals (CompactJacobian), instead of 12.
	Compact bool
	// Materials: μ and the cohesion impulse per contact, for a model of
	// more than one friction or cohesion (else one value each, which
	// every contact reads: Backend.mu).
	Materials bool
}

// Passes returns the model's passes.
func (a APGDTraffic) Passes() []traffic.Pass {
	r, w := traffic.Read, traffic.Write
	const vec3, f64, u32 = traffic.Vec3, traffic.F64, traffic.U32
	jacobianPerContact := float64(jacobianPerContact)
	if a.Compact {
		jacobianPerContact = compactPerContact
	}
	mat := 0.0 // μ and the cohesion impulse of a contact
	if a.Materials {
		mat = 2 * f64
	}
	return []traffic.Pass{
		{Name: "apgdTrialY", Role: "y, N y, g = N y + r; γ' = Π(y − t g)", Accesses: []traffic.Access{
			r(0, "γ_k, γ_{k−1}, Nγ_k, Nγ_{k−1}, r", 5*vec3, 0), r(0, "mu, coh", mat, 0), w(0, "y, N y, γ'", 3*vec3, 0)}},
		{Name: "bodyImpulses", Role: "dv = M⁻¹ D γ' (contacts scattered in runs of body A)", Accesses: []traffic.Access{
			r(0, "A, B", 2*u32, 0), r(0, "γ'", vec3, 0), r(0, "jac", jacobianPerContact, 0),
			r(0, "adjOff", 0, 2*u32), r(0, "adj: the first entry", 0, u32),
			r(0, "fixed", 0, 1), r(0, "invMass", 0, f64), r(0, "invInertia", 0, 3*f64), w(0, "dv", 0, 6*f64)}},
		{Name: "apgdVelRes", Role: "Nγ' = Dᵀ dv, then the six dot products of its chunks (g = N y + r and the residual vector on the fly)", Accesses: []traffic.Access{
			r(0, "A, B", 2*u32, 0), r(0, "dv of A and B", 2*6*f64, 0),
			r(0, "jac", jacobianPerContact, 0), w(0, "Nγ'", vec3, 0),
			r(0, "γ', r, y, N y, γ_k (Nγ' is in cache)", 5*vec3, 0), r(0, "mu, coh", mat, 0)}},
	}
}

// The bytes per contact of the Jacobian (jac: n, u, s_A, s_B, 12
// float64); TestTrafficModelLayout checks it against the arrays a step
// builds. Each side of a body-impulse pass reads n, u and its own s.
// The 8-value layout (b.compact) holds n, u, ρ_A and ρ_B.
const (
	jacobianPerContact = 12 * traffic.F64
	compactPerContact  = 8 * traffic.F64
)

// BytesPerContactIteration is the model's bytes per contact and iteration
// at bodiesPerContact movable bodies per contact.
func (a APGDTraffic) BytesPerContactIteration(bodiesPerContact float64) float64 {
	return traffic.PerContactIteration(a.Passes(), bodiesPerContact)
}

// TrafficFor returns the model of a's layout for model m with the given
// number of contacts: CompactJacobian's layout, and μ and cohesion per
// contact unless the materials have one friction and one cohesion
// (engine.OneMaterial).
func TrafficFor(m *engine.Model, contacts float64) APGDTraffic {
	return APGDTraffic{Compact: CompactJacobian(m, contacts), Materials: !engine.OneMaterial(m.Materials)}
}

// CompactJacobian reports whether this backend holds the Jacobian of a
// model's contacts in the 8-value layout when it has the given number of
// contacts: where the model's contact points lie on the normals through
// the bodies' centres (engine.Model.ArmsAlongNormal), from compactFrom
// contacts on.
func CompactJacobian(m *engine.Model, contacts float64) bool {
	return m.ArmsAlongNormal() && contacts >= float64(compactFrom)
}
