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
		vf, dv := b.vfree[6*i:6*i+6], b.dv[6*i:6*i+6]
		q := b.quat(i)
		dw := geom.RotateInverse(q, mgl64.Vec3{dv[3], dv[4], dv[5]})
		for k := 0; k < 3; k++ {
			b.vel[3*i+k] = vf[k] + dv[k]
			b.omega[3*i+k] = vf[3+k] + dw[k]
			b.pos[3*i+k] += h * b.vel[3*i+k]
		}
		th := mgl64.Vec3{b.omega[3*i], b.omega[3*i+1], b.omega[3*i+2]}.Mul(h)
		a := th.Len()
		if a == 0 {
			continue
		}
		s, c := math.Sincos(a / 2)
		dq := mgl64.Quat{W: c, V: th.Mul(s / a)}
		q = q.Mul(dq).Normalize()
		b.rot[4*i], b.rot[4*i+1], b.rot[4*i+2], b.rot[4*i+3] = q.W, q.V[0], q.V[1], q.V[2]
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
			F0, F1, F2 := contactForce((*[12]float64)(b.jac[12*k:12*k+12]), g[3*k], g[3*k+1], g[3*k+2])
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
