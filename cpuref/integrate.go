package cpuref

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/geom"
)

// Integrate sets v = M⁻¹(k + Dγ) = vfree + M⁻¹Dγ (eq. 5; the angular part
// ω̄ = ω̄_free + Rᵀ(M⁻¹Dγ)_ω, the solve's world-frame impulse turned into
// the body frame: frame.go) and then the
// positions x += h·v and orientations q ← q ⊗ exp(½hω̄) renormalised
// (eq. 8 with the exact rotation of a constant body-frame ω̄ over the step
// instead of its first-order form); kinematic bodies are put at their
// prescribed pose at the end of the step (moveKinematic), exactly, not by
// integrating. It keeps γ for WarmStart and advances the backend's clock
// by h.
func (b *Backend) Integrate(gamma engine.Vec, h float64) error {
	g := vec(gamma)
	nc := b.con.Len()
	if len(g) != b.rows() {
		return fmt.Errorf("cpuref: integrate: gamma has length %d, want %d", len(g), b.rows())
	}
	b.bodyImpulse(g, b.dv)
	b.args.h = h
	b.pool.forChunks(b.n, bodyGrain, taskFunc(b.loops.integrate))
	b.args = loopArgs{}
	// Keep this step's impulses for warm starting the next one.
	b.KeepKeys()
	b.prevGamma = append(b.prevGamma[:0], g[:3*nc]...)
	if b.mixed {
		// The device keeps them as float32 (collide_keys_f32).
		roundF32(b.prevGamma)
	}
	b.jt.prev = append(b.jt.prev[:0], g[3*nc:3*nc+b.jt.Rows]...)
	b.keepRolling(g)
	b.jt.time += h
	return nil
}

// integrate is Integrate's loop over the bodies in [lo, hi), with b.dv
// holding M⁻¹Dγ.
func (b *Backend) integrate(_, lo, hi int) {
	h := b.args.h
	for i := lo; i < hi; i++ {
		if b.fixed[i] {
			if b.jt.kin[i] != nil {
				b.moveKinematic(i, h, b.vfree[6*i:6*i+6])
			}
			continue
		}
		// In components (geom.Rotate3, QuatMul, QuatNormalize): the
		// operations of RotateInverse and mgl64's Quat methods, the same
		// bits, without passing arrays through memory.
		vf, dv := (*[6]float64)(b.vfree[6*i:]), (*[6]float64)(b.dv[6*i:])
		q := (*[4]float64)(b.rot[4*i:])
		v, w, p := (*[3]float64)(b.vel[3*i:]), (*[3]float64)(b.omega[3*i:]), (*[3]float64)(b.pos[3*i:])
		dw0, dw1, dw2 := geom.Rotate3(q[0], -q[1], -q[2], -q[3], dv[3], dv[4], dv[5])
		v[0], v[1], v[2] = vf[0]+dv[0], vf[1]+dv[1], vf[2]+dv[2]
		w[0], w[1], w[2] = vf[3]+dw0, vf[4]+dw1, vf[5]+dw2
		p[0], p[1], p[2] = p[0]+h*v[0], p[1]+h*v[1], p[2]+h*v[2]
		t0, t1, t2 := w[0]*h, w[1]*h, w[2]*h
		a := math.Sqrt(t0*t0 + t1*t1 + t2*t2)
		if a == 0 {
			continue
		}
		s, c := math.Sincos(a / 2)
		sa := s / a
		q[0], q[1], q[2], q[3] = geom.QuatNormalize(geom.QuatMul(q[0], q[1], q[2], q[3], c, t0*sa, t1*sa, t2*sa))
	}
}

// WarmStart fills gamma with the previous step's impulse of each contact
// whose (A, B, index within the pair) also existed then, else zero, and
// the joint rows with the previous step's (zero at the first step), and
// the rolling rows of each contact that persists with its previous
// rolling impulses (zero for a contact that had no rolling rows). Both
// contact lists are sorted by that key, so one merge pass matches them.
func (b *Backend) WarmStart(gamma engine.Vec) error {
	g := vec(gamma)
	nc := b.con.Len()
	if len(g) != b.rows() {
		return fmt.Errorf("cpuref: warm start: gamma has length %d, want %d", len(g), b.rows())
	}
	b.Collider.WarmStart(g[:3*nc], b.prevGamma)
	b.warmRolling(g)
	gj := g[3*nc : 3*nc+b.jt.Rows]
	if len(b.jt.prev) == len(gj) {
		copy(gj, b.jt.prev)
	} else {
		clear(gj)
	}
	return nil
}

// FixedForce returns Σ over contacts of the force (N) that the impulses
// gamma of a step of length h put on fixed bodies: −F on A, +F on B with
// F = (γ_n n + γ_u u + γ_w w)/h, summed in the device's order (order.go,
// fixed_force.comp: chunks of 2048 contacts, 256 lanes, the tree, then
// the chunks' sums), so that both paths report the same bits.
func (b *Backend) FixedForce(gamma engine.Vec, h float64) (mgl64.Vec3, error) {
	g := vec(gamma)
	nc := b.con.Len()
	np := (nc + chunk - 1) / chunk
	for d := range b.fixedPart {
		b.fixedPart[d] = resizeF(b.fixedPart[d], np)
	}
	for c := range np {
		lo, hi := c*chunk, min((c+1)*chunk, nc)
		var s [3][lanes]float64
		for k := lo; k < hi; k++ {
			fa, fb := b.fixed[b.con.A[k]], b.fixed[b.con.B[k]]
			if !fa && !fb {
				continue
			}
			var blk [12]float64
			F0, F1, F2 := contactForce(b.jacBlock(k, &blk), g[3*k], g[3*k+1], g[3*k+2])
			l := (k - lo) % lanes
			for j, f := range [3]float64{F0 / h, F1 / h, F2 / h} {
				if fa {
					s[j][l] -= f
				}
				if fb {
					s[j][l] += f
				}
			}
		}
		for d := range s {
			b.fixedPart[d][c] = laneTree(&s[d])
		}
	}
	return mgl64.Vec3{sumChunks(b.fixedPart[0]), sumChunks(b.fixedPart[1]), sumChunks(b.fixedPart[2])}, nil
}
