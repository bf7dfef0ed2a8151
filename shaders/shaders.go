package shaders

import "github.com/gpusim/gpusim/shaders/internal/spirv"

// Module is one compiled kernel: its SPIR-V and what a compute pipeline
// needs to know about it.
type Module struct {
	// Name is the kernel's name: its file name without .comp, or, for
	// the float32-storage build of a kernel that includes store.glsl,
	// that name and _f32 (NAME_f32.spv).
	Name string
	// Source is the .comp file's name without .comp: Name, or Name
	// without _f32. Args belong to the source (NAMEArgs.Kernel()).
	Source string
	// SPIRV is the module's binary (little-endian 32-bit words).
	SPIRV string
	// Bindings are the kernel's descriptors, all in set 0, by binding.
	Bindings []Binding
	// LocalSize is the workgroup size.
	LocalSize [3]uint32
	// PushSize is the size in bytes of the push-constant block (0: none).
	PushSize uint32
	// Args is the zero value of the kernel's push constants, NAMEArgs of
	// zargs.go; nil when it has none.
	Args Args
}

// Args are a kernel's push constants: NAMEArgs of zargs.go, generated from
// the kernel's push-constant block (names from the GLSL source, types and
// offsets from the SPIR-V), so a call site sets each member by name and
// the bytes follow the kernel's layout.
type Args interface {
	// Kernel is the name of the kernel whose block this is.
	Kernel() string
	// AppendPush appends the block's bytes (Module.PushSize of them) to b.
	AppendPush(b []byte) []byte
}

// WindowSpecID and WindowsUsedSpecID are the specialization constants
// that take the log2 of a window's bytes and the number of windows its
// buffers reach, in a module that binds buffers in windows
// (lib/window.glsl, Binding's Windows).
const (
	WindowSpecID      = spirv.WindowSpecID
	WindowsUsedSpecID = spirv.WindowsUsedSpecID
)

// JacArmsSpecID is the specialization constant of lib/jac.glsl's
// JAC_ARMS: 1 in a module that reads or writes the contacts' Jacobian
// when it holds n, u, ρ_A and ρ_B (8 values per contact, for a model whose
// contact points lie on the normals: engine.Model.ArmsAlongNormal)
// instead of n, u, s_A and s_B (12).
const JacArmsSpecID = 29

// Binding is one descriptor of set 0.
type Binding struct {
	Binding uint32
	Kind    Kind
	// ReadOnly: the kernel never writes the buffer; WriteOnly: it never
	// reads it.
	ReadOnly, WriteOnly bool
	// Windows are the bindings of windows 1–3 of a buffer bound in
	// windows (lib/window.glsl): the device binds ranges of it there, a
	// window's size apart, so that it may exceed maxStorageBufferRange.
	// None for a buffer bound whole.
	Windows []uint32
}

// Kind is the descriptor type of a binding.
type Kind uint8

const (
	// StorageBuffer is VK_DESCRIPTOR_TYPE_STORAGE_BUFFER.
	StorageBuffer Kind = iota + 1
	// UniformBuffer is VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER.
	UniformBuffer
)

// Lookup returns the module called name.
func Lookup(name string) (Module, bool) {
	for _, m := range All() {
		if m.Name == name {
			return m, true
		}
	}
	return Module{}, false
}
