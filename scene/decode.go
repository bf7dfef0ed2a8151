package scene

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// This file turns JSON text into a Doc in two stages: the text becomes a
// generic value (map[string]any, []any, json.Number, string, bool, nil),
// --set overrides edit that value, and decodeValue copies it into the Doc
// strictly, naming every problem by its path (bodies[3].shape.radius).

// pathError is a problem at a path of the document.
type pathError struct {
	path, msg string
}

func (e *pathError) Error() string {
	if e.path == "" {
		return e.msg
	}
	return e.path + ": " + e.msg
}

func errAt(path, format string, args ...any) error {
	return &pathError{path: path, msg: fmt.Sprintf(format, args...)}
}

// join appends an object key to a path; index appends an array index.
func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func index(path string, i int) string { return fmt.Sprintf("%s[%d]", path, i) }

// describe names the JSON type of a generic value for messages.
func describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number:
		return "the number " + string(x)
	case string:
		return fmt.Sprintf("the string %q", x)
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("a %T", v)
}

func typeError(path, want string, got any) error {
	return errAt(path, "expected %s, got %s", want, describe(got))
}

// parseGeneric parses JSON text into a generic value. Syntax errors carry
// source:line:col.
func parseGeneric(data []byte, source string) (any, error) {
	// json.Unmarshal checks the whole text first and reports the offset of
	// a syntax error, also at end of input (a json.Decoder would not).
	var raw json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			line, col := lineCol(data, se.Offset)
			return nil, fmt.Errorf("%s:%d:%d: %v", source, line, col, se)
		}
		return nil, fmt.Errorf("%s: %v", source, err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("%s: %v", source, err)
	}
	return v, nil
}

// lineCol converts the offset of json.SyntaxError (bytes read when the
// error was found, so the bad byte is at offset−1; at the end of the text
// the position just past it) to a 1-based line and column (in bytes).
func lineCol(data []byte, offset int64) (line, col int) {
	at := int(offset) - 1
	if offset >= int64(len(data)) {
		at = len(data)
	}
	if at < 0 {
		at = 0
	}
	before := data[:at]
	line = 1 + bytes.Count(before, []byte("\n"))
	col = at - bytes.LastIndexByte(before, '\n')
	return line, col
}

// parseValue reads a --set value: JSON if it is one, else the plain string.
func parseValue(s string) any {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return s
	}
	if _, err := dec.Token(); err != io.EOF {
		return s
	}
	return v
}

// splitSet splits "key=value".
func splitSet(set string) (key, value string, err error) {
	key, value, ok := strings.Cut(set, "=")
	if !ok {
		return "", "", fmt.Errorf("--set %q: want key=value", set)
	}
	if key = strings.TrimSpace(key); key == "" {
		return "", "", fmt.Errorf("--set %q: empty key", set)
	}
	return key, value, nil
}

// toGeneric converts a Doc to its generic JSON value.
func toGeneric(d *Doc) (any, error) {
	data, err := json.Marshal(d)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	err = dec.Decode(&v)
	return v, err
}

var (
	docType        = reflect.TypeFor[Doc]()
	sizeType       = reflect.TypeFor[Size]()
	sizeObjectType = reflect.TypeFor[sizeObject]()
)

// applySet sets the value at a dotted path of a generic document. Keys must
// be fields of the schema at their level (present or not) or keys already
// present; array indices must exist.
func applySet(root any, key string, val any) error {
	parts := strings.Split(key, ".")
	cur, t, path := root, docType, ""
	for n, part := range parts {
		last := n == len(parts)-1
		t = schemaType(t, cur)
		switch c := cur.(type) {
		case map[string]any:
			ft, known := fieldType(t, part)
			child, present := c[part]
			if !known && !present {
				where := path
				if where == "" {
					where = "top level"
				}
				return fmt.Errorf("%s has no field %q (fields: %s)", where, part, strings.Join(fieldNames(t, c), ", "))
			}
			if last {
				c[part] = val
				return nil
			}
			if child == nil {
				if ft == nil || deref(ft).Kind() != reflect.Struct {
					return fmt.Errorf("%s is not set: set it whole (%s=…)", join(path, part), join(path, part))
				}
				child = map[string]any{}
				c[part] = child
			}
			cur, t, path = child, ft, join(path, part)
		case []any:
			i, err := strconv.Atoi(part)
			if err != nil || i < 0 || i >= len(c) {
				return fmt.Errorf("%s has no element %q (it has %d: indices 0 to %d)", path, part, len(c), len(c)-1)
			}
			if last {
				c[i] = val
				return nil
			}
			var et reflect.Type
			if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
				et = t.Elem()
			}
			cur, t, path = c[i], et, index(path, i)
		default:
			return fmt.Errorf("%s is %s, which has no field %q", path, describe(cur), part)
		}
	}
	return nil
}

func deref(t reflect.Type) reflect.Type {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// schemaType is the Go type that describes generic value v of type t: a
// Size given as an object is described by sizeObject.
func schemaType(t reflect.Type, v any) reflect.Type {
	t = deref(t)
	if t == sizeType {
		if _, ok := v.(map[string]any); ok {
			return sizeObjectType
		}
	}
	return t
}

// jsonName is the JSON key of a struct field ("" if it has none).
func jsonName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	if name == "-" {
		return ""
	}
	return name
}

func fieldType(t reflect.Type, name string) (reflect.Type, bool) {
	if t == nil || t.Kind() != reflect.Struct || t == sizeType {
		return nil, false
	}
	for i := range t.NumField() {
		if f := t.Field(i); jsonName(f) == name {
			return f.Type, true
		}
	}
	return nil, false
}

// fieldNames lists the schema's fields of t and the keys present in m.
func fieldNames(t reflect.Type, m map[string]any) []string {
	seen := map[string]bool{}
	if t != nil && t.Kind() == reflect.Struct && t != sizeType {
		for i := range t.NumField() {
			if n := jsonName(t.Field(i)); n != "" {
				seen[n] = true
			}
		}
	}
	for k := range m {
		seen[k] = true
	}
	names := make([]string, 0, len(seen))
	for k := range seen {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// genericDecoder is implemented by types with their own JSON forms.
type genericDecoder interface {
	decodeGeneric(v any, path string) error
}

// decodeValue copies generic value v into *dst, strictly: unknown fields,
// wrong types, arrays of the wrong length and numbers out of range are
// errors naming their path.
func decodeValue(v any, dst any, path string) error {
	return decodeReflect(v, reflect.ValueOf(dst).Elem(), path)
}

func decodeReflect(v any, rv reflect.Value, path string) error {
	if rv.CanAddr() {
		if d, ok := rv.Addr().Interface().(genericDecoder); ok {
			return d.decodeGeneric(v, path)
		}
	}
	switch rv.Kind() {
	case reflect.Pointer:
		if v == nil {
			rv.SetZero()
			return nil
		}
		p := reflect.New(rv.Type().Elem())
		if err := decodeReflect(v, p.Elem(), path); err != nil {
			return err
		}
		rv.Set(p)
		return nil
	case reflect.Struct:
		m, ok := v.(map[string]any)
		if !ok {
			return typeError(path, "an object", v)
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		t := rv.Type()
		for _, k := range keys {
			i := -1
			for j := range t.NumField() {
				if jsonName(t.Field(j)) == k {
					i = j
					break
				}
			}
			if i < 0 {
				return errAt(join(path, k), "unknown field (fields here: %s)", strings.Join(fieldNames(t, nil), ", "))
			}
			if err := decodeReflect(m[k], rv.Field(i), join(path, k)); err != nil {
				return err
			}
		}
		return nil
	case reflect.Slice:
		if v == nil {
			rv.SetZero()
			return nil
		}
		a, ok := v.([]any)
		if !ok {
			return typeError(path, "an array", v)
		}
		s := reflect.MakeSlice(rv.Type(), len(a), len(a))
		for i, e := range a {
			if err := decodeReflect(e, s.Index(i), index(path, i)); err != nil {
				return err
			}
		}
		rv.Set(s)
		return nil
	case reflect.Array:
		a, ok := v.([]any)
		if !ok {
			return typeError(path, fmt.Sprintf("an array of %d values", rv.Len()), v)
		}
		if len(a) != rv.Len() {
			return errAt(path, "expected an array of %d values, got %d", rv.Len(), len(a))
		}
		for i, e := range a {
			if err := decodeReflect(e, rv.Index(i), index(path, i)); err != nil {
				return err
			}
		}
		return nil
	case reflect.Float64:
		n, ok := v.(json.Number)
		if !ok {
			return typeError(path, "a number", v)
		}
		f, err := parseFloat(n, path)
		rv.SetFloat(f)
		return err
	case reflect.Int:
		n, ok := v.(json.Number)
		if !ok {
			return typeError(path, "an integer", v)
		}
		i, err := parseInt(n, path)
		rv.SetInt(int64(i))
		return err
	case reflect.Bool:
		b, ok := v.(bool)
		if !ok {
			return typeError(path, "true or false", v)
		}
		rv.SetBool(b)
		return nil
	case reflect.String:
		s, ok := v.(string)
		if !ok {
			return typeError(path, "a string", v)
		}
		rv.SetString(s)
		return nil
	}
	return errAt(path, "cannot decode into Go type %s", rv.Type())
}

func parseFloat(n json.Number, path string) (float64, error) {
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil || math.IsInf(f, 0) {
		return 0, errAt(path, "number %s is out of range", n)
	}
	return f, nil
}

// parseInt accepts integers written in any JSON number form (12, 1.2e1)
// that fit in 2⁵³ (exact in float64).
func parseInt(n json.Number, path string) (int, error) {
	if i, err := strconv.ParseInt(string(n), 10, 64); err == nil && i >= -(1<<53) && i <= 1<<53 {
		return int(i), nil
	}
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return 0, errAt(path, "expected an integer (|n| ≤ 2⁵³), got %s", n)
	}
	return int(f), nil
}
