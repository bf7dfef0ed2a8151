package shaders

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every .comp has its module in the table (and a float32-storage build,
// NAME_f32, when it includes store.glsl), with SPIR-V that starts with
// the magic number and a header that documents it.
func TestTable(t *testing.T) {
	comps, err := filepath.Glob("*.comp")
	if err != nil {
		t.Fatal(err)
	}
	want := len(comps)
	for _, c := range comps {
		name := strings.TrimSuffix(c, ".comp")
		src, err := os.ReadFile(c)
		if err != nil {
			t.Fatal(err)
		}
		builds := []string{name}
		if strings.Contains(string(src), "\n#include \"store.glsl\"") {
			builds = append(builds, name+"_f32")
			want++
		}
		for _, b := range builds {
			m, ok := Lookup(b)
			if !ok {
				t.Errorf("%s has no module %s (run make shaders)", c, b)
				continue
			}
			if m.Source != name {
				t.Errorf("%s: module %s has source %q", c, b, m.Source)
			}
		}
	}
	if len(All()) != want {
		t.Errorf("%d .comp files, %d modules, want %d", len(comps), len(All()), want)
	}
	for _, c := range comps {
		name := strings.TrimSuffix(c, ".comp")
		m, ok := Lookup(name)
		if !ok {
			continue
		}
		if len(m.SPIRV) < 20 || len(m.SPIRV)%4 != 0 || binary.LittleEndian.Uint32([]byte(m.SPIRV)) != 0x07230203 {
			t.Errorf("%s: not SPIR-V", name)
		}
		if m.LocalSize[0]*m.LocalSize[1]*m.LocalSize[2] == 0 || len(m.Bindings) == 0 {
			t.Errorf("%s: implausible table entry %+v", name, m)
		}
		src, err := os.ReadFile(c)
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"// " + name + ": ", "Bindings", "Dispatch"} {
			if !strings.Contains(string(src), want) {
				t.Errorf("%s: the header comment lacks %q", c, want)
			}
		}
	}
	if _, ok := Lookup("no-such-kernel"); ok {
		t.Error("Lookup found a kernel that does not exist")
	}
}

// Every lib/*.glsl opens with a header comment naming it and is included by
// some kernel, and every #include of a kernel or lib file names a lib file
// (glslc resolves them with -I shaders/lib).
func TestLib(t *testing.T) {
	libs, err := filepath.Glob(filepath.Join("lib", "*.glsl"))
	if err != nil {
		t.Fatal(err)
	}
	comps, err := filepath.Glob("*.comp")
	if err != nil {
		t.Fatal(err)
	}
	included := map[string]bool{}
	for _, f := range append(comps, libs...) {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(src), "\n") {
			name, ok := strings.CutPrefix(strings.TrimSpace(line), "#include ")
			if !ok {
				continue
			}
			name = strings.Trim(name, `"`)
			if _, err := os.Stat(filepath.Join("lib", name)); err != nil {
				t.Errorf("%s includes %q, which is not in lib/", f, name)
			}
			included[name] = true
		}
	}
	for _, l := range libs {
		name := filepath.Base(l)
		src, err := os.ReadFile(l)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(src), "// "+name+": ") {
			t.Errorf("%s: the header comment must open with %q", l, "// "+name+": ")
		}
		if !included[name] {
			t.Errorf("%s is included by no kernel", l)
		}
	}
}

// Every kernel with push constants has its NAMEArgs in the table, naming
// the kernel and appending exactly its block's bytes; a kernel without has
// none.
func TestArgs(t *testing.T) {
	for _, m := range All() {
		if m.PushSize == 0 {
			if m.Args != nil {
				t.Errorf("%s: no push constants, Args %T", m.Name, m.Args)
			}
			continue
		}
		if m.Args == nil {
			t.Errorf("%s: %d bytes of arguments, no Args", m.Name, m.PushSize)
			continue
		}
		if got := m.Args.Kernel(); got != m.Source {
			t.Errorf("%s: Args %T names kernel %s", m.Name, m.Args, got)
		}
		pre := []byte{9}
		if b := m.Args.AppendPush(pre); len(b) != 1+int(m.PushSize) || b[0] != 9 {
			t.Errorf("%s: AppendPush appends %d bytes, want %d", m.Name, len(b)-1, m.PushSize)
		}
	}
	b := FillArgs{V: 1.5, N: 7}.AppendPush(nil)
	want := []byte{0, 0, 0, 0, 0, 0, 0xf8, 0x3f, 7, 0, 0, 0}
	if string(b) != string(want) {
		t.Errorf("FillArgs{V: 1.5, N: 7}.AppendPush(nil) = %x, want %x", b, want)
	}
}
