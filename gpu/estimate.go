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
//   - per body: the body buffers of Load (42 float64 and 2 uint32: 336
//     B; a model without external loads holds 48 B less, force and torque
//     being one body's zeros, which the estimate leaves in), loadCollider's
//     per-body buffers (shape 40, mat 16, box 64 (a plane's normal in
//     its slot), cell 16, specialOff, special, adjCursor, pairOff 4 each,
//     8 candidates of 4 B: 184 B) and the binning slots (8 B per slot, a
//     power of two ≥ 2·bodies);
//   - per unit of capacity: the collider starts with room for 5·bodies+64
//     entries (4 B) and pairs (12 B: pairA, pairB, off; 56 B with fbList
//     and pairN, see pairExtras), and 3·bodies+64 contacts (152 B:
//     growCollider's contact data, kept keys and adjacency), and grows a room to
//     1.25 × the count found (contacts: 1.125 ×) when the count exceeds
//     it (the pairs seldom do: collide_pairs drops the spheres out of
//     reach);
//   - per contact found: the Jacobian, coh and r (128 B, growSolver), the
//     device solvers' work vectors and partial sums and gs's colouring,
//     all grown with Buffer.Grow's and ReuseVec's eighth of headroom:
//     344 B, measured (188 B with mixed: the Jacobian and APGD's work
//     vectors as float32);
//   - a run's guard (guard.go): the kept copy of the body state and the
//     skip flags, 108 B per body, and of the warm-start memory, 36 B per
//     contact (keys and impulses; rolling impulses, 24 B more, are left
//     out).
//
// pairExtras says whether the model's narrowphase rows keep a normal per
// pair slot and may list pairs for the host (pairN and fbList, 44 of a
// slot's 56 B: models with ellipsoids, or with capsules or cylinders
// beside ellipsoids or boxes; modelPairExtras).
//
// Measured on lavapipe (DeviceMemoryBytes, the largest after each step of
// a backend stepped by engine.Sim, so without a run's guard; apgd;
// 2026-11-29), with the estimate without the guard in brackets (48 B per
// body above, since none of these models has a load): settle N = 2000
// after 60 steps, 7810 contacts, 5.16 MB (5.40 MB); fill N = 2000 after
// 60 steps, 4316 contacts, 3.77 MB (3.79 MB); the bench's pile of 2000
// ellipsoids (pairExtras) after 20 steps, 171 contacts, 3.02 MB (3.07
// MB); the scaling series' settle N = 64 000 (bench's scale-64000) after
// 3 steps, 185 249 contacts, 130.07 MiB (133.01 MiB), and 102.51 MiB with
// mixed (105.44 MiB). These models are spheres, so invInertiaW holds one
// body's room; the estimate counts its 48 B per body, which a model with
// ellipsoids, boxes or hulls holds.
//
// Before, newest first, the same models held (settle, fill, ellipsoids,
// scale-64000, mixed): with force and torque for every body, 5.25 MB,
// 3.86 MB, 3.11 MB, 133.00 MiB and 105.44 MiB; with a contact room of 4 slots per body grown by a
// quarter, 16 candidates per body and
// Buffer.Grow's half of headroom, 5.80 MB, 4.34 MB, 3.49 MB, 144.23 MiB
// and 116.67 MiB; with a quarter of room in ReuseVec's vectors too, 5.89
// MB, 4.42 MB, 3.48 MB, 149.00 MiB and 119.32 MiB; without the
// out-of-reach filter in collide_pairs too, 5.98 MB, 4.52 MB, 3.48 MB,
// 154.2 MiB and 124.5 MiB; with pairN and fbList for every model too
// (`f5103b3`; the pair room grew to 15.5 slots per body on scale-64000's
// lattice, and the 540 B per contact found of that estimate absorbed it),
// 7.05 MB, 5.58 MB, 3.48 MB, 194.5 MiB and 164.8 MiB. Earlier (settle,
// fill, scale-64000): with invInertiaW for every body 7.14 MB, 5.68 MB and
// 197.5 MiB; with APGD's scratch vector of its own too 7.35 MB, 5.80 MB
// and 203 MiB; with the Jacobian of 27 float64 per contact (before
// `6cf546a`) 8.60, 6.36 and 221 MiB; before the contact room started at
// 4·bodies (it was 8) and the Jacobian was sized by the contacts found (it
// took the room's size), 11.0, 10.2 and 335 MiB. It leaves out the fixed
// buffers (kernels' scalars, staging: under 1 MiB) and the driver's own
// alignment.
func EstimateBytes(bodies, contacts int, mixed, pairExtras bool) int64 {
	n, nc := int64(bodies), int64(contacts)
	found := int64(344)
	if mixed {
		found = 188
	}
	slot := int64(12)
	if pairExtras {
		slot += 12 + pairNormalBytes
	}
	slots := int64(1) << bits.Len64(uint64(max(2*n, 128)-1))
	pairCap := pairCapPerBody*n + capSlack
	contactCap := max(contactCapPerBody*n+capSlack, nc+nc/8)
	return (336+184+108)*n + 8*slots + (4+slot)*pairCap + 152*contactCap + (found+36)*nc
}

// The device collider's capacities at Load (loadCollider): binning
// entries and pair slots pairCapPerBody·bodies + capSlack each (a pair
// slot takes pairNormalBytes in pairN, its largest per-pair buffer), and
// contact slots contactCapPerBody·bodies + capSlack. The Jacobian
// (growSolver) holds jacobianBytes per contact found in jac.
const (
	pairCapPerBody    = 5
	contactCapPerBody = 3
	capSlack          = 64
	pairNormalBytes   = 32
	jacobianBytes     = 96
)

// largestBuffer returns the size of the largest buffer a model of bodies
// bodies makes in its first steps, and what it holds: the collider's pair
// normals at its initial pair capacity, or the Jacobian's rows at
// heapContactsPerBody contacts per body (later steps grow both with the
// pairs and contacts found).
func largestBuffer(bodies int) (int64, string) {
	n := int64(bodies)
	pairs := pairNormalBytes * (pairCapPerBody*n + capSlack)
	jac := jacobianBytes * heapContactsPerBody * n
	if pairs >= jac {
		return pairs, fmt.Sprintf("the collider's pair normals: %d B for each of %d·bodies + %d pair slots", pairNormalBytes, pairCapPerBody, capSlack)
	}
	return jac, fmt.Sprintf("the contacts' Jacobian rows: %d B for each of %d contacts per body", jacobianBytes, heapContactsPerBody)
}

// mostBodies is the largest model whose largestBuffer fits rng bytes.
func mostBodies(rng int64) int64 {
	return max(0, min((rng/pairNormalBytes-capSlack)/pairCapPerBody, rng/(jacobianBytes*heapContactsPerBody)))
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
func checkHeap(bodies int, info DeviceInfo, mixed, pairExtras bool) error {
	var heap uint64
	for _, h := range info.Heaps {
		if h.DeviceLocal {
			heap = max(heap, h.Size)
		}
	}
	if r := uint64(info.MaxStorageBufferRange); r > 0 {
		// Buffers are bound whole, so none may exceed the device's range.
		if big, what := largestBuffer(bodies); uint64(big) > r {
			return fmt.Errorf("gpu: %d bodies need buffers of %d bytes (%s), more than %s's maxStorageBufferRange, %d bytes, allows: %w (this device takes at most %d bodies; use --backend cpu)",
				bodies, big, what, info.Name, r, ErrOutOfMemory, mostBodies(int64(r)))
		}
	}
	need := EstimateBytes(bodies, heapContactsPerBody*bodies, mixed, pairExtras)
	if heap == 0 || uint64(need) <= heap {
		return nil
	}
	return fmt.Errorf("gpu: %d bodies need about %d MiB of device memory (gpu.EstimateBytes at %d contacts per body), more than %s's largest device-local heap, %d MiB: %w (use --backend cpu)",
		bodies, need>>20, heapContactsPerBody, info.Name, heap>>20, ErrOutOfMemory)
}
