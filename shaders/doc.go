// Package shaders holds gpusim's GLSL compute kernels (*.comp), the SPIR-V
// compiled from them (*.spv, committed) and the generated zshaders.go that
// embeds the SPIR-V with a reflection table: for each kernel its
// descriptor bindings, workgroup size and the size of its arguments, read
// from the SPIR-V itself by ./gen. Package gpu builds its pipelines from
// this table.
//
// A kernel takes its arguments (element counts, step sizes, modes) in one
// read-only storage buffer block at binding 31 of set 0,
//
//	layout(std430, binding = 31) restrict readonly buffer Push { uint n; double h; } p;
//
// not in push constants: package gpu writes each dispatch's arguments and
// workgroup counts into host memory before it submits and dispatches
// indirectly, so a command buffer recorded once runs again with another
// contact count (gpu's args.go and cmdcache.go). The reflection table
// calls the block's size PushSize and leaves it out of the bindings.
//
// For each kernel with arguments ./gen also writes, in zargs.go, the
// struct NAMEArgs of its arguments block (Module.Args holds its zero
// value): a field per member, named after the GLSL member (nc is NC,
// maxIter MaxIter), of the Go type of its GLSL type (uint: uint32, int:
// int32, float: float32, double: float64, vectors and arrays as Go
// arrays), and AppendPush, which writes the members at the offsets the
// SPIR-V gives them, padding included. glslc -O strips names from the
// SPIR-V, so the names come from the .comp source (its one
// "layout(std430, binding = 31) restrict readonly buffer Name { … } p;" block,
// includes followed)
// and the layout from the SPIR-V; ./gen fails, naming the kernel and the
// member, where the two disagree in count, type, array length or std430
// offset. Package gpu's Batch.Dispatch takes an Args and panics when it
// belongs to another kernel, so a call site sets every member by name:
//
//	b.Dispatch(k, groups, shaders.FillArgs{V: 0, N: n}, dst)
//
// A plain go build never needs a shader compiler. After editing a .comp
// file, run "make shaders" (glslc, then go run ./shaders/gen); "make
// check-shaders" recompiles into a temporary folder and fails when the
// committed .spv files, zshaders.go or zargs.go are stale.
//
// Each .comp file opens with a comment giving the loop it computes, its
// bindings and arguments and its dispatch shape; its first paragraph,
// opening with "name: ", becomes the doc comment of the Module.
//
// GLSL that several kernels share sits in lib/*.glsl and is included, not
// copied (#include "cone.glsl", compiled with glslc -I shaders/lib): the
// solvers' scalar blocks, the cone projection, a contact's μ and cohesion
// (one per contact, or one for all), Axpby's element operation,
// the two halves of the Schur product, Hypot, Finite, mgl64's Cross and
// Rotate and the fixed-order workgroup sum. Each lib file opens with a
// comment saying what it holds and what its includer must define before
// the #include; after editing one, "make shaders" recompiles every kernel.
//
// A kernel that includes store.glsl (the storage type of the Jacobian and
// of APGD's work vectors) is compiled a second time with -DSTORE_F32 into
// NAME_f32.spv: the Module NAMEF32 (Name "NAME_f32", Source "NAME", the
// same NAMEArgs), which settings.precision "mixed" runs.
//
// An array that may outgrow a device's maxStorageBufferRange (the
// contacts' Jacobian, lib/jac.glsl; the pair normals) is declared with
// lib/window.glsl's macros: four bindings of windows of one buffer, read
// and written through NAME_at and NAME_set. Its Binding lists the
// windows' bindings (Windows), and the module takes the windows' size in
// the specialization constant WindowSpecID.
package shaders

//go:generate go run ./gen -dir .
