// Package shaders holds gpusim's GLSL compute kernels (*.comp), the SPIR-V
// compiled from them (*.spv, committed) and the generated zshaders.go that
// embeds the SPIR-V with a reflection table: for each kernel its
// descriptor bindings, workgroup size and push-constant size, read from the
// SPIR-V itself by ./gen. Package gpu builds its pipelines from this table.
//
// A plain go build never needs a shader compiler. After editing a .comp
// file, run "make shaders" (glslc, then go run ./shaders/gen); "make
// check-shaders" recompiles into a temporary folder and fails when the
// committed .spv files or zshaders.go are stale.
//
// Each .comp file opens with a comment giving the loop it computes, its
// bindings and push constants and its dispatch shape; its first paragraph,
// opening with "name: ", becomes the doc comment of the Module.
//
// GLSL that several kernels share sits in lib/*.glsl and is included, not
// copied (#include "cone.glsl", compiled with glslc -I shaders/lib): the
// solvers' scalar blocks, the cone projection, Axpby's element operation,
// the two halves of the Schur product, Hypot, mgl64's Cross and Rotate and
// the fixed-order workgroup sum. Each lib file opens with a comment saying
// what it holds and what its includer must define before the #include;
// after editing one, "make shaders" recompiles every kernel.
package shaders

//go:generate go run ./gen -dir .
