//go:build linux && cgo && (amd64 || arm64)

package gpu

import (
	"fmt"

	"github.com/gpusim/gpusim/shaders"
)

// setWindowLog2 sets the size of the windows that kernels bind from now
// on (2^log2 bytes, at most the device's maxStorageBufferRange): for
// tests, which bind small buffers in windows this way.
func (d *Device) setWindowLog2(log2 uint32) {
	if log2 < minWindowLog2 || log2 > windowLog2For(d.Info.MaxStorageBufferRange) {
		panic(fmt.Sprintf("gpu: setWindowLog2(%d): want %d to %d for %s", log2, minWindowLog2, windowLog2For(d.Info.MaxStorageBufferRange), d.Info.Name))
	}
	d.windowLog2 = log2
}

// forBuffers returns the kernel of k's module and specialization for the
// windows that bufs reach at their bindings in windows, and for the
// layout of the contacts' Jacobian among them (Buffer.arms; k itself
// when they are k's, or when it has no such bindings), building it on
// first use. It runs at every dispatch, without allocating.
func (k *Kernel) forBuffers(bufs []*Buffer) (*Kernel, error) {
	if k.windowsUsed == 0 {
		return k, nil
	}
	d := k.d
	used, arms := uint32(1), uint32(0)
	for i, buf := range bufs {
		if k.windowed[i] {
			n := (int64(buf.binding().rng) + (1 << d.windowLog2) - 1) >> d.windowLog2
			used = max(used, uint32(min(n, windows)))
			if buf.arms {
				arms = 1
			}
		}
	}
	if used == k.windowsUsed && arms == k.arms && k.windowLog2 == d.windowLog2 {
		return k, nil
	}
	// Kept on k, so that a dispatch finds it without d.kernel's key.
	if v := k.variants[arms][used]; v != nil && v.k != nil && v.windowLog2 == d.windowLog2 {
		return v, nil
	}
	v, err := d.kernel(k.m, k.spec, used, arms)
	if err != nil {
		return nil, err
	}
	k.variants[arms][used] = v
	return v, nil
}

// windowed reports whether module m binds a buffer in windows.
func windowed(m shaders.Module) bool {
	for _, b := range m.Bindings {
		if len(b.Windows) > 0 {
			return true
		}
	}
	return false
}

// maxBytes is the largest size b may take: windows·2^windowLog2 for a
// buffer bound in windows, maxStorageBufferRange for others, and no
// limit for the staging buffer (never bound).
func (b *Buffer) maxBytes() int64 {
	switch {
	case b.staging:
		return 1<<63 - 1
	case b.windowed:
		return windows << b.d.windowLog2
	}
	return int64(b.d.Info.MaxStorageBufferRange)
}

// tooLarge is the error for a buffer of size bytes past b.maxBytes(): an
// ErrOutOfMemory, so that --backend auto takes the CPU path for a model
// that needs it at load.
func (b *Buffer) tooLarge(size int64) error {
	if b.windowed {
		return fmt.Errorf("gpu: buffer of %d bytes exceeds its %d windows of %d bytes (the device's maxStorageBufferRange is %d bytes): %w (use --backend cpu)",
			size, windows, int64(1)<<b.d.windowLog2, b.d.Info.MaxStorageBufferRange, ErrOutOfMemory)
	}
	return fmt.Errorf("gpu: buffer of %d bytes exceeds the device's maxStorageBufferRange (%d bytes): %w (use --backend cpu)",
		size, b.d.Info.MaxStorageBufferRange, ErrOutOfMemory)
}

// appendWindows appends to offs and rngs the ranges of the binding bd as
// windows of 2^log2 bytes: window w from w·2^log2, at most 2^log2 long;
// a window past the binding's end binds its first window again (no kernel
// reads it).
func appendWindows(offs, rngs []uint64, bd binding, log2 uint32) ([]uint64, []uint64) {
	size := uint64(1) << log2
	for w := range uint64(windows) {
		off := w * size
		if off >= bd.rng {
			off = 0
		}
		offs = append(offs, uint64(off))
		rngs = append(rngs, uint64(min(size, bd.rng-off)))
	}
	return offs, rngs
}
