package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// zshaders.go and zargs.go are what the generator makes of the committed
// .spv files. (make check-shaders also recompiles the .comp files with
// glslc.)
func TestGeneratedUpToDate(t *testing.T) {
	files, err := Generate("..")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		got, err := os.ReadFile(filepath.Join("..", f.Name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, f.Source) {
			t.Errorf("shaders/%s is stale: run make shaders (or go generate ./shaders)", f.Name)
		}
	}
}

func TestGenerateErrors(t *testing.T) {
	spv, err := os.ReadFile(filepath.Join("..", "fill.spv"))
	if err != nil {
		t.Fatal(err)
	}
	comp, err := os.ReadFile(filepath.Join("..", "fill.comp"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		files map[string][]byte
		want  string
	}{
		{"empty", map[string][]byte{}, "no .comp files"},
		{"no spv", map[string][]byte{"fill.comp": comp}, "run make shaders"},
		{"stray spv", map[string][]byte{"fill.comp": comp, "fill.spv": spv, "old.spv": spv}, "old.spv has no old.comp"},
		{"no header", map[string][]byte{"fill.comp": []byte("#version 450\nvoid main() {}\n"), "fill.spv": spv}, "header comment"},
		{"bad name", map[string][]byte{"Fill.comp": comp, "Fill.spv": spv}, "lower case"},
		{"bad spirv", map[string][]byte{"fill.comp": comp, "fill.spv": spv[:40]}, "fill.spv"},
	} {
		dir := t.TempDir()
		for name, data := range c.files {
			if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := Generate(dir); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Generate = %v; want an error with %q", c.name, err, c.want)
		}
	}
}

func TestGoName(t *testing.T) {
	for in, want := range map[string]string{"axpby": "Axpby", "mul_elem": "MulElem", "a_b_c2": "AB" + "C2"} {
		if got := goName(in); got != want {
			t.Errorf("goName(%q) = %q, want %q", in, got, want)
		}
	}
}
