package shaders

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every .comp has its module in the table, with SPIR-V that starts with
// the magic number and a header that documents it.
func TestTable(t *testing.T) {
	comps, err := filepath.Glob("*.comp")
	if err != nil {
		t.Fatal(err)
	}
	if len(comps) != len(All()) {
		t.Errorf("%d .comp files, %d modules", len(comps), len(All()))
	}
	for _, c := range comps {
		name := strings.TrimSuffix(c, ".comp")
		m, ok := Lookup(name)
		if !ok {
			t.Errorf("%s has no module (run make shaders)", c)
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
