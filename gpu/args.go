//go:build linux && cgo && (amd64 || arm64)

package gpu

/*
#include "vkshim.h"
*/
import "C"

import (
	"encoding/binary"
	"unsafe"
)

// A kernel takes its arguments (its shaders.NAMEArgs, PushSize bytes) not
// in push constants but in a read-only storage buffer block at binding
// spirv.ArgsBinding, and its workgroup counts from the same memory by an
// indirect dispatch: each dispatch of a command buffer has a slot of
// argsSlot bytes in an arguments buffer, the arguments at its start and the
// three counts at argsGroups, which the host writes before it submits. So
// a command buffer recorded once runs again with other arguments and
// counts (cmdcache.go): the contact count of a time step, which sizes
// most dispatches and is an argument of most kernels, changes from step to
// step without a new recording.
const (
	argsSlot       = C.GS_ARGS_SLOT   // bytes per dispatch: Vulkan's largest minStorageBufferOffsetAlignment
	argsGroups     = C.GS_ARGS_GROUPS // the workgroup counts' offset in a slot
	argsChunkSlots = 256              // slots per buffer of an argsArena (64 KiB)
)

// argsSlotBytes appends to dst the slot of a dispatch with the arguments
// push over groups.
func argsSlotBytes(dst, push []byte, groups [3]uint32) []byte {
	n := len(dst)
	dst = append(dst, make([]byte, argsSlot)...)
	s := dst[n:]
	copy(s, push)
	for i, g := range groups {
		binary.LittleEndian.PutUint32(s[argsGroups+4*i:], g)
	}
	return dst
}

// argsArena is the arguments buffers of a command buffer: slot i is at
// byte argsSlot·(i mod argsChunkSlots) of buffer i / argsChunkSlots. The
// buffers are host-visible and only added to, so a slot's buffer and
// offset stay what a recorded command buffer binds.
type argsArena struct {
	bufs []*Buffer
}

// write writes the slot bytes s (argsSlot bytes) into slot i, adding a
// buffer when i is beyond them, and returns the slot's buffer and offset.
func (a *argsArena) write(d *Device, i int, s []byte) (*Buffer, int64, error) {
	c := i / argsChunkSlots
	for len(a.bufs) <= c {
		b, err := d.newArgsBuffer(argsSlot * argsChunkSlots)
		if err != nil {
			return nil, 0, err
		}
		a.bufs = append(a.bufs, b)
	}
	b, off := a.bufs[c], int64(i%argsChunkSlots)*argsSlot
	copy(unsafe.Slice((*byte)(b.mapped), b.capacity)[off:off+argsSlot], s)
	return b, off, nil
}

// release frees the arena's buffers.
func (a *argsArena) release() {
	for _, b := range a.bufs {
		b.Release()
	}
	a.bufs = nil
}
