// Command gen writes shaders/zshaders.go and shaders/zargs.go. zshaders.go
// has, for every compiled kernel NAME.spv beside its source NAME.comp, a
// Module that embeds the SPIR-V, with the bindings, workgroup size and
// push-constant size read from the SPIR-V itself (package
// shaders/internal/spirv), and the doc comment taken from the first
// paragraph of the .comp header; and for every NAME_f32.spv beside a
// NAME.comp that includes store.glsl (make shaders compiles those a second
// time with -DSTORE_F32), a Module NAMEF32 with the same source and
// push constants (NAMEArgs). zargs.go has, for every kernel with push
// constants, the struct NAMEArgs of its push-constant block: a field per
// member, named after the member of the GLSL block (glslc -O strips names
// from the SPIR-V), its type and offset from the SPIR-V, which must agree
// with the GLSL declaration and std430; any difference is an error naming
// the kernel and the member.
//
// Usage (from the repository root; make shaders runs it after glslc):
//
//	go run ./shaders/gen [-dir shaders] [-out DIR]
package main

import (
	"bytes"
	"flag"
	"fmt"
	"go/format"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/gpusim/gpusim/shaders/internal/spirv"
)

func main() {
	dir := flag.String("dir", "shaders", "folder with the .comp and .spv files (and lib/)")
	out := flag.String("out", "", "folder of the generated files (default DIR)")
	flag.Parse()
	if *out == "" {
		*out = *dir
	}
	files, err := Generate(*dir)
	if err != nil {
		fmt.Fprintf(os.Stderr, "shaders/gen: %v\n", err)
		os.Exit(1)
	}
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(*out, f.Name), f.Source, 0o644); err != nil {
			fmt.Fprintf(os.Stderr, "shaders/gen: %v\n", err)
			os.Exit(1)
		}
	}
}

// File is a generated file: its name in the shaders folder and its source.
type File struct {
	Name   string
	Source []byte
}

var validName = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

type kernel struct {
	name, goName string
	source       string   // the .comp file's name without .comp (name, or name without _f32)
	summary      []string // first paragraph of the .comp header
	refl         *spirv.Reflection
	push         []pushMember // the push-constant block's members
}

// Generate returns zshaders.go and zargs.go for the kernels in dir.
func Generate(dir string) ([]File, error) {
	comps, err := filepath.Glob(filepath.Join(dir, "*.comp"))
	if err != nil {
		return nil, err
	}
	spvs, err := filepath.Glob(filepath.Join(dir, "*.spv"))
	if err != nil {
		return nil, err
	}
	names := map[string]bool{}
	for _, c := range comps {
		names[strings.TrimSuffix(filepath.Base(c), ".comp")] = true
	}
	variants := map[string]bool{}
	for _, s := range spvs {
		n := strings.TrimSuffix(filepath.Base(s), ".spv")
		if base, ok := strings.CutSuffix(n, f32Suffix); ok && names[base] {
			variants[base] = true
			continue
		}
		if !names[n] {
			return nil, fmt.Errorf("%s has no %s.comp beside it", s, n)
		}
	}
	var ks []kernel
	for _, c := range comps {
		source := strings.TrimSuffix(filepath.Base(c), ".comp")
		if !validName.MatchString(source) {
			return nil, fmt.Errorf("%s: kernel names are lower case letters, digits and underscores", c)
		}
		text, err := os.ReadFile(c)
		if err != nil {
			return nil, err
		}
		stored := storeInclude.Match(text)
		if stored != variants[source] {
			if stored {
				return nil, fmt.Errorf("%s includes store.glsl, but %s%s.spv is missing (run make shaders)", c, source, f32Suffix)
			}
			return nil, fmt.Errorf("%s%s.spv: %s.comp does not include store.glsl", source, f32Suffix, source)
		}
		builds := []string{source}
		if stored {
			builds = append(builds, source+f32Suffix)
		}
		for _, name := range builds {
			k, err := reflectKernel(dir, name, source, string(text))
			if err != nil {
				return nil, err
			}
			ks = append(ks, k)
		}
	}
	if len(ks) == 0 {
		return nil, fmt.Errorf("no .comp files in %s", dir)
	}
	sort.Slice(ks, func(i, j int) bool { return ks[i].name < ks[j].name })
	return generate(ks)
}

// f32Suffix ends the name of a kernel's float32-storage build.
const f32Suffix = "_f32"

// storeInclude matches the line that includes store.glsl.
var storeInclude = regexp.MustCompile(`(?m)^#include "store.glsl"`)

// reflectKernel reads NAME.spv, built from SOURCE.comp (text).
func reflectKernel(dir, name, source, text string) (kernel, error) {
	var none kernel
	code, err := os.ReadFile(filepath.Join(dir, name+".spv"))
	if err != nil {
		return none, fmt.Errorf("%w (run make shaders)", err)
	}
	refl, err := spirv.Reflect(code)
	if err != nil {
		return none, fmt.Errorf("%s.spv: %w", name, err)
	}
	if refl.Entry != "main" {
		return none, fmt.Errorf("%s.spv: entry point %q, want main", name, refl.Entry)
	}
	for _, b := range refl.Bindings {
		if b.Set != 0 {
			return none, fmt.Errorf("%s.spv: binding %d is in set %d; only set 0 is supported", name, b.Binding, b.Set)
		}
	}
	sum, err := summary(source, text)
	if err != nil {
		return none, fmt.Errorf("%s.comp: %w", source, err)
	}
	push, err := pushArgs(dir, source, refl)
	if err != nil {
		return none, err
	}
	return kernel{name: name, goName: goName(name), source: source, summary: sum, refl: refl, push: push}, nil
}

// generate writes zshaders.go and zargs.go for ks, sorted by name.
func generate(ks []kernel) ([]File, error) {
	var b bytes.Buffer
	b.WriteString("// Code generated by go run ./shaders/gen; DO NOT EDIT.\n\n")
	b.WriteString("package shaders\n\nimport _ \"embed\"\n\n")
	for _, k := range ks {
		r := k.refl
		if k.name != k.source {
			fmt.Fprintf(&b, "// %s is %s.comp built with float32 storage (lib/store.glsl):\n// %s\n", k.goName, k.source, k.summary[0])
		} else {
			fmt.Fprintf(&b, "// %s is %s.comp: %s\n", k.goName, k.name, k.summary[0])
		}
		for _, l := range k.summary[1:] {
			fmt.Fprintf(&b, "// %s\n", l)
		}
		fmt.Fprintf(&b, "var %s = Module{\n", k.goName)
		fmt.Fprintf(&b, "Name: %q,\n", k.name)
		fmt.Fprintf(&b, "Source: %q,\n", k.source)
		fmt.Fprintf(&b, "SPIRV: %sSPIRV,\n", k.name)
		b.WriteString("Bindings: []Binding{\n")
		for _, bd := range r.Bindings {
			kind := "StorageBuffer"
			if bd.Kind == spirv.UniformBuffer {
				kind = "UniformBuffer"
			}
			fmt.Fprintf(&b, "{Binding: %d, Kind: %s", bd.Binding, kind)
			if bd.ReadOnly {
				b.WriteString(", ReadOnly: true")
			}
			if bd.WriteOnly {
				b.WriteString(", WriteOnly: true")
			}
			if len(bd.Windows) > 0 {
				b.WriteString(", Windows: []uint32{")
				for i, w := range bd.Windows {
					if i > 0 {
						b.WriteString(", ")
					}
					fmt.Fprintf(&b, "%d", w)
				}
				b.WriteString("}")
			}
			b.WriteString("},\n")
		}
		b.WriteString("},\n")
		fmt.Fprintf(&b, "LocalSize: [3]uint32{%d, %d, %d},\n", r.LocalSize[0], r.LocalSize[1], r.LocalSize[2])
		fmt.Fprintf(&b, "PushSize: %d,\n", r.PushSize)
		if len(k.push) > 0 {
			fmt.Fprintf(&b, "Args: %sArgs{},\n", goName(k.source))
		}
		b.WriteString("}\n\n")
		fmt.Fprintf(&b, "//go:embed %s.spv\nvar %sSPIRV string\n\n", k.name, k.name)
	}
	b.WriteString("// All returns every module, by name.\nfunc All() []Module {\nreturn []Module{")
	for i, k := range ks {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(k.goName)
	}
	b.WriteString("}\n}\n")
	shadersSrc, err := format.Source(b.Bytes())
	if err != nil {
		return nil, err
	}
	argsSrc, err := argsSource(ks)
	if err != nil {
		return nil, err
	}
	return []File{{"zshaders.go", shadersSrc}, {"zargs.go", argsSrc}}, nil
}

// summary returns the first paragraph of a .comp file's header comment,
// without its "name: " prefix, as lines of text.
func summary(name, text string) ([]string, error) {
	var lines []string
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if lines == nil && (line == "" || strings.HasPrefix(line, "#")) {
			continue
		}
		if lines == nil {
			s, ok := strings.CutPrefix(line, "// "+name+": ")
			if !ok || strings.TrimSpace(s) == "" {
				return nil, fmt.Errorf("the header comment must open with %q", "// "+name+": summary")
			}
			lines = append(lines, strings.TrimSpace(s))
			continue
		}
		s, ok := strings.CutPrefix(line, "// ")
		if !ok || strings.TrimSpace(s) == "" {
			break
		}
		lines = append(lines, strings.TrimSpace(s))
	}
	if lines == nil {
		return nil, fmt.Errorf("no header comment")
	}
	return lines, nil
}

// goName turns mul_elem into MulElem.
func goName(name string) string {
	var b strings.Builder
	for _, part := range strings.Split(name, "_") {
		if part == "" {
			continue
		}
		b.WriteString(strings.ToUpper(part[:1]) + part[1:])
	}
	return b.String()
}
