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
package shaders

//go:generate go run ./gen -dir .
