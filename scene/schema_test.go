package scene

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/gpusim/gpusim/engine"
)

// The JSON Schema of the scene format lives beside the example scenes. The
// tests here keep it in sync with the Go types of spec.go (by reflection,
// both directions) and check the examples against it with a small
// validator of the keywords the schema uses (no schema library).

const schemaPath = "../examples/scene.schema.json"

func loadSchema(t *testing.T) map[string]any {
	t.Helper()
	data, err := os.ReadFile(schemaPath)
	if err != nil {
		t.Fatal(err)
	}
	v, err := decodeJSON(data)
	if err != nil {
		t.Fatalf("%s: %v", schemaPath, err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("%s: not a JSON object", schemaPath)
	}
	return m
}

func decodeJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// schema resolves "$ref": "#/$defs/NAME" references against the root.
type schema struct{ root map[string]any }

func (s schema) resolve(node map[string]any) (map[string]any, error) {
	for range 16 {
		ref, ok := node["$ref"].(string)
		if !ok {
			return node, nil
		}
		name, ok := strings.CutPrefix(ref, "#/$defs/")
		if !ok {
			return nil, fmt.Errorf("$ref %q: only #/$defs/NAME is supported", ref)
		}
		defs, _ := s.root["$defs"].(map[string]any)
		next, ok := defs[name].(map[string]any)
		if !ok {
			return nil, fmt.Errorf("$ref %q: no such definition", ref)
		}
		node = next
	}
	return nil, fmt.Errorf("$ref chain too long")
}

// jsonFields lists the JSON names of a struct's fields as encoding/json
// sees them (embedded structs flattened, "-" skipped).
func jsonFields(t reflect.Type) map[string]reflect.StructField {
	fields := map[string]reflect.StructField{}
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		name, _, _ := strings.Cut(tag, ",")
		if tag == "-" || !f.IsExported() {
			continue
		}
		if f.Anonymous && name == "" {
			et := f.Type
			if et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			for n, ef := range jsonFields(et) {
				fields[n] = ef
			}
			continue
		}
		if name == "" {
			name = f.Name
		}
		fields[name] = f
	}
	return fields
}

// compareType walks the Go type t and the schema node side by side and
// returns every difference: a struct field without a schema property, a
// property without a field, and JSON types that disagree.
func (s schema) compareType(t reflect.Type, node map[string]any, path string) []string {
	return s.compareIn(t, node, path, map[reflect.Type]bool{})
}

// compareIn is compareType with the struct types being compared on the
// way down in open: a recursive type (a compound's parts hold shapes) is
// compared once, where it first appears.
func (s schema) compareIn(t reflect.Type, node map[string]any, path string, open map[reflect.Type]bool) []string {
	node, err := s.resolve(node)
	if err != nil {
		return []string{fmt.Sprintf("%s: %v", path, err)}
	}
	at := path
	if at == "" {
		at = "(top level)"
	}
	switch t {
	case reflect.TypeFor[Size]():
		// A number, or a distribution object read into sizeObject.
		var out []string
		var sawNumber, sawObject bool
		for _, b := range branches(node) {
			rb, err := s.resolve(b)
			if err != nil {
				return []string{fmt.Sprintf("%s: %v", at, err)}
			}
			switch rb["type"] {
			case "number":
				sawNumber = true
			case "object":
				sawObject = true
				out = append(out, s.compareIn(reflect.TypeFor[sizeObject](), rb, path, open)...)
			}
		}
		if !sawNumber || !sawObject {
			out = append(out, fmt.Sprintf("%s: a size (scene.Size) is a number or a distribution object: want oneOf with both", at))
		}
		return out
	case reflect.TypeFor[Seed]():
		var types []string
		for _, b := range branches(node) {
			if ty, ok := b["type"].(string); ok {
				types = append(types, ty)
			}
		}
		sort.Strings(types)
		if !slices.Equal(types, []string{"integer", "string"}) {
			return []string{fmt.Sprintf("%s: a seed (scene.Seed) is an integer or a string: want oneOf of both, have %v", at, types)}
		}
		return nil
	}
	switch t.Kind() {
	case reflect.Pointer:
		return s.compareIn(t.Elem(), node, path, open)
	case reflect.Slice, reflect.Array:
		if node["type"] != "array" {
			return []string{fmt.Sprintf("%s: Go type %s is a JSON array, the schema says type %v", at, t, node["type"])}
		}
		var out []string
		if t.Kind() == reflect.Array {
			n := strconv.Itoa(t.Len())
			if fmt.Sprint(node["minItems"]) != n || fmt.Sprint(node["maxItems"]) != n {
				out = append(out, fmt.Sprintf("%s: Go type %s has %s elements, the schema minItems %v, maxItems %v", at, t, n, node["minItems"], node["maxItems"]))
			}
		}
		items, ok := node["items"].(map[string]any)
		if !ok {
			return append(out, fmt.Sprintf("%s: array without items", at))
		}
		return append(out, s.compareIn(t.Elem(), items, path+"[]", open)...)
	case reflect.Struct:
		if open[t] {
			return nil
		}
		open[t] = true
		defer delete(open, t)
		if node["type"] != "object" {
			return []string{fmt.Sprintf("%s: Go type %s is a JSON object, the schema says type %v", at, t, node["type"])}
		}
		var out []string
		if node["additionalProperties"] != false {
			out = append(out, fmt.Sprintf("%s: unknown fields are errors: want \"additionalProperties\": false", at))
		}
		props, _ := node["properties"].(map[string]any)
		fields := jsonFields(t)
		for _, name := range sortedKeys(fields) {
			p, ok := props[name].(map[string]any)
			if !ok {
				out = append(out, fmt.Sprintf("%s: field %s.%s (json %q) is missing from the schema's properties", at, t, fields[name].Name, name))
				continue
			}
			out = append(out, s.compareIn(fields[name].Type, p, join(path, name), open)...)
		}
		for _, name := range sortedKeys(props) {
			if _, ok := fields[name]; !ok {
				out = append(out, fmt.Sprintf("%s: schema property %q has no field in Go type %s", at, name, t))
			}
		}
		return out
	}
	want := map[reflect.Kind]string{reflect.Float64: "number", reflect.Int: "integer", reflect.String: "string", reflect.Bool: "boolean"}[t.Kind()]
	if want == "" {
		return []string{fmt.Sprintf("%s: Go type %s: the test does not know its JSON type; extend compareType", at, t)}
	}
	got, _ := node["type"].(string)
	if got == "" && want == "string" && node["enum"] != nil {
		return nil // a string enumeration
	}
	if got != want {
		return []string{fmt.Sprintf("%s: Go type %s is a JSON %s, the schema says type %q", at, t, want, got)}
	}
	return nil
}

func branches(node map[string]any) []map[string]any {
	var out []map[string]any
	for _, key := range []string{"oneOf", "anyOf"} {
		list, _ := node[key].([]any)
		for _, b := range list {
			if m, ok := b.(map[string]any); ok {
				out = append(out, m)
			}
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func TestSchemaMatchesSpecTypes(t *testing.T) {
	s := schema{loadSchema(t)}
	for _, d := range s.compareType(reflect.TypeFor[Doc](), s.root, "") {
		t.Error(d)
	}
}

// The comparison finds a field added to a Go type and a property missing
// from it: without this the test above could pass vacuously.
func TestSchemaComparisonFindsDrift(t *testing.T) {
	s := schema{loadSchema(t)}
	type material struct {
		Name        string   `json:"name"`
		Friction    *float64 `json:"friction"`
		Rolling     float64  `json:"rolling_friction,omitempty"`
		Spinning    float64  `json:"spinning_friction,omitempty"`
		Restitution float64  `json:"restitution,omitempty"` // not in the schema
		// cohesion left out
	}
	defs := s.root["$defs"].(map[string]any)
	diffs := s.compareType(reflect.TypeFor[material](), defs["material"].(map[string]any), "materials[]")
	joined := strings.Join(diffs, "\n")
	if len(diffs) != 2 || !strings.Contains(joined, `(json "restitution") is missing from the schema`) || !strings.Contains(joined, `property "cohesion" has no field`) {
		t.Errorf("want exactly the two differences restitution and cohesion, got:\n%s", joined)
	}
}

func TestSchemaSolverEnum(t *testing.T) {
	s := schema{loadSchema(t)}
	settings := s.root["$defs"].(map[string]any)["settings"].(map[string]any)
	solver := settings["properties"].(map[string]any)["solver"].(map[string]any)
	var enum []string
	for _, v := range solver["enum"].([]any) {
		enum = append(enum, v.(string))
	}
	var names []string
	for _, line := range engine.Solvers() {
		name, _, _ := strings.Cut(line, ":")
		names = append(names, name)
	}
	sort.Strings(enum)
	sort.Strings(names)
	if !slices.Equal(enum, names) {
		t.Errorf("settings.solver enum %v, engine.Solvers() %v", enum, names)
	}
}

// validate checks the JSON value v against the schema node and returns
// every violation. It knows the keywords listed in knownKeywords and
// reports any other, so that the schema cannot use a rule that goes
// unchecked here.
func (s schema) validate(v any, node map[string]any, path string) []string {
	at := path
	if at == "" {
		at = "(top level)"
	}
	for k := range node {
		if !knownKeywords[k] {
			return []string{fmt.Sprintf("schema at %s: keyword %q is not supported by this validator", at, k)}
		}
	}
	node, err := s.resolve(node)
	if err != nil {
		return []string{fmt.Sprintf("%s: %v", at, err)}
	}
	for k := range node {
		if !knownKeywords[k] {
			return []string{fmt.Sprintf("schema at %s: keyword %q is not supported by this validator", at, k)}
		}
	}
	var out []string
	fail := func(format string, args ...any) { out = append(out, at+": "+fmt.Sprintf(format, args...)) }
	if ty, ok := node["type"].(string); ok && !hasType(v, ty) {
		fail("want %s, got %s", ty, describe(v))
		return out
	}
	if enum, ok := node["enum"].([]any); ok && !slices.ContainsFunc(enum, func(e any) bool { return jsonEqual(e, v) }) {
		fail("%s is not one of %v", describe(v), enum)
	}
	if c, ok := node["const"]; ok && !jsonEqual(c, v) {
		fail("%s is not %v", describe(v), c)
	}
	if n, ok := v.(json.Number); ok {
		x, _ := n.Float64()
		if m, ok := number(node["minimum"]); ok && !(x >= m) {
			fail("%v is less than %v", x, m)
		}
		if m, ok := number(node["exclusiveMinimum"]); ok && !(x > m) {
			fail("%v must exceed %v", x, m)
		}
		if m, ok := number(node["maximum"]); ok && !(x <= m) {
			fail("%v exceeds %v", x, m)
		}
	}
	if str, ok := v.(string); ok {
		if m, ok := number(node["minLength"]); ok && float64(len([]rune(str))) < m {
			fail("%q is shorter than %v", str, m)
		}
	}
	if arr, ok := v.([]any); ok {
		if m, ok := number(node["minItems"]); ok && float64(len(arr)) < m {
			fail("%d items, want at least %v", len(arr), m)
		}
		if m, ok := number(node["maxItems"]); ok && float64(len(arr)) > m {
			fail("%d items, want at most %v", len(arr), m)
		}
		if node["uniqueItems"] == true {
			for i := range arr {
				for j := range i {
					if jsonEqual(arr[i], arr[j]) {
						fail("items %d and %d are equal", j, i)
					}
				}
			}
		}
		if items, ok := node["items"].(map[string]any); ok {
			for i, e := range arr {
				out = append(out, s.validate(e, items, index(path, i))...)
			}
		}
	}
	if obj, ok := v.(map[string]any); ok {
		props, _ := node["properties"].(map[string]any)
		for _, k := range sortedKeys(obj) {
			if p, ok := props[k].(map[string]any); ok {
				out = append(out, s.validate(obj[k], p, join(path, k))...)
			} else if node["additionalProperties"] == false {
				fail("unknown field %q", k)
			}
		}
		if req, ok := node["required"].([]any); ok {
			for _, r := range req {
				if _, ok := obj[r.(string)]; !ok {
					fail("missing required field %q", r)
				}
			}
		}
	}
	if list, ok := node["allOf"].([]any); ok {
		for _, b := range list {
			out = append(out, s.validate(v, b.(map[string]any), path)...)
		}
	}
	if list, ok := node["anyOf"].([]any); ok {
		var errs []string
		for _, b := range list {
			e := s.validate(v, b.(map[string]any), path)
			if len(e) == 0 {
				errs = nil
				break
			}
			errs = append(errs, e...)
		}
		if errs != nil {
			fail("matches none of anyOf: %s", strings.Join(errs, "; "))
		}
	}
	if list, ok := node["oneOf"].([]any); ok {
		matched := 0
		var errs []string
		for _, b := range list {
			e := s.validate(v, b.(map[string]any), path)
			if len(e) == 0 {
				matched++
			}
			errs = append(errs, e...)
		}
		if matched != 1 {
			fail("matches %d of the oneOf branches, want exactly 1: %s", matched, strings.Join(errs, "; "))
		}
	}
	if cond, ok := node["if"].(map[string]any); ok && len(s.validate(v, cond, path)) == 0 {
		if then, ok := node["then"].(map[string]any); ok {
			out = append(out, s.validate(v, then, path)...)
		}
	}
	return out
}

var knownKeywords = map[string]bool{
	"$schema": true, "$id": true, "$ref": true, "$defs": true, "title": true, "description": true,
	"type": true, "enum": true, "const": true, "minimum": true, "exclusiveMinimum": true, "maximum": true,
	"minLength": true, "minItems": true, "maxItems": true, "uniqueItems": true, "items": true,
	"properties": true, "additionalProperties": true, "required": true,
	"allOf": true, "anyOf": true, "oneOf": true, "if": true, "then": true,
}

func hasType(v any, ty string) bool {
	switch ty {
	case "object":
		_, ok := v.(map[string]any)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	case "string":
		_, ok := v.(string)
		return ok
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "number":
		_, ok := v.(json.Number)
		return ok
	case "integer":
		n, ok := v.(json.Number)
		if !ok {
			return false
		}
		x, err := n.Float64()
		return err == nil && x == math.Trunc(x)
	}
	return false
}

func number(v any) (float64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	x, err := n.Float64()
	return x, err == nil
}

// jsonEqual compares decoded JSON values, numbers by value.
func jsonEqual(a, b any) bool {
	if x, ok := number(a); ok {
		y, ok := number(b)
		return ok && x == y
	}
	return reflect.DeepEqual(a, b)
}

// exampleFiles lists the scene files in examples/.
func exampleFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("../examples/*.json")
	if err != nil {
		t.Fatal(err)
	}
	files = slices.DeleteFunc(files, func(f string) bool { return strings.HasSuffix(f, ".schema.json") })
	if len(files) == 0 {
		t.Fatal("no scene files in ../examples")
	}
	return files
}

// Every example file and every built-in's dump satisfy the schema, and
// the Go reader accepts them.
func TestSchemaValidatesExamples(t *testing.T) {
	s := schema{loadSchema(t)}
	docs := map[string][]byte{}
	for _, f := range exampleFiles(t) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		docs[f] = data
	}
	for _, info := range Builtins() {
		sc, err := LoadBuiltin(info.Name, nil)
		if err != nil {
			t.Fatal(err)
		}
		data, err := Dump(sc.Doc)
		if err != nil {
			t.Fatal(err)
		}
		docs["builtin:"+info.Name] = data
	}
	for _, name := range sortedKeys(docs) {
		v, err := decodeJSON(docs[name])
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		for _, e := range s.validate(v, s.root, "") {
			t.Errorf("%s: %s", name, e)
		}
		if _, err := Parse(docs[name], name, nil); err != nil {
			t.Errorf("%s: the schema accepts it, the reader does not: %v", name, err)
		}
	}
}

// Documents that break a rule of the format are rejected by the schema and
// by the reader alike.
func TestSchemaRejects(t *testing.T) {
	s := schema{loadSchema(t)}
	const body = `"bodies": [{"shape": {"type": "sphere", "radius": 1}, "mass": 1}]`
	for _, c := range []struct{ name, doc, want string }{
		{"unknown top-level field", `{"materials": [{"name": "m", "friction": 0.3}], ` + body + `, "gravty": [0, 0, -1]}`, `unknown field "gravty"`},
		{"no materials", `{` + body + `}`, `missing required field "materials"`},
		{"friction a string", `{"materials": [{"name": "m", "friction": "high"}], ` + body + `}`, "want number"},
		{"negative friction", `{"materials": [{"name": "m", "friction": -0.1}], ` + body + `}`, "less than 0"},
		{"no bodies or generators", `{"materials": [{"name": "m", "friction": 0.3}]}`, "anyOf"},
		{"sphere without radius", `{"materials": [{"name": "m", "friction": 0.3}], "bodies": [{"shape": {"type": "sphere"}, "mass": 1}]}`, `"radius"`},
		{"unknown shape", `{"materials": [{"name": "m", "friction": 0.3}], "bodies": [{"shape": {"type": "cone", "radius": 1}, "mass": 1}]}`, "not one of"},
		{"short vector", `{"materials": [{"name": "m", "friction": 0.3}], "bodies": [{"shape": {"type": "sphere", "radius": 1}, "mass": 1, "pos": [0, 1]}]}`, "2 items"},
		{"fractional count", `{"materials": [{"name": "m", "friction": 0.3}], "generators": [{"type": "lattice", "count": 2.5, "shape": {"type": "sphere", "radius": 1}, "mass": 1}]}`, "want integer"},
		{"random without region", `{"materials": [{"name": "m", "friction": 0.3}], "generators": [{"type": "random", "count": 2, "shape": {"type": "sphere", "radius": 1}, "mass": 1}]}`, `"region"`},
		{"unknown solver", `{"materials": [{"name": "m", "friction": 0.3}], ` + body + `, "settings": {"solver": "newton"}}`, "not one of"},
		{"repeated trace id", `{"materials": [{"name": "m", "friction": 0.3}], ` + body + `, "run": {"trace": [0, 0]}}`, "are equal"},
	} {
		v, err := decodeJSON([]byte(c.doc))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		errs := s.validate(v, s.root, "")
		if !strings.Contains(strings.Join(errs, "\n"), c.want) {
			t.Errorf("%s: the schema's errors %q do not mention %q", c.name, errs, c.want)
		}
		if _, err := Parse([]byte(c.doc), c.name, nil); err == nil {
			t.Errorf("%s: the schema rejects it, the reader accepts it", c.name)
		}
	}
}
