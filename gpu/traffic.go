package gpu

import (
	"fmt"
	"io"

	"github.com/gpusim/gpusim/traffic"
)

// The device memory traffic of one iteration of the device APGD solver
// (apgd.go), counted kernel by kernel from the buffer accesses that each
// kernel's header documents and its code makes: the bytes an invocation
// reads and writes per contact and per body. It is a model, not a
// measurement: it counts every access as a trip to device memory (no cache
// hits: a body's velocity, read by each of its contacts, counts once per
// contact), so it bounds from above what an iteration moves; the scalar
// buffer (a few bytes, read by every invocation and cached) and the dot
// products' partial sums (8 bytes per 2048 elements) are left out. Both
// contact sides are counted as movable bodies (a contact with the floor
// reads less), and the iteration is one whose first line-search trial is
// accepted (each halving of the step repeats the trial's kernels). The
// file carries no build tag so that gpusim bench prints the model on any
// machine; TestTrafficModel checks it against the kernels' reflected
// bindings.

// The sizes the model counts in.
const (
	vec3 = traffic.Vec3
	f64  = traffic.F64
	u32  = traffic.U32
)

// APGDTraffic selects the device APGD iteration that the traffic model
// counts (APGDTraffic.Passes).
type APGDTraffic struct {
	// F32: settings.precision "mixed", the NAME_f32 kernels: 12 bytes per
	// contact of each work vector instead of 24, 48 of the Jacobian
	// instead of 96; r, μ, the cohesion impulses and the bodies'
	// velocities stay float64.
	F32 bool
	// Materials: μ and the cohesion impulses per contact, for a model of
	// more than one friction or cohesion. A model of one material holds
	// one value of each (gpu.Backend.oneMaterial), read by every
	// invocation and cached like the scalar buffer: the model does not
	// count it.
	Materials bool
	// Arms: a model whose contact points lie on the normals through the
	// bodies' centres (engine.Model.ArmsAlongNormal: spheres, and bodies
	// that never turn), whose Jacobian holds n, u, ρ_A and ρ_B (8 values
	// per contact, lib/jac.glsl) instead of n, u, s_A and s_B (12).
	Arms bool
}

// APGDIterationTraffic returns the kernels of one device APGD iteration in
// float64 for a model of spheres of one material (APGDTraffic{Arms:
// true}.Passes()).
func APGDIterationTraffic() []traffic.Pass { return APGDTraffic{Arms: true}.Passes() }

// Passes returns the kernels of one device APGD iteration in the order
// apgdRun.block records them (without anti-relaxation) and their traffic.
func (c APGDTraffic) Passes() []traffic.Pass {
	r, w := traffic.Read, traffic.Write
	wv, jf, sfx := float64(vec3), float64(f64), ""
	if c.F32 {
		wv, jf, sfx = 3*4, 4, "_f32"
	}
	// μ and coh: one float64 per contact, or one in all (not counted).
	var mat float64
	if c.Materials {
		mat = f64
	}
	// The Jacobian's values per contact, and each side's arm.
	jn, arm, side := 12.0, 3.0, "s"
	if c.Arms {
		jn, arm, side = 8, 1, "ρ"
	}
	// The Schur product N x: apgd_body_impulse gathers over each movable
	// body's contact list (both sides of a contact: its adjacency entry,
	// its γ, the contact's n and u and the side's contact point s, or its
	// ρ), apgd_contact_velocity reads both bodies' dv and the contact's
	// Jacobian (n, u, s_A, s_B, or n, u, ρ_A, ρ_B). Bodies count as isotropic (spheres):
	// another body's M⁻¹ also reads the step's R J̄⁻¹ Rᵀ (invInertiaW,
	// 48 B per body).
	bodyImpulse := traffic.Pass{Name: "apgd_body_impulse" + sfx, Role: "dv = M⁻¹ D γ' (per body, over its contacts)", Accesses: []traffic.Access{
		w(0, "dv", 0, 6*f64), r(1, "γ'", 2*wv, 0), r(2, "adjOff", 0, 2*u32), r(3, "adj", 2*u32, 0),
		r(4, "jac: n, u and the side's "+side, 2*(6+arm)*jf, 0),
		r(5, "invMass", 0, f64), r(6, "invInertia", 0, 3*f64), r(7, "fixedBody", 0, u32), r(8, "jadjOff", 0, 2*u32),
	}}
	contactVelocity := traffic.Pass{Name: "apgd_contact_velocity" + sfx, Role: "Nγ' = Dᵀ dv (per contact)", Accesses: []traffic.Access{
		w(0, "Nγ'", wv, 0), r(3, "dv of A and B", 2*6*f64, 0), r(4, "a", u32, 0), r(5, "b", u32, 0),
		r(6, "jac", jn*jf, 0),
	}}
	return []traffic.Pass{
		{Name: "apgd_step" + sfx, Role: "γ' = Π(y − t g)", Accesses: []traffic.Access{
			w(0, "γ'", wv, 0), r(1, "y", wv, 0), r(2, "g", wv, 0), r(3, "mu", mat, 0), r(4, "coh", mat, 0)}},
		bodyImpulse,
		contactVelocity,
		{Name: "apgd_dot" + sfx, Role: "trial's four dot products", Accesses: []traffic.Access{
			r(1, "γ'", wv, 0), r(2, "Nγ'", wv, 0), r(3, "r", vec3, 0), r(4, "y", wv, 0), r(5, "N y", wv, 0)}},
		{Name: "apgd_residual" + sfx, Role: "residual vector", Accesses: []traffic.Access{
			w(0, "residual vector (in y)", wv, 0), r(1, "γ'", wv, 0), r(2, "Nγ'", wv, 0), r(3, "r", vec3, 0), r(4, "mu", mat, 0), r(5, "coh", mat, 0)}},
		{Name: "apgd_dot" + sfx, Role: "accept's two dot products", Accesses: []traffic.Access{
			r(1, "residual vector", wv, 0), r(2, "g", wv, 0), r(4, "γ'", wv, 0), r(5, "γ", wv, 0)}},
		{Name: "apgd_next" + sfx, Role: "best, y, N y, g, γ, Nγ", Accesses: []traffic.Access{
			w(0, "best (when better)", wv, 0), w(1, "y", wv, 0), r(2, "γ", wv, 0), w(2, "γ", wv, 0), r(3, "γ'", wv, 0),
			w(4, "N y", wv, 0), r(5, "Nγ", wv, 0), w(5, "Nγ", wv, 0), r(6, "Nγ'", wv, 0), w(7, "g", wv, 0), r(8, "r", vec3, 0)}},
	}
}

// BytesPerContactIteration is the model's bytes per contact and
// iteration at bodiesPerContact movable bodies per contact.
func (c APGDTraffic) BytesPerContactIteration(bodiesPerContact float64) float64 {
	return traffic.PerContactIteration(c.Passes(), bodiesPerContact)
}

// APGDBytesPerContactIteration is the model's bytes per contact and
// iteration in float64 for a model of spheres of one material
// (APGDTraffic{Arms: true}.BytesPerContactIteration).
func APGDBytesPerContactIteration(bodiesPerContact float64) float64 {
	return APGDTraffic{Arms: true}.BytesPerContactIteration(bodiesPerContact)
}

// WriteTrafficModel writes the model of iteration c as a Markdown table at
// bodiesPerContact bodies per contact, and the time per iteration and per
// step of 100 iterations it predicts for contacts contacts on devices of
// the given memory bandwidths (bytes/s, by name), bandwidth alone.
func WriteTrafficModel(w io.Writer, bodiesPerContact float64, contacts int, bandwidths []NamedBandwidth, c APGDTraffic) error {
	total, err := traffic.WriteTable(w, "kernel", c.Passes(), bodiesPerContact)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "Predicted by bandwidth alone for %d contacts (%.3g GB per iteration):\n\n", contacts, total*float64(contacts)/1e9)
	fmt.Fprintf(w, "| device | bandwidth (TB/s) | ms / iteration | ms / step of 100 iterations |\n| --- | ---: | ---: | ---: |\n")
	for _, b := range bandwidths {
		it := total * float64(contacts) / b.BytesPerSecond
		fmt.Fprintf(w, "| %s | %.2f | %.3g | %.3g |\n", b.Name, b.BytesPerSecond/1e12, 1e3*it, 1e5*it)
	}
	return nil
}

// NamedBandwidth is a device's memory bandwidth (bytes/s) for
// WriteTrafficModel.
type NamedBandwidth struct {
	Name           string
	BytesPerSecond float64
}

// DatasheetBandwidths are the datasheet memory bandwidths of the GPUs the
// project has been lent: NVIDIA H100 SXM (80 GB HBM3, 3.35 TB/s), H100
// PCIe (80 GB HBM2e, 2.0 TB/s) and H200 (141 GB HBM3e, 4.8 TB/s).
var DatasheetBandwidths = []NamedBandwidth{
	{"NVIDIA H100 SXM (datasheet)", 3.35e12},
	{"NVIDIA H100 PCIe (datasheet)", 2.0e12},
	{"NVIDIA H200 (datasheet)", 4.8e12},
}
