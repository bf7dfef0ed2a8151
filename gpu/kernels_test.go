//go:build linux && cgo && (amd64 || arm64)

package gpu

import (
	"github.com/gpusim/gpusim/internal/testfile"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/cpuref"
	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/engine/enginetest"
)

// The backend's kernels against their cpuref twins, through the two
// backends' public surfaces, on seeded random scenes. Every kernel but the
// reductions runs cpuref's operations in cpuref's order with `precise`
// (shaders.TestPrecise checks the decoration), and Go does not fuse
// multiply-adds on amd64 below GOAMD64=v3 (elsewhere these tests skip), so
// the comparisons are bit for bit unless a test says otherwise. A device whose float64 division or square root is
// not correctly rounded would fail them: Vulkan only requires those to be
// as accurate as float32 ones, so bit-identity is a property of the
// device (llvmpipe has it), which these tests check.

// randomModel is enginetest.RandomModelSpinners with 40 spinners: the
// suite's seeded random cube of n bodies and, far above it, isolated
// spinners up to 2000 rad/s, so that |ω̄|h/2 covers every octant of sincos.
func randomModel(seed uint64, n int) *engine.Model {
	return enginetest.RandomModelSpinners(seed, n, 40)
}

// twin is the same scene loaded into both backends, collided.
type twin struct {
	cpu *cpuref.Backend
	gpu *Backend
	set engine.Settings
	nc  int
}

// newTestBackend makes a backend on the shared test device, released at
// cleanup.
func newTestBackend(t testing.TB) *Backend {
	t.Helper()
	return newTestBackendOn(t, requireDevice(t))
}

// newTestBackendOn makes a backend on d, released at cleanup.
func newTestBackendOn(t testing.TB, d *Device) *Backend {
	t.Helper()
	b, err := newBackendOn(d)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := b.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return b
}

// newTwin loads m into both backends and runs Collide on both.
func newTwin(t *testing.T, m *engine.Model, set engine.Settings) *twin {
	t.Helper()
	return newTwinOn(t, newTestBackend(t), m, set)
}

// newTwinOn is newTwin with the GPU backend gb.
func newTwinOn(t *testing.T, gb *Backend, m *engine.Model, set engine.Settings) *twin {
	t.Helper()
	tw := &twin{cpu: cpuref.New(0), gpu: gb, set: set}
	for _, b := range []engine.Backend{tw.cpu, tw.gpu} {
		if err := b.Load(m, &set); err != nil {
			t.Fatal(err)
		}
	}
	tw.collide(t)
	return tw
}

// sameContacts fails the test unless the GPU's contacts g are the CPU's
// c bit for bit, in the same order.
func sameContacts(t *testing.T, c, g *engine.Contacts) {
	t.Helper()
	if c.Len() != g.Len() {
		t.Fatalf("%d contacts on the CPU, %d on the GPU", c.Len(), g.Len())
	}
	for k := range c.A {
		if c.A[k] != g.A[k] || c.B[k] != g.B[k] {
			t.Fatalf("contact %d: bodies (%d, %d) on the CPU, (%d, %d) on the GPU", k, c.A[k], c.B[k], g.A[k], g.B[k])
		}
	}
	for _, f := range []struct {
		name string
		c, g []float64
	}{{"normal", c.Normal, g.Normal}, {"pa", c.PA, g.PA}, {"pb", c.PB, g.PB}, {"phi", c.Phi, g.Phi}, {"mu", c.Mu, g.Mu}, {"cohesion", c.Cohesion, g.Cohesion}} {
		if i := enginetest.FirstDiff(f.c, f.g); i >= 0 {
			t.Fatalf("%s differs at %d", f.name, i)
		}
	}
}

// integrate runs Integrate on both backends with step h and impulses cg
// (on the CPU) and gg (on the GPU).
func (tw *twin) integrate(t *testing.T, cg, gg engine.Vec, h float64) {
	t.Helper()
	if err := tw.cpu.Integrate(cg, h); err != nil {
		t.Fatal(err)
	}
	if err := tw.gpu.Integrate(gg, h); err != nil {
		t.Fatal(err)
	}
}

// normVec returns n draws of scale·N(0, 1) from a PCG seeded (seed, 1).
func normVec(seed uint64, n int, scale float64) []float64 {
	r := rand.New(rand.NewPCG(seed, 1))
	v := make([]float64, n)
	for i := range v {
		v[i] = scale * r.NormFloat64()
	}
	return v
}

func (tw *twin) collide(t *testing.T) {
	t.Helper()
	nc, err := tw.cpu.Collide()
	if err != nil {
		t.Fatal(err)
	}
	ng, err := tw.gpu.Collide()
	if err != nil {
		t.Fatal(err)
	}
	if nc != ng {
		t.Fatalf("Collide: %d contacts on the CPU, %d on the GPU", nc, ng)
	}
	tw.nc = nc
}

// build runs Build on both.
func (tw *twin) build(t *testing.T, h float64) (cp, gp engine.Problem) {
	t.Helper()
	cp, err := tw.cpu.Build(h)
	if err != nil {
		t.Fatal(err)
	}
	gp, err = tw.gpu.Build(h)
	if err != nil {
		t.Fatal(err)
	}
	return cp, gp
}

// randomTwin is the twin of randomModel(seed, n) after Build.
func randomTwin(t *testing.T, seed uint64, n int, maxRecovery float64) (*twin, engine.Problem, engine.Problem) {
	t.Helper()
	set := engine.DefaultSettings()
	set.MaxRecoverySpeed = maxRecovery
	tw := newTwin(t, randomModel(seed, n), set)
	if tw.nc < 100 {
		t.Fatalf("only %d contacts: the random scene should be dense", tw.nc)
	}
	cp, gp := tw.build(t, set.Dt)
	return tw, cp, gp
}

// kernelScene is the size of the random scenes: about 15000 contacts, 4000
// of them with fixed bodies, more than two chunks of the reductions (2048).
const kernelScene = 1000

// requireUnfusedGo skips a bit-for-bit comparison with cpuref where the Go
// compiler may fuse multiply-adds (see testfile.GoFusesMultiplyAdd).
func requireUnfusedGo(t *testing.T) {
	t.Helper()
	if testfile.GoFusesMultiplyAdd {
		t.Skip("bit-identity with cpuref needs Go code without fused multiply-adds: GOARCH=amd64 below GOAMD64=v3")
	}
}

// sameValues reports the first index where a and b differ as numbers
// (+0 == −0; NaN equals NaN), or -1.
func sameValues(a, b []float64) int {
	if len(a) != len(b) {
		return 0
	}
	for i := range a {
		if a[i] != b[i] && !(math.IsNaN(a[i]) && math.IsNaN(b[i])) {
			return i
		}
	}
	return -1
}

// pair writes host values into a vector of each problem.
func pair(cp, gp engine.Problem, v []float64) (engine.Vec, engine.Vec) {
	return enginetest.VecOf(cp, v), enginetest.VecOf(gp, v)
}

// checkSame fails the test unless the two vectors are equal bit for bit.
func checkSame(t *testing.T, what string, cp, gp engine.Problem, cv, gv engine.Vec) {
	t.Helper()
	c, g := enginetest.ReadVec(cp, cv), enginetest.ReadVec(gp, gv)
	if i := enginetest.FirstDiff(c, g); i >= 0 {
		if len(c) != len(g) {
			t.Fatalf("%s: lengths %d (CPU) and %d (GPU)", what, len(c), len(g))
		}
		t.Fatalf("%s: element %d (contact %d) is %v on the CPU, %v on the GPU", what, i, i/3, c[i], g[i])
	}
}

// TestCollideMatchesCPU: the host-side collision of the GPU backend finds
// cpuref's contacts bit for bit (the same code in the same order), and
// the uploaded adjacency lists each movable body's contacts in order.
func TestCollideMatchesCPU(t *testing.T) {
	tw := newTwin(t, randomModel(1, kernelScene), engine.DefaultSettings())
	var c, g engine.Contacts
	if err := tw.cpu.ReadContacts(&c); err != nil {
		t.Fatal(err)
	}
	if err := tw.gpu.ReadContacts(&g); err != nil {
		t.Fatal(err)
	}
	sameContacts(t, &c, &g)
	h := &tw.gpu.host
	off := make([]uint32, h.n+1)
	if err := tw.gpu.adjOff.ReadUint32(off, 0); err != nil {
		t.Fatal(err)
	}
	adj := make([]uint32, off[h.n])
	if err := tw.gpu.adj.ReadUint32(adj, 0); err != nil {
		t.Fatal(err)
	}
	seen := make([]int, tw.nc)
	for i := 0; i < h.n; i++ {
		for j := off[i]; j < off[i+1]; j++ {
			e := adj[j]
			k := int(e >> 1)
			body := c.A[k]
			if e&1 == 1 {
				body = c.B[k]
			}
			if int(body) != i || h.fixed[i] || (j > off[i] && adj[j-1]>>1 >= e>>1) {
				t.Fatalf("adjacency of body %d: entry %d (contact %d, side %d) is wrong or out of order", i, j, k, e&1)
			}
			seen[k]++
		}
	}
	for k, s := range seen {
		want := 0
		for _, b := range []int32{c.A[k], c.B[k]} {
			if !h.fixed[b] {
				want++
			}
		}
		if s != want {
			t.Fatalf("contact %d appears %d times in the adjacency, want %d", k, s, want)
		}
	}
	t.Logf("%d contacts, %d adjacency entries", tw.nc, len(adj))
}

// TestKernelFreeVelocity: free_velocity's vfree equals cpuref's, read
// there as the velocities that Integrate gives with zero impulses (v =
// vfree + 0; compared as numbers since x + 0 turns −0 into +0).
func TestKernelFreeVelocity(t *testing.T) {
	requireUnfusedGo(t)
	tw, cp, _ := randomTwin(t, 2, kernelScene, 0)
	if err := tw.gpu.sync(); err != nil {
		t.Fatal(err)
	}
	n := tw.gpu.n
	vf := make([]float64, 6*n)
	if err := tw.gpu.vfree.ReadFloat64(vf, 0); err != nil {
		t.Fatal(err)
	}
	if err := tw.cpu.Integrate(cp.NewVec(3*tw.nc), tw.set.Dt); err != nil {
		t.Fatal(err)
	}
	var s engine.State
	if err := tw.cpu.ReadState(&s); err != nil {
		t.Fatal(err)
	}
	lin, ang := make([]float64, 3*n), make([]float64, 3*n)
	for i := 0; i < n; i++ {
		copy(lin[3*i:], vf[6*i:6*i+3])
		copy(ang[3*i:], vf[6*i+3:6*i+6])
	}
	if i := sameValues(s.Vel, lin); i >= 0 {
		t.Fatalf("linear vfree of body %d: %v on the GPU, %v on the CPU", i/3, lin[i], s.Vel[i])
	}
	if i := sameValues(s.Omega, ang); i >= 0 {
		t.Fatalf("angular vfree of body %d: %v on the GPU, %v on the CPU", i/3, ang[i], s.Omega[i])
	}
}

// TestLoadBuffersByNeed: a model without external loads holds one body's
// zeros in force and torque (fstride 0), one with a load every body's
// (TestKernelFreeVelocity checks the values of the second kind, the
// parity tests of settle those of the first).
func TestLoadBuffersByNeed(t *testing.T) {
	still := sphereModel(3, 200)
	for i := range still.Bodies {
		still.Bodies[i].Force, still.Bodies[i].Torque = mgl64.Vec3{}, mgl64.Vec3{}
	}
	for _, c := range []struct {
		m     *engine.Model
		loads bool
	}{{still, false}, {sphereModel(3, 200), true}, {randomModel(4, 200), true}} {
		gb := newTestBackend(t)
		set := engine.DefaultSettings()
		if err := gb.Load(c.m, &set); err != nil {
			t.Fatal(err)
		}
		want, stride := int64(24), uint32(0)
		if c.loads {
			want, stride = 24*int64(len(c.m.Bodies)), 3
		}
		if gb.force.Size() != want || gb.torque.Size() != want || gb.fstride != stride {
			t.Errorf("loads %v: force %d B, torque %d B, stride %d; want %d B and %d", c.loads, gb.force.Size(), gb.torque.Size(), gb.fstride, want, stride)
		}
	}
}

// sameCones fails the test unless the GPU problem's μ and cohesion
// impulses of its nc contacts are the CPU's bit for bit, and returns the
// CPU's.
func sameCones(t *testing.T, nc int, cp, gp engine.Problem) (mu, coh []float64) {
	t.Helper()
	mc, cc := make([]float64, nc), make([]float64, nc)
	mg, cg := make([]float64, nc), make([]float64, nc)
	cp.Cones(mc, cc)
	gp.Cones(mg, cg)
	if i := enginetest.FirstDiff(mc, mg); i >= 0 {
		t.Fatalf("μ of contact %d: %v on the CPU, %v on the GPU", i, mc[i], mg[i])
	}
	if i := enginetest.FirstDiff(cc, cg); i >= 0 {
		t.Fatalf("cohesion impulse of contact %d: %v on the CPU, %v on the GPU", i, cc[i], cg[i])
	}
	return mc, cc
}

// TestKernelJacobian: jacobian's r = Dᵀvfree + b and cohesion impulses
// equal cpuref's Build bit for bit, with and without the recovery-speed
// cap, and its contact frames are cpuref.TangentBasis's and its contact
// points those of the contacts turned into the world frame.
func TestKernelJacobian(t *testing.T) {
	requireUnfusedGo(t)
	for _, capSpeed := range []float64{0, 0.05} {
		tw, cp, gp := randomTwin(t, 3, kernelScene, capSpeed)
		checkSame(t, "r", cp, gp, cp.R(), gp.R())
		sameCones(t, tw.nc, cp, gp)
		jac := make([]float64, 12*tw.nc)
		if err := tw.gpu.sync(); err != nil {
			t.Fatal(err)
		}
		if err := tw.gpu.jac.ReadFloat64(jac, 0); err != nil {
			t.Fatal(err)
		}
		var st engine.State
		if err := tw.gpu.ReadState(&st); err != nil {
			t.Fatal(err)
		}
		quat := func(i int32) mgl64.Quat {
			return mgl64.Quat{W: st.Rot[4*i], V: mgl64.Vec3{st.Rot[4*i+1], st.Rot[4*i+2], st.Rot[4*i+3]}}
		}
		con := &engine.Contacts{}
		if err := tw.gpu.ReadContacts(con); err != nil {
			t.Fatal(err)
		}
		for k := 0; k < tw.nc; k++ {
			n := mgl64.Vec3{con.Normal[3*k], con.Normal[3*k+1], con.Normal[3*k+2]}
			u, _ := cpuref.TangentBasis(n)
			sa := quat(con.A[k]).Rotate(mgl64.Vec3{con.PA[3*k], con.PA[3*k+1], con.PA[3*k+2]})
			sb := quat(con.B[k]).Rotate(mgl64.Vec3{con.PB[3*k], con.PB[3*k+1], con.PB[3*k+2]})
			want := []float64{n[0], n[1], n[2], u[0], u[1], u[2], sa[0], sa[1], sa[2], sb[0], sb[1], sb[2]}
			if i := enginetest.FirstDiff(want, jac[12*k:12*k+12]); i >= 0 {
				t.Fatalf("contact %d: jac %v, want n, cpuref.TangentBasis's u and the world contact points %v", k, jac[12*k:12*k+12], want)
			}
		}
		if gp.Contacts() != tw.nc || cp.Contacts() != tw.nc {
			t.Fatalf("Contacts() = %d (GPU), %d (CPU), want %d", gp.Contacts(), cp.Contacts(), tw.nc)
		}
	}
}

// TestKernelSchur: body_impulse and contact_velocity give cpuref's Schur
// product bit for bit, also in place.
func TestKernelSchur(t *testing.T) {
	requireUnfusedGo(t)
	tw, cp, gp := randomTwin(t, 4, kernelScene, 0)
	r := rand.New(rand.NewPCG(4, 1))
	checkUnary(t, "Schur", "Schur in place", cp, gp, randVec(r, 3*tw.nc), engine.Problem.Schur)
}

// checkUnary checks that op gives the same vector bit for bit on both
// backends from the same input xs, first into a fresh vector (named what),
// then in place, dst = x (named inPlace).
func checkUnary(t *testing.T, what, inPlace string, cp, gp engine.Problem, xs []float64, op func(p engine.Problem, dst, x engine.Vec)) {
	t.Helper()
	cx, gx := pair(cp, gp, xs)
	cd, gd := cp.NewVec(len(xs)), gp.NewVec(len(xs))
	op(cp, cd, cx)
	op(gp, gd, gx)
	checkSame(t, what, cp, gp, cd, gd)
	op(cp, cx, cx)
	op(gp, gx, gx)
	checkSame(t, inPlace, cp, gp, cx, gx)
}

// TestKernelProject: project gives cpuref.ProjectCone's result bit for bit
// in each of its four branches (each must occur), also in place.
func TestKernelProject(t *testing.T) {
	requireUnfusedGo(t)
	tw, cp, gp := randomTwin(t, 5, kernelScene, 0)
	r := rand.New(rand.NewPCG(5, 1))
	n := 3 * tw.nc
	xs := make([]float64, n)
	mu, coh := make([]float64, tw.nc), make([]float64, tw.nc)
	cp.Cones(mu, coh)
	var branch [4]int // μ = 0, inside, polar, onto the surface
	for k := 0; k < tw.nc; k++ {
		// Normal and tangential parts of random signs and scales 10⁻³–10³:
		// all four branches occur.
		for d := 0; d < 3; d++ {
			xs[3*k+d] = r.NormFloat64() * math.Pow(10, 6*r.Float64()-3)
		}
		t := math.Sqrt(xs[3*k+1]*xs[3*k+1] + xs[3*k+2]*xs[3*k+2])
		nn := xs[3*k] + coh[k]
		switch {
		case mu[k] == 0:
			branch[0]++
		case t <= mu[k]*nn:
			branch[1]++
		case mu[k]*t <= -nn:
			branch[2]++
		default:
			branch[3]++
		}
	}
	for i, c := range branch {
		if c == 0 {
			t.Fatalf("branch %d of ProjectCone never taken (%v): the test does not cover it", i, branch)
		}
	}
	checkUnary(t, "Project", "Project in place", cp, gp, xs, engine.Problem.Project)
	t.Logf("branches (μ=0, inside, polar, surface): %v", branch)
}

// TestKernelAntiRelax: anti_relax equals cpuref's AntiRelax bit for bit,
// including when dst is u (cpuref then reads r's tangential rows).
func TestKernelAntiRelax(t *testing.T) {
	requireUnfusedGo(t)
	tw, cp, gp := randomTwin(t, 6, kernelScene, 0)
	r := rand.New(rand.NewPCG(6, 1))
	us := randVec(r, 3*tw.nc)
	us[1], us[2] = 0, 0 // Hypot(0, 0)
	checkUnary(t, "AntiRelax", "AntiRelax with dst = u", cp, gp, us, engine.Problem.AntiRelax)
}

// TestKernelBlockDiag: block_diag equals cpuref's BlockDiag bit for bit.
func TestKernelBlockDiag(t *testing.T) {
	requireUnfusedGo(t)
	tw, cp, gp := randomTwin(t, 7, kernelScene, 0)
	cd, gd := cp.NewVec(3*tw.nc), gp.NewVec(3*tw.nc)
	cp.BlockDiag(cd)
	gp.BlockDiag(gd)
	checkSame(t, "BlockDiag", cp, gp, cd, gd)
}

// TestKernelSweep: body_impulse then sweep's single invocation equal
// cpuref's Sweep bit for bit over three sweeps (ω = 0.3; λ = 1, then 0.7).
func TestKernelSweep(t *testing.T) {
	requireUnfusedGo(t)
	tw, cp, gp := randomTwin(t, 8, kernelScene, 0)
	r := rand.New(rand.NewPCG(8, 1))
	cg, gg := pair(cp, gp, randVec(r, 3*tw.nc))
	cd, gd := cp.NewVec(3*tw.nc), gp.NewVec(3*tw.nc)
	cp.BlockDiag(cd)
	gp.BlockDiag(gd)
	for i, lambda := range []float64{1, 0.7, 0.7} {
		cp.Sweep(cg, cd, 0.3, lambda)
		gp.Sweep(gg, gd, 0.3, lambda)
		checkSame(t, "Sweep "+string(rune('1'+i)), cp, gp, cg, gg)
	}
}

// TestKernelIntegrate: body_impulse and integrate give cpuref's state bit
// for bit after a step with random impulses (positions, orientations
// through the sincos port and mgl64's Normalize, velocities).
func TestKernelIntegrate(t *testing.T) {
	requireUnfusedGo(t)
	tw, cp, gp := randomTwin(t, 9, kernelScene, 0)
	// 0.01 N·s: velocity changes of O(0.1–1) m/s.
	cg, gg := pair(cp, gp, normVec(9, 3*tw.nc, 0.01))
	for _, h := range []float64{tw.set.Dt, 0.0037} {
		tw.integrate(t, cg, gg, h)
		var cst, gst engine.State
		if err := tw.cpu.ReadState(&cst); err != nil {
			t.Fatal(err)
		}
		if err := tw.gpu.ReadState(&gst); err != nil {
			t.Fatal(err)
		}
		for _, f := range []struct {
			name string
			c, g []float64
			per  int
		}{{"pos", cst.Pos, gst.Pos, 3}, {"rot", cst.Rot, gst.Rot, 4}, {"vel", cst.Vel, gst.Vel, 3}, {"omega", cst.Omega, gst.Omega, 3}} {
			if i := enginetest.FirstDiff(f.c, f.g); i >= 0 {
				t.Fatalf("h = %v: %s of body %d: %v on the CPU, %v on the GPU", h, f.name, i/f.per, f.c[i], f.g[i])
			}
		}
	}
}

// fixedForceModel is fixed_force.comp and sum.comp in Go, in the kernels'
// order (kernelSum's, as for dot.comp), a sum per component.
func fixedForceModel(terms [][3]float64) [3]float64 {
	var out [3]float64
	for j := range 3 {
		out[j] = kernelSum(len(terms), func(k int) float64 { return terms[k][j] })
	}
	return out
}

// TestKernelFixedForce: FixedForce sums the same per-contact terms as
// cpuref in another fixed order. It equals the Go model of the kernels'
// order bit for bit, and cpuref's sum within 2γ_m Σ|F_k| per component
// (m terms; each sum is within γ_m Σ|F_k| of the exact one, Higham eq.
// 3.5).
func TestKernelFixedForce(t *testing.T) {
	requireUnfusedGo(t)
	tw, cp, gp := randomTwin(t, 10, kernelScene, 0)
	gs := normVec(10, 3*tw.nc, 1)
	cg, gg := pair(cp, gp, gs)
	h := tw.set.Dt
	want, err := tw.cpu.FixedForce(cg, h)
	if err != nil {
		t.Fatal(err)
	}
	got, err := tw.gpu.FixedForce(gg, h)
	if err != nil {
		t.Fatal(err)
	}
	con := &engine.Contacts{}
	if err := tw.gpu.ReadContacts(con); err != nil {
		t.Fatal(err)
	}
	fixed := tw.gpu.host.fixed
	terms := make([][3]float64, tw.nc)
	var abs [3]float64
	m := 0
	for k := range terms {
		fa, fb := fixed[con.A[k]], fixed[con.B[k]]
		if !fa && !fb {
			continue
		}
		m++
		n := mgl64.Vec3{con.Normal[3*k], con.Normal[3*k+1], con.Normal[3*k+2]}
		u, w := cpuref.TangentBasis(n)
		for j := range 3 {
			f := (gs[3*k]*n[j] + gs[3*k+1]*u[j] + gs[3*k+2]*w[j]) / h
			if fa {
				terms[k][j] -= f
			}
			if fb {
				terms[k][j] += f
			}
			abs[j] += math.Abs(f)
		}
	}
	if m < 2*dotChunk {
		t.Fatalf("only %d contacts with fixed bodies: the test wants several chunks", m)
	}
	if model := fixedForceModel(terms); model != [3]float64(got) {
		t.Errorf("FixedForce = %v, the Go model of the kernels' order gives %v", got, model)
	}
	for j := range 3 {
		if d := math.Abs(got[j] - want[j]); d > 2*gamma(m)*abs[j] {
			t.Errorf("component %d: %v on the GPU, %v on the CPU: beyond 2γ_m Σ|F| = %g", j, got[j], want[j], 2*gamma(m)*abs[j])
		}
	}
	t.Logf("%d contacts, %d on fixed bodies: force %v (CPU %v)", tw.nc, m, got, want)
}

// TestWarmStart: after a step with random impulses the host-side merge
// gives cpuref's warm start bit for bit, with persisting contacts found.
func TestWarmStart(t *testing.T) {
	requireUnfusedGo(t)
	tw, cp, gp := randomTwin(t, 11, kernelScene, 0)
	kept, n := checkWarmStart(t, tw, cp, gp, 11, 1e-4)
	if kept == 0 {
		t.Fatal("no contact persisted: the test does not exercise the merge")
	}
	t.Logf("%d of %d impulse components carried over", kept, n)
}

// checkWarmStart steps tw (built as cp and gp) on both backends with the
// same random impulses, scale·N(0, 1) from seed (a small scale: most
// contacts persist), collides and builds again, and checks that WarmStart
// gives the same vector bit for bit on both. It returns how many impulse
// components carried over (are non-zero), of n = 3·contacts.
func checkWarmStart(t *testing.T, tw *twin, cp, gp engine.Problem, seed uint64, scale float64) (kept, n int) {
	t.Helper()
	cg, gg := pair(cp, gp, normVec(seed, 3*tw.nc, scale))
	tw.integrate(t, cg, gg, tw.set.Dt)
	tw.collide(t)
	cp, gp = tw.build(t, tw.set.Dt)
	cw, gw := cp.NewVec(3*tw.nc), gp.NewVec(3*tw.nc)
	gp.Fill(gw, 7) // overwritten everywhere
	if err := tw.cpu.WarmStart(cw); err != nil {
		t.Fatal(err)
	}
	if err := tw.gpu.WarmStart(gw); err != nil {
		t.Fatal(err)
	}
	checkSame(t, "WarmStart", cp, gp, cw, gw)
	for _, v := range enginetest.ReadVec(gp, gw) {
		if v != 0 {
			kept++
		}
	}
	return kept, 3 * tw.nc
}

// TestKernelIntegrateDirect drives free_velocity and integrate on chosen
// inputs that random scenes do not reach: orientations whose length is 1
// within 10⁻¹² to 10⁻², zero, or so large that its square overflows
// (every branch of mgl64's Normalize), and |ω̄|h/2 from 10⁻¹⁰ to 5·10⁸
// rad (every octant and the whole range of the sincos port, below Go's
// 2²⁹ switch to Payne–Hanek reduction). The state is written straight
// into the buffers; the expected state is cpuref's Integrate written out
// (math.Sincos, mgl64's Quat.Mul and Normalize) on the downloaded vfree,
// with dv = 0 (no contacts). Spheres: the gyroscopic torque vanishes, so
// vfree keeps the chosen ω̄.
func TestKernelIntegrateDirect(t *testing.T) {
	requireUnfusedGo(t)
	r := rand.New(rand.NewPCG(12, 1))
	const n = 400
	m := &engine.Model{Materials: []engine.Material{{Name: "m"}}}
	for i := 0; i < n; i++ {
		bd := engine.Body{Shape: engine.SphereShape(0.1), Rot: mgl64.QuatIdent(), Pos: mgl64.Vec3{float64(i), 0, 0}}
		bd.SetMass(1 + r.Float64())
		m.Bodies = append(m.Bodies, bd)
	}
	set := engine.DefaultSettings()
	b := newTestBackend(t)
	if err := b.Load(m, &set); err != nil {
		t.Fatal(err)
	}
	h := set.Dt
	rot, omega, vel := make([]float64, 4*n), make([]float64, 3*n), make([]float64, 3*n)
	scales := []float64{1, 1 + 1e-12, 1 - 1e-12, 1 + 1e-10, 1 - 3e-10, 1 + 3e-10, 1 + 1e-6, 1 - 1e-2, 0, 1e200}
	for i := 0; i < n; i++ {
		q := mgl64.Quat{W: r.NormFloat64(), V: mgl64.Vec3{r.NormFloat64(), r.NormFloat64(), r.NormFloat64()}}.Normalize()
		s := scales[i%len(scales)]
		rot[4*i], rot[4*i+1], rot[4*i+2], rot[4*i+3] = q.W*s, q.V[0]*s, q.V[1]*s, q.V[2]*s
		half := math.Pow(10, 18.7*r.Float64()-10) // |ω̄|h/2 (rad)
		if i%37 == 0 {
			half = 0
		}
		w := mgl64.Vec3{r.NormFloat64(), r.NormFloat64(), r.NormFloat64()}.Normalize().Mul(2 * half / h)
		copy(omega[3*i:], w[:])
		for k := range 3 {
			vel[3*i+k] = r.NormFloat64()
		}
	}
	for _, w := range []struct {
		dst *Buffer
		src []float64
	}{{b.rot, rot}, {b.omega, omega}, {b.vel, vel}} {
		if err := w.dst.WriteFloat64(0, w.src); err != nil {
			t.Fatal(err)
		}
	}
	p, err := b.Build(h)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.sync(); err != nil {
		t.Fatal(err)
	}
	vf := make([]float64, 6*n)
	if err := b.vfree.ReadFloat64(vf, 0); err != nil {
		t.Fatal(err)
	}
	if err := b.Integrate(p.NewVec(0), h); err != nil {
		t.Fatal(err)
	}
	var got engine.State
	if err := b.ReadState(&got); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		// cpuref's Integrate with dv = +0.
		var v, w mgl64.Vec3
		pos := mgl64.Vec3{float64(i), 0, 0}
		for k := range 3 {
			v[k] = vf[6*i+k] + 0
			w[k] = vf[6*i+3+k] + 0
			pos[k] += h * v[k]
		}
		q := mgl64.Quat{W: rot[4*i], V: mgl64.Vec3{rot[4*i+1], rot[4*i+2], rot[4*i+3]}}
		th := w.Mul(h)
		if a := th.Len(); a != 0 {
			s, c := math.Sincos(a / 2)
			q = q.Mul(mgl64.Quat{W: c, V: th.Mul(s / a)}).Normalize()
		}
		want := []float64{pos[0], pos[1], pos[2], q.W, q.V[0], q.V[1], q.V[2], v[0], v[1], v[2], w[0], w[1], w[2]}
		have := append(append(append(append([]float64(nil), got.Pos[3*i:3*i+3]...), got.Rot[4*i:4*i+4]...), got.Vel[3*i:3*i+3]...), got.Omega[3*i:3*i+3]...)
		if j := enginetest.FirstDiff(want, have); j >= 0 {
			t.Fatalf("body %d (|q| scale %g, |ω̄|h/2 = %g): element %d of (pos, rot, vel, omega) is %v, want %v",
				i, scales[i%len(scales)], th.Len()/2, j, have[j], want[j])
		}
	}
}

// TestOneMaterial: a model whose materials all have one friction and one
// cohesion (three entries with the same values) holds μ, the cohesion and
// the cohesion impulses as one value each (oneMaterial), and its
// contacts, cones, r and an APGD solve are cpuref's bit for bit; loading
// a model of three materials on the same backend makes them per contact
// again, and its contacts are cpuref's too.
func TestOneMaterial(t *testing.T) {
	requireUnfusedGo(t)
	m := sphereModel(31, 600)
	for i := range m.Materials {
		m.Materials[i].Friction, m.Materials[i].Cohesion = 0.6, 0.5
	}
	set := engine.DefaultSettings()
	tw := deviceTwin(t, m, set)
	gb := tw.gpu
	if !gb.oneMaterial {
		t.Fatal("three materials of the same friction and cohesion: the backend should hold one value")
	}
	cp, gp := tw.build(t, set.Dt)
	var c, g engine.Contacts
	if err := tw.cpu.ReadContacts(&c); err != nil {
		t.Fatal(err)
	}
	if err := gb.ReadContacts(&g); err != nil {
		t.Fatal(err)
	}
	sameContacts(t, &c, &g)
	checkSame(t, "r", cp, gp, cp.R(), gp.R())
	mc, cc := sameCones(t, tw.nc, cp, gp)
	if cc[0] == 0 || mc[0] != 0.6 {
		t.Fatalf("contact 0: μ %v, cohesion impulse %v; want 0.6 and h·0.5", mc[0], cc[0])
	}
	for _, f := range []struct {
		name string
		buf  *Buffer
		size int64
	}{{"mu", gb.mu, 8}, {"cohesion", gb.cohesion, 8}, {"coh", gb.coh, 8}, {"the bodies' materials", gb.dc.mat, 16}} {
		if f.buf.Size() != f.size {
			t.Errorf("%s: %d B (%d bodies, %d contacts), want one value (%d B)", f.name, f.buf.Size(), gb.n, tw.nc, f.size)
		}
	}
	gamma0 := normVec(31, 3*tw.nc, 1e-3)
	compareAPGD(t, gb, cp, gp, gamma0, apgdCase{"one material", false, engine.SolveOptions{MaxIter: 40, Gd: set.Gd}})

	// Three materials on the same backend: per contact again.
	m3 := sphereModel(32, 600)
	if err := gb.Load(m3, &set); err != nil {
		t.Fatal(err)
	}
	if err := tw.cpu.Load(m3, &set); err != nil {
		t.Fatal(err)
	}
	tw.collide(t)
	if gb.oneMaterial {
		t.Fatal("three materials: the backend should hold a value per contact")
	}
	checkContacts(t, tw)
	if want := 8 * int64(tw.nc); gb.mu.Size() < want || gb.cohesion.Size() < want || gb.dc.mat.Size() != 16*int64(gb.n) {
		t.Errorf("mu %d B, cohesion %d B for %d contacts, want at least %d B each; mat %d B for %d bodies", gb.mu.Size(), gb.cohesion.Size(),
			tw.nc, want, gb.dc.mat.Size(), gb.n)
	}
}
