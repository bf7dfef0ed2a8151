package spirv

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func read(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The committed kernels reflect as their GLSL declares them: the arguments
// block at binding ArgsBinding as their arguments, not a binding.
func TestReflectKernels(t *testing.T) {
	sb := func(b uint32, ro, wo bool) Binding {
		return Binding{Binding: b, Kind: StorageBuffer, ReadOnly: ro, WriteOnly: wo}
	}
	f64 := func(off uint32) Member { return Member{Offset: off, Size: 8, Scalar: Float, Bits: 64, Components: 1} }
	u32 := func(off uint32) Member { return Member{Offset: off, Size: 4, Scalar: Uint, Bits: 32, Components: 1} }
	for _, c := range []struct {
		file string
		want Reflection
	}{
		{"axpby.spv", Reflection{"main", [3]uint32{256, 1, 1}, []Binding{sb(0, false, true), sb(1, true, false), sb(2, true, false)}, 20, []Member{f64(0), f64(8), u32(16)}, true}},
		{"fill.spv", Reflection{"main", [3]uint32{256, 1, 1}, []Binding{sb(0, false, true)}, 12, []Member{f64(0), u32(8)}, true}},
		{"sum.spv", Reflection{"main", [3]uint32{256, 1, 1}, []Binding{sb(0, false, true), sb(1, true, false)}, 8, []Member{u32(0), u32(4)}, true}},
	} {
		got, err := Reflect(read(t, c.file))
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		if !reflect.DeepEqual(*got, c.want) {
			t.Errorf("%s: got %+v, want %+v", c.file, *got, c.want)
		}
	}
}

// words assembles a module from instructions given as opcode and operands.
func words(ins ...[]uint32) []byte {
	w := []uint32{Magic, 0x00010300, 0, 100, 0}
	for _, in := range ins {
		w = append(w, uint32(len(in))<<16|in[0])
		w = append(w, in[1:]...)
	}
	b := make([]byte, 4*len(w))
	for i, x := range w {
		binary.LittleEndian.PutUint32(b[4*i:], x)
	}
	return b
}

func TestReflectErrors(t *testing.T) {
	main := []uint32{opEntryPoint, modelGLCompute, 1, 0x6e69616d, 0} // "main"
	local := []uint32{opExecutionMode, 1, modeLocalSize, 64, 1, 1}
	for _, c := range []struct {
		name string
		code []byte
		want string
	}{
		{"short", []byte{1, 2, 3}, "not a SPIR-V module"},
		{"magic", make([]byte, 20), "bad magic"},
		{"length", append(words(), 0, 0, 0x10, 0), "bad length"},
		{"no entry", words(local), "0 GLCompute entry points"},
		{"no local size", words(main), "no LocalSize"},
		{"local size id", words(main, []uint32{opExecutionModeId, 1, modeLocalSizeID, 2, 3, 4}), "LocalSizeId"},
		{"vertex", words([]uint32{opEntryPoint, 0, 1, 0x6e69616d, 0}), "not GLCompute"},
		{"image", words(main, local,
			[]uint32{opTypeFloat, 2, 32},
			[]uint32{opTypePointer, 3, classUniformConstant, 2},
			[]uint32{opVariable, 3, 4, classUniformConstant}), "not a block"},
		{"no binding", words(main, local,
			[]uint32{opTypeFloat, 2, 32},
			[]uint32{opTypeStruct, 5, 2},
			[]uint32{opMemberDecorate, 5, 0, decOffset, 0},
			[]uint32{opDecorate, 5, decBlock},
			[]uint32{opTypePointer, 3, classStorageBuffer, 5},
			[]uint32{opVariable, 3, 4, classStorageBuffer}), "no DescriptorSet or Binding"},
		{"push runtime array", words(main, local,
			[]uint32{opTypeFloat, 2, 32},
			[]uint32{opTypeRuntimeArray, 6, 2},
			[]uint32{opTypeStruct, 5, 6},
			[]uint32{opMemberDecorate, 5, 0, decOffset, 0},
			[]uint32{opTypePointer, 3, classPushConstant, 5},
			[]uint32{opVariable, 3, 4, classPushConstant}), "no static size"},
	} {
		if _, err := Reflect(c.code); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Reflect = %v; want an error with %q", c.name, err, c.want)
		}
	}
}

// A push-constant block with a vector, an array and a nested struct; the
// WorkgroupSize built-in overrides LocalSize.
func TestReflectPushLayout(t *testing.T) {
	code := words(
		[]uint32{opEntryPoint, modelGLCompute, 1, 0x6e69616d, 0},
		[]uint32{opExecutionMode, 1, modeLocalSize, 1, 1, 1},
		[]uint32{opDecorate, 30, decBuiltIn, builtInWorkgroupSize},
		[]uint32{opTypeInt, 10, 32, 0},
		[]uint32{opTypeFloat, 11, 64},
		[]uint32{opTypeVector, 12, 11, 3}, // dvec3: 24 bytes
		[]uint32{opConstant, 10, 20, 4},
		[]uint32{opConstant, 10, 21, 32},
		[]uint32{opConstant, 10, 22, 2},
		[]uint32{opConstantComposite, 31, 30, 21, 22, 22},
		[]uint32{opTypeArray, 13, 10, 20}, // uint[4], stride 16: 64 bytes
		[]uint32{opDecorate, 13, decArrayStride, 16},
		[]uint32{opTypeStruct, 14, 11, 10}, // {double; uint} = 12 bytes
		[]uint32{opMemberDecorate, 14, 0, decOffset, 0},
		[]uint32{opMemberDecorate, 14, 1, decOffset, 8},
		[]uint32{opTypeStruct, 15, 12, 13, 14},
		[]uint32{opMemberDecorate, 15, 0, decOffset, 0},
		[]uint32{opMemberDecorate, 15, 1, decOffset, 32},
		[]uint32{opMemberDecorate, 15, 2, decOffset, 96}, // ends at 108
		[]uint32{opMemberName, 15, 0, 'v'},
		[]uint32{opTypePointer, 16, classPushConstant, 15},
		[]uint32{opVariable, 16, 17, classPushConstant},
	)
	r, err := Reflect(code)
	if err != nil {
		t.Fatal(err)
	}
	if r.PushSize != 108 || r.LocalSize != [3]uint32{32, 2, 2} || len(r.Bindings) != 0 {
		t.Errorf("got %+v; want push size 108, local size [32 2 2], no bindings", *r)
	}
	want := []Member{
		{Name: "v", Offset: 0, Size: 24, Scalar: Float, Bits: 64, Components: 3},
		{Offset: 32, Size: 64, Scalar: Uint, Bits: 32, Components: 1, Len: 4, Stride: 16},
		{Offset: 96, Size: 12}, // a struct: Other
	}
	if !reflect.DeepEqual(r.Push, want) {
		t.Errorf("push members %+v, want %+v", r.Push, want)
	}
}

func FuzzReflect(f *testing.F) {
	for _, name := range []string{"axpby.spv", "copy.spv", "dot.spv", "fill.spv", "mul_elem.spv", "sum.spv"} {
		f.Add(read(f, name))
	}
	f.Fuzz(func(t *testing.T, code []byte) {
		r, err := Reflect(code)
		if err == nil && r == nil {
			t.Fatal("nil reflection without an error")
		}
	})
}

// windowModule assembles a module with a read-only buffer block of floats
// at each of bindings (writable where writable says), and the
// specialization constants specs.
func windowModule(bindings []uint32, writable map[uint32]bool, specs ...uint32) []byte {
	ins := [][]uint32{
		{opEntryPoint, modelGLCompute, 1, 0x6e69616d, 0},
		{opExecutionMode, 1, modeLocalSize, 64, 1, 1},
		{opTypeFloat, 2, 32},
		{opTypeRuntimeArray, 6, 2},
		{opTypeStruct, 5, 6},
		{opMemberDecorate, 5, 0, decOffset, 0},
		{opDecorate, 5, decBlock},
		{opTypePointer, 3, classStorageBuffer, 5},
	}
	for i, s := range specs {
		ins = append(ins, []uint32{opDecorate, uint32(90 + i), decSpecID, s})
	}
	for i, b := range bindings {
		id := uint32(10 + i)
		ins = append(ins, []uint32{opDecorate, id, decDescriptorSet, 0}, []uint32{opDecorate, id, decBinding, b})
		if !writable[b] {
			ins = append(ins, []uint32{opDecorate, id, decNonWritable})
		}
		ins = append(ins, []uint32{opVariable, 3, id, classStorageBuffer})
	}
	return words(ins...)
}

// Reflect folds a binding's windows (WindowBase + Windows·B + w) into it,
// and refuses windows that are incomplete, unlike their binding, without
// a binding, at w = 0, or without the window's specialization constants.
func TestReflectWindows(t *testing.T) {
	both := []uint32{WindowSpecID, WindowsUsedSpecID}
	got, err := Reflect(windowModule([]uint32{0, 4, 49, 50, 51}, nil, both...))
	if err != nil {
		t.Fatal(err)
	}
	want := []Binding{
		{Binding: 0, Kind: StorageBuffer, ReadOnly: true},
		{Binding: 4, Kind: StorageBuffer, ReadOnly: true, Windows: []uint32{49, 50, 51}},
	}
	if !reflect.DeepEqual(got.Bindings, want) {
		t.Errorf("bindings %+v, want %+v", got.Bindings, want)
	}
	for _, c := range []struct {
		name     string
		bindings []uint32
		writable map[uint32]bool
		specs    []uint32
		want     string
	}{
		{"no specialization", []uint32{4, 49, 50, 51}, nil, []uint32{WindowSpecID}, "lacks the specialization constants"},
		{"two windows", []uint32{4, 49, 50}, nil, both, "binding 4 has 2 windows, want 3"},
		{"access", []uint32{4, 49, 50, 51}, map[uint32]bool{50: true}, both, "window at binding 50 differs from binding 4"},
		{"no binding", []uint32{4, 53, 54, 55}, nil, both, "binding 53 is a window of binding 5, which the module does not have"},
		{"window 0", []uint32{4, 48}, nil, both, "binding 48 is not a window"},
	} {
		if _, err := Reflect(windowModule(c.bindings, c.writable, c.specs...)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Reflect = %v; want an error with %q", c.name, err, c.want)
		}
	}
}
