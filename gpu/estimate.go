package gpu

import (
	"fmt"
	"math/bits"
)

// Footprint says which of the device's buffers that depend on the model a
// model holds (EstimateBytes). The zero Footprint is a float64 model of
// isotropic bodies (spheres, cubes) without loads, of one friction and one
// cohesion, whose narrowphase keeps no pair normals: the least.
type Footprint struct {
	// Mixed: settings.precision "mixed", the Jacobian and APGD's work
	// vectors as float32.
	Mixed bool
	// PairExtras: the narrowphase's rows keep a normal per pair slot and
	// may list pairs for the host (pairN and fbList, 44 of a pair slot's
	// 56 B: models with ellipsoids, or with capsules or cylinders beside
	// ellipsoids or boxes; modelPairExtras).
	PairExtras bool
	// Materials: μ, cohesion and the cohesion impulses per contact, for a
	// model of more than one friction or cohesion (Backend.oneMaterial).
	Materials bool
	// Loads: force and torque per body, for a model with external loads
	// (Backend.fstride).
	Loads bool
	// Anisotropic: R J̄⁻¹ Rᵀ per body (invInertiaW), for a model with
	// movable bodies whose inertia is not isotropic (ellipsoids, boxes,
	// hulls, ...).
	Anisotropic bool
	// Guard: a run's guard (guard.go, which gpusim run keeps and the
	// benchmark does not), its copy of the body state and of the warm
	// start's keys and impulses.
	Guard bool
	// Arms: the contacts' Jacobian holds n, u, ρ_A and ρ_B (8 values per
	// contact instead of 12: lib/jac.glsl's JAC_ARMS), for a model whose
	// contact points lie on the normals (engine.Model.ArmsAlongNormal:
	// spheres, and bodies that never turn).
	Arms bool
}

// MostFootprint is the Footprint of a float64 model that holds every
// buffer, a run's guard included: what an estimate made before the model
// is known assumes.
var MostFootprint = Footprint{PairExtras: true, Materials: true, Loads: true, Anisotropic: true, Guard: true}

// EstimateBytes estimates the device memory (Device.MemoryBytes: the sum
// of buffer capacities) that the backend holds for a model of bodies
// bodies and Footprint f once a step has found contacts contacts, so that
// a run too large for the device can be refused before it starts. It
// follows the buffer sizes of Load, loadCollider, growCollider and
// growSolver (the sizes there are the reference; this file carries no
// build tag, so the constants are restated):
//
//   - per body: the body buffers of Load (29 float64 and 2 uint32: 240 B;
//     48 B more for force and torque (f.Loads) and 48 B more for
//     invInertiaW (f.Anisotropic); a model without them binds one body's
//     room), loadCollider's per-body buffers (shape 40, box 64 (a plane's
//     normal in its slot), cell 16, specialOff, special, adjCursor,
//     pairOff 4 each, 8 candidates of 4 B: 168 B; mat, 16 B more with
//     f.Materials) and the binning slots (8 B per slot, a power of two ≥
//     2·bodies);
//   - per unit of capacity: the collider starts with room for 5·bodies+64
//     entries (4 B), 4·bodies+64 pairs (12 B: pairA, pairB, off; 56 B with
//     f.PairExtras), and 3·bodies+64 contacts (136 B: growCollider's
//     contact data, kept keys and adjacency; 16 B more for μ and cohesion
//     with f.Materials), and grows a room to 1.25 × the count found
//     (contacts: 1.125 ×) when the count exceeds it; with f.Mixed the
//     kept impulses are float32 (collide_keys_f32): 124 B per contact
//     slot;
//   - per contact found: the Jacobian and r (120 B, growSolver; 8 B more
//     for coh with f.Materials), the device solvers' work vectors and
//     partial sums and gs's colouring, all grown with Buffer.Grow's and
//     ReuseVec's eighth of headroom: 370 B in all, fitted to the
//     measurements below so that the estimate errs high at N = 64 000
//     (210 B with f.Mixed: the Jacobian and APGD's work vectors as
//     float32); with f.Arms the Jacobian's third less, 32 B (16 B with
//     f.Mixed: then 0.5 % under the measurement at N = 64 000);
//   - with f.Guard, a run's guard (guard.go): the kept copy of the body
//     state and the skip flags, 108 B per body, and of the warm-start
//     memory, 36 B per contact (keys and impulses; 24 B with f.Mixed;
//     rolling impulses, 24 B more, are left out).
//
// Not counted: the arguments buffers of the LinAlg's kept command buffers
// (args.go, cmdcache.go), whatever the model's size: 64 KiB per 256
// dispatches of each of at most eight, about 0.5 MiB for settle n = 1000
// with apgd (`gpusim bench --backends vulkan --cases settle-1000`: 2.3 MiB
// of device memory against 1.8 MiB with GPUSIM_COMMAND_CACHE=off). The
// measurements below were taken before them.
//
// Measured on lavapipe (DeviceMemoryBytes, the largest after each step of
// a backend stepped by engine.Sim, so without a run's guard, and with
// GPUSIM_COMMAND_CACHE=off, so without the arguments buffers; apgd;
// 2026-11-29, later), with the estimate without the guard in brackets
// (each model with its own Footprint: spheres of one material without
// loads, whose arms lie on the normals (Arms), the ellipsoids with
// PairExtras and Anisotropic): settle N = 2000 after 60 steps, 7810
// contacts, 4.60 MB (4.82 MB); fill N = 2000 after 60 steps, 4316
// contacts, 3.35 MB (3.27 MB); the bench's pile of 2000 ellipsoids after
// 20 steps, 171 contacts, 2.43 MB (2.33 MB); the scaling series' settle
// N = 64 000 (bench's scale-64000) after 3 steps, 185 249 contacts, 114.5
// MiB (114.7 MiB; 1876 B per body), and 87.5 MiB with mixed (87.0 MiB;
// 1434 B per body). For a bed of 1 000 000 spheres with 2.98 contacts
// per body it gives 1908 B per body, and 1443 B with mixed (a run's guard
// adds 215 and 180 B).
//
// Before, newest first, the same models held (settle, fill, ellipsoids,
// scale-64000, mixed): with the arms held whole (12 values of Jacobian per
// contact, not 8; the same harness, which gave 4.85, 3.50 and 2.43 MB
// then), 4.78 MB, 3.43 MB, 2.36 MB, 119.62 MiB and 89.86 MiB; with the
// kept impulses as float64 with mixed too, 92.06 MiB with mixed; with a
// pair room of 5 per body, 4.79 MB, 3.46 MB,
// 2.48 MB, 120.35 MiB and 92.79 MiB; with each body's material for a
// model of one material too, 4.83 MB, 3.49 MB, 2.51 MB, 121.33 MiB and
// 93.77 MiB; with μ, cohesion and coh per contact too, 5.01 MB, 3.62 MB
// and 2.61 MB (scale-64000 not measured); with planeN and a pair and entry
// room of 8 per body too, 5.16 MB, 3.77 MB, 3.02 MB, 130.07 MiB and 102.51
// MiB; with force and torque for every body too, 5.25 MB,
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
func EstimateBytes(bodies, contacts int, f Footprint) int64 {
	n, nc := int64(bodies), int64(contacts)
	body := int64(240 + 168)
	if f.Loads {
		body += 48
	}
	if f.Anisotropic {
		body += 48
	}
	found, contactSlot, kept := int64(370), int64(136), int64(36)
	if f.Mixed {
		// The Jacobian and APGD's work vectors as float32, and the kept
		// impulses (prevGamma, 24 B per slot, and the guard's copy).
		found, contactSlot, kept = 210, 124, 24
	}
	if f.Materials {
		body += 16
		found += 8
		contactSlot += 16
	}
	if f.Arms {
		// The Jacobian's third: 4 of its 12 values.
		found -= jacobianBytes / 3
		if f.Mixed {
			found += jacobianBytes / 6
		}
	}
	if f.Guard {
		body += 108
	} else {
		kept = 0
	}
	slot := int64(12)
	if f.PairExtras {
		slot += 12 + pairNormalBytes
	}
	slots := int64(1) << bits.Len64(uint64(max(2*n, 128)-1))
	entryCap := entryCapPerBody*n + capSlack
	pairCap := room(pairCapPerBody*n+capSlack, nc, 4) // about a pair per contact
	contactCap := room(contactCapPerBody*n+capSlack, nc, 8)
	return body*n + 8*slots + 4*entryCap + slot*pairCap + contactSlot*contactCap + (found+kept)*nc
}

// room is the capacity of a collider's room that starts at start and
// grows to count + count/frac when count exceeds it (growToCounts).
func room(start, count, frac int64) int64 {
	if count <= start {
		return start
	}
	return count + count/frac
}

// The device collider's capacities at Load (loadCollider): binning
// entries entryCapPerBody·bodies + capSlack (a settled bed of spheres has
// 3.3–4.2 per body), pair slots pairCapPerBody·bodies + capSlack (a pair
// slot takes pairNormalBytes in pairN, its largest per-pair buffer; the
// pairs are about the contacts since collide_pairs drops spheres out of
// reach), and contact slots contactCapPerBody·bodies + capSlack (a settled
// bed has 2.9–3.0 per body). The Jacobian (growSolver) holds
// jacobianBytes per contact found in jac.
const (
	entryCapPerBody   = 5
	pairCapPerBody    = 4
	contactCapPerBody = 3
	capSlack          = 64
	pairNormalBytes   = 32
	jacobianBytes     = 96
)

// bufferNeed is a buffer that a model makes in its first steps, of
// perBody·bodies + fixed bytes: bound in windows (window.go) or whole.
type bufferNeed struct {
	perBody, fixed int64
	windowed       bool
	what           string
}

// largestBuffers are the buffers that grow largest with the bodies, at
// heapContactsPerBody contacts per body (later steps grow them with the
// pairs and contacts found): the two bound in windows, and the two largest
// bound whole.
var largestBuffers = []bufferNeed{
	{jacobianBytes * heapContactsPerBody, 0, true, fmt.Sprintf("the contacts' Jacobian rows, %d B for each of %d contacts per body", jacobianBytes, heapContactsPerBody)},
	{pairNormalBytes * pairCapPerBody, pairNormalBytes * capSlack, true, fmt.Sprintf("the collider's pair normals, %d B for each of %d·bodies + %d pair slots", pairNormalBytes, pairCapPerBody, capSlack)},
	{24 * contactCapPerBody, 24 * capSlack, false, fmt.Sprintf("the contacts' normals and points, 24 B for each of %d·bodies + %d contact slots", contactCapPerBody, capSlack)},
	{64, 0, false, "the bodies' bounding boxes, 64 B per body"},
}

// limit is the most bytes the device whose maxStorageBufferRange is rng
// binds of the buffer: rng whole, or its windows.
func (b bufferNeed) limit(rng uint32) int64 {
	if b.windowed {
		return windows << windowLog2For(rng)
	}
	return int64(rng)
}

// mostBodies is the largest model whose largestBuffers fit a device whose
// maxStorageBufferRange is rng.
func mostBodies(rng uint32) int64 {
	most := int64(1<<63 - 1)
	for _, b := range largestBuffers {
		most = min(most, max(0, (b.limit(rng)-b.fixed)/b.perBody))
	}
	return most
}

// MostBodies returns the largest bed of spheres (float64, one material,
// no loads, a run's guard: Footprint{Guard: true, Arms: true}) that
// checkHeap lets a device described by info take: by its binding range
// (mostBodies: the buffers bound whole within it, the Jacobian and the
// pair normals within their windows) and by its largest device-local heap
// (EstimateBytes at heapContactsPerBody contacts per body). A limit info
// does not state is returned as −1.
func MostBodies(info DeviceInfo) (byRange, byMemory int64) {
	byRange, byMemory = -1, -1
	if r := info.MaxStorageBufferRange; r > 0 {
		byRange = mostBodies(r)
	}
	var heap int64
	for _, h := range info.Heaps {
		if h.DeviceLocal {
			heap = max(heap, int64(min(h.Size, 1<<62)))
		}
	}
	if heap > 0 {
		// EstimateBytes grows with the bodies: the last count within the
		// heap, by bisection.
		f := Footprint{Guard: true, Arms: true}
		fits := func(n int64) bool { return EstimateBytes(int(n), heapContactsPerBody*int(n), f) <= heap }
		lo, hi := int64(0), int64(1)
		for fits(hi) {
			lo, hi = hi, 2*hi
		}
		for hi-lo > 1 {
			if m := (lo + hi) / 2; fits(m) {
				lo = m
			} else {
				hi = m
			}
		}
		byMemory = lo
	}
	return byRange, byMemory
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
func checkHeap(bodies int, info DeviceInfo, f Footprint) error {
	var heap uint64
	for _, h := range info.Heaps {
		if h.DeviceLocal {
			heap = max(heap, h.Size)
		}
	}
	if r := info.MaxStorageBufferRange; r > 0 {
		for _, b := range largestBuffers {
			size, lim := b.perBody*int64(bodies)+b.fixed, b.limit(r)
			if size <= lim {
				continue
			}
			bound := fmt.Sprintf("its maxStorageBufferRange, %d bytes", r)
			if b.windowed {
				bound = fmt.Sprintf("%d windows of %d bytes within its maxStorageBufferRange", windows, lim/windows)
			}
			return fmt.Errorf("gpu: %d bodies need a buffer of %d bytes (%s), more than %s binds (%s): %w (this device takes at most %d bodies; use --backend cpu)",
				bodies, size, b.what, info.Name, bound, ErrOutOfMemory, mostBodies(r))
		}
	}
	f.Guard = true // a run's, which Load cannot rule out
	need := EstimateBytes(bodies, heapContactsPerBody*bodies, f)
	if heap == 0 || uint64(need) <= heap {
		return nil
	}
	return fmt.Errorf("gpu: %d bodies need about %d MiB of device memory (gpu.EstimateBytes at %d contacts per body), more than %s's largest device-local heap, %d MiB: %w (use --backend cpu)",
		bodies, need>>20, heapContactsPerBody, info.Name, heap>>20, ErrOutOfMemory)
}
