package main

import (
	"bytes"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpusim/gpusim/shaders/internal/spirv"
)

// A .comp whose push-constant block disagrees with its SPIR-V (fill.spv,
// compiled from double v; uint n) is a generator error naming the kernel
// and the member: a call site built from the GLSL names would write bytes
// the kernel does not read.
func TestPushMismatch(t *testing.T) {
	spv, err := os.ReadFile(filepath.Join("..", "fill.spv"))
	if err != nil {
		t.Fatal(err)
	}
	comp, err := os.ReadFile(filepath.Join("..", "fill.comp"))
	if err != nil {
		t.Fatal(err)
	}
	block := "\tdouble v;\n\tuint n;\n"
	if !bytes.Contains(comp, []byte(block)) {
		t.Fatalf("fill.comp's push block is not %q", block)
	}
	for _, c := range []struct{ name, block, want string }{
		{"swapped", "\tuint n;\n\tdouble v;\n", "fill: push constant 0 (uint n): the SPIR-V has 64-bit float"},
		{"signed", "\tdouble v;\n\tint n;\n", "fill: push constant 1 (int n): the SPIR-V has 32-bit uint"},
		{"float32", "\tfloat v;\n\tuint n;\n", "fill: push constant 0 (float v): the SPIR-V has 64-bit float"},
		{"extra", "\tdouble v;\n\tuint n;\n\tuint m;\n", "fill.comp declares 3 push constants, the SPIR-V 2"},
		{"array", "\tdouble v;\n\tuint n[2];\n", "fill: push constant 1 (uint n): array length 2 in the source, 0 in the SPIR-V"},
		{"vector", "\tdouble v;\n\tuvec2 n;\n", "the SPIR-V has 32-bit uint"},
		{"same field", "\tdouble n_;\n\tuint n;\n", "Go field N, as for n_"},
		{"bad type", "\tbool v;\n\tuint n;\n", "type bool is not supported"},
		{"bad decl", "\tlayout(offset = 0) double v;\n\tuint n;\n", "cannot read"},
		{"no block", "", "declares none"},
	} {
		src := bytes.Replace(comp, []byte(block), []byte(c.block), 1)
		if c.block == "" {
			src = []byte(strings.Replace(string(comp), "layout(std430, binding = 31) restrict readonly buffer Push {\n"+block+"} p;", "", 1))
		}
		dir := t.TempDir()
		for name, data := range map[string][]byte{"fill.comp": src, "fill.spv": spv} {
			if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := Generate(dir); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Generate = %v; want an error with %q", c.name, err, c.want)
		}
	}
}

// A member at an offset std430 would not give it (an explicit layout
// offset, say) is an error; so is a block the SPIR-V has and the source
// does not declare, and the other way round.
func TestPushLayoutChecks(t *testing.T) {
	dir := t.TempDir()
	src := "layout(std430, binding = 31) restrict readonly buffer P {\n\tuint a;\n\tdouble b;\n} p;\n"
	if err := os.WriteFile(filepath.Join(dir, "k.comp"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	u := spirv.Member{Offset: 0, Size: 4, Scalar: spirv.Uint, Bits: 32, Components: 1}
	d := spirv.Member{Offset: 8, Size: 8, Scalar: spirv.Float, Bits: 64, Components: 1}
	if _, err := pushArgs(dir, "k", &spirv.Reflection{Args: true, PushSize: 16, Push: []spirv.Member{u, d}}); err != nil {
		t.Errorf("std430 layout: %v", err)
	}
	d.Offset = 16
	for _, c := range []struct {
		r    spirv.Reflection
		want string
	}{
		{spirv.Reflection{Args: true, PushSize: 24, Push: []spirv.Member{u, d}}, "k: push constant 1 (double b): at byte 16 (8 bytes, stride 0) in the SPIR-V, std430 puts it at byte 8"},
		{spirv.Reflection{}, "k.comp declares push constants, the SPIR-V has none"},
		{spirv.Reflection{PushSize: 16, Push: []spirv.Member{u, d}}, "the SPIR-V has a push-constant block"},
	} {
		if _, err := pushArgs(dir, "k", &c.r); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("pushArgs = %v; want an error with %q", err, c.want)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "k.comp"), []byte("void main() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := pushArgs(dir, "k", &spirv.Reflection{Args: true, PushSize: 4, Push: []spirv.Member{u}}); err == nil || !strings.Contains(err.Error(), "declares none") {
		t.Errorf("no block in the source: %v", err)
	}
	if ms, err := pushArgs(dir, "k", &spirv.Reflection{}); err != nil || ms != nil {
		t.Errorf("no block anywhere: %v, %v", ms, err)
	}
}

// The generated AppendPush pads exactly as the reflected layout says:
// between members, within an array's stride and at the end. The source is
// built and run (go run), so this needs the Go toolchain only.
func TestArgsPadding(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program")
	}
	dir := t.TempDir()
	// std430: a at 0, v (dvec3, aligned to 32) at 32, f at 56, i at 68,
	// u (uvec3[2], stride 16) at 80; the block ends at 112.
	src := "#include \"block.glsl\"\n"
	lib := "layout(std430, binding = 31) restrict readonly buffer P {\n\tuint a;\n\tdvec3 v;\n\tfloat f[3];\n\tint i;\n\tuvec3 u[2];\n} p;\n"
	if err := os.Mkdir(filepath.Join(dir, "lib"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string]string{"pad.comp": src, "lib/block.glsl": lib} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := &spirv.Reflection{Args: true, PushSize: 112, Push: []spirv.Member{
		{Offset: 0, Size: 4, Scalar: spirv.Uint, Bits: 32, Components: 1},
		{Offset: 32, Size: 24, Scalar: spirv.Float, Bits: 64, Components: 3},
		{Offset: 56, Size: 12, Scalar: spirv.Float, Bits: 32, Components: 1, Len: 3, Stride: 4},
		{Offset: 68, Size: 4, Scalar: spirv.Int, Bits: 32, Components: 1},
		{Offset: 80, Size: 32, Scalar: spirv.Uint, Bits: 32, Components: 3, Len: 2, Stride: 16},
	}}
	ms, err := pushArgs(dir, "pad", r)
	if err != nil {
		t.Fatal(err)
	}
	code, err := argsSource([]kernel{{name: "pad", goName: "Pad", source: "pad", refl: r, push: ms}})
	if err != nil {
		t.Fatal(err)
	}
	code = bytes.Replace(code, []byte("package shaders"), []byte("package main"), 1)
	prog := `package main

import (
	"encoding/hex"
	"fmt"
)

func main() {
	a := PadArgs{A: 1, V: [3]float64{1, 2, -2}, F: [3]float32{1, 2, 3}, I: -1, U: [2][3]uint32{{1, 2, 3}, {4, 5, 6}}}
	fmt.Print(hex.EncodeToString(a.AppendPush(nil)))
}
`
	for name, data := range map[string][]byte{"go.mod": []byte("module pad\n\ngo 1.22\n"), "zargs.go": code, "main.go": []byte(prog)} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("go", "run", ".")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go run: %v\n%s\n%s", err, out, code)
	}
	want := "01000000" + strings.Repeat("00", 28) + // a, padding to 32
		"000000000000f03f" + "0000000000000040" + "00000000000000c0" + // v
		"0000803f" + "00000040" + "00004040" + // f
		"ffffffff" + strings.Repeat("00", 8) + // i, padding to 80
		"010000000200000003000000" + "00000000" + "040000000500000006000000" + "00000000" // u
	if string(out) != want {
		got, _ := hex.DecodeString(string(out))
		t.Errorf("AppendPush = %x (%d bytes)\nwant         %s", got, len(got), want)
	}
}
