// Package shaders will hold gpusim's GLSL compute kernels, their committed
// SPIR-V and the generated Go that embeds them (see the Vulkan issue). A
// plain go build never needs a shader compiler.
package shaders
