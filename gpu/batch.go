//go:build linux && cgo && (amd64 || arm64)

package gpu

/*
#include "vkshim.h"
*/
import "C"

import (
	"fmt"
	"time"
	"unsafe"

	"github.com/gpusim/gpusim/shaders"
)

// Pipeline stages and access bits (VkPipelineStageFlagBits, VkAccessFlagBits).
const (
	stageCompute  = 0x800
	stageTransfer = 0x1000
	accessRead    = 0x20 | 0x800    // shader, transfer
	accessWrite   = 0x40 | 0x1000   // shader, transfer
	submitTimeout = 5 * time.Minute // a submission that takes longer is a lost device
	poolSets      = 128             // descriptor sets per descriptor pool
	poolBuffers   = 8 * poolSets    // storage-buffer descriptors per pool
)

// Batch records dispatches into one command buffer and submits them at
// once. Between two dispatches it inserts a barrier when the second reads a
// buffer the first wrote, or writes one it read or wrote (read-only
// bindings come from the kernel's reflection table); Barrier adds one by
// hand. Buffer contents are read and written when the batch runs, at
// Submit, not when a dispatch is recorded.
//
//	b.Begin()
//	b.Dispatch(axpby, groups, shaders.AxpbyArgs{A: 2, B: 1, N: n}, dst, x, y)
//	b.Dispatch(dot, groups, shaders.DotArgs{N: n}, out, dst, dst) // a barrier goes before this one
//	err := b.Submit()                                             // runs both and waits
type Batch struct {
	d          *Device
	cmd        C.gs_obj
	fence      C.gs_nd
	queries    C.gs_nd // 0: no timestamps
	pools      []C.gs_nd
	pool       int // the pool in use
	recording  bool
	reusable   bool   // begun by BeginReusable
	ended      bool   // submitted, and not begun since: Resubmit may run it again
	gen        uint64 // Begins so far
	dispatches int
	barriers   int
	gpuTime    time.Duration
	// buffers written and read since the last barrier
	written, read map[*Buffer]struct{}
	// scratch for gs_dispatch
	bufs          []C.gs_nd
	offsets, rngs []uint64
	push          []byte
	binds         []binding
	slot          []byte

	// The arguments of the dispatches recorded into cmd since Begin
	// (args.go): nargs slots of args.
	args  argsArena
	nargs int

	// A cached batch (Device.newCachedBatch) records into rec instead of
	// cmd and keeps the command buffers it recorded (cmdcache.go).
	cache *cmdCache
	rec   recording
}

// NewBatch returns a batch. It is released by Release or Device.Close.
func (d *Device) NewBatch() (*Batch, error) {
	d.usable()
	b := &Batch{d: d, written: map[*Buffer]struct{}{}, read: map[*Buffer]struct{}{}}
	if err := check("vkAllocateCommandBuffers", C.gs_allocate_command_buffer(d.vk, d.cmdPool, &b.cmd)); err != nil {
		return nil, err
	}
	d.batches[b] = struct{}{}
	if err := check("vkCreateFence", C.gs_create_fence(d.vk, &b.fence)); err != nil {
		b.release()
		return nil, err
	}
	if d.Info.Timestamps {
		if err := check("vkCreateQueryPool", C.gs_create_timestamps(d.vk, &b.queries)); err != nil {
			b.release()
			return nil, err
		}
	}
	return b, nil
}

// release destroys the batch's objects; its command buffer goes with the
// device's command pool.
func (b *Batch) release() {
	d := b.d
	for _, p := range b.pools {
		C.gs_destroy_pool(d.vk, p)
	}
	b.pools = nil
	b.args.release()
	if b.cache != nil {
		b.cache.release(d)
	}
	if b.queries != 0 {
		C.gs_destroy_timestamps(d.vk, b.queries)
		b.queries = 0
	}
	if b.fence != 0 {
		C.gs_destroy_fence(d.vk, b.fence)
		b.fence = 0
	}
	delete(d.batches, b)
}

// Release frees the batch. It must not be recording.
func (b *Batch) Release() {
	if b.d.closed {
		return
	}
	if b.recording {
		panic("gpu: Release of a recording Batch")
	}
	b.release()
}

// Begin starts recording.
func (b *Batch) Begin() error { return b.begin(false) }

// BeginReusable starts recording a batch that Resubmit may run again
// after its Submit, until the next Begin: the recorded work, with the
// buffers, arguments and workgroups it was recorded with.
func (b *Batch) BeginReusable() error { return b.begin(true) }

// Generation counts the batch's Begins: a recording that Resubmit would
// run is that of the generation its caller saw.
func (b *Batch) Generation() uint64 { return b.gen }

// Resubmittable reports whether Resubmit may run the last recording.
func (b *Batch) Resubmittable() bool { return b.reusable && b.ended && !b.recording }

func (b *Batch) begin(reusable bool) error {
	b.d.usable()
	if b.recording {
		panic("gpu: Begin on a Batch that is recording")
	}
	if b.fence == 0 {
		panic("gpu: use of a released Batch")
	}
	if b.d.lost != nil {
		return b.d.lost
	}
	b.ended = false
	b.gen++
	if b.cache != nil {
		// Recorded into rec; Submit finds or records its command buffer.
		b.rec.reset()
	} else if err := beginCmd(b.d, b.cmd, b.pools, b.queries, reusable); err != nil {
		return err
	}
	b.nargs = 0
	b.pool = 0
	b.reusable = reusable
	b.recording = true
	b.dispatches, b.barriers = 0, 0
	clear(b.written)
	clear(b.read)
	return nil
}

// Recording reports whether the batch is between Begin and Submit.
func (b *Batch) Recording() bool { return b.recording }

// Dispatches returns the number of dispatches recorded since Begin.
func (b *Batch) Dispatches() int { return b.dispatches }

// Barriers returns the number of barriers recorded since Begin.
func (b *Batch) Barriers() int { return b.barriers }

// Dispatch records k over groups workgroups with the arguments args
// (the kernel's own shaders.NAMEArgs, written with groups into an
// arguments buffer, args.go; nil for a kernel without
// arguments) and bufs bound to the kernel's bindings in order. A dispatch
// with a zero group count records nothing. Wrong arguments, the args of
// another kernel among them, are programmer errors and panic.
func (b *Batch) Dispatch(k *Kernel, groups [3]uint32, args shaders.Args, bufs ...*Buffer) error {
	d := b.d
	if !b.recording {
		panic("gpu: Dispatch on a Batch that is not recording (call Begin)")
	}
	if k.d != d || k.k == nil {
		panic(fmt.Sprintf("gpu: Dispatch: kernel %s is released or of another device", k.m.Name))
	}
	if len(bufs) != len(k.readOnly) {
		panic(fmt.Sprintf("gpu: Dispatch %s: %d buffers for %d bindings", k.m.Name, len(bufs), len(k.readOnly)))
	}
	b.push = b.push[:0]
	if args != nil {
		if args.Kernel() != k.m.Source {
			panic(fmt.Sprintf("gpu: Dispatch %s: arguments %T are kernel %s's", k.m.Name, args, args.Kernel()))
		}
		b.push = args.AppendPush(b.push)
	}
	if len(b.push) != int(k.m.PushSize) {
		panic(fmt.Sprintf("gpu: Dispatch %s: %d bytes of arguments (%T), want %d", k.m.Name, len(b.push), args, k.m.PushSize))
	}
	for i, g := range groups {
		if g > d.Info.MaxWorkgroupCount[i] {
			panic(fmt.Sprintf("gpu: Dispatch %s: %v workgroups exceed the device's maximum %v", k.m.Name, groups, d.Info.MaxWorkgroupCount))
		}
	}
	for i, buf := range bufs {
		if buf == nil || buf.d != d || buf.staging {
			panic(fmt.Sprintf("gpu: Dispatch %s: buffer %d is nil, of another device or not a storage buffer", k.m.Name, i))
		}
		buf.live()
	}
	k, err := k.forBuffers(bufs)
	if err != nil {
		return err
	}
	for i, buf := range bufs {
		if err := k.bindable(i, buf); err != nil {
			return err
		}
	}
	if groups[0] == 0 || groups[1] == 0 || groups[2] == 0 {
		return nil
	}
	hazard := false
	for i, buf := range bufs {
		_, w := b.written[buf]
		_, r := b.read[buf]
		if w || (!k.readOnly[i] && r) {
			hazard = true
		}
	}
	if hazard {
		b.Barrier()
	}
	b.slot = b.slot[:0]
	if k.m.PushSize > 0 {
		b.slot = argsSlotBytes(b.slot, b.push, groups)
	}
	if b.cache != nil {
		b.rec.dispatch(k, groups, bufs, b.slot)
	} else {
		b.binds = b.binds[:0]
		for _, buf := range bufs {
			b.binds = append(b.binds, buf.binding())
		}
		var ab C.gs_nd
		var off int64
		if len(b.slot) > 0 {
			abuf, o, err := b.args.write(d, b.nargs, b.slot)
			if err != nil {
				return err
			}
			b.nargs++
			ab, off = abuf.buf, o
		}
		if err := b.emitDispatch(b.cmd, &b.pools, &b.pool, k, groups, ab, off, b.binds); err != nil {
			return err
		}
	}
	for i, buf := range bufs {
		if k.readOnly[i] {
			b.read[buf] = struct{}{}
		} else {
			b.written[buf] = struct{}{}
		}
	}
	b.dispatches++
	return nil
}

// emitDispatch records into cmd the dispatch of k with the bindings
// binds, in a descriptor set from pools (pool is the one in use; a new one
// is made when all are full): over the workgroups and with the arguments
// of the slot of the arguments buffer args at byte off for a kernel with
// arguments, else over groups.
func (b *Batch) emitDispatch(cmd C.gs_obj, pools *[]C.gs_nd, pool *int, k *Kernel, groups [3]uint32, args C.gs_nd, off int64, binds []binding) error {
	d := b.d
	t0 := time.Now()
	defer func() { d.recorded.dispatches++; d.recorded.host += time.Since(t0) }()
	b.bufs, b.offsets, b.rngs = b.bufs[:0], b.offsets[:0], b.rngs[:0]
	for i, bd := range binds {
		if !k.windowed[i] {
			b.bufs = append(b.bufs, bd.buf)
			b.offsets = append(b.offsets, 0)
			b.rngs = append(b.rngs, bd.rng)
			continue
		}
		for range windows {
			b.bufs = append(b.bufs, bd.buf)
		}
		b.offsets, b.rngs = appendWindows(b.offsets, b.rngs, bd, k.windowLog2)
	}
	var bp, tp *C.uint32_t
	var hp *C.gs_nd
	var op, rp *C.uint64_t
	if len(b.bufs) > 0 {
		bp = (*C.uint32_t)(unsafe.Pointer(&k.bindings[0]))
		tp = (*C.uint32_t)(unsafe.Pointer(&k.types[0]))
		hp = &b.bufs[0]
		op = (*C.uint64_t)(unsafe.Pointer(&b.offsets[0]))
		rp = (*C.uint64_t)(unsafe.Pointer(&b.rngs[0]))
	}
	for {
		fresh := *pool == len(*pools)
		if fresh {
			var p C.gs_nd
			if err := check("vkCreateDescriptorPool", C.gs_create_pool(d.vk, poolSets, poolBuffers, poolSets, &p)); err != nil {
				return err
			}
			*pools = append(*pools, p)
		}
		r := C.gs_dispatch(d.vk, cmd, (*pools)[*pool], k.k, C.uint32_t(len(b.bufs)), bp, tp, hp, op, rp, args, C.uint64_t(off),
			C.uint32_t(groups[0]), C.uint32_t(groups[1]), C.uint32_t(groups[2]))
		if (r == C.GS_ERROR_OUT_OF_POOL_MEMORY || r == C.GS_ERROR_FRAGMENTED_POOL) && !fresh {
			*pool++
			continue
		}
		return check("dispatch "+k.m.Name, r)
	}
}

// beginCmd resets the descriptor pools of cmd's sets and begins cmd (for
// one submission, or several when reusable), with the timestamp queries
// when not 0.
func beginCmd(d *Device, cmd C.gs_obj, pools []C.gs_nd, queries C.gs_nd, reusable bool) error {
	for _, p := range pools {
		if err := check("vkResetDescriptorPool", C.gs_reset_pool(d.vk, p)); err != nil {
			return err
		}
	}
	ru := C.uint32_t(0)
	if reusable {
		ru = 1
	}
	return check("vkBeginCommandBuffer", C.gs_begin(d.vk, cmd, queries, ru))
}

// maxUpdate is the most bytes one Update may write (vkCmdUpdateBuffer's
// limit).
const maxUpdate = 65536

// Update records a write of data into buf at byte offset off, in order
// with the recorded dispatches: unlike Buffer.Write, which changes the
// buffer at once, the bytes are copied into the command buffer now and
// land in buf when the batch runs, after the dispatches recorded before
// (a barrier goes before it when one of them used buf) and before those
// recorded after (which get a barrier when they use buf). off and
// len(data) must be multiples of 4, len(data) at most 65536, and the
// range within the buffer; anything else is a programmer error and
// panics.
func (b *Batch) Update(buf *Buffer, off int64, data []byte) {
	if !b.recording {
		panic("gpu: Update on a Batch that is not recording (call Begin)")
	}
	if buf == nil || buf.d != b.d || buf.staging {
		panic("gpu: Update: buffer is nil, of another device or not a storage buffer")
	}
	buf.live()
	n := int64(len(data))
	if off < 0 || off%4 != 0 || n%4 != 0 || n > maxUpdate || off+n > buf.capacity {
		panic(fmt.Sprintf("gpu: Update of %d bytes at offset %d of a buffer of %d bytes (want multiples of 4, at most %d bytes, within the buffer)",
			n, off, buf.capacity, maxUpdate))
	}
	if n == 0 {
		return
	}
	_, w := b.written[buf]
	_, r := b.read[buf]
	if w || r {
		b.Barrier()
	}
	if b.cache != nil {
		b.rec.update(buf.binding(), off, data)
	} else {
		C.gs_update(b.d.vk, b.cmd, buf.buf, C.uint64_t(off), C.uint64_t(n), unsafe.Pointer(&data[0]))
	}
	b.written[buf] = struct{}{}
}

// Barrier records a barrier: every dispatch and copy recorded after it sees
// the writes of those before it.
func (b *Batch) Barrier() {
	if !b.recording {
		panic("gpu: Barrier on a Batch that is not recording")
	}
	if b.cache != nil {
		b.rec.barrier()
	} else {
		emitBarrier(b.d, b.cmd)
	}
	b.barriers++
	clear(b.written)
	clear(b.read)
}

// emitBarrier records into cmd a barrier after which every dispatch and
// copy sees the writes of those before it.
func emitBarrier(d *Device, cmd C.gs_obj) {
	C.gs_barrier(d.vk, cmd, stageCompute|stageTransfer, accessWrite, stageCompute|stageTransfer, accessRead|accessWrite)
}

// Submit ends recording, submits the batch and waits for it to finish.
func (b *Batch) Submit() error {
	d := b.d
	if !b.recording {
		panic("gpu: Submit on a Batch that is not recording")
	}
	b.recording = false
	pre, err := d.takeFills()
	if err != nil {
		return err
	}
	if b.cache != nil {
		return b.submitCached(pre)
	}
	r := C.gs_submit(d.vk, d.queue, pre, b.cmd, b.fence, b.queries, C.uint64_t(submitTimeout.Nanoseconds()))
	b.ended = r == C.GS_SUCCESS
	return b.submitted(r)
}

// Resubmit runs the batch's last recording again (begun with
// BeginReusable, submitted, not begun since) and waits for it to finish:
// the host records nothing. It panics otherwise.
func (b *Batch) Resubmit() error {
	d := b.d
	if !b.Resubmittable() {
		panic("gpu: Resubmit of a Batch that is recording, not reusable or not submitted")
	}
	if d.lost != nil {
		return d.lost
	}
	pre, err := d.takeFills()
	if err != nil {
		return err
	}
	cmd := b.cmd
	if c := b.cache; c != nil {
		c.tick++
		c.last.used = c.tick
		cmd = c.last.cmd
	}
	r := C.gs_resubmit(d.vk, d.queue, pre, cmd, b.fence, C.uint64_t(submitTimeout.Nanoseconds()))
	if r != C.GS_SUCCESS {
		b.ended = false
		if b.cache != nil {
			b.cache.last.drop()
		}
	}
	return b.submitted(r)
}

// submitted accounts for a submission that returned r and reads its
// timestamps and the validation messages.
func (b *Batch) submitted(r C.int32_t) error {
	d := b.d
	d.submits++
	if r == C.GS_TIMEOUT {
		d.lost = fmt.Errorf("gpu: submit: %w: no completion after %v", ErrDeviceLost, submitTimeout)
		return d.lost
	}
	if err := check("submit", r); err != nil {
		if r == C.GS_ERROR_DEVICE_LOST {
			d.lost = err
		}
		return err
	}
	b.gpuTime = 0
	if b.queries != 0 {
		var ts [2]C.uint64_t
		if err := check("vkGetQueryPoolResults", C.gs_timestamps(d.vk, b.queries, &ts[0])); err != nil {
			return err
		}
		b.gpuTime = time.Duration(float64(ts[1]-ts[0]) * float64(d.Info.TimestampPeriod))
	}
	return d.log.takeErrors("submit")
}

// GPUTime returns the device time of the last submitted batch, from
// timestamp queries (0 where the device has none).
func (b *Batch) GPUTime() time.Duration { return b.gpuTime }
