//go:build linux && cgo && (amd64 || arm64)

package gpu

import (
	"cmp"
	"fmt"
	"math/bits"
	"slices"

	"github.com/gpusim/gpusim/collide"
	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/shaders"
)

// Meta words: the counts and flags collision's kernels leave in the meta
// buffer, copied to the host-visible out buffer at the end.
const (
	metaSpecial  = iota // big bodies and planes
	metaEntries         // (body, bin) entries
	metaPairs           // candidate pairs
	metaContacts        // contacts
	metaAdj             // adjacency entries
	metaFlags           // bit 0: bad grid input, 1: a pair for the host (EPA overflow), 2: a non-finite contact
	metaFallback        // pairs listed for the host's narrowphase
	metaWords    = 8
)

// Flags of meta[metaFlags].
const (
	flagBadInput  = 1
	flagFallback  = 2
	flagNonFinite = 4
	flagWrapped   = 8 // << the meta word of a count beyond 2³²−1
)

// countNames names the meta counts, for errors.
var countNames = [...]string{"big bodies and planes", "bin entries", "candidate pairs", "contacts", "adjacency entries"}

// candPerBody is collide_pairs' K: the partners per body its count pass
// keeps for the write pass (a body with more searches its bins again).
// Since the pass drops the spheres out of reach, a sphere of a packing
// has about 3 and at most 12; 8 since 2026-11-29 (16 before: 32 B per
// body more).
const candPerBody = 8

// maxDeviceBodies bounds the bodies of a device collision: an entry packs
// the body index and a 6-bit bin offset into a uint32.
const maxDeviceBodies = 1 << 26

// deviceCollider is collision on the device: the kernels collide_aabb,
// collide_scan, collide_bin, collide_pairs, collide_narrow and collide_adj
// recorded after the pending step and submitted once, then the counts read
// back from a host-visible buffer. It finds the contacts collide.Collider
// finds, in the same order (see each kernel's header). Pairs whose EPA
// outgrows collide_narrow's polytope (an ellipsoid with an ellipsoid or a
// box, overlapping deeper than their margins), and every pair of the
// pairHostRound row (a capsule or a cylinder with an ellipsoid or a box,
// capsule–cylinder, cylinder–cylinder: collide's GJK/EPA), are listed by
// the kernel;
// when there are any, the
// host reads back the list, runs collide's narrowphase on those pairs,
// uploads their contacts, and a second submit places every pair's
// contacts and builds the adjacency.
//
// Buffers (n bodies, S hash slots, caps ecap entries, pcap pairs, ccap
// contacts): shape (5 float64 per body: kind, size, bounding radius), mat
// (2: μ, cohesion N; one body's where the model has one material,
// Backend.oneMaterial), box (8: min, max, margin m, 0; a plane's outward
// normal in place of min), cell (4
// int32: first bin, range sizes and class), specialOff (n+1), special (n),
// slots (2S+2: counts then starts, then cursors), adjCursor (n+1),
// pairOff (n+1), cand (candPerBody per body: collide_pairs' partners) uint32; entries (ecap), pairA, pairB (pcap), off (pcap+1)
// uint32; the contact buffers of Backend (a, b, normal, pa, pb, phi, mu,
// cohesion, sub, adj (2ccap)) and the kept keys prevA, prevB, prevSub;
// fbList (3 uint32 per listed pair: pair, A, B), fbRec (3 per listed pair:
// pair, count, first host contact) and hostCon (12 float64 per host
// contact: normal, pa, pb, phi, mu, cohesion) for the host's pairs;
// pairN (4 float64 per pair: collide_narrow's ellipsoid-pair normals).
// fbList and pairN are held only by a model whose narrowphase rows use
// them (narrowPipelines.listsPairs, keepsNormals), and the entries and
// pairs only while the device collides.
type deviceCollider struct {
	on bool // see onDevice
	k  struct {
		aabb, scan, bin, pairs, big, adj, keys *Kernel
	}
	narrow                                                                narrowPipelines // the model's collide_narrow pipelines (narrow.go)
	shape, mat, box, cell, specialOff, special, slots, adjCursor, pairOff *Buffer
	entries, pairA, pairB, off, sub, prevA, prevB, prevSub, meta, out     *Buffer
	fbList, fbRec, hostCon, cand, pairN                                   *Buffer
	scanParts                                                             *Buffer // collide_scan's chunk sums (recordScan)
	exclOff, excl                                                         *Buffer // excluded pairs (jointed bodies): body i's partners j > i

	slotCount, brickBits int
	ecap, pcap, ccap     int
	inv                  float64 // 1 / bin size (1/m)
	np                   int     // contacts whose keys were kept
	counts               [metaWords]uint32

	// The host's pairs: the list read back, the records and contacts
	// uploaded, and the margins they need.
	list, rec    []uint32
	idx          []int // the listed pairs' order (hostPairs)
	con          engine.Contacts
	hostContacts []float64
	boxes        []float64
	cps          []collide.ContactPoint
}

// buffers lists the collider's buffers.
func (c *deviceCollider) buffers() []**Buffer {
	return []**Buffer{&c.shape, &c.mat, &c.box, &c.cell, &c.specialOff, &c.special, &c.slots,
		&c.adjCursor, &c.pairOff, &c.entries, &c.pairA, &c.pairB, &c.off, &c.sub, &c.prevA, &c.prevB,
		&c.prevSub, &c.meta, &c.out, &c.fbList, &c.fbRec, &c.hostCon, &c.cand, &c.pairN, &c.scanParts,
		&c.exclOff, &c.excl}
}

func (c *deviceCollider) release() {
	for _, p := range c.buffers() {
		if *p != nil {
			(*p).Release()
			*p = nil
		}
	}
}

// bigGroups is collide_big's dispatch: workgroups of 256, each taking
// every 64th big body or plane (a model has a few: walls, drums, floors).
const bigGroups = 64

// onDevice reports whether the model can collide on the device: entries
// pack a body index in 26 bits.
func onDevice(m *engine.Model) bool { return len(m.Bodies) < maxDeviceBodies }

// buildKernels builds the collision kernels on d.
func (c *deviceCollider) buildKernels(d *Device) error {
	for _, k := range []struct {
		k **Kernel
		m shaders.Module
	}{
		{&c.k.aabb, shaders.CollideAabb}, {&c.k.scan, shaders.CollideScan}, {&c.k.bin, shaders.CollideBin},
		{&c.k.pairs, shaders.CollidePairs}, {&c.k.big, shaders.CollideBig}, {&c.k.adj, shaders.CollideAdj},
		{&c.k.keys, shaders.CollideKeys},
	} {
		var err error
		if *k.k, err = d.Kernel(k.m); err != nil {
			return err
		}
	}
	return nil
}

// loadCollider makes the device collider for the loaded model: its
// constant per-body buffers, and working buffers at initial capacities
// (grown by collideDevice when outgrown).
func (b *Backend) loadCollider(m *engine.Model) error {
	c := &b.dc
	c.release()
	*c = deviceCollider{k: c.k}
	n := b.n
	c.on = onDevice(m)
	if c.on && hasCompound(m) {
		c.on = false
		c.narrow.notes = []string{"gpu: compound bodies: the host collides their parts each step (collide.Collider); the rest of the step runs on the device"}
	}
	if k, ok := hostKind(m); c.on && ok {
		c.on = false
		c.narrow.notes = []string{fmt.Sprintf("gpu: %s bodies: the device's collision kernels do not know the shape yet; the host collides (collide.Collider) each step and the rest of the step runs on the device", k)}
	}
	if c.on {
		kinds := modelKinds(m)
		var err error
		c.narrow, err = buildNarrow(b.d, narrowRows(kinds))
		if err != nil {
			// No row of the table builds here: the host collides.
			c.on = false
			c.narrow.notes = []string{err.Error() + ": the host runs the whole collision"}
		} else if note := hostRoundNote(kinds); note != "" {
			c.narrow.notes = append(c.narrow.notes, note)
		}
	}
	c.inv = 1 / b.host.col.BinSize()
	c.brickBits = max(bits.Len(uint(max(2*n, 128)-1)), 7) - 6
	c.slotCount = 1 << (c.brickBits + 6)
	c.ecap, c.pcap, c.ccap = entryCapPerBody*n+capSlack, pairCapPerBody*n+capSlack, contactCapPerBody*n+capSlack
	n64, s64 := int64(n), int64(c.slotCount)
	// mat: each body's μ and cohesion, or one body's where the model has
	// one material (collide_narrow's MAT_BODY).
	matBodies := n64
	if b.oneMaterial {
		matBodies = 1
	}
	sizes := map[**Buffer]int64{
		&c.shape: 40 * n64, &c.mat: 16 * matBodies, &c.box: 64 * n64, &c.cell: 16 * n64,
		&c.specialOff: 4 * (n64 + 1), &c.special: 4 * n64, &c.slots: 4 * (2*s64 + 2), &c.adjCursor: 8 * (n64/2 + 1),
		&c.pairOff: 4 * (n64 + 1), &c.meta: 4 * metaWords, &c.cand: 4 * candPerBody * n64,
		&c.scanParts: scanPartsBytes(max(int64(c.pcap), n64+1, s64+1)),
		&c.exclOff:   4 * (n64 + 1), &c.excl: 4 * int64(len(b.host.col.ExcludedPairs())),
	}
	for _, p := range c.buffers() {
		var err error
		switch {
		case p == &c.out:
			*p, err = b.d.NewHostBuffer(4 * metaWords)
		case p == &c.mat:
			// Bound at its size: MAT_BODY clamps to its length.
			if *p, err = b.d.NewBuffer(sizes[p]); err == nil {
				(*p).exact = true
			}
		case p == &c.pairN:
			// collide_narrow binds it in windows (window.go).
			*p, err = b.d.newBuffer(max(sizes[p], 64), Buffer{windowed: true})
		default:
			*p, err = b.d.NewBuffer(max(sizes[p], 64))
		}
		if err != nil {
			return fmt.Errorf("gpu: load %d bodies: %w", n, err)
		}
	}
	shape := make([]float64, 5*n)
	mat := make([]float64, 2*n)
	mats := b.host.col.MaterialTable()
	for i := range b.host.col.Bodies() {
		s := *b.host.col.Shape(i)
		shape[5*i] = float64(s.Kind)
		copy(shape[5*i+1:5*i+4], s.Size[:])
		shape[5*i+4] = s.BoundingRadius()
		mt := mats[b.host.col.Materials()[i]]
		mat[2*i], mat[2*i+1] = mt.Friction, mt.Cohesion
	}
	// recordPlace clears adjOff as float64: room for a whole last one.
	if err := b.adjOff.Grow(8 * (n64/2 + 1)); err != nil {
		return err
	}
	if err := c.shape.WriteFloat64(0, shape); err != nil {
		return err
	}
	if err := c.mat.WriteFloat64(0, mat[:2*matBodies]); err != nil {
		return err
	}
	if err := c.loadExcluded(b.host.col.ExcludedPairs(), n); err != nil {
		return err
	}
	return b.growCollider()
}

// growCollider makes the capacity-sized buffers as large as the
// capacities. Nothing may be recording.
func (b *Backend) growCollider() error {
	c := &b.dc
	e, p, k := int64(c.ecap), int64(c.pcap), int64(c.ccap)
	if !c.on {
		// The host collides: no kernel reads or writes the entries and
		// pairs.
		e, p = 0, 0
	}
	// pairN and fbList only where the model's rows use them (an ellipsoid
	// pair's normal, a pair listed for the host): 44 of the 56 B per pair
	// slot, 352 B per body, that a model of spheres does not hold.
	pn, fb := int64(0), int64(0)
	if c.narrow.keepsNormals() {
		pn = pairNormalBytes * p
	}
	if c.narrow.listsPairs() {
		fb = 12 * p
	}
	for _, g := range []struct {
		buf  *Buffer
		size int64
	}{
		{c.entries, 4 * e}, {c.pairA, 4 * p}, {c.pairB, 4 * p}, {c.off, 4 * (p + 1)}, {c.fbList, fb}, {c.pairN, pn},
		{b.a, 4 * k}, {b.b, 4 * k}, {b.normal, 24 * k}, {b.pa, 24 * k}, {b.pb, 24 * k}, {b.phi, 8 * k},
		{b.mu, b.matBytes(k)}, {b.cohesion, b.matBytes(k)}, {c.sub, 4 * k}, {b.adj, 8 * k},
		{c.prevA, 4 * k}, {c.prevB, 4 * k}, {c.prevSub, 4 * k}, {b.prevGamma, b.keptBytes() * k},
		{c.scanParts, scanPartsBytes(max(p, int64(b.n), int64(c.slotCount)))},
	} {
		if err := g.buf.Grow(g.size); err != nil {
			return fmt.Errorf("gpu: collide: %w", err)
		}
	}
	return nil
}

// collide finds the contacts on the device when the model allows it, else
// on the host.
func (b *Backend) collide() (int, error) {
	b.col.valid = false // new contacts: gs's first Sweep colours them
	var nc int
	var err error
	if !b.dc.on {
		nc, err = b.collideHost()
		if err == nil {
			err = b.uploadRolling(b.host.con, nc)
		}
	} else {
		nc, err = b.collideDevice()
	}
	if err != nil {
		return 0, err
	}
	// The rolling blocks of the new contacts (none without rolling
	// friction).
	return nc, b.listRolling(nc)
}

// collideDevice records the collision kernels after the pending work,
// submits once and reads back the counts. When a count outgrew its
// buffer the buffers grow and the kernels run again (a second submit);
// when a kernel flagged input that collide rejects, the host collides
// instead, for collide's error; pairs listed for the host are handled by
// hostPairs.
func (b *Backend) collideDevice() (int, error) {
	c := &b.dc
	for {
		b.recordCollide()
		if err := b.readCounts(); err != nil {
			return 0, err
		}
		if err := c.wrapped(); err != nil {
			return 0, err
		}
		if c.counts[metaFlags]&(flagBadInput|flagNonFinite) != 0 {
			return b.collideHost()
		}
		if grown, err := b.growToCounts(); err != nil || grown {
			if err != nil {
				return 0, err
			}
			continue
		}
		if c.counts[metaFlags]&flagFallback != 0 {
			if err := b.hostPairs(); err != nil {
				return 0, err
			}
			if err := c.wrapped(); err != nil {
				return 0, err
			}
			if grown, err := b.growToCounts(); err != nil || grown {
				if err != nil {
					return 0, err
				}
				continue
			}
		}
		nc := int(c.counts[metaContacts])
		b.nc = nc
		return nc, b.growSolver(nc)
	}
}

// wrapped reports a count that collide_scan found beyond 2³²−1.
func (c *deviceCollider) wrapped() error {
	for k, name := range countNames {
		if c.counts[metaFlags]&(flagWrapped<<k) != 0 {
			return fmt.Errorf("gpu: collide: more than 2³²−1 %s; use a larger bin size or fewer bodies", name)
		}
	}
	return nil
}

// readCounts submits the recorded work and reads the collision counts.
func (b *Backend) readCounts() error {
	if err := b.sync(); err != nil {
		return err
	}
	return b.dc.out.ReadUint32(b.dc.counts[:], 0)
}

// growToCounts raises the capacities that the last counts exceed (the
// entries and pairs to a quarter more, the contacts to an eighth more:
// their room starts at 3 per body, about a settled bed's count, and a
// denser model outgrows it a few times at most) and grows the buffers; it
// reports whether any grew.
func (b *Backend) growToCounts() (bool, error) {
	c := &b.dc
	e, p, nc := int(c.counts[metaEntries]), int(c.counts[metaPairs]), int(c.counts[metaContacts])
	if e <= c.ecap && p <= c.pcap && nc <= c.ccap {
		return false, nil
	}
	c.ecap = max(c.ecap, e+e/4)
	c.pcap = max(c.pcap, p+p/4)
	c.ccap = max(c.ccap, nc+nc/8)
	return true, b.growCollider()
}

// hostPairs runs collide's narrowphase on the pairs collide_narrow listed
// (read back, with the positions, orientations and margins), uploads
// their contacts, and submits the kernels that place all contacts
// (collide_narrow modes 3, 2 and 1) and build the adjacency.
func (b *Backend) hostPairs() error {
	c := &b.dc
	h := &b.host
	nf := int(c.counts[metaFallback])
	c.list = resize(c.list, 3*nf)
	c.boxes = resize(c.boxes, 8*b.n)
	if err := c.fbList.ReadUint32(c.list, 0); err != nil {
		return err
	}
	for _, r := range []struct {
		dst []float64
		src *Buffer
	}{{h.pos, b.pos}, {h.rot, b.rot}, {c.boxes, c.box}} {
		if err := r.src.ReadFloat64(r.dst, 0); err != nil {
			return err
		}
	}
	// The list's order comes from atomics: sort it by pair.
	// (c.idx is reused: a row the device cannot build lists its pairs
	// every step.)
	c.idx = resize(c.idx, nf)
	idx := c.idx
	for f := range idx {
		idx[f] = f
	}
	slices.SortFunc(idx, func(x, y int) int { return cmp.Compare(c.list[3*x], c.list[3*y]) })
	c.con.Resize(0)
	c.rec = c.rec[:0]
	for _, f := range idx {
		q, i, j := c.list[3*f], int(c.list[3*f+1]), int(c.list[3*f+2])
		first := c.con.Len()
		env := h.envelope + c.boxes[8*i+6] + c.boxes[8*j+6]
		var n int
		var err error
		n, c.cps, err = h.col.PairContacts(i, j, h.pos, h.rot, env, &c.con, c.cps)
		if err != nil {
			return fmt.Errorf("gpu: %w", err)
		}
		c.rec = append(c.rec, q, uint32(n), uint32(first))
	}
	con := &c.con
	c.hostContacts = c.hostContacts[:0]
	for k := 0; k < con.Len(); k++ {
		c.hostContacts = append(c.hostContacts, con.Normal[3*k:3*k+3]...)
		c.hostContacts = append(c.hostContacts, con.PA[3*k:3*k+3]...)
		c.hostContacts = append(c.hostContacts, con.PB[3*k:3*k+3]...)
		c.hostContacts = append(c.hostContacts, con.Phi[k], con.Mu[k], con.Cohesion[k])
	}
	if err := c.fbRec.Grow(4 * int64(len(c.rec))); err != nil {
		return err
	}
	if err := c.hostCon.Grow(8 * int64(len(c.hostContacts))); err != nil {
		return err
	}
	if err := c.fbRec.WriteUint32(0, c.rec); err != nil {
		return err
	}
	if err := c.hostCon.WriteFloat64(0, c.hostContacts); err != nil {
		return err
	}
	b.recordNarrow(3)
	b.recordNarrow(2)
	b.recordPlace()
	return b.readCounts()
}

func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// recordCollide records the collision pipeline into the open batch.
func (b *Backend) recordCollide() {
	c := &b.dc
	l := b.l
	n := b.n
	g := b.host.gravity
	S := uint32(c.slotCount)
	none := uint32(0xffffffff)
	scan := b.recordScan
	l.record(l.fill, [3]uint32{1, 1, 1}, shaders.FillArgs{V: 0, N: metaWords / 2}, c.meta)
	l.record(c.k.aabb, l.groups(c.k.aabb, max(n, c.slotCount+1)),
		shaders.CollideAabbArgs{Gx: g[0], Gy: g[1], Gz: g[2], H: b.settings.Dt, Env: b.host.envelope, Inv: c.inv, N: uint32(n), Slots: S,
			Fstride: b.fstride},
		b.pos, b.rot, b.vel, b.omega, b.invMass, b.force, b.fixedBody, c.shape, c.box, c.cell,
		c.specialOff, c.slots, c.meta)
	scan(c.specialOff, n, none, metaSpecial)
	bin := func(mode uint32) {
		l.record(c.k.bin, l.groups(c.k.bin, n), shaders.CollideBinArgs{N: uint32(n), S: S, BrickBits: uint32(c.brickBits), Mode: mode, Cap: uint32(c.ecap)},
			c.cell, c.specialOff, c.special, c.slots, c.entries)
	}
	bin(0)
	scan(c.slots, c.slotCount, none, metaEntries)
	bin(1)
	pairs := func(mode uint32) {
		l.record(c.k.pairs, l.groups(c.k.pairs, n),
			shaders.CollidePairsArgs{N: uint32(n), S: S, BrickBits: uint32(c.brickBits), Mode: mode, Pcap: uint32(c.pcap), Ecap: uint32(c.ecap),
				Env: b.host.envelope, ApartFactor: collide.ApartFactor},
			c.box, b.pos, c.cell, b.fixedBody, c.special, c.slots, c.entries, c.pairOff, c.pairA, c.pairB, c.meta, c.cand,
			c.exclOff, c.excl, c.shape)
		// The big bodies' and planes' lists, a workgroup each.
		l.record(c.k.big, [3]uint32{uint32(min(bigGroups, int(b.d.Info.MaxWorkgroupCount[0]))), 1, 1},
			shaders.CollideBigArgs{N: uint32(n), Mode: mode, Pcap: uint32(c.pcap)},
			c.box, b.pos, c.cell, b.fixedBody, c.special, c.pairOff, c.pairA, c.pairB, c.meta, c.exclOff, c.excl)
	}
	pairs(0)
	scan(c.pairOff, n, none, metaPairs)
	pairs(1)
	b.recordNarrow(0)
	b.recordPlace()
}

// scanChunk is collide_scan's CHUNK, the elements per workgroup of its
// modes 1 to 3; scanOneGroup is the longest array that recordScan scans in
// one workgroup (mode 0): beyond it, one thread's block of 256 would be
// hundreds of dependent loads while the rest of the device idles.
const (
	scanChunk    = 4096
	scanOneGroup = 65536
)

// scanPartsBytes is the size of collide_scan's chunk sums for arrays of up
// to n elements.
func scanPartsBytes(n int64) int64 { return 8 * ((n+scanChunk-1)/scanChunk + 1) }

// recordScan records collide_scan of data[0:length] (length from
// meta[nIdx] where nIdx is not 0xffffffff, at most length), the total in
// meta[out]: in one workgroup up to scanOneGroup elements, else across the
// device (modes 1, 2, 3).
func (b *Backend) recordScan(data *Buffer, length int, nIdx, out uint32) {
	c := &b.dc
	l := b.l
	args := shaders.CollideScanArgs{N: uint32(length), NIdx: nIdx, Out: out}
	if length <= scanOneGroup {
		l.record(c.k.scan, [3]uint32{1, 1, 1}, args, data, c.meta, c.scanParts)
		return
	}
	chunks := uint32((length + scanChunk - 1) / scanChunk)
	for _, m := range []struct{ mode, groups uint32 }{{1, chunks}, {2, 1}, {3, chunks}} {
		args.Mode = m.mode
		l.record(c.k.scan, [3]uint32{m.groups, 1, 1}, args, data, c.meta, c.scanParts)
	}
}

// narrowGroups caps collide_narrow's workgroups (its grid-stride loop
// covers the pairs beyond): lavapipe pays about 0.17 ms per workgroup of
// this kernel even with no pair to compute (the stack of its inlined
// GJK, EPA and Newton searches), which on the ellipsoid pile's 252
// workgroups (pcap for 2005 bodies) cost 85 ms per step in the two
// dispatches (7 ms before the kernel grew); 16 workgroups of 64 (one per
// core of a 16-core host) measured 10 ms on the 2-core test machine, 32
// workgroups 19 ms. The cap holds on CPU devices only: a GPU runs a
// workgroup per 64 pairs (an H200 took 154 ms to collide a million
// spheres with the cap, its 16 workgroups a sliver of its 132
// multiprocessors).
const narrowGroups = 16

// recordNarrow records the model's collide_narrow pipelines in the given
// mode (mode 2, which only places the host's counts, on the first); the
// first lists the rows that no pipeline computes for the host.
func (b *Backend) recordNarrow(mode uint32) {
	c := &b.dc
	l := b.l
	for i, k := range c.narrow.k {
		if mode == 2 && i > 0 {
			break
		}
		host := uint32(0)
		if i == 0 {
			host = c.narrow.host
		}
		g := l.groups(k, c.pcap)
		if b.d.Info.Type == CPUDevice {
			g[0] = min(g[0], narrowGroups)
		}
		l.record(k, g, shaders.CollideNarrowArgs{Env: b.host.envelope, Mode: mode, Pcap: uint32(c.pcap), Cap: uint32(c.ccap), Host: host},
			b.pos, b.rot, c.shape, c.mat, c.box, c.pairA, c.pairB, c.off, b.a, b.b, b.normal, b.pa, b.pb, b.phi,
			b.mu, b.cohesion, c.sub, c.meta, c.fbList, c.fbRec, c.hostCon, c.pairN)
	}
}

// recordPlace records the scan of the pairs' contact counts, the contacts'
// writing (collide_narrow mode 1) and the adjacency (collide_adj, with
// its counters cleared first).
func (b *Backend) recordPlace() {
	c := &b.dc
	l := b.l
	n := b.n
	b.recordScan(c.off, c.pcap, metaPairs, metaContacts)
	b.recordNarrow(1)
	adj := func(mode uint32, groups int) {
		l.record(c.k.adj, l.groups(c.k.adj, groups), shaders.CollideAdjArgs{N: uint32(n), Mode: mode, Cap: uint32(c.ccap), Acap: uint32(2 * c.ccap)},
			b.a, b.b, b.fixedBody, b.adjOff, c.adjCursor, b.adj, c.meta, c.out)
	}
	half := n/2 + 1 // float64 covering the n+1 uint32 counters
	l.record(l.fill, l.groups(l.fill, half), shaders.FillArgs{V: 0, N: uint32(half)}, b.adjOff)
	l.record(l.fill, l.groups(l.fill, half), shaders.FillArgs{V: 0, N: uint32(half)}, c.adjCursor)
	adj(0, c.ccap)
	b.recordScan(b.adjOff, n, 0xffffffff, metaAdj)
	adj(1, c.ccap)
	adj(2, n)
	// Lists longer than 64, a workgroup each (1024 workgroups take every
	// 1024th body; most have short lists and skip).
	l.record(c.k.adj, [3]uint32{uint32(min(1024, int(b.d.Info.MaxWorkgroupCount[0]))), 1, 1},
		shaders.CollideAdjArgs{N: uint32(n), Mode: 3, Cap: uint32(c.ccap), Acap: uint32(2 * c.ccap)},
		b.a, b.b, b.fixedBody, b.adjOff, c.adjCursor, b.adj, c.meta, c.out)
}

// collideHost finds the contacts on the host (see hostCollider): it
// submits pending work, downloads the state it needs, runs
// collide.Collider and uploads the contacts, their keys and the adjacency.
func (b *Backend) collideHost() (int, error) {
	if err := b.sync(); err != nil {
		return 0, err
	}
	h := &b.host
	for _, r := range []struct {
		dst []float64
		src *Buffer
	}{{h.pos, b.pos}, {h.rot, b.rot}, {h.vel, b.vel}, {h.omega, b.omega}} {
		if err := r.src.ReadFloat64(r.dst, 0); err != nil {
			return 0, err
		}
	}
	nc, err := h.collide()
	if err != nil {
		return 0, err
	}
	if err := b.upload(nc); err != nil {
		return 0, fmt.Errorf("gpu: collide: %d contacts: %w", nc, err)
	}
	b.nc = nc
	return nc, nil
}

// growSolver grows the contact buffers to nc contacts. Those the collider
// writes go to the contact capacity too, when larger (growCollider made
// them so; the host's collision uploads into them), and so do the kept
// keys and impulses of the warm start: sized by the contacts found, each
// of the four would be copied, a submit apiece, whenever the count crept
// past it. The Jacobian, coh and r, which only the found contacts fill,
// go to nc: they reallocate when nc passes their capacity, which
// Buffer.Grow raises by an eighth at least, without a copy (Build
// rewrites them), so without a submit; the Jacobian holds 96 B per
// contact found (48 B mixed) instead of per slot of the collider's room.
func (b *Backend) growSolver(nc int) error {
	c, n := int64(max(nc, b.dc.ccap)), int64(nc)
	chunks := int64((nc + dotChunk - 1) / dotChunk)
	for _, g := range []struct {
		buf  *Buffer
		size int64
	}{
		{b.a, 4 * c}, {b.b, 4 * c}, {b.normal, 24 * c}, {b.pa, 24 * c}, {b.pb, 24 * c},
		{b.phi, 8 * c}, {b.mu, b.matBytes(c)}, {b.cohesion, b.matBytes(c)}, {b.prevGamma, b.keptBytes() * c},
		{b.dc.sub, 4 * c}, {b.dc.prevA, 4 * c}, {b.dc.prevB, 4 * c}, {b.dc.prevSub, 4 * c},
		{b.partial[0], 8 * chunks}, {b.partial[1], 8 * chunks}, {b.partial[2], 8 * chunks},
	} {
		if err := g.buf.Grow(g.size); err != nil {
			return fmt.Errorf("gpu: collide: %d contacts: %w", nc, err)
		}
	}
	// Build writes these whole before anything reads them: a reallocation
	// needs no copy, so no submit.
	for _, g := range []struct {
		buf  *Buffer
		size int64
	}{
		{b.jac, b.jacBytes() * n}, {b.coh, b.matBytes(n)}, {b.r, 24*n + 8*int64(b.jt.Rows)},
	} {
		if err := g.buf.GrowDiscard(g.size); err != nil {
			return fmt.Errorf("gpu: collide: %d contacts: %w", nc, err)
		}
	}
	return nil
}

// keepKeys records the copy of the current contacts' keys and impulses
// g for the next warm start (collide_keys, mode 0; the impulses as
// float32 with settings.precision "mixed").
func (b *Backend) keepKeys(g *Vec) {
	c := &b.dc
	if b.nc > 0 {
		l := b.l
		l.record(c.k.keys, l.groups(c.k.keys, b.nc), shaders.CollideKeysArgs{NC: uint32(b.nc), NP: 0, Mode: 0},
			b.a, b.b, c.sub, c.prevA, c.prevB, c.prevSub, b.prevGamma, g.buf)
	}
	c.np = b.nc
}

// warmStart records collide_keys' merge (mode 1) into g.
func (b *Backend) warmStart(g *Vec) {
	c := &b.dc
	if b.nc == 0 {
		return
	}
	l := b.l
	l.record(c.k.keys, l.groups(c.k.keys, b.nc), shaders.CollideKeysArgs{NC: uint32(b.nc), NP: uint32(c.np), Mode: 1},
		b.a, b.b, c.sub, c.prevA, c.prevB, c.prevSub, b.prevGamma, g.buf)
}

// keptKeys downloads the contact keys collide_keys last kept into w.A,
// w.B and w.Sub (w.Gamma is left alone). Nothing may be recording.
func (b *Backend) keptKeys(w *engine.WarmStartData) error {
	c := &b.dc
	keys := make([]uint32, c.np)
	for _, k := range []struct {
		dst *[]int32
		src *Buffer
	}{{&w.A, c.prevA}, {&w.B, c.prevB}, {&w.Sub, c.prevSub}} {
		if err := k.src.ReadUint32(keys, 0); err != nil {
			return fmt.Errorf("gpu: warm-start data: %w", err)
		}
		*k.dst = (*k.dst)[:0]
		for _, v := range keys {
			*k.dst = append(*k.dst, int32(v))
		}
	}
	return nil
}

// setKeptKeys replaces the kept contact keys with w's, after checking w
// (engine.WarmStartData.Check). Nothing may be recording.
func (b *Backend) setKeptKeys(w *engine.WarmStartData) error {
	c := &b.dc
	if err := w.Check(b.n); err != nil {
		return fmt.Errorf("gpu: %w", err)
	}
	m := w.Len()
	keys := make([]uint32, m)
	for _, k := range []struct {
		src []int32
		dst *Buffer
	}{{w.A, c.prevA}, {w.B, c.prevB}, {w.Sub, c.prevSub}} {
		for i, v := range k.src {
			keys[i] = uint32(v)
		}
		if err := k.dst.Grow(4 * int64(m)); err != nil {
			return fmt.Errorf("gpu: warm-start data: %w", err)
		}
		if err := k.dst.WriteUint32(0, keys); err != nil {
			return fmt.Errorf("gpu: warm-start data: %w", err)
		}
	}
	c.np = m
	return nil
}

// hasCompound reports whether m has a compound body. The device's
// collision kernels know one shape per body; with compounds the host's
// collide.Collider, which collides their parts, finds the contacts each
// step (collideHost), and the rest of the step stays on the device.
func hasCompound(m *engine.Model) bool {
	for i := range m.Bodies {
		if m.Bodies[i].Shape.Kind == engine.Compound {
			return true
		}
	}
	return false
}

// hostKind returns the first shape kind of m that the device's collision
// kernels do not know (a kind after engine.Cylinder, the last that
// collide_aabb and collide_narrow's table cover): such a model collides on
// the host. Capsules and cylinders collide on the device, their pairs with
// ellipsoids and boxes, capsule–cylinder and cylinder–cylinder listed for
// the host's narrowphase (pairHostRound).
func hostKind(m *engine.Model) (engine.ShapeKind, bool) {
	for i := range m.Bodies {
		if k := m.Bodies[i].Shape.Kind; k > engine.Cylinder {
			return k, true
		}
	}
	return 0, false
}

// loadExcluded uploads the excluded pairs (sorted a<<32 | b, a < b) of n
// bodies as collide_pairs reads them: body a's partners b in
// excl[exclOff[a]:exclOff[a+1]].
func (c *deviceCollider) loadExcluded(pairs []uint64, n int) error {
	if len(pairs) == 0 {
		return nil // exclOff stays zero
	}
	off := make([]uint32, n+1)
	excl := make([]uint32, len(pairs))
	for k, p := range pairs {
		off[p>>32+1]++
		excl[k] = uint32(p)
	}
	for i := range n {
		off[i+1] += off[i]
	}
	if err := c.exclOff.WriteUint32(0, off); err != nil {
		return err
	}
	return c.excl.WriteUint32(0, excl)
}
