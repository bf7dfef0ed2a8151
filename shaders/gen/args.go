package main

import (
	"bytes"
	"fmt"
	"go/format"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/gpusim/gpusim/shaders/internal/spirv"
)

// A push-constant member as the GLSL source declares it, with the Go field
// that carries it and its layout from the SPIR-V.
type pushMember struct {
	glsl  string // its name in the block
	typ   string // its GLSL type: uint, dvec3, …
	field string // the Go field
	refl  spirv.Member
}

// glslType is a GLSL type a push-constant member may have.
type glslType struct {
	scalar     spirv.Scalar
	bits       uint32
	components uint32
}

var glslTypes = map[string]glslType{}

func init() {
	for _, s := range []struct {
		name, vec string
		t         glslType
	}{
		{"uint", "uvec", glslType{spirv.Uint, 32, 1}},
		{"int", "ivec", glslType{spirv.Int, 32, 1}},
		{"float", "vec", glslType{spirv.Float, 32, 1}},
		{"double", "dvec", glslType{spirv.Float, 64, 1}},
	} {
		glslTypes[s.name] = s.t
		for n := uint32(2); n <= 4; n++ {
			t := s.t
			t.components = n
			glslTypes[s.vec+strconv.Itoa(int(n))] = t
		}
	}
}

// goType is the Go type of one component.
func (t glslType) goType() string {
	switch {
	case t.scalar == spirv.Uint:
		return "uint32"
	case t.scalar == spirv.Int:
		return "int32"
	case t.bits == 32:
		return "float32"
	}
	return "float64"
}

// std430 returns the alignment and size of the type in a std430 block
// (Vulkan spec, "Offset and Stride Assignment": a three- or
// four-component vector aligns to four components).
func (t glslType) std430() (align, size uint32) {
	c := t.bits / 8
	size = c * t.components
	switch t.components {
	case 1, 2:
		return size, size
	}
	return 4 * c, size
}

var (
	lineComment  = regexp.MustCompile(`//[^\n]*`)
	blockComment = regexp.MustCompile(`(?s)/\*.*?\*/`)
	includeLine  = regexp.MustCompile(`(?m)^[ \t]*#[ \t]*include[ \t]+"([^"]+)"`)
	pushBlockRE  = regexp.MustCompile(`layout\s*\(\s*std430\s*,\s*binding\s*=\s*31\s*\)\s*restrict\s+readonly\s+buffer\s+\w+\s*\{([^}]*)\}\s*\w*\s*;`)
	argsCountRE  = regexp.MustCompile(`push_constant|binding\s*=\s*31\b`)
	declRE       = regexp.MustCompile(`^([A-Za-z_]\w*)\s+(.+)$`)
	declNameRE   = regexp.MustCompile(`^([A-Za-z_]\w*)\s*(?:\[\s*([0-9]+)\s*\])?$`)
)

// expand returns the source of file with its #include "x" lines replaced by
// the text of x, looked up in lib/ beside the kernels as glslc -I
// shaders/lib does, then in the kernels' folder.
func expand(dir, file, src string, depth int) (string, error) {
	if depth > 8 {
		return "", fmt.Errorf("%s: #include nested too deeply", file)
	}
	var err error
	out := includeLine.ReplaceAllStringFunc(src, func(line string) string {
		name := includeLine.FindStringSubmatch(line)[1]
		for _, p := range []string{filepath.Join(dir, "lib", name), filepath.Join(dir, name)} {
			text, e := os.ReadFile(p)
			if e != nil {
				continue
			}
			s, e := expand(dir, name, string(text), depth+1)
			if e != nil && err == nil {
				err = e
			}
			return s
		}
		if err == nil {
			err = fmt.Errorf("%s: #include %q: not in lib/", file, name)
		}
		return ""
	})
	return out, err
}

// sourcePush returns the members of the push-constant block the kernel's
// source (with its includes) declares: names, GLSL types and array
// lengths, in order; none when it declares no block.
func sourcePush(dir, name string) ([]pushMember, []uint32, bool, error) {
	file := name + ".comp"
	text, err := os.ReadFile(filepath.Join(dir, file))
	if err != nil {
		return nil, nil, false, err
	}
	src, err := expand(dir, file, string(text), 0)
	if err != nil {
		return nil, nil, false, err
	}
	src = lineComment.ReplaceAllString(blockComment.ReplaceAllString(src, " "), " ")
	blocks := pushBlockRE.FindAllStringSubmatch(src, -1)
	if n := len(argsCountRE.FindAllString(src, -1)); n != len(blocks) || n > 1 {
		return nil, nil, false, fmt.Errorf("%s: %d push_constant or binding-31 declarations, %d of the form "+
			"layout(std430, binding = 31) restrict readonly buffer Name { members } p; (want at most one, of that form: the "+
			"kernel's arguments, shaders/doc.go)", file, n, len(blocks))
	}
	if len(blocks) == 0 {
		return nil, nil, false, nil
	}
	var ms []pushMember
	var lens []uint32
	for _, decl := range strings.Split(blocks[0][1], ";") {
		decl = strings.Join(strings.Fields(decl), " ")
		if decl == "" {
			continue
		}
		d := declRE.FindStringSubmatch(decl)
		if d == nil {
			return nil, nil, false, fmt.Errorf("%s: push constants: cannot read %q (want TYPE name[, name…];)", file, decl)
		}
		if _, ok := glslTypes[d[1]]; !ok {
			return nil, nil, false, fmt.Errorf("%s: push constants: %q: type %s is not supported (scalars and vectors of uint, int, float, double, and arrays of them)", file, decl, d[1])
		}
		for _, n := range strings.Split(d[2], ",") {
			v := declNameRE.FindStringSubmatch(strings.TrimSpace(n))
			if v == nil {
				return nil, nil, false, fmt.Errorf("%s: push constants: cannot read %q in %q", file, strings.TrimSpace(n), decl)
			}
			var l uint32
			if v[2] != "" {
				x, err := strconv.ParseUint(v[2], 10, 16)
				if err != nil || x == 0 {
					return nil, nil, false, fmt.Errorf("%s: push constants: %s: bad array length %s", file, v[1], v[2])
				}
				l = uint32(x)
			}
			ms = append(ms, pushMember{glsl: v[1], typ: d[1], field: fieldName(v[1])})
			lens = append(lens, l)
		}
	}
	return ms, lens, true, nil
}

// initialisms are the member names whose Go field is all capitals.
var initialisms = map[string]string{"nc": "NC", "np": "NP"}

// fieldName turns a GLSL member name into an exported Go field name: nc is
// NC, maxIter MaxIter, out_ Out.
func fieldName(s string) string {
	s = strings.Trim(s, "_")
	if f, ok := initialisms[s]; ok {
		return f
	}
	if s == "" {
		return ""
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// pushArgs matches the source's push-constant block against the reflected
// one: the same number of members, each of the source's type and array
// length, at the offset std430 gives it. Any difference is an error naming
// the kernel and the member.
func pushArgs(dir, name string, r *spirv.Reflection) ([]pushMember, error) {
	ms, lens, ok, err := sourcePush(dir, name)
	if err != nil {
		return nil, err
	}
	switch {
	case !ok && r.PushSize == 0:
		return nil, nil
	case !ok:
		return nil, fmt.Errorf("%s: the SPIR-V has a push-constant block of %d bytes, %s.comp declares none", name, r.PushSize, name)
	case r.PushSize == 0:
		return nil, fmt.Errorf("%s: %s.comp declares push constants, the SPIR-V has none (does the kernel read them?)", name, name)
	case !r.Args:
		return nil, fmt.Errorf("%s: the SPIR-V has a push-constant block: a kernel takes its arguments in the block at binding %d (shaders/doc.go)", name, spirv.ArgsBinding)
	case len(ms) != len(r.Push):
		return nil, fmt.Errorf("%s: %s.comp declares %d push constants, the SPIR-V %d", name, name, len(ms), len(r.Push))
	}
	fields := map[string]string{}
	end := uint32(0)
	for i := range ms {
		m, rm := &ms[i], r.Push[i]
		m.refl = rm
		t := glslTypes[m.typ]
		where := fmt.Sprintf("%s: push constant %d (%s %s)", name, i, m.typ, m.glsl)
		if m.field == "" || !validField.MatchString(m.field) {
			return nil, fmt.Errorf("%s: no Go field name for it", where)
		}
		if prev, ok := fields[m.field]; ok {
			return nil, fmt.Errorf("%s: Go field %s, as for %s", where, m.field, prev)
		}
		fields[m.field] = m.glsl
		if rm.Name != "" && rm.Name != m.glsl {
			return nil, fmt.Errorf("%s: the SPIR-V names it %s", where, rm.Name)
		}
		if rm.Scalar != t.scalar || rm.Bits != t.bits || rm.Components != t.components {
			return nil, fmt.Errorf("%s: the SPIR-V has %s", where, reflType(rm))
		}
		if rm.Len != lens[i] {
			return nil, fmt.Errorf("%s: array length %d in the source, %d in the SPIR-V", where, lens[i], rm.Len)
		}
		align, size := t.std430()
		stride := (size + align - 1) / align * align
		if rm.Len > 0 {
			size = rm.Len * stride
		}
		off := (end + align - 1) / align * align
		if rm.Offset != off || rm.Size != size || (rm.Len > 0 && rm.Stride != stride) {
			return nil, fmt.Errorf("%s: at byte %d (%d bytes, stride %d) in the SPIR-V, std430 puts it at byte %d (%d bytes, stride %d)",
				where, rm.Offset, rm.Size, rm.Stride, off, size, stride)
		}
		end = off + size
	}
	if end != r.PushSize {
		return nil, fmt.Errorf("%s: the members end at byte %d, the block at %d", name, end, r.PushSize)
	}
	return ms, nil
}

var validField = regexp.MustCompile(`^[A-Z][A-Za-z0-9_]*$`)

// reflType writes a reflected member's type in GLSL terms.
func reflType(m spirv.Member) string {
	if m.Scalar == spirv.Other {
		return "a struct or matrix"
	}
	s := fmt.Sprintf("%d-bit %s", m.Bits, m.Scalar)
	if m.Components > 1 {
		s = fmt.Sprintf("%d-component vector of %s", m.Components, s)
	}
	if m.Len > 0 {
		s = fmt.Sprintf("array of %d %s", m.Len, s)
	}
	return s
}

// argsSource returns the source of zargs.go: for each kernel with push
// constants, NAMEArgs with a field per member and the methods of
// shaders.Args.
func argsSource(ks []kernel) ([]byte, error) {
	var body bytes.Buffer
	usesMath := false
	for _, k := range ks {
		if len(k.push) == 0 || k.name != k.source {
			continue // a variant shares its source's NAMEArgs
		}
		tn := k.goName + "Args"
		fmt.Fprintf(&body, "// %s are the push constants of %s.comp (%d bytes).\n", tn, k.name, k.refl.PushSize)
		fmt.Fprintf(&body, "type %s struct {\n", tn)
		for _, m := range k.push {
			t := glslTypes[m.typ]
			gt := t.goType()
			if t.components > 1 {
				gt = fmt.Sprintf("[%d]%s", t.components, gt)
			}
			if m.refl.Len > 0 {
				gt = fmt.Sprintf("[%d]%s", m.refl.Len, gt)
			}
			fmt.Fprintf(&body, "%s %s // %s %s, byte %d\n", m.field, gt, m.typ, m.glsl, m.refl.Offset)
		}
		body.WriteString("}\n\n")
		fmt.Fprintf(&body, "// Kernel returns %q.\nfunc (%s) Kernel() string { return %q }\n\n", k.name, tn, k.name)
		fmt.Fprintf(&body, "// AppendPush appends the %d bytes of the block to b.\n", k.refl.PushSize)
		fmt.Fprintf(&body, "func (a %s) AppendPush(b []byte) []byte {\n", tn)
		at := uint32(0)
		for _, m := range k.push {
			t := glslTypes[m.typ]
			pad(&body, m.refl.Offset-at)
			_, size := t.std430()
			elem := func(v string) {
				if t.components == 1 {
					usesMath = appendValue(&body, t, v) || usesMath
					return
				}
				for c := range t.components {
					usesMath = appendValue(&body, t, fmt.Sprintf("%s[%d]", v, c)) || usesMath
				}
			}
			if m.refl.Len == 0 {
				elem("a." + m.field)
			} else {
				fmt.Fprintf(&body, "for _, v := range a.%s {\n", m.field)
				elem("v")
				pad(&body, m.refl.Stride-size)
				body.WriteString("}\n")
			}
			at = m.refl.Offset + m.refl.Size
		}
		pad(&body, k.refl.PushSize-at)
		body.WriteString("return b\n}\n\n")
	}
	var b bytes.Buffer
	b.WriteString("// Code generated by go run ./shaders/gen; DO NOT EDIT.\n\n")
	b.WriteString("package shaders\n\n")
	if body.Len() > 0 {
		b.WriteString("import (\n\"encoding/binary\"\n")
		if usesMath {
			b.WriteString("\"math\"\n")
		}
		b.WriteString(")\n\n")
	}
	b.Write(body.Bytes())
	return format.Source(b.Bytes())
}

// appendValue writes the statement that appends the component v of type t
// in little-endian order, and reports whether it uses package math.
func appendValue(b *bytes.Buffer, t glslType, v string) bool {
	switch {
	case t.scalar == spirv.Uint:
		fmt.Fprintf(b, "b = binary.LittleEndian.AppendUint32(b, %s)\n", v)
	case t.scalar == spirv.Int:
		fmt.Fprintf(b, "b = binary.LittleEndian.AppendUint32(b, uint32(%s))\n", v)
	case t.bits == 32:
		fmt.Fprintf(b, "b = binary.LittleEndian.AppendUint32(b, math.Float32bits(%s))\n", v)
		return true
	default:
		fmt.Fprintf(b, "b = binary.LittleEndian.AppendUint64(b, math.Float64bits(%s))\n", v)
		return true
	}
	return false
}

// pad writes the statement that appends n zero bytes of padding.
func pad(b *bytes.Buffer, n uint32) {
	if n == 0 {
		return
	}
	b.WriteString("b = append(b")
	for range n {
		b.WriteString(", 0")
	}
	b.WriteString(") // padding\n")
}
