// Package gpu is gpusim's Vulkan backend: it loads libvulkan.so.1 at run
// time (a binary builds and starts without a driver and reports a missing
// one as ErrNoDevice), picks a device and runs the kernels of package
// shaders on it.
//
// The layers, bottom up:
//
//   - Open / Device: instance (with the validation layer on request), the
//     physical device, a logical device with one compute queue; Devices
//     lists what is there.
//   - Buffer: a float64 / uint32 array in device memory. Where host and
//     device share memory (lavapipe, integrated GPUs) it is host-visible
//     and mapped for good; elsewhere it is device-local and Write / Read go
//     through a staging buffer. A buffer is bound whole, at most the
//     device's maxStorageBufferRange, but for the contacts' Jacobian and
//     the pair normals, which the kernels bind in four windows and which
//     may take four times the range (window.go).
//   - Kernel: a compute pipeline built from a shaders.Module and its
//     reflection table (bindings, workgroup size, arguments), through
//     the device's pipeline cache, which Close saves to a file per device
//     and driver and the next Open loads (pipecache.go;
//     GPUSIM_PIPELINE_CACHE).
//   - Batch: records many dispatches into one command buffer (each with
//     the kernel's generated argument struct, shaders.NAMEArgs, written
//     into an arguments buffer with its workgroup counts, which the
//     dispatch reads: args.go), with the
//     barriers their buffers need, and submits them at once: one
//     submit-and-wait costs tens of microseconds even on a CPU device, so
//     work is grouped into few submits. A cached batch (cmdcache.go, the
//     LinAlg's) keeps the last eight command buffers it recorded and
//     submits one again, with the new arguments, when the same commands
//     are recorded (the same kernels, buffers and updates): the buffers
//     are bound whole, so a time step records none unless a buffer was
//     reallocated (its contacts outgrew the room) or the solver took
//     another number of blocks.
//   - LinAlg: engine.LinAlg on device vectors (Vec). It records into an
//     open batch and submits only when a result must come back (Dot, Read)
//     or the host writes (Write).
//   - Backend (New): engine.Backend on device buffers. The time step's
//     arithmetic runs in the kernels free_velocity, world_velocity, jacobian,
//     body_impulse, contact_velocity, project, anti_relax, block_diag,
//     gs_colour, gs_colour_sweep, gs_sweep, integrate and fixed_force,
//     each computing cpuref's twin
//     operation by operation (bit for bit where float64 division and
//     square root are correctly rounded, as on llvmpipe); the body →
//     contact adjacency makes M⁻¹Dx a deterministic gather, without float
//     atomics. Collision detection runs in the collide_* kernels (grid
//     broadphase, the narrowphase of every pair kind, contacts, adjacency,
//     warm-start keys; see deviceCollider), with collide's narrowphase on
//     the host only for ellipsoid pairs whose EPA outgrows the device's
//     bound, for the rows of the narrowphase table a device cannot build
//     (narrow.go), and for the whole collision of models with compound
//     bodies. Joint rows follow the contact rows in γ (joint.go):
//     joint_rows builds their Jacobian and bounds from the poses each
//     step, body_impulse adds each body's joint rows before its contacts,
//     joint_ops does their per-row operations, and every kernel of the
//     device solvers takes them after the contacts. Kinematic bodies'
//     prescribed velocities and poses are recorded from the host
//     (kinematic.go). APGD, APGD-AR, Jacobi, gs (with a tolerance or
//     history) and SPG keep their scalars on the device (16 to 64
//     iterations per submit, one Schur product per iteration), and so do
//     pdip's PCG solves of its Newton systems (pcg.go); the Newton
//     iterations' own Dots are each a submit and a read-back
//     (backend.go). Submits reports the submissions so far.
//
// cgo stays inside this package (vkshim.c and the files that call it);
// without cgo, or outside linux/amd64 and linux/arm64, Devices and New
// report ErrNoDevice.
package gpu
