// Package spirv reads what a Vulkan compute pipeline needs to know about a
// SPIR-V module from the module itself: its workgroup size, its descriptor
// bindings and the size and members of its push-constant block. It understands the
// subset of SPIR-V that glslang emits for GLSL compute shaders with storage
// and uniform buffers and a push-constant block of scalars, vectors, arrays
// and structs; anything else is an error, never a guess.
//
// Reference: the SPIR-V specification, sections 2.3 (physical layout), 2.16
// (validation rules for shaders) and 3 (binary form: opcodes, decorations,
// storage classes).
package spirv

import (
	"encoding/binary"
	"fmt"
	"sort"
)

// Magic is the first word of every SPIR-V module.
const Magic = 0x07230203

// Opcodes, decorations, storage classes and execution modes used here
// (SPIR-V specification, section 3).
const (
	opMemberName          = 6
	opEntryPoint          = 15
	opExecutionMode       = 16
	opTypeBool            = 20
	opTypeInt             = 21
	opTypeFloat           = 22
	opTypeVector          = 23
	opTypeMatrix          = 24
	opTypeArray           = 28
	opTypeRuntimeArray    = 29
	opTypeStruct          = 30
	opTypePointer         = 32
	opConstant            = 43
	opConstantComposite   = 44
	opVariable            = 59
	opDecorate            = 71
	opMemberDecorate      = 72
	opExecutionModeId     = 331
	decSpecID             = 1
	decBlock              = 2
	decBufferBlock        = 3
	decArrayStride        = 6
	decBuiltIn            = 11
	decNonWritable        = 24
	decNonReadable        = 25
	decBinding            = 33
	decDescriptorSet      = 34
	decOffset             = 35
	builtInWorkgroupSize  = 25
	modeLocalSize         = 17
	modeLocalSizeID       = 38
	modelGLCompute        = 5
	classUniformConstant  = 0
	classUniform          = 2
	classPushConstant     = 9
	classStorageBuffer    = 12
	maxPushConstantsBytes = 1 << 16
)

// ArgsBinding is the binding of set 0 that holds a kernel's arguments: a
// read-only storage buffer block that Reflect describes as it does a
// push-constant block (PushSize, Push; Args set) and leaves out of
// Bindings. gpusim's kernels take their arguments there instead of in
// push constants, so that a recorded command buffer runs again with
// other arguments written into the buffer (gpu's cmdcache.go).
const ArgsBinding = 31

// Windows: a buffer larger than a device's maxStorageBufferRange is bound
// in windows, each a range of at most 2^WindowSpecID's value bytes of the
// same buffer (shaders/lib/window.glsl). Window w (1 ≤ w < Windows) of
// the buffer at binding B of set 0 is at binding WindowBase + Windows·B +
// w; window 0 is binding B itself. A module with windows
// takes the log2 of a window's bytes in the specialization constant
// WindowSpecID, and the number of windows its buffers reach in
// WindowsUsedSpecID. Reflect folds the windows into their binding
// (Binding.Windows).
const (
	WindowBase        = 32
	Windows           = 4
	WindowSpecID      = 31
	WindowsUsedSpecID = 30
)

// Kind is the descriptor type of a binding.
type Kind int

const (
	// StorageBuffer is VK_DESCRIPTOR_TYPE_STORAGE_BUFFER.
	StorageBuffer Kind = iota + 1
	// UniformBuffer is VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER.
	UniformBuffer
)

func (k Kind) String() string {
	switch k {
	case StorageBuffer:
		return "StorageBuffer"
	case UniformBuffer:
		return "UniformBuffer"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Binding is one descriptor of the module.
type Binding struct {
	Set, Binding uint32
	Kind         Kind
	// ReadOnly: the shader never writes it (NonWritable on the variable or
	// on every member of its block). WriteOnly: it never reads it
	// (NonReadable).
	ReadOnly, WriteOnly bool
	// Windows are the bindings of windows 1 to Windows−1 of a buffer bound
	// in windows (WindowBase + Windows·B + w), in order; none for a
	// buffer bound whole.
	Windows []uint32
}

// Reflection is what a compute pipeline needs to know about a module.
type Reflection struct {
	// Entry is the name of the GLCompute entry point.
	Entry string
	// LocalSize is the workgroup size (LocalSize execution mode, or the
	// WorkgroupSize built-in constant where there is one).
	LocalSize [3]uint32
	// Bindings, sorted by set and binding.
	Bindings []Binding
	// PushSize is the size in bytes of the push-constant block, or of the
	// arguments block (binding ArgsBinding of set 0; 0: none): the end of
	// its last member.
	PushSize uint32
	// Push are the members of that block, in declaration order (none when
	// there is no block).
	Push []Member
	// Args: the block is the arguments block, not push constants.
	Args bool
}

// Scalar is the component type of a push-constant member.
type Scalar int

const (
	// Other is a type Member does not describe: a struct, a matrix or an
	// array of arrays (its Offset and Size are still right).
	Other Scalar = iota
	// Uint is an unsigned integer (OpTypeInt, signedness 0).
	Uint
	// Int is a signed integer.
	Int
	// Float is a floating-point number.
	Float
)

func (s Scalar) String() string {
	switch s {
	case Uint:
		return "uint"
	case Int:
		return "int"
	case Float:
		return "float"
	}
	return "other"
}

// Member is one member of the push-constant block: a scalar, a vector, or
// an array of either.
type Member struct {
	// Name is the member's name from OpMemberName; "" where the module was
	// stripped of names (glslc -O).
	Name string
	// Offset is the byte offset in the block (its Offset decoration).
	Offset uint32
	// Size is its size in bytes (Len × Stride for an array).
	Size uint32
	// Scalar and Bits are the component type and width (32 or 64).
	Scalar Scalar
	Bits   uint32
	// Components is the number of components of a vector, 1 for a scalar.
	Components uint32
	// Len is the length of an array (0: not an array) and Stride its
	// ArrayStride.
	Len, Stride uint32
}

type instr struct {
	op   uint16
	args []uint32
}

type decoration struct {
	kind uint32
	args []uint32
}

type module struct {
	names   map[uint32]map[uint32]string // member names by struct id
	types   map[uint32]instr             // type declarations by result id
	consts  map[uint32]instr             // constants by result id (args[0] is the type)
	decos   map[uint32][]decoration
	members map[uint32]map[uint32][]decoration
}

// Reflect parses a little-endian SPIR-V module with one GLCompute entry
// point.
func Reflect(code []byte) (*Reflection, error) {
	if len(code)%4 != 0 || len(code) < 20 {
		return nil, fmt.Errorf("spirv: %d bytes is not a SPIR-V module (want a multiple of 4, at least 20)", len(code))
	}
	words := make([]uint32, len(code)/4)
	for i := range words {
		words[i] = binary.LittleEndian.Uint32(code[4*i:])
	}
	if words[0] != Magic {
		return nil, fmt.Errorf("spirv: bad magic number %#08x (want %#08x, little-endian)", words[0], Magic)
	}
	m := &module{
		names:   map[uint32]map[uint32]string{},
		types:   map[uint32]instr{},
		consts:  map[uint32]instr{},
		decos:   map[uint32][]decoration{},
		members: map[uint32]map[uint32][]decoration{},
	}
	var (
		r         Reflection
		entries   []uint32
		localSize = map[uint32][3]uint32{}
		vars      []instr
	)
	for pc := 5; pc < len(words); {
		wc := int(words[pc] >> 16)
		op := uint16(words[pc])
		if wc == 0 || pc+wc > len(words) {
			return nil, fmt.Errorf("spirv: instruction at word %d has bad length %d", pc, wc)
		}
		in := instr{op: op, args: words[pc+1 : pc+wc]}
		pc += wc
		switch op {
		case opMemberName:
			if len(in.args) < 3 {
				return nil, errShort(in)
			}
			name, err := str(in.args[2:])
			if err != nil {
				return nil, err
			}
			if m.names[in.args[0]] == nil {
				m.names[in.args[0]] = map[uint32]string{}
			}
			m.names[in.args[0]][in.args[1]] = name
		case opEntryPoint:
			if len(in.args) < 3 {
				return nil, errShort(in)
			}
			if in.args[0] != modelGLCompute {
				return nil, fmt.Errorf("spirv: entry point of execution model %d is not GLCompute", in.args[0])
			}
			name, err := str(in.args[2:])
			if err != nil {
				return nil, err
			}
			r.Entry = name
			entries = append(entries, in.args[1])
		case opExecutionMode, opExecutionModeId:
			if len(in.args) < 2 {
				return nil, errShort(in)
			}
			switch in.args[1] {
			case modeLocalSize:
				if len(in.args) != 5 {
					return nil, errShort(in)
				}
				localSize[in.args[0]] = [3]uint32{in.args[2], in.args[3], in.args[4]}
			case modeLocalSizeID:
				return nil, fmt.Errorf("spirv: LocalSizeId (workgroup size from specialization constants) is not supported")
			}
		case opDecorate:
			if len(in.args) < 2 {
				return nil, errShort(in)
			}
			m.decos[in.args[0]] = append(m.decos[in.args[0]], decoration{in.args[1], in.args[2:]})
		case opMemberDecorate:
			if len(in.args) < 3 {
				return nil, errShort(in)
			}
			s := m.members[in.args[0]]
			if s == nil {
				s = map[uint32][]decoration{}
				m.members[in.args[0]] = s
			}
			s[in.args[1]] = append(s[in.args[1]], decoration{in.args[2], in.args[3:]})
		case opTypeBool, opTypeInt, opTypeFloat, opTypeVector, opTypeMatrix, opTypeArray,
			opTypeRuntimeArray, opTypeStruct, opTypePointer:
			if len(in.args) < 1 {
				return nil, errShort(in)
			}
			m.types[in.args[0]] = in
		case opConstant, opConstantComposite:
			if len(in.args) < 2 {
				return nil, errShort(in)
			}
			m.consts[in.args[1]] = in
		case opVariable:
			if len(in.args) < 3 {
				return nil, errShort(in)
			}
			vars = append(vars, in)
		}
	}
	if len(entries) != 1 {
		return nil, fmt.Errorf("spirv: %d GLCompute entry points, want 1", len(entries))
	}
	ls, ok := localSize[entries[0]]
	if !ok {
		return nil, fmt.Errorf("spirv: entry point %q has no LocalSize execution mode", r.Entry)
	}
	r.LocalSize = ls
	if ws, ok, err := m.workgroupSize(); err != nil {
		return nil, err
	} else if ok {
		r.LocalSize = ws
	}
	for _, v := range vars {
		if err := m.variable(&r, v); err != nil {
			return nil, err
		}
	}
	sort.Slice(r.Bindings, func(i, j int) bool {
		a, b := r.Bindings[i], r.Bindings[j]
		if a.Set != b.Set {
			return a.Set < b.Set
		}
		return a.Binding < b.Binding
	})
	for i := 1; i < len(r.Bindings); i++ {
		a, b := r.Bindings[i-1], r.Bindings[i]
		if a.Set == b.Set && a.Binding == b.Binding {
			return nil, fmt.Errorf("spirv: two variables at set %d, binding %d", a.Set, a.Binding)
		}
	}
	if err := m.foldWindows(&r); err != nil {
		return nil, err
	}
	return &r, nil
}

// foldWindows moves the bindings from WindowBase on into the Windows of
// the binding they are windows of, and checks that each windowed binding
// has all its windows, alike in kind and access, and that the module
// takes the window's size (the specialization constant WindowSpecID).
func (m *module) foldWindows(r *Reflection) error {
	var kept []Binding
	windows := map[uint32][]Binding{} // by the binding they are windows of
	for _, b := range r.Bindings {
		if b.Set != 0 || b.Binding < WindowBase {
			kept = append(kept, b)
			continue
		}
		of, w := (b.Binding-WindowBase)/Windows, (b.Binding-WindowBase)%Windows
		if w == 0 {
			return fmt.Errorf("spirv: binding %d is not a window (window w of binding B is at %d + %d·B + w, 1 ≤ w < %d)", b.Binding, WindowBase, Windows, Windows)
		}
		windows[of] = append(windows[of], b)
	}
	if len(windows) == 0 {
		return nil
	}
	spec := map[uint32]bool{}
	for _, ds := range m.decos {
		for _, d := range ds {
			if d.kind == decSpecID && len(d.args) > 0 {
				spec[d.args[0]] = true
			}
		}
	}
	if !spec[WindowSpecID] || !spec[WindowsUsedSpecID] {
		return fmt.Errorf("spirv: the module binds buffers in windows but lacks the specialization constants %d and %d (the window's size, the windows used)", WindowSpecID, WindowsUsedSpecID)
	}
	for i := range kept {
		b := &kept[i]
		ws, ok := windows[b.Binding]
		if b.Set != 0 || !ok {
			continue
		}
		delete(windows, b.Binding)
		if len(ws) != Windows-1 {
			return fmt.Errorf("spirv: binding %d has %d windows, want %d", b.Binding, len(ws), Windows-1)
		}
		for _, w := range ws {
			if w.Kind != b.Kind || w.ReadOnly != b.ReadOnly || w.WriteOnly != b.WriteOnly {
				return fmt.Errorf("spirv: window at binding %d differs from binding %d in kind or access", w.Binding, b.Binding)
			}
			b.Windows = append(b.Windows, w.Binding)
		}
	}
	for of, ws := range windows {
		return fmt.Errorf("spirv: binding %d is a window of binding %d, which the module does not have", ws[0].Binding, of)
	}
	r.Bindings = kept
	return nil
}

func errShort(in instr) error {
	return fmt.Errorf("spirv: opcode %d has too few operands (%d)", in.op, len(in.args))
}

// str decodes a nul-terminated literal string.
func str(w []uint32) (string, error) {
	var b []byte
	for _, x := range w {
		for k := 0; k < 4; k++ {
			c := byte(x >> (8 * k))
			if c == 0 {
				return string(b), nil
			}
			b = append(b, c)
		}
	}
	return "", fmt.Errorf("spirv: unterminated string")
}

func (m *module) has(id, kind uint32) bool {
	for _, d := range m.decos[id] {
		if d.kind == kind {
			return true
		}
	}
	return false
}

func (m *module) decoArg(id, kind uint32) (uint32, bool) {
	for _, d := range m.decos[id] {
		if d.kind == kind && len(d.args) > 0 {
			return d.args[0], true
		}
	}
	return 0, false
}

func (m *module) memberDecoArg(s, member, kind uint32) (uint32, bool) {
	for _, d := range m.members[s][member] {
		if d.kind == kind && len(d.args) > 0 {
			return d.args[0], true
		}
	}
	return 0, false
}

// workgroupSize returns the constant decorated BuiltIn WorkgroupSize, which
// overrides the LocalSize execution mode.
func (m *module) workgroupSize() ([3]uint32, bool, error) {
	for id, c := range m.consts {
		v, ok := m.decoArg(id, decBuiltIn)
		if !ok || v != builtInWorkgroupSize {
			continue
		}
		if c.op != opConstantComposite || len(c.args) != 5 {
			return [3]uint32{}, false, fmt.Errorf("spirv: WorkgroupSize is not a composite of 3 constants")
		}
		var ws [3]uint32
		for k := range ws {
			e, ok := m.consts[c.args[2+k]]
			if !ok || e.op != opConstant || len(e.args) != 3 {
				return [3]uint32{}, false, fmt.Errorf("spirv: WorkgroupSize component %d is not a 32-bit constant", k)
			}
			ws[k] = e.args[2]
		}
		return ws, true, nil
	}
	return [3]uint32{}, false, nil
}

// variable records a descriptor binding or the push-constant block.
func (m *module) variable(r *Reflection, v instr) error {
	ptrType, id, class := v.args[0], v.args[1], v.args[2]
	switch class {
	case classUniform, classStorageBuffer, classUniformConstant, classPushConstant:
	default:
		return nil
	}
	ptr, ok := m.types[ptrType]
	if !ok || ptr.op != opTypePointer || len(ptr.args) != 3 {
		return fmt.Errorf("spirv: variable %%%d: type %%%d is not a pointer", id, ptrType)
	}
	st, ok := m.types[ptr.args[2]]
	if !ok || st.op != opTypeStruct {
		return fmt.Errorf("spirv: variable %%%d (storage class %d) is not a block: only buffer blocks and a push-constant block are supported (no images, samplers or descriptor arrays)", id, class)
	}
	set, ok1 := m.decoArg(id, decDescriptorSet)
	bind, ok2 := m.decoArg(id, decBinding)
	args := class == classStorageBuffer && ok1 && ok2 && set == 0 && bind == ArgsBinding
	if class == classPushConstant || args {
		if r.PushSize != 0 {
			return fmt.Errorf("spirv: more than one push-constant or arguments block")
		}
		size, err := m.size(st.args[0])
		if err != nil {
			return fmt.Errorf("spirv: push-constant block: %w", err)
		}
		if size == 0 || size > maxPushConstantsBytes {
			return fmt.Errorf("spirv: push-constant block of %d bytes", size)
		}
		if args && !(m.has(id, decNonWritable) || m.allMembers(st.args[0], len(st.args)-1, decNonWritable)) {
			return fmt.Errorf("spirv: the arguments block (set 0, binding %d) is not read-only", ArgsBinding)
		}
		r.PushSize, r.Args = size, args
		r.Push, err = m.pushMembers(st)
		return err
	}
	if !ok1 || !ok2 {
		return fmt.Errorf("spirv: variable %%%d has no DescriptorSet or Binding decoration", id)
	}
	b := Binding{Set: set, Binding: bind}
	sid := st.args[0]
	switch {
	case class == classStorageBuffer && m.has(sid, decBlock):
		b.Kind = StorageBuffer
	case class == classUniform && m.has(sid, decBufferBlock):
		b.Kind = StorageBuffer
	case class == classUniform && m.has(sid, decBlock):
		b.Kind = UniformBuffer
	default:
		return fmt.Errorf("spirv: set %d, binding %d: storage class %d is not a buffer block", set, bind, class)
	}
	nm := len(st.args) - 1
	b.ReadOnly = m.has(id, decNonWritable) || m.allMembers(sid, nm, decNonWritable)
	b.WriteOnly = m.has(id, decNonReadable) || m.allMembers(sid, nm, decNonReadable)
	r.Bindings = append(r.Bindings, b)
	return nil
}

func (m *module) allMembers(s uint32, n int, kind uint32) bool {
	if n == 0 {
		return false
	}
	for i := 0; i < n; i++ {
		found := false
		for _, d := range m.members[s][uint32(i)] {
			if d.kind == kind {
				found = true
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// size returns the size in bytes of a type as laid out in a block: the end
// of the last member for a struct, length × ArrayStride for an array.
func (m *module) size(id uint32) (uint32, error) {
	return m.sizeDepth(id, 0)
}

func (m *module) sizeDepth(id uint32, depth int) (uint32, error) {
	if depth > 16 {
		return 0, fmt.Errorf("types nested too deeply")
	}
	t, ok := m.types[id]
	if !ok {
		return 0, fmt.Errorf("type %%%d is not declared", id)
	}
	switch t.op {
	case opTypeInt, opTypeFloat:
		if len(t.args) < 2 || t.args[1]%8 != 0 || t.args[1] == 0 {
			return 0, fmt.Errorf("scalar type %%%d of bad width", id)
		}
		return t.args[1] / 8, nil
	case opTypeVector:
		if len(t.args) != 3 {
			return 0, errShort(t)
		}
		c, err := m.sizeDepth(t.args[1], depth+1)
		return c * t.args[2], err
	case opTypeArray:
		if len(t.args) != 3 {
			return 0, errShort(t)
		}
		stride, ok := m.decoArg(id, decArrayStride)
		if !ok {
			return 0, fmt.Errorf("array type %%%d has no ArrayStride", id)
		}
		n, ok := m.consts[t.args[2]]
		if !ok || n.op != opConstant || len(n.args) != 3 {
			return 0, fmt.Errorf("array type %%%d: length is not a 32-bit constant", id)
		}
		if n.args[2] > maxPushConstantsBytes || stride > maxPushConstantsBytes {
			return 0, fmt.Errorf("array type %%%d too large", id)
		}
		return n.args[2] * stride, nil
	case opTypeStruct:
		end := uint32(0)
		for i, mt := range t.args[1:] {
			off, ok := m.memberDecoArg(id, uint32(i), decOffset)
			if !ok {
				return 0, fmt.Errorf("member %d of struct %%%d has no Offset", i, id)
			}
			s, err := m.sizeDepth(mt, depth+1)
			if err != nil {
				return 0, err
			}
			if off > maxPushConstantsBytes || s > maxPushConstantsBytes {
				return 0, fmt.Errorf("struct %%%d too large", id)
			}
			end = max(end, off+s)
		}
		return end, nil
	case opTypeRuntimeArray:
		return 0, fmt.Errorf("runtime array %%%d has no static size", id)
	case opTypeMatrix:
		return 0, fmt.Errorf("matrix type %%%d is not supported", id)
	case opTypeBool:
		return 0, fmt.Errorf("bool type %%%d has no defined size in a block", id)
	}
	return 0, fmt.Errorf("type %%%d (opcode %d) is not supported", id, t.op)
}

// pushMembers describes the members of the push-constant block st.
func (m *module) pushMembers(st instr) ([]Member, error) {
	sid := st.args[0]
	var ms []Member
	for i, mt := range st.args[1:] {
		off, _ := m.memberDecoArg(sid, uint32(i), decOffset) // size checked it
		size, err := m.size(mt)
		if err != nil {
			return nil, fmt.Errorf("spirv: push-constant block: %w", err)
		}
		mb := Member{Name: m.names[sid][uint32(i)], Offset: off, Size: size}
		t := m.types[mt]
		if t.op == opTypeArray {
			mb.Stride, _ = m.decoArg(mt, decArrayStride)
			mb.Len = m.consts[t.args[2]].args[2] // size checked both
			t = m.types[t.args[1]]
		}
		mb.Components = 1
		if t.op == opTypeVector {
			mb.Components = t.args[2]
			t = m.types[t.args[1]]
		}
		switch {
		case t.op == opTypeInt && len(t.args) == 3 && t.args[2] == 0:
			mb.Scalar, mb.Bits = Uint, t.args[1]
		case t.op == opTypeInt && len(t.args) == 3:
			mb.Scalar, mb.Bits = Int, t.args[1]
		case t.op == opTypeFloat && len(t.args) >= 2:
			mb.Scalar, mb.Bits = Float, t.args[1]
		default: // a struct, a matrix, an array of arrays
			mb = Member{Name: mb.Name, Offset: off, Size: size}
		}
		ms = append(ms, mb)
	}
	return ms, nil
}
