//go:build goexperiment.simd && amd64 && !go1.27

package cpuref

import "simd/archsimd"

// haveSIMD reports whether this build has the AVX-512 loops of this file
// (Go's experimental simd/archsimd, GOEXPERIMENT=simd; simd.go) and the
// processor runs them.
var haveSIMD = archsimd.X86.AVX512()

// Index vectors of the transposes between 8 contacts' 24 interleaved
// values (a = x[0:8], b = x[8:16], c = x[16:24]; element 3k+j is contact
// k's row j) and three vectors of 8 rows, one per row.
var (
	deN1 = [8]uint64{0, 3, 6, 9, 12, 15, 0, 0}  // from a|b
	deN2 = [8]uint64{0, 1, 2, 3, 4, 5, 10, 13}  // then from c: 18, 21
	deU1 = [8]uint64{1, 4, 7, 10, 13, 0, 0, 0}  // from a|b
	deU2 = [8]uint64{0, 1, 2, 3, 4, 8, 11, 14}  // then c: 16, 19, 22
	deW1 = [8]uint64{2, 5, 8, 11, 14, 0, 0, 0}  // from a|b
	deW2 = [8]uint64{0, 1, 2, 3, 4, 9, 12, 15}  // then c: 17, 20, 23
	inA1 = [8]uint64{0, 8, 0, 1, 9, 0, 2, 10}   // n0 u0 _ n1 u1 _ n2 u2 from n|u
	inA2 = [8]uint64{0, 1, 8, 3, 4, 9, 6, 7}    // then w0, w1 from w
	inB1 = [8]uint64{0, 3, 11, 0, 4, 12, 0, 5}  // _ n3 u3 _ n4 u4 _ n5 from n|u
	inB2 = [8]uint64{10, 1, 2, 11, 4, 5, 12, 7} // then w2, w3, w4 from w
	inC1 = [8]uint64{13, 0, 6, 14, 0, 7, 15, 0} // u5 _ n6 u6 _ n7 u7 _ from n|u
	inC2 = [8]uint64{0, 13, 2, 3, 14, 5, 6, 15} // then w5, w6, w7 from w
)

// projectCones8 is projectCones for the contacts [lo, lo+8m) in groups of
// 8 (cones8). It returns lo+8m.
func projectCones8(d, x, mu, coh []float64, lo, hi int) int {
	return cones8(&coneSource{d: d, x: x, mu: mu, coh: coh}, lo, hi)
}

// residual8 sets d[3(k−k0) …] to the residual vector of APGD's trial,
// γ' − Π(γ' − g_d(Nγ' + r')), for the contacts [k0, k0+8m) in groups of 8
// (cones8): residualVector's operations (z = γ' + (−g_d)(Nγ' + r'),
// Π(z), γ' − Π(z)) in one pass. It returns k0+8m.
func residual8(w *apgdWork, d, mu, coh []float64, k0, k1 int) int {
	return cones8(&coneSource{d: d, dOff: 3 * k0, x: w.xNew, nx: w.nxNew, r: w.rNext, mu: mu, coh: coh, negT: -w.gd, resid: true}, k0, k1)
}

// trial8 is APGD's trial for the contacts [lo, lo+8m) in groups of 8, in
// one pass (cones8): with a and e (apgdTrialY, yMode 2, float64)
// y = a·γ_k + e·γ_{k−1} and N y likewise, stored, then, or else with y
// and N y as they are (apgdTrial), γ' = Π(y − t(N y + r)) into xo, which
// held γ_{k−1}: apgdTrialY's and apgdTrial's operations. It returns
// lo+8m.
func trial8(w *apgdWork, mu, coh []float64, ya bool, lo, hi int) int {
	s := coneSource{d: w.xNew, mu: mu, coh: coh, y: w.y, ny: w.ny, r: w.r, negT: w.negT, trial: true}
	if ya {
		s.ya, s.a, s.e, s.x, s.xo, s.nx, s.nxo = true, w.ya, w.yb, w.x, w.xNew, w.nx, w.nxNew
	}
	return cones8(&s, lo, hi)
}

// coneSource says what cones8 projects: x (d = Π(x)), APGD's trial
// point (trial, trial8), or the residual's argument (resid, residual8:
// d = x − Π(x + negT·(nx + r)), at d[3k − dOff]).
type coneSource struct {
	d, x, mu, coh         []float64
	dOff                  int
	trial, ya, resid      bool
	y, ny, r, xo, nx, nxo []float64
	a, e, negT            float64
}

// cones8 sets, for the contacts [lo, lo+8m) in groups of 8, d to the
// projections onto their cones of the impulses of s (x, or APGD's trial
// point), the lanes one contact each: every case's arithmetic in every
// lane, the case picked by masks. Each lane's operations are
// projectCones' (no fused multiply-add; correctly rounded square root and
// division), so the values are the same bits (TestProjectConesSIMD). One
// function: vectors passed to a call that is not inlined go through
// memory (a projection called per group of 8 was 9× slower).
func cones8(s *coneSource, lo, hi int) int {
	dN1, dN2 := archsimd.LoadUint64x8(&deN1), archsimd.LoadUint64x8(&deN2)
	dU1, dU2 := archsimd.LoadUint64x8(&deU1), archsimd.LoadUint64x8(&deU2)
	dW1, dW2 := archsimd.LoadUint64x8(&deW1), archsimd.LoadUint64x8(&deW2)
	iA1, iA2 := archsimd.LoadUint64x8(&inA1), archsimd.LoadUint64x8(&inA2)
	iB1, iB2 := archsimd.LoadUint64x8(&inB1), archsimd.LoadUint64x8(&inB2)
	iC1, iC2 := archsimd.LoadUint64x8(&inC1), archsimd.LoadUint64x8(&inC2)
	zero := archsimd.BroadcastFloat64x8(0)
	one := archsimd.BroadcastFloat64x8(1)
	minus := archsimd.BroadcastFloat64x8(-1) // (−1)·v is −v exactly, −0 for +0
	va, ve, vt := archsimd.BroadcastFloat64x8(s.a), archsimd.BroadcastFloat64x8(s.e), archsimd.BroadcastFloat64x8(s.negT)
	d, mu, coh := s.d, s.mu, s.coh
	// One μ and one cohesion for every contact (projectCones' convention):
	// broadcast once instead of loaded per group.
	oneMu, oneCoh := len(mu) == 1, len(coh) == 1
	var bMu, bCoh archsimd.Float64x8
	if oneMu {
		bMu = archsimd.BroadcastFloat64x8(mu[0])
	}
	if oneCoh {
		bCoh = archsimd.BroadcastFloat64x8(coh[0])
	}
	k := lo
	for ; k+8 <= hi; k += 8 {
		i := 3 * k
		var a, b, c archsimd.Float64x8
		var xa, xb, xc archsimd.Float64x8 // resid: x itself
		switch {
		case s.resid:
			x, nx, r := s.x, s.nx, s.r
			xa, xb, xc = load8(x, i), load8(x, i+8), load8(x, i+16)
			a = xa.Add(vt.Mul(load8(nx, i).Add(load8(r, i))))
			b = xb.Add(vt.Mul(load8(nx, i+8).Add(load8(r, i+8))))
			c = xc.Add(vt.Mul(load8(nx, i+16).Add(load8(r, i+16))))
		case !s.trial:
			a, b, c = load8(s.x, i), load8(s.x, i+8), load8(s.x, i+16)
		default:
			var y0, y1, y2, n0, n1, n2 archsimd.Float64x8
			if s.ya {
				x, xo, nx, nxo := s.x, s.xo, s.nx, s.nxo
				y0 = va.Mul(load8(x, i)).Add(ve.Mul(load8(xo, i)))
				y1 = va.Mul(load8(x, i+8)).Add(ve.Mul(load8(xo, i+8)))
				y2 = va.Mul(load8(x, i+16)).Add(ve.Mul(load8(xo, i+16)))
				n0 = va.Mul(load8(nx, i)).Add(ve.Mul(load8(nxo, i)))
				n1 = va.Mul(load8(nx, i+8)).Add(ve.Mul(load8(nxo, i+8)))
				n2 = va.Mul(load8(nx, i+16)).Add(ve.Mul(load8(nxo, i+16)))
				store8(y0, s.y, i)
				store8(y1, s.y, i+8)
				store8(y2, s.y, i+16)
				store8(n0, s.ny, i)
				store8(n1, s.ny, i+8)
				store8(n2, s.ny, i+16)
			} else {
				y0, y1, y2 = load8(s.y, i), load8(s.y, i+8), load8(s.y, i+16)
				n0, n1, n2 = load8(s.ny, i), load8(s.ny, i+8), load8(s.ny, i+16)
			}
			r := s.r
			a = y0.Add(vt.Mul(n0.Add(load8(r, i))))
			b = y1.Add(vt.Mul(n1.Add(load8(r, i+8))))
			c = y2.Add(vt.Mul(n2.Add(load8(r, i+16))))
		}
		xn := a.ConcatPermute(b, dN1).ConcatPermute(c, dN2)
		xu := a.ConcatPermute(b, dU1).ConcatPermute(c, dU2)
		xw := a.ConcatPermute(b, dW1).ConcatPermute(c, dW2)
		m, ch := bMu, bCoh
		if !oneMu {
			m = load8(mu, k)
		}
		if !oneCoh {
			ch = load8(coh, k)
		}

		n := xn.Add(ch)
		q := xu.Mul(xu).Add(xw.Mul(xw))
		t := q.Sqrt()
		mn := m.Mul(n)
		negN := minus.Mul(n)
		mt := m.Mul(t)
		// The cases in projectCones' order: μ = 0, inside, polar, else.
		mu0 := m.Equal(zero)
		inside := t.LessEqual(mn)
		polar := mt.LessEqual(negN)

		var on, ou, ow archsimd.Float64x8
		if mu0.Or(inside).Or(polar).ToBits() != 0xff {
			// Some lane lies outside both cones: the projection onto the
			// boundary (most contacts of a settled pile stick and skip
			// the two divisions).
			np := mt.Add(n).Div(m.Mul(m).Add(one))
			sc := m.Mul(np).Div(t)
			on, ou, ow = np.Sub(ch), xu.Mul(sc), xw.Mul(sc)
		}
		// polar: (−c, 0, 0)
		negC := minus.Mul(ch)
		on, ou, ow = negC.Merge(on, polar), zero.Merge(ou, polar), zero.Merge(ow, polar)
		// inside: unchanged
		on, ou, ow = xn.Merge(on, inside), xu.Merge(ou, inside), xw.Merge(ow, inside)
		// μ = 0: (max(n, 0) − c, 0, 0), math.Max's values: n where n > 0
		// or NaN, +0 otherwise.
		pos := n.Masked(n.Greater(zero).Or(n.IsNaN()))
		on, ou, ow = pos.Sub(ch).Merge(on, mu0), zero.Merge(ou, mu0), zero.Merge(ow, mu0)

		o0 := on.ConcatPermute(ou, iA1).ConcatPermute(ow, iA2)
		o1 := on.ConcatPermute(ou, iB1).ConcatPermute(ow, iB2)
		o2 := on.ConcatPermute(ou, iC1).ConcatPermute(ow, iC2)
		if s.resid {
			o0, o1, o2 = xa.Sub(o0), xb.Sub(o1), xc.Sub(o2)
		}
		j := i - s.dOff
		store8(o0, d, j)
		store8(o1, d, j+8)
		store8(o2, d, j+16)
	}
	archsimd.ClearAVXUpperBits()
	return k
}

// load8 and store8 move elements [i, i+8) of s.
func load8(s []float64, i int) archsimd.Float64x8 {
	return archsimd.LoadFloat64x8((*[8]float64)(s[i : i+8]))
}

func store8(v archsimd.Float64x8, s []float64, i int) {
	v.Store((*[8]float64)(s[i : i+8]))
}

// dot6Lanes adds to the lanes s[0..5][l] apgdDot6's six terms of the
// elements i < 8⌊n/8⌋ of a chunk of n (the arrays' length), lane l = i mod
// 256 taking its terms in order of i, and returns 8⌊n/8⌋. Lane group by
// lane group: the six sums of eight lanes stay in registers while the
// group's rows pass, and are stored once (not loaded and stored per row).
func dot6Lanes(s *[6][lanes]float64, xn, nx, r, y, ny, tmp, x []float64) int {
	n := len(xn)
	covered := n &^ 7
	for g := 0; g < lanes && g < covered; g += 8 {
		a0, a1, a2 := load8(s[0][:], g), load8(s[1][:], g), load8(s[2][:], g)
		a3, a4, a5 := load8(s[3][:], g), load8(s[4][:], g), load8(s[5][:], g)
		for i := g; i < covered; i += lanes {
			vxn, vnx, vr, vy, vny := load8(xn, i), load8(nx, i), load8(r, i), load8(y, i), load8(ny, i)
			vt, vx := load8(tmp, i), load8(x, i)
			d := vxn.Sub(vy)
			gv := vny.Add(vr)
			a0 = a0.Add(vxn.Mul(vnx))
			a1 = a1.Add(vr.Mul(vxn))
			a2 = a2.Add(d.Mul(vnx.Sub(vny)))
			a3 = a3.Add(d.Mul(d))
			a4 = a4.Add(vt.Mul(vt))
			a5 = a5.Add(gv.Mul(vxn.Sub(vx)))
		}
		store8(a0, s[0][:], g)
		store8(a1, s[1][:], g)
		store8(a2, s[2][:], g)
		store8(a3, s[3][:], g)
		store8(a4, s[4][:], g)
		store8(a5, s[5][:], g)
	}
	archsimd.ClearAVXUpperBits()
	return covered
}

// laneTree8 is laneTree's steps whose halves hold whole groups of 8
// (h ≥ 8), in registers: with v_i lanes 8i…8i+7, the step h = 128 adds
// v_i + v_{i+16}, h = 64 those sums i and i+8, and so on, so lanes 0–7
// end as e = d_0 + d_1, d_i = c_i + c_{i+2}, c_i the four steps' sum of
// the eight v_{i+4j} (c below), each addition the tree's own. It stores e
// in lanes 0–7 and returns the h left for the scalar steps, 4. (Step by
// step through memory, each step's sums were stored and loaded again.)
func laneTree8(s *[lanes]float64) int {
	c := func(i int) archsimd.Float64x8 {
		v := func(j int) archsimd.Float64x8 { return load8(s[:], 8*j) }
		return v(i).Add(v(i + 16)).Add(v(i + 8).Add(v(i + 24))).Add(v(i + 4).Add(v(i + 20)).Add(v(i + 12).Add(v(i + 28))))
	}
	c0, c1, c2, c3 := c(0), c(1), c(2), c(3)
	store8(c0.Add(c2).Add(c1.Add(c3)), s[:], 0)
	archsimd.ClearAVXUpperBits()
	return 4
}

// Lane orders of a 3-vector in the low lanes of a Float64x4 (lane 3 is
// not a value): yzx, and s_B and its yzx from (s_A,z, s_B) loaded at
// j[8:12]; and the order that takes (f, ·, t, ·) to a body's six values.
//
// A cross product a × b is c.yzx with c = a·b.yzx − a.yzx·b (c is
// (z, x, y) of the product, each lane the scalar's two products and
// difference in its order): three permutes, not four.
var (
	yzx = [4]uint64{1, 2, 0, 3}
	sB  = [4]uint64{1, 2, 3, 0}
	sBr = [4]uint64{2, 3, 1, 0}
	// lane2 and lane3 broadcast lane 2 (ρ_A) or 3 (ρ_B) of (u_y, u_z,
	// ρ_A, ρ_B), the last four of a contact's 8 values (b.compact).
	lane2 = [4]uint64{2, 2, 2, 2}
	lane3 = [4]uint64{3, 3, 3, 3}
	six   = [8]uint64{0, 1, 2, 4, 5, 6, 7, 7}
)

// bodyImpulses4 is bodyImpulses for the bodies [lo, hi) of a problem
// without joint rows or rolling blocks whose movable bodies are all
// isotropic, with dv's capacity 2 past its length (Load's b.dv): for each
// body the sums over its contacts, in contact order, of the force ±F_k
// and the torque s × (±F_k) of the impulses x, each 3-vector in lanes 0–2
// of a Float64x4 with contactW's, contactForce's and contactTorque's
// operations in each lane, then M⁻¹ (invMass and invInertia[3i] times
// the sums). The torques are summed as (z, x, y) and turned once per
// body (a sum lane by lane commutes with the turn).
//
// Where the contacts run by body A (b.byA: A < B, A never decreasing) the
// contacts whose A lies in [lo, hi), a range [k0, k1), are scattered: F
// once per contact, added to A's sums and to B's when B lies in the
// range too, in contact order. A body's other contacts, those with A
// below lo, come before k0; they are gathered first, through the body's
// contact list, F again for each. So every body's sums take their terms
// in contact order from zero, as the gather over all of its contacts
// does, for any partition of the bodies (any worker count): every value
// is bodyImpulses' (TestBodyImpulseScatterBits, TestStepSIMDBits). The
// scatter forms each F once instead of at both ends: BenchmarkSchur 5–8 %
// and BenchmarkStep 2–3 % faster at n = 1000 and 8000 (docs/bench.md).
// Without byA every contact is gathered.
//
// No scalar floating-point instruction runs in the loops: legacy SSE
// instructions after 256-bit ones cost more than the loop saves (a first
// version with them was 3× slower).
func (b *Backend) bodyImpulses4(dv, x []float64, lo, hi int) {
	nc := b.con.Len()
	k0, k1 := nc, nc
	if b.byA {
		k0, k1 = b.firstA(lo), b.firstA(hi)
	}
	acc := b.pool.scratch(8 * (hi - lo))
	if k0 == 0 {
		// No contact comes before the scatter's (one worker, or the
		// first part): every sum starts from zero.
		clear(acc)
	} else {
		b.gather4(acc, x, lo, hi, k0)
	}
	b.scatter4(acc, x, lo, hi, k0, k1)
	b.scale4(dv, acc, lo, hi)
	b.pool.release(acc)
}

// gather4 sets acc[8(i−lo):8(i−lo)+8] to body i's sums, forces in lanes
// 0–2 and torques as (z, x, y) in lanes 4–6, over its contacts before k0,
// for the bodies i in [lo, hi) (bodyImpulses4).
func (b *Backend) gather4(acc, x []float64, lo, hi, k0 int) {
	pYZX, pSB, pSBr := archsimd.LoadUint64x4(&yzx), archsimd.LoadUint64x4(&sB), archsimd.LoadUint64x4(&sBr)
	pRA, pRB := archsimd.LoadUint64x4(&lane2), archsimd.LoadUint64x4(&lane3)
	minus := archsimd.BroadcastFloat64x4(-1)
	jac, compact := b.jac, b.compact
	for i := lo; i < hi; i++ {
		var vf, vtc archsimd.Float64x4
		for _, e := range b.adj[b.adjOff[i]:b.adjOff[i+1]] {
			k := int(e >> 1)
			if k >= k0 {
				break
			}
			var F, s, sr archsimd.Float64x4
			g := (*[3]float64)(x[3*k : 3*k+3])
			if compact { // s = ρ n (jacBlock's products)
				var n, rho archsimd.Float64x4
				F, n, rho = arms8(jac, k, g, pYZX)
				if e&1 == 0 {
					F = minus.Mul(F)
					s = n.Mul(rho.Permute(pRA))
				} else {
					s = n.Mul(rho.Permute(pRB))
				}
				sr = s.Permute(pYZX)
			} else {
				j := (*[12]float64)(jac[12*k : 12*k+12])
				F = force4(archsimd.LoadFloat64x4((*[4]float64)(j[0:4])), archsimd.LoadFloat64x4((*[4]float64)(j[3:7])), g, pYZX)
				if e&1 == 0 {
					F = minus.Mul(F)
					s = archsimd.LoadFloat64x4((*[4]float64)(j[6:10]))
					sr = s.Permute(pYZX)
				} else {
					t := archsimd.LoadFloat64x4((*[4]float64)(j[8:12]))
					s, sr = t.Permute(pSB), t.Permute(pSBr)
				}
			}
			// s × F as (z, x, y)
			vtc = vtc.Add(s.Mul(F.Permute(pYZX)).Sub(sr.Mul(F)))
			vf = vf.Add(F)
		}
		a := (*[8]float64)(acc[8*(i-lo) : 8*(i-lo)+8])
		vf.Store((*[4]float64)(a[0:4]))
		vtc.Store((*[4]float64)(a[4:8]))
	}
	archsimd.ClearAVXUpperBits()
}

// force4 returns the world force F = g_n n + g_u u + g_w w of a contact
// with normal n and tangent u (lanes 0–2) and impulse g, w = n × u
// (contactW's and contactForce's operations lane by lane; inlined, so that
// its vectors stay in registers).
func force4(n, u archsimd.Float64x4, g *[3]float64, pYZX archsimd.Uint64x4) archsimd.Float64x4 {
	w := n.Mul(u.Permute(pYZX)).Sub(n.Permute(pYZX).Mul(u)).Permute(pYZX)
	return archsimd.BroadcastFloat64x4(g[0]).Mul(n).Add(archsimd.BroadcastFloat64x4(g[1]).Mul(u)).Add(archsimd.BroadcastFloat64x4(g[2]).Mul(w))
}

// arms8 returns the force F (force4) of contact k of the 8-value layout
// (b.compact) with impulse g, its normal n and its last four values
// (u_y, u_z, ρ_A, ρ_B) in rho (inlined, as force4).
func arms8(jac []float64, k int, g *[3]float64, pYZX archsimd.Uint64x4) (F, n, rho archsimd.Float64x4) {
	j := (*[8]float64)(jac[8*k : 8*k+8])
	n = archsimd.LoadFloat64x4((*[4]float64)(j[0:4]))
	rho = archsimd.LoadFloat64x4((*[4]float64)(j[4:8]))
	return force4(n, archsimd.LoadFloat64x4((*[4]float64)(j[3:7])), g, pYZX), n, rho
}

// scatter4 adds to acc the contacts [k0, k1), whose bodies A lie in
// [lo, hi): each contact's terms to A's sums, and to B's when B < hi
// (bodyImpulses4).
func (b *Backend) scatter4(acc, x []float64, lo, hi, k0, k1 int) {
	pYZX, pSB, pSBr := archsimd.LoadUint64x4(&yzx), archsimd.LoadUint64x4(&sB), archsimd.LoadUint64x4(&sBr)
	pRA, pRB := archsimd.LoadUint64x4(&lane2), archsimd.LoadUint64x4(&lane3)
	minus := archsimd.BroadcastFloat64x4(-1)
	jac, ca, cb, compact := b.jac, b.con.A, b.con.B, b.compact
	if k0 == k1 {
		return
	}
	// Body A's sums stay in registers while its contacts run (B is never
	// that body: A < B).
	cur := int(ca[k0]) - lo
	a := (*[8]float64)(acc[8*cur : 8*cur+8])
	af, at := archsimd.LoadFloat64x4((*[4]float64)(a[0:4])), archsimd.LoadFloat64x4((*[4]float64)(a[4:8]))
	for k := k0; k < k1; k++ {
		// F, the arm s_A and, in t, s_B: lanes 1–3 of the 12 values'
		// t = j[8:12], or ρ_B n (lanes 0–2) in the 8-value layout.
		var F, s, t archsimd.Float64x4
		g := (*[3]float64)(x[3*k : 3*k+3])
		if compact { // s = ρ n (jacBlock's products)
			var n, rho archsimd.Float64x4
			F, n, rho = arms8(jac, k, g, pYZX)
			s, t = n.Mul(rho.Permute(pRA)), n.Mul(rho.Permute(pRB))
		} else {
			j := (*[12]float64)(jac[12*k : 12*k+12])
			F = force4(archsimd.LoadFloat64x4((*[4]float64)(j[0:4])), archsimd.LoadFloat64x4((*[4]float64)(j[3:7])), g, pYZX)
			s, t = archsimd.LoadFloat64x4((*[4]float64)(j[6:10])), archsimd.LoadFloat64x4((*[4]float64)(j[8:12]))
		}
		fa := minus.Mul(F)
		if ia := int(ca[k]) - lo; ia != cur {
			a := (*[8]float64)(acc[8*cur : 8*cur+8])
			af.Store((*[4]float64)(a[0:4]))
			at.Store((*[4]float64)(a[4:8]))
			cur = ia
			a = (*[8]float64)(acc[8*cur : 8*cur+8])
			af = archsimd.LoadFloat64x4((*[4]float64)(a[0:4]))
			at = archsimd.LoadFloat64x4((*[4]float64)(a[4:8]))
		}
		af = af.Add(fa)
		at = at.Add(s.Mul(fa.Permute(pYZX)).Sub(s.Permute(pYZX).Mul(fa)))
		if ib := int(cb[k]) - lo; ib < hi-lo {
			var sb, sbr archsimd.Float64x4
			if compact {
				sb, sbr = t, t.Permute(pYZX)
			} else {
				sb, sbr = t.Permute(pSB), t.Permute(pSBr)
			}
			a := (*[8]float64)(acc[8*ib : 8*ib+8])
			bf := archsimd.LoadFloat64x4((*[4]float64)(a[0:4]))
			bt := archsimd.LoadFloat64x4((*[4]float64)(a[4:8]))
			bf.Add(F).Store((*[4]float64)(a[0:4]))
			bt.Add(sb.Mul(F.Permute(pYZX)).Sub(sbr.Mul(F))).Store((*[4]float64)(a[4:8]))
		}
	}
	a = (*[8]float64)(acc[8*cur : 8*cur+8])
	af.Store((*[4]float64)(a[0:4]))
	at.Store((*[4]float64)(a[4:8]))
	archsimd.ClearAVXUpperBits()
}

// scale4 sets dv's six values of each body in [lo, hi) from its sums in
// acc: M⁻¹ (invMass and invInertia[3i] times them), the torques turned
// from (z, x, y); zeros for a fixed body and one without contacts, as
// bodyImpulses (bodyImpulses4).
func (b *Backend) scale4(dv, acc []float64, lo, hi int) {
	pYZX, pSix := archsimd.LoadUint64x4(&yzx), archsimd.LoadUint64x8(&six)
	var zero8 archsimd.Float64x8
	mask6 := archsimd.Mask64x8FromBits(0x3f)
	full := dv[:cap(dv)]
	for i := lo; i < hi; i++ {
		o := (*[8]float64)(full[6*i : 6*i+8])
		if b.fixed[i] || b.adjOff[i] == b.adjOff[i+1] {
			zero8.StoreMasked(o, mask6)
			continue
		}
		a := (*[8]float64)(acc[8*(i-lo) : 8*(i-lo)+8])
		f := archsimd.BroadcastFloat64x4(b.invMass[i]).Mul(archsimd.LoadFloat64x4((*[4]float64)(a[0:4])))
		t := archsimd.BroadcastFloat64x4(b.invInertia[3*i]).Mul(archsimd.LoadFloat64x4((*[4]float64)(a[4:8])).Permute(pYZX))
		zero8.SetLo(f).SetHi(t).Permute(pSix).StoreMasked(o, mask6)
	}
	archsimd.ClearAVXUpperBits()
}
