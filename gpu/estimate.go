package gpu

import (
	"fmt"
	"math/bits"
)

// EstimateBytes estimates the device memory (Device.MemoryBytes: the sum
// of buffer capacities) that the backend holds for a model of bodies
// bodies once a step has found contacts contacts, so that a run too large
// for the device can be refused before it starts. It follows the buffer
// sizes of Load, loadCollider, growCollider and growSolver (the sizes
// there are the reference; this file carries no build tag, so the
// constants are restated):
//
//   - per body: the body buffers of Load (36 float64 and 2 uint32: 288
//     B), loadCollider's per-body buffers (shape 40, mat 16, box 64,
//     planeN 24, cell 16, specialOff, special, adjCursor, pairOff 4 each,
//     16 candidates of 4 B: 240 B) and the binning slots (8 B per slot, a
//     power of two ≥ 2·bodies);
//   - per unit of capacity: the collider starts with room for 8·bodies+64
//     entries (4 B), pairs (56 B: pairA, pairB, off, fbList, pairN) and
//     contacts (400 B: growCollider's 152 and growSolver's 248 for basis,
//     rhoA, rhoB, coh and r), and grows the contact room to 1.25 × the
//     contacts found when they exceed it;
//   - per contact: the device solvers' work vectors and partial sums,
//     grown with Buffer.Grow's headroom: 1000 B, measured;
//   - gs's colouring (colour.go), when the solver is gs: two colour
//     buffers and the permutation, 4 B each per contact, and the blocks'
//     counts, 16 B per contact in all (counted whatever the solver);
//   - a run's guard (guard.go): the kept copy of the body state and the
//     skip flags, 108 B per body, and of the warm-start memory, 36 B per
//     contact (keys and impulses; rolling impulses, 24 B more, are left
//     out).
//
// Measured on lavapipe (DeviceMemoryBytes after each step, settle): N =
// 2000 with 4212 contacts, 11.6 MB (estimate 12.7 MB); fill N = 2000 with
// 778 contacts, 8.9 MB (estimate 9.3 MB); docs/bench.md's settle N = 64
// 000 with 74 572 contacts, 299 MiB (estimate 329 MiB); these were
// measured before the guard's buffers existed, which add 0.35, 0.23 and
// 9.2 MiB to the estimates. It leaves out
// the fixed buffers (kernels' scalars, staging: under 1 MiB) and the
// driver's own alignment.
func EstimateBytes(bodies, contacts int) int64 {
	n, nc := int64(bodies), int64(contacts)
	slots := int64(1) << bits.Len64(uint64(max(2*n, 128)-1))
	capacity := 8*n + 64
	contactCap := max(capacity, nc+nc/4)
	return (288+240+108)*n + 8*slots + (4+56)*capacity + 400*contactCap + (1000+36+16)*nc
}

// The device collider's contact capacity at Load (loadCollider):
// contactCapPerBody·bodies + contactCapSlack slots, each of which takes
// jacobianSlotBytes in each of the basis, rhoA and rhoB buffers.
const (
	contactCapPerBody = 8
	contactCapSlack   = 64
	jacobianSlotBytes = 72
)

// largestBufferBytes is the size of the largest buffer a model of bodies
// bodies makes in its first step (growSolver's basis, rhoA and rhoB at
// the collider's initial capacity); later steps grow it with the
// contacts.
func largestBufferBytes(bodies int) int64 {
	return jacobianSlotBytes * (contactCapPerBody*int64(bodies) + contactCapSlack)
}

// heapContactsPerBody is the contacts per body checkHeap assumes: a
// settled bed of spheres has about 3 (docs/bench-gpu.md: 2.98 per body at
// 1 000 000).
const heapContactsPerBody = 3

// checkHeap refuses, before any buffer is made, a model whose estimated
// device memory (EstimateBytes at heapContactsPerBody contacts per body)
// exceeds the device's largest device-local heap: an error wrapping
// ErrOutOfMemory that names both sizes and the CPU path, rather than an
// allocation failing part-way through Load or a later step.
func checkHeap(bodies int, info DeviceInfo) error {
	var heap uint64
	for _, h := range info.Heaps {
		if h.DeviceLocal {
			heap = max(heap, h.Size)
		}
	}
	if r := uint64(info.MaxStorageBufferRange); r > 0 {
		// The largest buffer the first step makes: basis, rhoA and rhoB, 9
		// float64 for each contact slot of the device collider. Buffers
		// are bound whole, so none may exceed the device's range.
		if big := uint64(largestBufferBytes(bodies)); big > r {
			most := max(0, (int64(r)/jacobianSlotBytes-contactCapSlack)/contactCapPerBody)
			return fmt.Errorf("gpu: %d bodies need buffers of %d bytes (the contacts' Jacobian rows: %d B for each of %d·bodies + %d contact slots), more than %s's maxStorageBufferRange, %d bytes, allows: %w (this device takes at most %d bodies; use --backend cpu)",
				bodies, big, jacobianSlotBytes, contactCapPerBody, contactCapSlack, info.Name, r, ErrOutOfMemory, most)
		}
	}
	need := EstimateBytes(bodies, heapContactsPerBody*bodies)
	if heap == 0 || uint64(need) <= heap {
		return nil
	}
	return fmt.Errorf("gpu: %d bodies need about %d MiB of device memory (gpu.EstimateBytes at %d contacts per body), more than %s's largest device-local heap, %d MiB: %w (use --backend cpu)",
		bodies, need>>20, heapContactsPerBody, info.Name, heap>>20, ErrOutOfMemory)
}
