//go:build linux && cgo && (amd64 || arm64)

package gpu

import (
	"errors"
	"fmt"
	"math"

	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/shaders"
)

// ReadBackBytes returns the bytes read back from the device's buffers so
// far (Buffer reads: state, contacts, counts, scalars), host-visible ones
// included.
func (d *Device) ReadBackBytes() int64 { return d.readBack }

// ReadBackBytes returns the bytes read back from the backend's device so
// far (see Device.ReadBackBytes). Reach it with an
// interface{ ReadBackBytes() int64 } assertion on the engine.Backend that
// New returns.
func (b *Backend) ReadBackBytes() int64 { return b.d.readBack }

const (
	// guardChunk is the number of bodies one workgroup of guard_check
	// checks, guardStride the uint32 of its partial results per chunk.
	guardChunk  = 2048
	guardStride = 32
	// guardWords is the size of guard_check's report in uint32: three
	// counts, then GuardReportIDs ids of each kind.
	guardWords = 3 + 3*engine.GuardReportIDs
	// guardNoID fills the report's id slots past the count.
	guardNoID = 0xFFFFFFFF
)

// guardState is the backend's engine.StateGuard: guard_check's limits
// (arguments and the skip buffer, uint32 per body of the largest
// model SetGuardLimits was given) and buffers (partial: guardStride
// uint32 per chunk of guardChunk bodies; report: guardWords uint32,
// host-visible), and the kept copy that KeepState makes with guard_keep:
// pos, rot, vel, omega of n bodies (layouts and units as the body
// buffers) and, when warm, the warm-start memory as WarmStartData reads
// it (keys: prevA, prevB, prevSub, np uint32 each; gamma: 3np float64;
// joints: the joint rows' impulses when jwarm; rolling: 3np float64 when
// rkept).
type guardState struct {
	check, keep *Kernel
	args        shaders.GuardCheckArgs
	nskip       int // bodies with a skip flag
	skip        *Buffer
	partial     *Buffer
	report      *Buffer

	pos, rot, vel, omega   *Buffer
	keys                   [3]*Buffer
	gamma, joints, rolling *Buffer
	kept                   bool // the kept buffers hold a kept copy, kk
	kk                     keptKind
}

// keptKind describes a kept copy.
type keptKind struct {
	n            int  // bodies
	warm         bool // the warm-start memory was kept
	np           int  // contact keys
	jwarm, rkept bool // joint and rolling impulses kept
	jrows        int  // joint rows (when jwarm)
}

// buffers lists the guard's buffers.
func (g *guardState) buffers() []**Buffer {
	return []**Buffer{&g.skip, &g.partial, &g.report, &g.pos, &g.rot, &g.vel, &g.omega,
		&g.keys[0], &g.keys[1], &g.keys[2], &g.gamma, &g.joints, &g.rolling}
}

// release frees the guard's buffers (the kernels go with the device).
func (g *guardState) release() {
	for _, p := range g.buffers() {
		if *p != nil {
			(*p).Release()
			*p = nil
		}
	}
	*g = guardState{}
}

// guardKernels builds guard_check and guard_keep on first use.
func (b *Backend) guardKernels() error {
	g := &b.grd
	for _, k := range []struct {
		k **Kernel
		m shaders.Module
	}{{&g.check, shaders.GuardCheck}, {&g.keep, shaders.GuardKeep}} {
		if *k.k != nil {
			continue
		}
		var err error
		if *k.k, err = b.d.Kernel(k.m); err != nil {
			return fmt.Errorf("gpu: guard: %w", err)
		}
	}
	return nil
}

// speedThreshold returns the largest float64 s with √s ≤ m (Go's
// correctly rounded math.Sqrt), so that for every float64 s ≥ 0, s > t
// exactly when math.Sqrt(s) > m: guard_check compares squared speeds with
// it and needs no square root of its own (GLSL's double sqrt need not be
// correctly rounded). −Inf for a negative m (every speed exceeds it), NaN
// for NaN (none does), +Inf for +Inf.
func speedThreshold(m float64) float64 {
	switch {
	case math.IsNaN(m), math.IsInf(m, 1):
		return m
	case m < 0:
		return math.Inf(-1)
	}
	t := math.Min(m*m, math.MaxFloat64)
	for t > 0 && math.Sqrt(t) > m {
		t = math.Nextafter(t, math.Inf(-1))
	}
	for t < math.MaxFloat64 && math.Sqrt(math.Nextafter(t, math.Inf(1))) <= m {
		t = math.Nextafter(t, math.Inf(1))
	}
	return t
}

// SetGuardLimits implements engine.StateGuard: it uploads the skip flags
// and keeps the domain and the squared speed bound (speedThreshold) as
// guard_check's arguments.
func (b *Backend) SetGuardLimits(l *engine.GuardLimits) error {
	b.mustLoad("SetGuardLimits")
	if err := b.guardKernels(); err != nil {
		return err
	}
	if err := b.sync(); err != nil {
		return fmt.Errorf("gpu: guard limits: %w", err)
	}
	g := &b.grd
	skip := make([]uint32, len(l.Skip))
	for i, s := range l.Skip {
		if s {
			skip[i] = 1
		}
	}
	if g.skip == nil {
		var err error
		if g.skip, err = b.d.NewBuffer(0); err != nil {
			return fmt.Errorf("gpu: guard limits: %w", err)
		}
	}
	if err := g.skip.Grow(4 * int64(len(skip))); err != nil {
		return fmt.Errorf("gpu: guard limits: %w", err)
	}
	if err := g.skip.WriteUint32(0, skip); err != nil {
		return fmt.Errorf("gpu: guard limits: %w", err)
	}
	if g.report == nil {
		var err error
		if g.report, err = b.d.NewHostBuffer(4 * guardWords); err != nil {
			return fmt.Errorf("gpu: guard limits: %w", err)
		}
	}
	g.args = shaders.GuardCheckArgs{Lox: l.Lo[0], Loy: l.Lo[1], Loz: l.Lo[2], Hix: l.Hi[0], Hiy: l.Hi[1], Hiz: l.Hi[2],
		Speed2: speedThreshold(l.MaxSpeed)}
	g.nskip = len(skip)
	return nil
}

// CheckState implements engine.StateGuard: guard_check's two passes and
// guard_keep's copies, conditional on the check's verdict (see
// recordKeep), recorded after the pending work and submitted with it; it
// reads back the three counts (12 bytes), and the ids (96 bytes) only when
// a body failed.
func (b *Backend) CheckState(r *engine.GuardReport, warm bool) error {
	b.mustLoad("CheckState")
	g := &b.grd
	if g.report == nil {
		return errors.New("gpu: check state: no guard limits (SetGuardLimits)")
	}
	if b.n > g.nskip {
		return fmt.Errorf("gpu: check state: %d bodies, guard limits for %d", b.n, g.nskip)
	}
	*r = engine.GuardReport{}
	nch := (b.n + guardChunk - 1) / guardChunk
	if need := 4 * guardStride * int64(max(nch, 1)); g.partial == nil || need > g.partial.Size() {
		// Only CheckState binds partial, and it always submits; but a
		// Grow that reallocates must not meet a pending batch.
		if err := b.sync(); err != nil {
			return err
		}
		if err := b.keptBuffer(&g.partial, need); err != nil {
			return fmt.Errorf("gpu: check state: %w", err)
		}
	}
	keep, err := b.prepareKeep(warm)
	if err != nil {
		return err
	}
	l := b.l
	args := g.args
	args.N = uint32(b.n)
	groups := [3]uint32{uint32(min(nch, int(b.d.Info.MaxWorkgroupCount[0]))), 1, 1}
	bufs := []*Buffer{g.report, g.partial, b.pos, b.rot, b.vel, b.omega, g.skip}
	l.record(g.check, groups, args, bufs...)
	args.Mode = 1
	l.record(g.check, [3]uint32{1, 1, 1}, args, bufs...)
	b.recordKeep(keep, true)
	if err := b.sync(); err != nil {
		// The copies may have run in part: the kept state is lost.
		g.kept = false
		return err
	}
	var counts [3]uint32
	if err := g.report.ReadUint32(counts[:], 0); err != nil {
		g.kept = false
		return fmt.Errorf("gpu: check state: %w", err)
	}
	r.NonFinite, r.Fast, r.Out = int(counts[0]), int(counts[1]), int(counts[2])
	if !r.Failed() {
		g.kept = true
		g.kk = keep.kk
		return nil
	}
	ids := make([]uint32, guardWords-3)
	if err := g.report.ReadUint32(ids, 3); err != nil {
		return fmt.Errorf("gpu: check state: %w", err)
	}
	k := engine.GuardReportIDs
	for j, dst := range []*[]int{&r.NonFiniteIDs, &r.FastIDs, &r.OutIDs} {
		for _, id := range ids[k*j : k*(j+1)] {
			if id == guardNoID {
				break
			}
			*dst = append(*dst, int(id))
		}
	}
	return nil
}

// keptBuffer returns *p with room for size bytes, made or grown (keeping
// its contents) as needed; nothing that uses *p may be pending.
func (b *Backend) keptBuffer(p **Buffer, size int64) error {
	if *p == nil {
		var err error
		*p, err = b.d.NewBuffer(size)
		return err
	}
	return (*p).Grow(size)
}

// keepPlan is what a keep copies: the buffer pairs and the description
// of the kept copy they make.
type keepPlan struct {
	cps []keepCopy
	kk  keptKind
}

type keepCopy struct {
	dst, src *Buffer
	words    int64
}

// prepareKeep plans the copies that keep the current state (and with
// warm the warm-start memory) and grows the kept buffers to them, after
// a submit of the pending work when one must grow; a grown buffer keeps
// its contents, the kept copy of the last keep.
func (b *Backend) prepareKeep(warm bool) (keepPlan, error) {
	if err := b.guardKernels(); err != nil {
		return keepPlan{}, err
	}
	g := &b.grd
	n := int64(b.n)
	c := &b.dc
	kk := keptKind{n: b.n, warm: warm}
	if warm {
		kk.np = c.np
		kk.jwarm, kk.jrows = b.jt.warm, b.jt.Rows
		kk.rkept = b.rl.on && b.rl.kept && c.np > 0
	}
	np := int64(kk.np)
	type pair struct {
		dst   **Buffer
		src   *Buffer
		bytes int64
	}
	ps := []pair{{&g.pos, b.pos, 24 * n}, {&g.rot, b.rot, 32 * n}, {&g.vel, b.vel, 24 * n}, {&g.omega, b.omega, 24 * n}}
	if warm {
		ps = append(ps, pair{&g.keys[0], c.prevA, 4 * np}, pair{&g.keys[1], c.prevB, 4 * np}, pair{&g.keys[2], c.prevSub, 4 * np},
			pair{&g.gamma, b.prevGamma, b.keptBytes() * np})
		if kk.jwarm {
			ps = append(ps, pair{&g.joints, b.jt.prev, 8 * int64(kk.jrows)})
		}
		if kk.rkept {
			ps = append(ps, pair{&g.rolling, b.rl.prev, 24 * np})
		}
	}
	synced := false
	var plan keepPlan
	for _, x := range ps {
		if x.bytes/4 > math.MaxUint32 {
			return keepPlan{}, fmt.Errorf("gpu: keep state: a buffer of %d bytes is too large to copy", x.bytes)
		}
		if *x.dst == nil || x.bytes > (*x.dst).Size() {
			if !synced {
				if err := b.sync(); err != nil {
					return keepPlan{}, fmt.Errorf("gpu: keep state: %w", err)
				}
				synced = true
			}
			if err := b.keptBuffer(x.dst, x.bytes); err != nil {
				return keepPlan{}, fmt.Errorf("gpu: keep state: %w", err)
			}
		}
		if x.bytes > 0 {
			plan.cps = append(plan.cps, keepCopy{*x.dst, x.src, x.bytes / 4})
		}
	}
	plan.kk = kk
	return plan, nil
}

// recordKeep records guard_keep's copies of plan; with cond, each copies
// only when guard_check's report counts no failed body.
func (b *Backend) recordKeep(plan keepPlan, cond bool) {
	l := b.l
	g := &b.grd
	c := uint32(0)
	if cond {
		c = 1
	}
	for _, x := range plan.cps {
		l.record(g.keep, l.groups(g.keep, int(x.words)), shaders.GuardKeepArgs{N: uint32(x.words), Cond: c}, x.dst, x.src, g.report)
	}
}

// KeepState implements engine.StateGuard: guard_keep copies the body
// buffers, and with warm the warm-start memory (see guardState), into the
// kept buffers, unconditionally; one submit.
func (b *Backend) KeepState(warm bool) error {
	b.mustLoad("KeepState")
	g := &b.grd
	if g.report == nil {
		return errors.New("gpu: keep state: no guard limits (SetGuardLimits)")
	}
	plan, err := b.prepareKeep(warm)
	if err != nil {
		return err
	}
	b.recordKeep(plan, false)
	g.kept = false
	if err := b.sync(); err != nil {
		return err
	}
	g.kept, g.kk = true, plan.kk
	return nil
}

// ReadKept implements engine.StateGuard: it reads the kept buffers.
func (b *Backend) ReadKept(s *engine.State, w *engine.WarmStartData) error {
	b.mustLoad("ReadKept")
	g := &b.grd
	if !g.kept {
		return errors.New("gpu: read kept state: nothing kept (KeepState)")
	}
	kk := &g.kk
	if w != nil && !kk.warm {
		return errors.New("gpu: read kept state: the warm-start memory was not kept")
	}
	if err := b.d.lost; err != nil {
		// Mapped memory of a lost device holds undefined contents.
		return fmt.Errorf("gpu: read kept state: %w", err)
	}
	// The copies that made the kept buffers have run (KeepState and
	// CheckState submit them), and no pending work writes them: they are
	// read without a submit, so that an error of the work since (which
	// the LinAlg keeps) leaves them readable.
	s.Resize(kk.n)
	for _, r := range []struct {
		dst []float64
		src *Buffer
	}{{s.Pos, g.pos}, {s.Rot, g.rot}, {s.Vel, g.vel}, {s.Omega, g.omega}} {
		if err := r.src.ReadFloat64(r.dst, 0); err != nil {
			return fmt.Errorf("gpu: read kept state: %w", err)
		}
	}
	if w == nil {
		return nil
	}
	// As WarmStartData reads the live buffers.
	m := kk.np
	keys := make([]uint32, m)
	for j, dst := range []*[]int32{&w.A, &w.B, &w.Sub} {
		*dst = (*dst)[:0]
		if m == 0 {
			continue
		}
		if err := g.keys[j].ReadUint32(keys, 0); err != nil {
			return fmt.Errorf("gpu: read kept warm-start data: %w", err)
		}
		for _, v := range keys {
			*dst = append(*dst, int32(v))
		}
	}
	w.Joints = w.Joints[:0]
	if kk.jwarm {
		w.Joints = append(w.Joints, make([]float64, kk.jrows)...)
		if err := g.joints.ReadFloat64(w.Joints, 0); err != nil {
			return fmt.Errorf("gpu: read kept warm-start data: %w", err)
		}
	}
	w.Rolling = w.Rolling[:0]
	if kk.rkept {
		w.Rolling = append(w.Rolling, make([]float64, 3*m)...)
		if err := g.rolling.ReadFloat64(w.Rolling, 0); err != nil {
			return fmt.Errorf("gpu: read kept warm-start data: %w", err)
		}
	}
	if cap(w.Gamma) < 3*m {
		w.Gamma = make([]float64, 3*m)
	}
	w.Gamma = w.Gamma[:3*m]
	if m > 0 {
		if err := g.gamma.ReadFloat64(w.Gamma, 0); err != nil {
			return fmt.Errorf("gpu: read kept warm-start data: %w", err)
		}
	}
	return nil
}

var _ engine.StateGuard = (*Backend)(nil)
