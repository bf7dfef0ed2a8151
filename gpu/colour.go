//go:build linux && cgo && (amd64 || arm64)

package gpu

import (
	"fmt"

	"github.com/gpusim/gpusim/shaders"
)

// The gs sweep's contact colouring (gs_colour.comp), cpuref's colour.go on
// the device: the same Jones–Plassmann rounds, colours and order.
const (
	// maxColours is gs_colour's MAXC and cpuref.MaxColours: colours
	// 0…31, one dispatch of gs_colour_sweep each per sweep; the tail
	// (colour 32) goes to gs_sweep's one invocation.
	maxColours = 32
	// colourRounds is cpuref.ColourRounds: the Jones–Plassmann rounds,
	// each a dispatch of gs_colour (cpuref stops once every contact has
	// its colour; the remaining rounds change nothing).
	colourRounds = 48
	// colourBuckets counts the colours and the tail.
	colourBuckets = maxColours + 1
)

// colouring holds the colouring of the current contacts: col[0] the
// colours (uint32 per contact, the tail ColourTail) after the rounds
// (col[1] their second buffer), blk gs_colour's per-block counts (33
// uint32 per block of 64 contacts), start the colours' ranges of perm
// (34 uint32) and perm the contacts by colour (uint32 per contact);
// start is also read back into starts, from which Sweep sizes each
// colour's dispatch.
type colouring struct {
	k struct {
		colour, sweep *Kernel
	}
	col              [2]*Buffer
	blk, start, perm *Buffer
	valid            bool // computed for the current contacts (collide clears it)
	starts           [colourBuckets + 1]uint32
	// perm read back for SweepOrder, and whether it is current.
	hostPerm       []uint32
	hostOrder      []int32
	hostOrderValid bool
}

// buffers lists the colouring's buffers.
func (cl *colouring) buffers() []**Buffer {
	return []**Buffer{&cl.col[0], &cl.col[1], &cl.blk, &cl.start, &cl.perm}
}

// release frees the colouring's buffers.
func (cl *colouring) release() {
	for _, p := range cl.buffers() {
		if *p != nil {
			(*p).Release()
			*p = nil
		}
	}
	cl.valid = false
}

// make builds the colouring's kernels and makes its buffers, empty, on
// first use: a backend whose solver is not gs builds neither (each kernel
// costs a compilation in the driver, and lavapipe's process keeps about a
// megabyte of it per backend: TestBackendReleasesEverything).
func (cl *colouring) make(d *Device) error {
	if cl.k.colour == nil {
		if err := kernels(d, kernelSpec{&cl.k.colour, shaders.GsColour}, kernelSpec{&cl.k.sweep, shaders.GsColourSweep}); err != nil {
			return fmt.Errorf("gpu: colour: %w", err)
		}
	}
	if cl.col[0] != nil {
		return nil
	}
	for _, p := range cl.buffers() {
		var err error
		if *p, err = d.NewBuffer(0); err != nil {
			return fmt.Errorf("gpu: colour: %w", err)
		}
	}
	return nil
}

// colour records the colouring of the current contacts (nc > 0) after the
// pending work when collide has not since the last time, submits, and
// reads back the colours' ranges (one submit per step, in gs's first
// Sweep; gs already submits for each of its dot products).
func (b *Backend) colour() (*colouring, error) {
	cl := &b.col
	if cl.valid {
		return cl, nil
	}
	if err := cl.make(b.d); err != nil {
		return nil, err
	}
	nc := b.nc
	blocks := (nc + 63) / 64
	for _, g := range []struct {
		buf  *Buffer
		size int64
	}{
		{cl.col[0], 4 * int64(nc)}, {cl.col[1], 4 * int64(nc)}, {cl.perm, 4 * int64(nc)},
		{cl.blk, 4 * colourBuckets * int64(blocks)}, {cl.start, 4 * (colourBuckets + 1)},
	} {
		if err := g.buf.Grow(g.size); err != nil {
			return nil, fmt.Errorf("gpu: colour %d contacts: %w", nc, err)
		}
	}
	l := b.l
	k := cl.k.colour
	rec := func(mode uint32, groups [3]uint32, src, dst *Buffer) {
		l.record(k, groups, shaders.GsColourArgs{NC: uint32(nc), Mode: mode, Blocks: uint32(blocks)},
			b.a, b.b, b.adjOff, b.adj, src, dst, cl.blk, cl.start, cl.perm)
	}
	perContact := l.groups(k, nc)
	perBlock := [3]uint32{uint32(min(blocks, int(b.d.Info.MaxWorkgroupCount[0]))), 1, 1}
	rec(0, perContact, cl.col[1], cl.col[0])
	for r := range colourRounds {
		rec(1, perContact, cl.col[r%2], cl.col[(r+1)%2])
	}
	// colourRounds is even: the last round wrote col[0].
	rec(2, perBlock, cl.col[0], cl.col[1])
	rec(3, [3]uint32{1, 1, 1}, cl.col[0], cl.col[1])
	rec(4, perBlock, cl.col[0], cl.col[1])
	if err := b.sync(); err != nil {
		return nil, err
	}
	if err := cl.start.ReadUint32(cl.starts[:], 0); err != nil {
		return nil, fmt.Errorf("gpu: colour: %w", err)
	}
	cl.valid, cl.hostOrderValid = true, false
	return cl, nil
}

// colours downloads the colour of each current contact (computing the
// colouring if needed): 0 to maxColours−1, or maxColours for the tail.
func (b *Backend) colours() ([]uint32, error) {
	if b.nc == 0 {
		return nil, nil
	}
	cl, err := b.colour()
	if err != nil {
		return nil, err
	}
	c := make([]uint32, b.nc)
	if err := cl.col[0].ReadUint32(c, 0); err != nil {
		return nil, err
	}
	return c, nil
}

// sweepOrder downloads the contacts in the order of the sweep (perm).
func (b *Backend) sweepOrder() ([]int32, error) {
	cl := &b.col
	if b.nc == 0 {
		return nil, nil
	}
	if _, err := b.colour(); err != nil {
		return nil, err
	}
	if cl.hostOrderValid {
		return cl.hostOrder, nil
	}
	if err := b.sync(); err != nil {
		return nil, err
	}
	cl.hostPerm = resize(cl.hostPerm, b.nc)
	if err := cl.perm.ReadUint32(cl.hostPerm, 0); err != nil {
		return nil, err
	}
	cl.hostOrder = resize(cl.hostOrder, b.nc)
	for i, k := range cl.hostPerm {
		cl.hostOrder[i] = int32(k)
	}
	cl.hostOrderValid = true
	return cl.hostOrder, nil
}
