//go:build linux && cgo && (amd64 || arm64)

package gpu

/*
#include "vkshim.h"
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// Buffer usage bits (VkBufferUsageFlagBits).
const (
	usageTransferSrc = 0x1
	usageTransferDst = 0x2
	usageStorage     = 0x20
	usageIndirect    = 0x100
)

const (
	// bufferAlign is the granularity of buffer capacities: a multiple of
	// 4 as vkCmdFillBuffer needs, and of every float64 / uvec4 element.
	bufferAlign = 256
	// stagingChunk bounds the staging buffer: larger transfers go in
	// pieces, one submit each.
	stagingChunk = 16 << 20
)

// Buffer is a storage buffer: an array of float64 or uint32 on the device.
// Its first Size bytes are what kernels see; it is zeroed when created and
// where it grows. Release it when done, or leave it to Device.Close.
type Buffer struct {
	d        *Device
	buf      C.gs_nd
	mem      C.gs_nd
	id       uint64         // the allocation's number on its device, never used again (cached batches)
	size     int64          // bytes bound to kernels
	capacity int64          // bytes allocated
	mapped   unsafe.Pointer // host address of a host-visible buffer
	host     bool           // host-visible even where memory is not unified
	staging  bool           // the device's staging buffer (host-visible, no storage use)
	args     bool           // an arguments buffer (args.go): host-visible, also for indirect dispatches
	// exact: kernels see the first Size bytes, for a kernel that reads
	// the buffer's length; others see the whole capacity (binding).
	exact bool
	// windowed: kernels bind it in windows (window.go), so it may pass
	// maxStorageBufferRange.
	windowed bool
	// arms: the contacts' Jacobian holding n, u, ρ_A and ρ_B per contact
	// (lib/jac.glsl's JAC_ARMS; Backend.footprint.Arms): the kernels that
	// bind it take that specialization (Kernel.forBuffers).
	arms bool
	// fillPending: a fill of b waits in the device's fill batch (zero).
	fillPending bool
}

// NewBuffer returns a zeroed buffer of size bytes.
func (d *Device) NewBuffer(size int64) (*Buffer, error) { return d.newBuffer(size, Buffer{}) }

// NewHostBuffer returns a zeroed buffer of size bytes in host-visible
// memory on every device: reads and writes are plain copies, and kernels
// reach it across the bus on a discrete GPU. It suits small results read
// after every batch, such as the scalar of a dot product.
func (d *Device) NewHostBuffer(size int64) (*Buffer, error) {
	return d.newBuffer(size, Buffer{host: true})
}

// newBuffer returns a zeroed buffer of size bytes of the kind that kind's
// host and args say.
func (d *Device) newBuffer(size int64, kind Buffer) (*Buffer, error) {
	d.usable()
	if size < 0 {
		panic(fmt.Sprintf("gpu: NewBuffer(%d): negative size", size))
	}
	b := &Buffer{d: d, host: kind.host, args: kind.args, windowed: kind.windowed}
	if size > b.maxBytes() {
		return nil, b.tooLarge(size)
	}
	if err := b.allocate(size); err != nil {
		return nil, err
	}
	d.buffers[b] = struct{}{}
	if err := b.zero(0, b.capacity); err != nil {
		b.Release()
		return nil, err
	}
	return b, nil
}

// newArgsBuffer returns a zeroed host-visible buffer of size bytes that
// holds kernels' arguments and workgroup counts (args.go).
func (d *Device) newArgsBuffer(size int64) (*Buffer, error) {
	return d.newBuffer(size, Buffer{host: true, args: true})
}

// NewFloat64 returns a zeroed buffer of n float64.
func (d *Device) NewFloat64(n int) (*Buffer, error) { return d.NewBuffer(8 * int64(n)) }

// allocate makes b's Vulkan buffer and memory, with room for size bytes.
func (b *Buffer) allocate(size int64) error {
	d := b.d
	capacity := max(bufferAlign, (size+bufferAlign-1)/bufferAlign*bufferAlign)
	usage := C.uint32_t(usageTransferSrc | usageTransferDst)
	if !b.staging {
		usage |= usageStorage
	}
	if b.args {
		usage |= usageIndirect
	}
	if lim := d.memLimit; lim > 0 && !b.staging && d.limitedBytes()+capacity > lim {
		return fmt.Errorf("gpu: allocate %d bytes: %w (%d bytes in use, Options.MemoryLimit %d bytes)", capacity, ErrOutOfMemory, d.limitedBytes(), lim)
	}
	var buf C.gs_nd
	var memSize C.uint64_t
	var memTypes C.uint32_t
	if err := check("vkCreateBuffer", C.gs_create_buffer(d.vk, C.uint64_t(capacity), usage, &buf, &memSize, &memTypes)); err != nil {
		return err
	}
	hostVisible := b.staging || b.host || d.unified
	var required, preferred uint32
	switch {
	case b.staging:
		required, preferred = memHostVisible|memHostCoherent, memHostCached
	case hostVisible:
		required, preferred = memHostVisible|memHostCoherent, memDeviceLocal
	default:
		required = memDeviceLocal
	}
	t := chooseMemory(d.memory, uint32(memTypes), required, preferred)
	if t < 0 {
		C.gs_destroy_buffer(d.vk, buf)
		return fmt.Errorf("gpu: no memory type with flags %#x for a buffer", required)
	}
	var mem C.gs_nd
	var mapped unsafe.Pointer
	mp := &mapped
	if !hostVisible {
		mp = nil
	}
	if err := check("vkAllocateMemory", C.gs_allocate(d.vk, buf, memSize, C.uint32_t(t), &mem, mp)); err != nil {
		C.gs_destroy_buffer(d.vk, buf)
		return fmt.Errorf("%w (%d bytes)", err, int64(memSize))
	}
	b.buf, b.mem, b.mapped = buf, mem, mapped
	b.size, b.capacity = size, capacity
	d.allocations++
	b.id = d.allocations
	return nil
}

// chooseMemory returns the memory type allowed by bits with every required
// flag and the most preferred ones (the lowest index among equals), or -1.
func chooseMemory(mem []memoryType, bits, required, preferred uint32) int {
	best, bestScore := -1, -1
	for i, t := range mem {
		if bits&(1<<i) == 0 || t.flags&required != required {
			continue
		}
		score := 0
		for p := preferred; p != 0; p &= p - 1 {
			if t.flags&(p&-p) != 0 {
				score++
			}
		}
		if score > bestScore {
			best, bestScore = i, score
		}
	}
	return best
}

// free releases the Vulkan objects of b.
func (b *Buffer) free() {
	if b.fillPending {
		// A command buffer recorded with b must run before b goes; a
		// failure leaves the device lost, which Close handles.
		_ = b.d.flushFills()
	}
	if b.buf != 0 {
		C.gs_destroy_buffer(b.d.vk, b.buf)
		C.gs_free(b.d.vk, b.mem)
		b.buf, b.mem, b.mapped = 0, 0, nil
	}
}

// release frees b; Device.Close calls it.
func (b *Buffer) release() {
	b.free()
	delete(b.d.buffers, b)
}

// Release frees the buffer. It must not be in a batch that has not been
// submitted; releasing twice is harmless.
func (b *Buffer) Release() {
	if b.d.closed {
		return
	}
	b.release()
}

// Size returns the size in bytes that kernels see.
func (b *Buffer) Size() int64 { return b.size }

// Len returns the number of float64 elements, Size/8.
func (b *Buffer) Len() int { return int(b.size / 8) }

func (b *Buffer) live() {
	b.d.usable()
	if b.buf == 0 {
		panic("gpu: use of a released Buffer")
	}
}

// Grow makes the buffer at least size bytes, keeping its contents and
// zeroing the new part. It reallocates (a larger Vulkan buffer, the old
// contents copied over) when the capacity is short, to size or an eighth
// more than the old capacity, whichever is larger (at most six
// reallocations per doubling of a size that creeps up, as cpuref's roomy;
// half more until 2026-11-29, which held up to a third of a grown buffer
// unused), so it must not be called while the buffer is in a batch that
// has not been submitted.
func (b *Buffer) Grow(size int64) error { return b.grow(size, true) }

// GrowDiscard makes the buffer at least size bytes as Grow does, but
// without keeping its contents when it reallocates: the new buffer is
// zeroed by the device's fill batch, which costs no submit of its own,
// where Grow copies the old contents over in a submit. It is for buffers
// that are written whole before they are read (the Jacobian and r,
// rebuilt every step).
func (b *Buffer) GrowDiscard(size int64) error { return b.grow(size, false) }

func (b *Buffer) grow(size int64, keep bool) error {
	b.live()
	if size <= b.size {
		return nil
	}
	if size > b.maxBytes() {
		return b.tooLarge(size)
	}
	if size <= b.capacity {
		b.size = size
		return nil
	}
	old := *b
	// An eighth of headroom, within what the buffer may take (a capacity
	// is bound whole).
	room := min(max(size, old.capacity+old.capacity/8), b.maxBytes()/bufferAlign*bufferAlign)
	if err := b.allocate(max(size, room)); err != nil {
		*b = old
		return err
	}
	b.size = size
	if !keep {
		old.free()
		return b.zero(0, b.capacity)
	}
	err := b.d.transfer(func(x *Batch) {
		C.gs_copy(b.d.vk, x.cmd, old.buf, 0, b.buf, 0, C.uint64_t(old.capacity))
		C.gs_fill(b.d.vk, x.cmd, b.buf, C.uint64_t(old.capacity), C.uint64_t(b.capacity-old.capacity), 0)
	})
	old.free()
	return err
}

// zero clears bytes [off, off+n) of the allocation (multiples of 4). A
// buffer the host cannot map is cleared by a fill recorded into the
// device's fill batch, which the next submit of any batch submits first
// (takeFills): a new buffer costs no submit of its own, and every later
// use of it, which reaches the device only through a submit, sees it
// zeroed.
func (b *Buffer) zero(off, n int64) error {
	if b.mapped != nil {
		clear(unsafe.Slice((*byte)(unsafe.Add(b.mapped, off)), n))
		return nil
	}
	d := b.d
	if !d.fill.recording {
		if err := d.fill.Begin(); err != nil {
			return err
		}
	}
	C.gs_fill(d.vk, d.fill.cmd, b.buf, C.uint64_t(off), C.uint64_t(n), 0)
	b.fillPending = true
	d.fillPending = append(d.fillPending, b)
	return nil
}

// takeFills ends the fill batch, if it holds fills, and returns its
// command buffer for the next submit to run first (nil: none).
func (d *Device) takeFills() (C.gs_obj, error) {
	if !d.fill.recording {
		return nil, nil
	}
	d.fill.recording = false
	for _, b := range d.fillPending {
		b.fillPending = false
	}
	d.fillPending = d.fillPending[:0]
	if err := check("vkEndCommandBuffer", C.gs_end_pre(d.vk, d.fill.cmd)); err != nil {
		return nil, err
	}
	return d.fill.cmd, nil
}

// flushFills submits the pending fills on their own (before a buffer they
// clear is destroyed).
func (d *Device) flushFills() error {
	if !d.fill.recording {
		return nil
	}
	if err := d.xfer.Begin(); err != nil {
		return err
	}
	return d.xfer.Submit()
}

// transfer records fn into the device's transfer batch and submits it.
func (d *Device) transfer(fn func(x *Batch)) error {
	d.transfers++
	if err := d.xfer.Begin(); err != nil {
		return err
	}
	fn(d.xfer)
	return d.xfer.Submit()
}

// bytesOf views a slice of float64, float32 or uint32 as bytes.
func bytesOf[T float64 | float32 | uint32](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(s[0])))
}

// WriteFloat64 copies src into the buffer from element off on.
func (b *Buffer) WriteFloat64(off int, src []float64) error {
	return b.write(8*int64(off), bytesOf(src))
}

// ReadFloat64 copies the buffer from element off on into dst.
func (b *Buffer) ReadFloat64(dst []float64, off int) error {
	return b.read(bytesOf(dst), 8*int64(off))
}

// WriteFloat32 copies src into the buffer from element off on.
func (b *Buffer) WriteFloat32(off int, src []float32) error {
	return b.write(4*int64(off), bytesOf(src))
}

// ReadFloat32 copies the buffer from element off on into dst.
func (b *Buffer) ReadFloat32(dst []float32, off int) error {
	return b.read(bytesOf(dst), 4*int64(off))
}

// WriteUint32 copies src into the buffer from element off on.
func (b *Buffer) WriteUint32(off int, src []uint32) error {
	return b.write(4*int64(off), bytesOf(src))
}

// ReadUint32 copies the buffer from element off on into dst.
func (b *Buffer) ReadUint32(dst []uint32, off int) error {
	return b.read(bytesOf(dst), 4*int64(off))
}

func (b *Buffer) bounds(op string, off, n int64) error {
	if off < 0 || n > b.size-off {
		return fmt.Errorf("gpu: %s of %d bytes at offset %d overflows a buffer of %d bytes", op, n, off, b.size)
	}
	return nil
}

// write copies src into bytes [off, off+len(src)).
func (b *Buffer) write(off int64, src []byte) error { return b.move("write", off, src) }

// read copies bytes [off, off+len(dst)) into dst.
func (b *Buffer) read(dst []byte, off int64) error { return b.move("read", off, dst) }

// move copies host into bytes [off, off+len(host)) of b (op "write") or
// those bytes into host (op "read"). A host-visible buffer is accessed in
// place; any other goes through the staging buffer, stagingChunk bytes at
// a time.
func (b *Buffer) move(op string, off int64, host []byte) error {
	b.live()
	n := int64(len(host))
	if err := b.bounds(op, off, n); err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	toDevice := op == "write"
	if !toDevice {
		b.d.readBack += n
	}
	if b.mapped != nil {
		dev := unsafe.Slice((*byte)(unsafe.Add(b.mapped, off)), n)
		if toDevice {
			copy(dev, host)
		} else {
			copy(host, dev)
		}
		return nil
	}
	for done := int64(0); done < n; {
		c := min(n-done, stagingChunk)
		st, err := b.d.stagingBuffer(c)
		if err != nil {
			return err
		}
		stage, part := unsafe.Slice((*byte)(st.mapped), c), host[done:done+c]
		src, srcOff, dst, dstOff := b.buf, C.uint64_t(off+done), st.buf, C.uint64_t(0)
		if toDevice {
			copy(stage, part)
			src, srcOff, dst, dstOff = dst, dstOff, src, srcOff
		}
		if err := b.d.transfer(func(x *Batch) {
			C.gs_copy(b.d.vk, x.cmd, src, srcOff, dst, dstOff, C.uint64_t(c))
		}); err != nil {
			return err
		}
		if !toDevice {
			copy(part, stage)
		}
		done += c
	}
	return nil
}

// stagingBuffer returns the device's staging buffer with room for n bytes.
func (d *Device) stagingBuffer(n int64) (*Buffer, error) {
	if d.staging != nil && d.staging.capacity >= n {
		return d.staging, nil
	}
	if d.staging != nil {
		d.staging.release()
		d.staging = nil
	}
	st := &Buffer{d: d, staging: true}
	if err := st.allocate(max(n, 1<<20)); err != nil {
		return nil, err
	}
	d.buffers[st] = struct{}{}
	d.staging = st
	return st, nil
}
