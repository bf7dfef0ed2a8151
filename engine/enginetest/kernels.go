package enginetest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gpusim/gpusim/engine"
)

// kernelScenes are the scenes of Kernels: two seeds of RandomModel, one
// with the recovery speed capped (it changes r), each with a few hundred
// contacts so that the dense N stays small (3n_c ≤ 2000).
var kernelScenes = []struct {
	name     string
	seed     uint64
	n        int
	capSpeed float64 // Settings.MaxRecoverySpeed
}{
	{"seed=1", 1, 60, 0},
	{"seed=2/capped", 2, 60, 0.05},
}

// Kernels checks the Problem's kernels on random scenes built by the
// backend itself, against a dense reference assembled from the model, the
// contacts and the state (assemble), and bit for bit against impl.Twin
// where it is set: Cones, R, Schur, BlockDiag, Project, AntiRelax, Sweep,
// and Sweeps where the problem carries sweeps (engine.CarriedSweeps).
// Every Problem method is also checked to give the same bits when called
// twice on the same input (backends are deterministic run to run).
func Kernels(t *testing.T, impl Impl) {
	for _, sc := range kernelScenes {
		t.Run(sc.name, func(t *testing.T) {
			b := newBackend(t, impl.New)
			set := engine.DefaultSettings()
			set.MaxRecoverySpeed = sc.capSpeed
			l := load(t, b, RandomModel(sc.seed, sc.n), set, 100)
			d := assemble(t, l)
			k := &kernelCase{l: l, p: l.p, d: d, tp: twinOf(t, impl, l), rng: rand.New(rand.NewPCG(sc.seed, 7))}
			mu0, coh := 0, 0
			for i := range d.mu {
				if d.mu[i] == 0 {
					mu0++
				}
				if d.coh[i] > 0 {
					coh++
				}
			}
			if mu0 == 0 || coh == 0 || coh == l.nc {
				t.Fatalf("%d frictionless and %d cohesive contacts of %d: the scene should have some of each and some without cohesion", mu0, coh, l.nc)
			}
			t.Logf("%d contacts (%d frictionless, %d cohesive), at most %d on one body", l.nc, mu0, coh, d.deg)
			t.Run("Cones", k.cones)
			t.Run("R", k.r)
			t.Run("Schur", k.schur)
			t.Run("BlockDiag", k.blockDiag)
			t.Run("Project", k.project)
			t.Run("AntiRelax", k.antiRelax)
			t.Run("Sweep", k.sweep)
			t.Run("Sweeps", k.sweeps)
		})
	}
}

type kernelCase struct {
	l   *loaded
	p   engine.Problem
	tp  engine.Problem // the twin's, or nil
	d   *dense
	rng *rand.Rand
}

// run applies f to the problem twice and to the twin (if any) on the
// host input in, and returns the output; it fails unless the two runs and
// the twin agree bit for bit.
func (k *kernelCase) run(t *testing.T, what string, in []float64, f func(p engine.Problem, x engine.Vec) engine.Vec) []float64 {
	t.Helper()
	out := ReadVec(k.p, f(k.p, VecOf(k.p, in)))
	if i := FirstDiff(out, ReadVec(k.p, f(k.p, VecOf(k.p, in)))); i >= 0 {
		t.Fatalf("%s: element %d differs between two calls on the same input", what, i)
	}
	if k.tp != nil {
		tw := ReadVec(k.tp, f(k.tp, VecOf(k.tp, in)))
		if i := FirstDiff(out, tw); i >= 0 {
			t.Fatalf("%s: element %d (contact %d) is %v, %v on the twin", what, i, i/3, out[i], tw[i])
		}
	}
	return out
}

func (k *kernelCase) randVec(scale float64) []float64 {
	v := make([]float64, 3*k.l.nc)
	for i := range v {
		v[i] = scale * k.rng.NormFloat64()
	}
	return v
}

// cones: μ_i is the contact's combined friction (ReadContacts) and c_i =
// h·ĉ_i, bit for bit: one multiplication, correctly rounded everywhere.
func (k *kernelCase) cones(t *testing.T) {
	mu, coh := make([]float64, k.l.nc), make([]float64, k.l.nc)
	k.p.Cones(mu, coh)
	if i := FirstDiff(mu, k.d.mu); i >= 0 {
		t.Errorf("μ of contact %d is %v, the contact's is %v", i, mu[i], k.d.mu[i])
	}
	if i := FirstDiff(coh, k.d.coh); i >= 0 {
		t.Errorf("cohesion impulse of contact %d is %v, h·ĉ = %v", i, coh[i], k.d.coh[i])
	}
	if k.tp != nil {
		tm, tc := make([]float64, k.l.nc), make([]float64, k.l.nc)
		k.tp.Cones(tm, tc)
		if FirstDiff(mu, tm) >= 0 || FirstDiff(coh, tc) >= 0 {
			t.Errorf("Cones differ from the twin's")
		}
	}
}

// r: R() against b + DᵀM⁻¹k of the reference. rRoundings bounds the
// roundings on a path into r_i: vfree (v + h(g + f/m), the gyroscopic
// term and the rotation of the torque: about 20), the rows of D (about
// 20, as in schurRoundings) and their 12-term sum with b: 64 covers them
// with room, relative to Σ|D||vfree| + |b| (rAbs).
func (k *kernelCase) r(t *testing.T) {
	const rRoundings = 64
	got := k.run(t, "R", nil, func(p engine.Problem, _ engine.Vec) engine.Vec { return p.R() })
	worst := 0.0
	for i, want := range k.d.r {
		bound := 2 * gammaK(rRoundings) * k.d.rAbs[i]
		if d := math.Abs(got[i] - want); d > bound {
			t.Fatalf("r[%d] (contact %d) = %v, reference %v: |Δ| = %g > %g", i, i/3, got[i], want, d, bound)
		} else if bound > 0 {
			worst = math.Max(worst, d/bound)
		}
	}
	t.Logf("largest |Δ| is %.2g of its bound", worst)
}

// schur: N·x against the dense reference, within 2γ_k|D|ᵀM⁻¹|D||x| (see
// schurRoundings), for x of unit scale and of 10⁻⁶ (impulses of a light
// contact); N is checked symmetric on the way (xᵀNy = yᵀNx up to the
// same bound summed over the elements).
func (k *kernelCase) schur(t *testing.T) {
	schur := func(p engine.Problem, x engine.Vec) engine.Vec {
		y := p.NewVec(x.Len())
		p.Schur(y, x)
		return y
	}
	kr := k.d.schurRoundings()
	worst := 0.0
	for _, scale := range []float64{1, 1e-6} {
		x := k.randVec(scale)
		got := k.run(t, fmt.Sprintf("Schur (scale %g)", scale), x, schur)
		want, abs := k.d.mul(x)
		for i := range want {
			bound := 2 * gammaK(kr) * abs[i]
			if d := math.Abs(got[i] - want[i]); d > bound {
				t.Fatalf("scale %g: (Nx)[%d] (contact %d) = %v, reference %v: |Δ| = %g > %g", scale, i, i/3, got[i], want[i], d, bound)
			} else if bound > 0 {
				worst = math.Max(worst, d/bound)
			}
		}
	}
	x, y := k.randVec(1), k.randVec(1)
	nx := k.run(t, "Schur", x, schur)
	ny := k.run(t, "Schur", y, schur)
	_, ax := k.d.mul(x)
	xny, ynx, bound := 0.0, 0.0, 0.0
	for i := range x {
		xny += x[i] * ny[i]
		ynx += y[i] * nx[i]
		bound += 4 * gammaK(kr+len(x)) * ax[i] * math.Abs(y[i])
	}
	if d := math.Abs(xny - ynx); d > bound {
		t.Errorf("xᵀNy = %v, yᵀNx = %v: N is not symmetric (|Δ| = %g > %g)", xny, ynx, d, bound)
	}
	t.Logf("largest |Δ| is %.2g of its bound (%d roundings)", worst, kr)
}

// blockDiag: the three rows of a contact hold the same g_i (bit for bit:
// one value written three times), g_i = tr(N_ii)/3 of the reference
// within 2γ_k tr(|N|_ii)/3.
func (k *kernelCase) blockDiag(t *testing.T) {
	got := k.run(t, "BlockDiag", nil, func(p engine.Problem, _ engine.Vec) engine.Vec {
		v := p.NewVec(3 * k.l.nc)
		p.BlockDiag(v)
		return v
	})
	kr := k.d.schurRoundings()
	for i := range k.l.nc {
		if !sameBits(got[3*i], got[3*i+1]) || !sameBits(got[3*i], got[3*i+2]) {
			t.Fatalf("contact %d: rows %v differ", i, got[3*i:3*i+3])
		}
		want, abs := 0.0, 0.0
		for d := range 3 {
			want += k.d.n[3*i+d][3*i+d] / 3
			abs += k.d.abs[3*i+d][3*i+d] / 3
		}
		if d := math.Abs(got[3*i] - want); d > 2*gammaK(kr)*abs {
			t.Fatalf("contact %d: g = %v, tr(N_ii)/3 = %v", i, got[3*i], want)
		}
		if !(got[3*i] > 0) {
			t.Fatalf("contact %d: g = %v, want positive", i, got[3*i])
		}
	}
}

// project: Π on random points of scales 10⁻³ to 10³ that fall in all four
// branches (each must occur), with the exact ones exact: a point inside
// its cone comes back bit for bit, one in the polar cone goes to the apex
// (−c_i, 0, 0) exactly, a frictionless contact's tangential part is 0
// exactly; elsewhere within projTol of the closed form. Every result lies
// in its cone, Π is idempotent (within projTol), and Project(x, x) in
// place gives the bits of Project(dst, x).
func (k *kernelCase) project(t *testing.T) {
	// projTol: the closed form takes ‖t‖ (1 rounding, or Hypot's 1 ulp),
	// n' = (μ‖t‖ + n)/(μ² + 1) (4), s = μn'/‖t‖ (2) and the products and
	// the shift by c (2): about 10 roundings, relative to |x_n| + c +
	// ‖x_t‖ (μ ≤ 1 here); 32 leaves room for another order of operations
	// in both results.
	const projRoundings = 32
	nc := k.l.nc
	x := make([]float64, 3*nc)
	var branch [4]int // μ = 0, inside, polar, onto the surface
	for i := range nc {
		for d := range 3 {
			x[3*i+d] = k.rng.NormFloat64() * math.Pow(10, 6*k.rng.Float64()-3)
		}
		tn := math.Hypot(x[3*i+1], x[3*i+2])
		n := x[3*i] + k.d.coh[i]
		switch mu := k.d.mu[i]; {
		case mu == 0:
			branch[0]++
		case tn <= mu*n:
			branch[1]++
		case mu*tn <= -n:
			branch[2]++
		default:
			branch[3]++
		}
	}
	for b, c := range branch {
		if c == 0 {
			t.Fatalf("branch %d of the projection never taken (%v): the test does not cover it", b, branch)
		}
	}
	proj := func(p engine.Problem, v engine.Vec) engine.Vec {
		y := p.NewVec(v.Len())
		p.Project(y, v)
		return y
	}
	got := k.run(t, "Project", x, proj)
	inPlace := k.run(t, "Project in place", x, func(p engine.Problem, v engine.Vec) engine.Vec {
		p.Project(v, v)
		return v
	})
	if i := FirstDiff(got, inPlace); i >= 0 {
		t.Fatalf("Project in place: element %d is %v, %v out of place", i, inPlace[i], got[i])
	}
	again := k.run(t, "Project twice", got, proj)
	for i := range nc {
		mu, c := k.d.mu[i], k.d.coh[i]
		xn, xu, xw := x[3*i], x[3*i+1], x[3*i+2]
		gn, gu, gw := got[3*i], got[3*i+1], got[3*i+2]
		n, tn := xn+c, math.Hypot(xu, xw)
		tol := gammaK(projRoundings) * (math.Abs(xn) + c + tn)
		wn, wu, ww := project(xn, xu, xw, mu, c)
		switch {
		case mu == 0:
			if gu != 0 || gw != 0 || math.Abs(gn-wn) > tol {
				t.Fatalf("contact %d, μ = 0: Π(%v, %v, %v) = (%v, %v, %v), want (%v, 0, 0)", i, xn, xu, xw, gn, gu, gw, wn)
			}
		case tn <= mu*n:
			if !sameBits(gn, xn) || !sameBits(gu, xu) || !sameBits(gw, xw) {
				t.Fatalf("contact %d: (%v, %v, %v) is inside its cone, Π gave (%v, %v, %v)", i, xn, xu, xw, gn, gu, gw)
			}
		case mu*tn <= -n:
			if !sameBits(gn, -c) || gu != 0 || gw != 0 {
				t.Fatalf("contact %d: (%v, %v, %v) is in the polar cone, Π gave (%v, %v, %v), want (%v, 0, 0)", i, xn, xu, xw, gn, gu, gw, -c)
			}
		default:
			if math.Abs(gn-wn) > tol || math.Abs(gu-wu) > tol || math.Abs(gw-ww) > tol {
				t.Fatalf("contact %d: Π(%v, %v, %v) = (%v, %v, %v), closed form (%v, %v, %v)", i, xn, xu, xw, gn, gu, gw, wn, wu, ww)
			}
		}
		if gn+c < -tol || math.Hypot(gu, gw) > mu*(gn+c)+tol {
			t.Fatalf("contact %d: Π gave (%v, %v, %v), outside the cone μ = %v, c = %v", i, gn, gu, gw, mu, c)
		}
		for d := range 3 {
			if math.Abs(again[3*i+d]-got[3*i+d]) > tol {
				t.Fatalf("contact %d: Π(Π(x)) = %v, Π(x) = %v", i, again[3*i:3*i+3], got[3*i:3*i+3])
			}
		}
	}
	t.Logf("branches (μ = 0, inside, polar, surface): %v", branch)
}

// antiRelax: dst = r with μ_i‖(u_u, u_w)‖ added to each normal row; the
// tangential rows are r's bit for bit (copied), the normal ones within
// 2γ₄(|r_n| + μ‖u_t‖) of the sum (a norm: 2 roundings and Hypot's ulp;
// the product and the sum: 2). u has one contact with u_t = 0.
func (k *kernelCase) antiRelax(t *testing.T) {
	u := k.randVec(1)
	u[1], u[2] = 0, 0
	got := k.run(t, "AntiRelax", u, func(p engine.Problem, v engine.Vec) engine.Vec {
		y := p.NewVec(v.Len())
		p.AntiRelax(y, v)
		return y
	})
	r := ReadVec(k.p, k.p.R())
	for i := range k.l.nc {
		if !sameBits(got[3*i+1], r[3*i+1]) || !sameBits(got[3*i+2], r[3*i+2]) {
			t.Fatalf("contact %d: tangential rows %v, r has %v", i, got[3*i+1:3*i+3], r[3*i+1:3*i+3])
		}
		a := k.d.mu[i] * math.Hypot(u[3*i+1], u[3*i+2])
		if d := math.Abs(got[3*i] - (r[3*i] + a)); d > 2*gammaK(4)*(math.Abs(r[3*i])+a) {
			t.Fatalf("contact %d: normal row %v, r_n + μ‖u_t‖ = %v", i, got[3*i], r[3*i]+a)
		}
	}
}

// sweepOrder returns the order of p's Sweep (engine.SweepOrder), checked
// to be a permutation of the nc contacts, or 0…nc−1.
func sweepOrder(p engine.Problem, nc int) []int {
	order := make([]int, nc)
	so, ok := p.(engine.SweepOrder)
	if !ok {
		for i := range order {
			order[i] = i
		}
		return order
	}
	perm := so.SweepOrder()
	if len(perm) != nc {
		panic(fmt.Sprintf("enginetest: SweepOrder has %d contacts, want %d", len(perm), nc))
	}
	seen := make([]bool, nc)
	for i, k := range perm {
		if k < 0 || int(k) >= nc || seen[k] {
			panic(fmt.Sprintf("enginetest: SweepOrder is no permutation: %d at %d", k, i))
		}
		seen[k] = true
		order[i] = int(k)
	}
	return order
}

// sweep: three projected Gauss–Seidel sweeps (ω = 0.3; λ = 1, then 0.7)
// from a random γ, each from the backend's previous result, against the
// same sweep on the dense reference, in the backend's order (SweepOrder),
// with the backend's block diagonal (refSweep has the bounds).
func (k *kernelCase) sweep(t *testing.T) {
	diag := k.diag(t)
	const omega = 0.3
	in := k.randVec(1e-3)
	for s, lambda := range []float64{1, 0.7, 0.7} {
		got := k.run(t, fmt.Sprintf("Sweep %d", s+1), in, func(p engine.Problem, v engine.Vec) engine.Vec {
			p.Sweep(v, VecOf(p, diag), omega, lambda)
			return v
		})
		want := append([]float64(nil), in...)
		errs := make([]float64, 3*k.l.nc) // the bound on |γ − γ_ref| so far
		k.refSweep(want, errs, nil, 0, diag, omega, lambda)
		k.within(t, fmt.Sprintf("sweep %d", s+1), got, want, errs)
		in = got
	}
}

// sweeps: engine.CarriedSweeps, where the backend has it: Sweeps of one
// sweep is Sweep bit for bit, and Sweeps of s = 2 and 3 sweeps (ω = 0.3,
// λ = 0.7) from a random γ against the dense reference's sweep from the
// backend's Sweeps of s − 1 (whose sweeps are the first s − 1 of these),
// with the carried velocities' roundings added to the bound (refSweep).
func (k *kernelCase) sweeps(t *testing.T) {
	if _, ok := k.p.(engine.CarriedSweeps); !ok {
		t.Skip("the problem has no CarriedSweeps")
	}
	diag := k.diag(t)
	const omega, lambda = 0.3, 0.7
	in := k.randVec(1e-3)
	carried := func(n int) func(p engine.Problem, v engine.Vec) engine.Vec {
		return func(p engine.Problem, v engine.Vec) engine.Vec {
			p.(engine.CarriedSweeps).Sweeps(v, VecOf(p, diag), omega, lambda, n)
			return v
		}
	}
	prev := k.run(t, "Sweeps(1)", in, carried(1))
	sweep := k.run(t, "Sweep", in, func(p engine.Problem, v engine.Vec) engine.Vec {
		p.Sweep(v, VecOf(p, diag), omega, lambda)
		return v
	})
	if i := FirstDiff(prev, sweep); i >= 0 {
		t.Fatalf("Sweeps of one sweep: element %d is %v, Sweep's %v", i, prev[i], sweep[i])
	}
	// What the velocities were formed from (|γ₀|) and the sizes of the
	// updates added to them since (|Δγ| of each sweep).
	built := make([]float64, len(in))
	for i := range in {
		built[i] = math.Abs(in[i]) + math.Abs(prev[i]-in[i])
	}
	for s := 2; s <= 3; s++ {
		got := k.run(t, fmt.Sprintf("Sweeps(%d)", s), in, carried(s))
		want := append([]float64(nil), prev...)
		errs := make([]float64, len(in))
		k.refSweep(want, errs, append([]float64(nil), built...), s, diag, omega, lambda)
		k.within(t, fmt.Sprintf("sweep %d of Sweeps(%d)", s, s), got, want, errs)
		for i := range built {
			built[i] += math.Abs(got[i] - prev[i])
		}
		prev = got
	}
}

// diag returns the backend's block diagonal (BlockDiag).
func (k *kernelCase) diag(t *testing.T) []float64 {
	return k.run(t, "BlockDiag", nil, func(p engine.Problem, _ engine.Vec) engine.Vec {
		v := p.NewVec(3 * k.l.nc)
		p.BlockDiag(v)
		return v
	})
}

// refSweep runs one sweep of the dense reference on want in the backend's
// order, and carries errs, the bound on |γ − γ_ref|: an update of contact
// i rounds within 2γ_k of (|N||γ| + |r|)_i (k as for Schur) times ω/g_i,
// plus 32 roundings of |γ_i|, the step and c_i (the projection and the
// λ-mix); an error e_j of an earlier contact reaches it through
// ω/g_i Σ_j |N_ij| e_j, and the projection and the λ-mix do not amplify
// it (Π is nonexpansive and λ ≤ 1). With moved (carried velocities,
// sweep the sweep's number from 1; moved the |γ₀| the velocities were
// formed from plus the |Δγ| of every update added to them since), the
// velocities are off from M⁻¹D γ formed anew by the roundings of their
// sums: at most 3 deg terms when formed (within k) and deg more per body
// and sweep, each within γ_k of |M⁻¹D_j||γ_j| or |M⁻¹D_j||Δγ_j|; so u_i
// is off by at most γ_{k + 4 deg·sweep} of (|D|ᵀM⁻¹|D| moved)_i, counted
// twice for room (the reference's own |Δγ| stand in for the backend's
// within this sweep); moved accumulates this sweep's |Δγ|.
func (k *kernelCase) refSweep(want, errs, moved []float64, sweep int, diag []float64, omega, lambda float64) {
	kr := k.d.schurRoundings()
	carried := 0.0
	if moved != nil {
		carried = 2 * gammaK(kr+4*k.d.deg*sweep)
	}
	for _, i := range sweepOrder(k.p, k.l.nc) {
		var u, ua [3]float64
		prop, drift := 0.0, 0.0
		for d := range 3 {
			row, arow := k.d.n[3*i+d], k.d.abs[3*i+d]
			u[d], ua[d] = k.d.r[3*i+d], k.d.rAbs[3*i+d]
			for j, v := range row {
				u[d] += v * want[j]
				ua[d] += arow[j] * math.Abs(want[j])
				prop += math.Abs(v) * errs[j]
				if moved != nil {
					drift += arow[j] * moved[j]
				}
			}
		}
		s := omega / diag[3*i]
		pn, pu, pw := project(want[3*i]-s*u[0], want[3*i+1]-s*u[1], want[3*i+2]-s*u[2], k.d.mu[i], k.d.coh[i])
		p := [3]float64{pn, pu, pw}
		local := 0.0
		for d := range 3 {
			local = math.Max(local, 2*gammaK(kr)*s*(ua[0]+ua[1]+ua[2])+gammaK(32)*(math.Abs(want[3*i+d])+s*math.Abs(u[d])+k.d.coh[i]))
		}
		local += carried * s * drift
		for d := range 3 {
			next := lambda*p[d] + (1-lambda)*want[3*i+d]
			if moved != nil {
				moved[3*i+d] += math.Abs(next - want[3*i+d])
			}
			want[3*i+d] = next
			errs[3*i+d] = local + s*prop
		}
	}
}

// within fails unless every |got − want| is within errs, and logs the
// largest fraction of its bound.
func (k *kernelCase) within(t *testing.T, what string, got, want, errs []float64) {
	t.Helper()
	worst := 0.0
	for i := range want {
		if d := math.Abs(got[i] - want[i]); d > errs[i] {
			t.Fatalf("%s: γ[%d] (contact %d) = %v, reference %v: |Δ| = %g > %g", what, i, i/3, got[i], want[i], d, errs[i])
		} else if errs[i] > 0 {
			worst = math.Max(worst, d/errs[i])
		}
	}
	t.Logf("%s: largest |Δ| is %.2g of its bound", what, worst)
}
