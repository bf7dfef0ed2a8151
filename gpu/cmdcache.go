//go:build linux && cgo && (amd64 || arm64)

package gpu

/*
#include "vkshim.h"
*/
import "C"

import (
	"bytes"
	"slices"
	"unsafe"
)

// A cached batch records command buffers once and submits them again:
// between Begin and Submit its Dispatch, Update and Barrier go into a
// recording (the kernel, each bound buffer's allocation and range, the
// bytes of an update, in order; each dispatch's arguments and workgroup
// counts apart, in its arguments slot: args.go), and Submit submits the
// command buffer it recorded before from the same commands, if it kept
// one, after writing the new arguments into that command buffer's
// arguments buffers; else it records one and keeps it, dropping the one
// submitted longest ago when it holds cacheEntries. Buffers are bound
// whole (binding), so a time step records the same commands step after
// step whatever its contact count, until a buffer is reallocated (the
// contacts outgrew its room) or the solver's submits hold another number
// of blocks: its command buffers are then recorded once and submitted
// again, and the host only builds the recording to compare (no
// descriptor sets are written, no Vulkan commands recorded). Resubmit
// runs the last submitted one.
//
// A recording names buffers by their allocation (Buffer.id, never used
// again once the buffer is freed or reallocated), so a kept command
// buffer of a freed buffer is never submitted again; it is recorded over
// when dropped.

// commandCacheEnv set to "0" or "off" (any value but those, "1", "on"
// and none is an error) makes the LinAlg's batch a plain one, which
// records every submit: the same arguments buffers and indirect
// dispatches, without the kept command buffers, to measure what they
// save (docs/bench-gpu.md).
const commandCacheEnv = "GPUSIM_COMMAND_CACHE"

// cacheEntries is the command buffers a cached batch keeps: a step of
// the device solvers submits about four distinct ones (the collision,
// the solve's first and repeated blocks, its last, short one); eight
// leave room for a checkpoint's or an output step's.
const cacheEntries = 8

// binding is a buffer bound to a kernel: its allocation (Buffer.id), its
// Vulkan buffer and the bytes bound.
type binding struct {
	id  uint64
	buf C.gs_nd
	rng uint64
}

// binding returns b as a kernel binds it now: its capacity, which does
// not change as the contacts found grow within it, so that a command
// buffer recorded before binds it alike; or, for a buffer whose length a
// kernel reads (exact), its first Size bytes (its capacity while Size is
// 0, as a buffer cannot be bound empty). The kernels take their element
// counts from their arguments.
func (b *Buffer) binding() binding {
	rng := uint64(b.capacity)
	if b.exact && b.size > 0 {
		rng = uint64(b.size)
	}
	return binding{id: b.id, buf: b.buf, rng: rng}
}

// op is one recorded command: a dispatch (k not nil), an update (upd) or
// a barrier.
type op struct {
	k      *Kernel
	groups [3]uint32 // a dispatch's workgroups, for a kernel without arguments
	slot   int       // a dispatch's arguments slot (recording.args; -1: none)
	binds  [2]int    // the dispatch's buffers: recording.binds[binds[0]:binds[1]]
	upd    bool
	data   [2]int  // the update's bytes: recording.data[data[0]:data[1]]
	dst    binding // the update's buffer
	off    int64   // the update's offset
}

// recording is what a cached batch recorded since Begin: the commands,
// which a kept command buffer must hold to be submitted again, and the
// dispatches' arguments slots (args.go), which are written before each
// submit and need not match.
type recording struct {
	ops   []op
	data  []byte
	binds []binding
	args  []byte // argsSlot bytes per dispatch of a kernel with arguments
}

func (r *recording) reset() {
	r.ops, r.data, r.binds, r.args = r.ops[:0], r.data[:0], r.binds[:0], r.args[:0]
}

// dispatch records a dispatch of k over groups with the buffers bufs and
// the arguments slot s (argsSlotBytes; empty for a kernel without
// arguments).
func (r *recording) dispatch(k *Kernel, groups [3]uint32, bufs []*Buffer, s []byte) {
	o := op{k: k, slot: -1, binds: [2]int{len(r.binds), len(r.binds) + len(bufs)}}
	if len(s) > 0 {
		o.slot = len(r.args) / argsSlot
		r.args = append(r.args, s...)
	} else {
		o.groups = groups
	}
	for _, b := range bufs {
		r.binds = append(r.binds, b.binding())
	}
	r.ops = append(r.ops, o)
}

func (r *recording) update(dst binding, off int64, data []byte) {
	r.ops = append(r.ops, op{upd: true, dst: dst, off: off, data: [2]int{len(r.data), len(r.data) + len(data)}})
	r.data = append(r.data, data...)
}

func (r *recording) barrier() { r.ops = append(r.ops, op{}) }

func (r *recording) equal(o *recording) bool {
	return len(r.ops) == len(o.ops) && slices.Equal(r.ops, o.ops) && slices.Equal(r.binds, o.binds) && bytes.Equal(r.data, o.data)
}

// cmdEntry is a kept command buffer, the descriptor pools of its sets,
// its arguments buffers and the recording it holds.
type cmdEntry struct {
	cmd   C.gs_obj
	pools []C.gs_nd
	args  argsArena
	rec   recording
	ok    bool   // cmd holds rec, ended and submitted without error
	used  uint64 // the cache's tick at its last submit
}

// drop marks e as holding nothing that may run.
func (e *cmdEntry) drop() { e.ok = false }

// cmdCache is a cached batch's kept command buffers.
type cmdCache struct {
	entries  []*cmdEntry
	last     *cmdEntry // the one submitted last (Resubmit)
	tick     uint64
	recorded int // command buffers recorded
	reused   int // submits of a kept command buffer found by its recording
}

func (c *cmdCache) release(d *Device) {
	for _, e := range c.entries {
		for _, p := range e.pools {
			C.gs_destroy_pool(d.vk, p)
		}
		e.pools = nil
		e.args.release()
		e.ok = false
	}
}

// newCachedBatch returns a batch that keeps the command buffers it
// records and submits one again for the same recording (see cmdcache.go).
func (d *Device) newCachedBatch() (*Batch, error) {
	b, err := d.NewBatch()
	if err != nil {
		return nil, err
	}
	b.cache = &cmdCache{}
	return b, nil
}

// CommandBuffers returns how many command buffers the batch recorded and
// how many of its submits ran one it had kept, found by its recording
// (both 0 for a batch that does not keep them).
func (b *Batch) CommandBuffers() (recorded, reused int) {
	if b.cache == nil {
		return 0, 0
	}
	return b.cache.recorded, b.cache.reused
}

// submitCached submits the command buffer of b.rec, recorded now unless
// one is kept, after pre (the pending fills, or nil), and waits for it.
func (b *Batch) submitCached(pre C.gs_obj) error {
	d, c := b.d, b.cache
	c.tick++
	for _, e := range c.entries {
		if e.ok && e.rec.equal(&b.rec) {
			e.used, c.last = c.tick, e
			c.reused++
			if err := b.writeArgs(e); err != nil {
				return err
			}
			r := C.gs_resubmit(d.vk, d.queue, pre, e.cmd, b.fence, C.uint64_t(submitTimeout.Nanoseconds()))
			b.ended = r == C.GS_SUCCESS
			if !b.ended {
				e.drop()
			}
			return b.submitted(r)
		}
	}
	e, err := c.take(d)
	if err != nil {
		return err
	}
	e.used, c.last = c.tick, e
	if err := b.writeArgs(e); err != nil {
		return err
	}
	if err := beginCmd(d, e.cmd, e.pools, b.queries, true); err != nil {
		return err
	}
	if err := b.replay(e); err != nil {
		// End the command buffer so that the next recording may begin it.
		C.gs_end_pre(d.vk, e.cmd)
		return err
	}
	c.recorded++
	r := C.gs_submit(d.vk, d.queue, pre, e.cmd, b.fence, b.queries, C.uint64_t(submitTimeout.Nanoseconds()))
	b.ended = r == C.GS_SUCCESS
	if b.ended {
		// Copied, not swapped: each entry's slices and the batch's only
		// grow, so a step allocates nothing once they have. (Swapping
		// them hands the batch a small entry's slices to grow again:
		// settle-1000 allocated 141 KB per step that way, 87 KB so.)
		// The arguments stay with the batch: an entry keeps none.
		e.ok = true
		e.rec.ops = append(e.rec.ops[:0], b.rec.ops...)
		e.rec.data = append(e.rec.data[:0], b.rec.data...)
		e.rec.binds = append(e.rec.binds[:0], b.rec.binds...)
	}
	return b.submitted(r)
}

// take returns an entry to record into: a new one while the cache has
// room, else the one submitted longest ago. It holds nothing that may run.
func (c *cmdCache) take(d *Device) (*cmdEntry, error) {
	var e *cmdEntry
	if len(c.entries) < cacheEntries {
		e = &cmdEntry{}
		if err := check("vkAllocateCommandBuffers", C.gs_allocate_command_buffer(d.vk, d.cmdPool, &e.cmd)); err != nil {
			return nil, err
		}
		c.entries = append(c.entries, e)
	} else {
		e = c.entries[0]
		for _, o := range c.entries[1:] {
			if !o.ok || (e.ok && o.used < e.used) {
				e = o
			}
		}
	}
	e.drop()
	return e, nil
}

// writeArgs writes the arguments slots of b.rec into e's arguments
// buffers.
func (b *Batch) writeArgs(e *cmdEntry) error {
	for i := range len(b.rec.args) / argsSlot {
		if _, _, err := e.args.write(b.d, i, b.rec.args[i*argsSlot:(i+1)*argsSlot]); err != nil {
			return err
		}
	}
	return nil
}

// replay records b.rec into e's command buffer, begun, its dispatches'
// arguments in e's arguments buffers (writeArgs wrote them).
func (b *Batch) replay(e *cmdEntry) error {
	d := b.d
	pool := 0
	r := &b.rec
	for _, o := range r.ops {
		switch {
		case o.k != nil:
			var ab C.gs_nd
			var off int64
			if o.slot >= 0 {
				c := o.slot / argsChunkSlots
				ab, off = e.args.bufs[c].buf, int64(o.slot%argsChunkSlots)*argsSlot
			}
			if err := b.emitDispatch(e.cmd, &e.pools, &pool, o.k, o.groups, ab, off, r.binds[o.binds[0]:o.binds[1]]); err != nil {
				return err
			}
		case o.upd:
			data := r.data[o.data[0]:o.data[1]]
			C.gs_update(d.vk, e.cmd, o.dst.buf, C.uint64_t(o.off), C.uint64_t(len(data)), unsafe.Pointer(&data[0]))
		default:
			emitBarrier(d, e.cmd)
		}
	}
	return nil
}
