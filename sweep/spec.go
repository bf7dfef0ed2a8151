package sweep

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/gpusim/gpusim/internal/inputfile"
	"github.com/gpusim/gpusim/internal/safepath"
	"github.com/gpusim/gpusim/scene"
)

// MaxRuns is the largest number of runs a spec may expand to.
const MaxRuns = 100000

// Spec is a parsed sweep specification (see the package doc).
type Spec struct {
	// Name names the sweep (default output folder out/sweep-NAME); default
	// the spec file's name without extension.
	Name string
	// Scene is a built-in scene name or a scene file, as written in the
	// spec; a relative file path is relative to the spec file's folder.
	Scene string
	// Base holds the key=value overrides of every run.
	Base []string
	// Vary lists the varied parameters in the order of the spec.
	Vary []Param
	// Mode is "grid" (every combination) or "zip" (the i-th value of every
	// parameter together).
	Mode string
	// Backend is "auto", "cpu" or "vulkan" (see run.Options).
	Backend string
	// Observables are the result columns of gpusim collect (Results names),
	// all of them when empty.
	Observables []string
	// Source is the spec's file path ("" for a spec not read from a file).
	Source string
}

// Param is one varied parameter: a --set key and its values, each as
// compact JSON text.
type Param struct {
	Key    string
	Values []json.RawMessage
}

// specFile is the JSON form of a spec; Vary keeps its raw text so that its
// key order can be read.
type specFile struct {
	Name        string          `json:"name"`
	Scene       string          `json:"scene"`
	Base        []string        `json:"base"`
	Vary        json.RawMessage `json:"vary"`
	Mode        string          `json:"mode"`
	Backend     string          `json:"backend"`
	Observables []string        `json:"observables"`
}

// Load reads and checks the spec file at path, which must be a regular
// file of at most inputfile.DefaultScene bytes (LoadWith changes the cap).
func Load(path string) (*Spec, error) {
	return LoadWith(path, inputfile.DefaultScene)
}

// LoadWith is Load with a cap of max bytes on the spec file (≤ 0: none).
func LoadWith(path string, max int64) (*Spec, error) {
	data, err := inputfile.ReadFile(path, max)
	if err != nil {
		return nil, fmt.Errorf("sweep: %w", err)
	}
	return Parse(data, path)
}

// Parse reads and checks a spec. source names it in errors and, if it is a
// file path, gives the default name and the folder that relative scene
// paths start from.
func Parse(data []byte, source string) (*Spec, error) {
	fail := func(format string, args ...any) error {
		return fmt.Errorf("sweep: %s: %s", source, fmt.Sprintf(format, args...))
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var f specFile
	if err := dec.Decode(&f); err != nil {
		return nil, fail("%v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fail("text after the spec object")
	}
	s := &Spec{Name: f.Name, Scene: f.Scene, Base: f.Base, Mode: f.Mode, Backend: f.Backend,
		Observables: f.Observables, Source: source}
	// The name becomes a folder name (out/sweep-NAME): one path component
	// (safepath.Component); a name taken from the file name is made one.
	if s.Name == "" {
		s.Name = safepath.Sanitize(strings.TrimSuffix(filepath.Base(source), filepath.Ext(source)), "sweep")
	} else if err := safepath.Component(s.Name); err != nil {
		return nil, fail("name: %v", err)
	}
	if s.Scene == "" {
		return nil, fail(`"scene" is missing: name a built-in scene or a scene file`)
	}
	switch s.Mode {
	case "":
		s.Mode = "grid"
	case "grid", "zip":
	default:
		return nil, fail(`mode %q: want "grid" or "zip"`, s.Mode)
	}
	switch s.Backend {
	case "":
		s.Backend = "auto"
	case "auto", "cpu", "vulkan":
	default:
		return nil, fail(`backend %q: want "auto", "cpu" or "vulkan"`, s.Backend)
	}
	base := map[string]bool{}
	for i, set := range s.Base {
		key, _, ok := strings.Cut(set, "=")
		key = strings.TrimSpace(key)
		if !ok || key == "" {
			return nil, fail("base[%d] %q: want key=value", i, set)
		}
		if base[key] {
			return nil, fail("base[%d]: key %s is set twice", i, key)
		}
		base[key] = true
	}
	if len(f.Vary) == 0 {
		return nil, fail(`"vary" is missing: a sweep varies at least one parameter`)
	}
	vary, err := parseVary(f.Vary)
	if err != nil {
		return nil, fail("%v", err)
	}
	if len(vary) == 0 {
		return nil, fail(`"vary" is empty: a sweep varies at least one parameter`)
	}
	for _, p := range vary {
		if base[p.Key] {
			return nil, fail("vary: %s is also set in base; set it in one place", p.Key)
		}
	}
	s.Vary = vary
	if s.Mode == "zip" {
		for _, p := range vary[1:] {
			if len(p.Values) != len(vary[0].Values) {
				return nil, fail("zip mode needs equal lengths: %s has %d values, %s has %d",
					vary[0].Key, len(vary[0].Values), p.Key, len(p.Values))
			}
		}
	}
	if n := s.count(); n > MaxRuns {
		return nil, fail("%d runs: more than %d", n, MaxRuns)
	}
	names := ResultNames()
	for i, o := range s.Observables {
		if !slices.Contains(names, o) {
			return nil, fail("observables[%d] %q: not a result (have %s)", i, o, strings.Join(names, ", "))
		}
		if slices.Contains(s.Observables[:i], o) {
			return nil, fail("observables[%d]: %q listed twice", i, o)
		}
	}
	return s, nil
}

// parseVary reads the vary object in its key order.
func parseVary(data json.RawMessage) ([]Param, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, errors.New(`"vary" must be an object of parameter keys and their values`)
	}
	var ps []Param
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("vary: %w", err)
		}
		key := t.(string) // object keys are strings
		if strings.TrimSpace(key) != key || key == "" || strings.Contains(key, "=") {
			return nil, fmt.Errorf("vary: key %q: want a scene parameter or a dotted path, without spaces or =", key)
		}
		for _, p := range ps {
			if p.Key == key {
				return nil, fmt.Errorf("vary: key %s given twice", key)
			}
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, fmt.Errorf("vary.%s: %w", key, err)
		}
		vals, err := values(raw)
		if err != nil {
			return nil, fmt.Errorf("vary.%s: %w", key, err)
		}
		ps = append(ps, Param{Key: key, Values: vals})
	}
	return ps, nil
}

// rangeSpec is the object form of a parameter's values.
type rangeSpec struct {
	Range    []json.Number `json:"range"`
	Linspace []json.Number `json:"linspace"`
	Logspace []json.Number `json:"logspace"`
}

// values expands one parameter's values: a list, or a range object.
func values(raw json.RawMessage) ([]json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) > 0 && raw[0] == '[':
		var list []json.RawMessage
		if err := json.Unmarshal(raw, &list); err != nil {
			return nil, err
		}
		if len(list) == 0 {
			return nil, errors.New("empty list: give at least one value")
		}
		out := make([]json.RawMessage, len(list))
		for i, v := range list {
			var b bytes.Buffer
			if err := json.Compact(&b, v); err != nil {
				return nil, err
			}
			if b.String() == "null" {
				return nil, fmt.Errorf("value %d is null", i)
			}
			out[i] = b.Bytes()
		}
		return out, nil
	case len(raw) > 0 && raw[0] == '{':
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		var r rangeSpec
		if err := dec.Decode(&r); err != nil {
			return nil, fmt.Errorf("%v (want {\"range\": [a, b]}, {\"range\": [a, b, step]}, {\"linspace\": [a, b, n]} or {\"logspace\": [a, b, n]})", err)
		}
		given := 0
		for _, l := range [][]json.Number{r.Range, r.Linspace, r.Logspace} {
			if l != nil {
				given++
			}
		}
		if given != 1 {
			return nil, errors.New(`give exactly one of "range", "linspace" and "logspace"`)
		}
		switch {
		case r.Range != nil:
			return intRange(r.Range)
		case r.Linspace != nil:
			return floatRange(r.Linspace, false)
		default:
			return floatRange(r.Logspace, true)
		}
	}
	return nil, errors.New("want a list of values or a range object")
}

// intRange expands {"range": [a, b]} or [a, b, step]: the integers a, a +
// step, … up to b inclusive (step > 0, default 1).
func intRange(r []json.Number) ([]json.RawMessage, error) {
	if len(r) != 2 && len(r) != 3 {
		return nil, fmt.Errorf("range has %d numbers: want [first, last] or [first, last, step]", len(r))
	}
	var v [3]int64
	v[2] = 1
	for i, n := range r {
		x, err := strconv.ParseInt(n.String(), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("range: %s is not an integer (linspace makes floats)", n)
		}
		v[i] = x
	}
	first, last, step := v[0], v[1], v[2]
	if step < 1 {
		return nil, fmt.Errorf("range: step %d must be ≥ 1", step)
	}
	if last < first {
		return nil, fmt.Errorf("range: last %d is below first %d", last, first)
	}
	if (last-first)/step >= MaxRuns {
		return nil, fmt.Errorf("range: more than %d values", MaxRuns)
	}
	var out []json.RawMessage
	for x := first; x <= last; x += step {
		out = append(out, json.RawMessage(strconv.FormatInt(x, 10)))
	}
	return out, nil
}

// floatRange expands {"linspace": [a, b, n]} (n values evenly spaced from a
// to b) and {"logspace": [a, b, n]} (n values from a to b, a and b > 0, in
// geometric progression: the endpoints are values, not exponents). Values
// are written with 12 significant digits, so 0.1 + 2·0.1 is 0.3; a and b
// are kept exactly.
func floatRange(r []json.Number, geometric bool) ([]json.RawMessage, error) {
	name := "linspace"
	if geometric {
		name = "logspace"
	}
	if len(r) != 3 {
		return nil, fmt.Errorf("%s has %d numbers: want [first, last, count]", name, len(r))
	}
	a, errA := strconv.ParseFloat(r[0].String(), 64)
	b, errB := strconv.ParseFloat(r[1].String(), 64)
	n, errN := strconv.Atoi(r[2].String())
	if errA != nil || errB != nil || math.IsInf(a, 0) || math.IsInf(b, 0) {
		return nil, fmt.Errorf("%s: first and last must be finite numbers", name)
	}
	if errN != nil || n < 1 || n > MaxRuns {
		return nil, fmt.Errorf("%s: count %s must be an integer in [1, %d]", name, r[2], MaxRuns)
	}
	if geometric && !(a > 0 && b > 0) {
		return nil, fmt.Errorf("logspace: first %v and last %v must be > 0", a, b)
	}
	out := make([]json.RawMessage, n)
	for i := range n {
		var x float64
		switch {
		case i == 0:
			x = a
		case i == n-1:
			x = b
		case geometric:
			x = a * math.Pow(b/a, float64(i)/float64(n-1))
		default:
			x = a + (b-a)*float64(i)/float64(n-1)
		}
		if i != 0 && i != n-1 {
			x, _ = strconv.ParseFloat(strconv.FormatFloat(x, 'g', 12, 64), 64)
		}
		out[i] = json.RawMessage(strconv.FormatFloat(x, 'g', -1, 64))
	}
	return out, nil
}

// count is the number of runs.
func (s *Spec) count() int {
	if s.Mode == "zip" {
		return len(s.Vary[0].Values)
	}
	n := 1
	for _, p := range s.Vary {
		n *= len(p.Values)
		if n > MaxRuns {
			return n
		}
	}
	return n
}

// Run is one run of a sweep.
type Run struct {
	Index int `json:"index"`
	// Folder is the run's output folder relative to the sweep folder
	// (slash-separated): runs/0003.
	Folder string `json:"folder"`
	// Params are the varied parameters' values, in the spec's key order.
	Params Params `json:"params"`
	// Sets are the run's overrides: the spec's base, then its varied
	// parameters in key order.
	Sets []string `json:"sets"`
}

// Params are parameter values in order; they are written as a JSON object
// in that order.
type Params []Value

// Value is one parameter's value, as compact JSON text.
type Value struct {
	Key   string
	Value json.RawMessage
}

// Get returns the value of key.
func (ps Params) Get(key string) (json.RawMessage, bool) {
	for _, p := range ps {
		if p.Key == key {
			return p.Value, true
		}
	}
	return nil, false
}

// MarshalJSON writes the parameters as one object in their order.
func (ps Params) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, p := range ps {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(p.Key)
		b.Write(k)
		b.WriteByte(':')
		b.Write(p.Value)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads an object keeping its key order.
func (ps *Params) UnmarshalJSON(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return errors.New("params: want an object")
	}
	*ps = (*ps)[:0]
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return err
		}
		var b bytes.Buffer
		if err := json.Compact(&b, raw); err != nil {
			return err
		}
		*ps = append(*ps, Value{Key: t.(string), Value: b.Bytes()})
	}
	return nil
}

// Expand lists the runs of the spec, numbered from 0. Grid mode takes every
// combination with the first key slowest and the last key fastest (like
// nested loops in the spec's key order); zip mode takes the i-th value of
// every key for run i. Folders are runs/NNNN, with at least four digits.
func (s *Spec) Expand() []Run {
	n := s.count()
	width := max(4, len(strconv.Itoa(n-1)))
	runs := make([]Run, n)
	for i := range runs {
		r := Run{Index: i, Folder: fmt.Sprintf("runs/%0*d", width, i), Sets: slices.Clone(s.Base)}
		rest := i
		pick := make([]int, len(s.Vary))
		for k := len(s.Vary) - 1; k >= 0; k-- {
			if s.Mode == "zip" {
				pick[k] = i
				continue
			}
			m := len(s.Vary[k].Values)
			pick[k] = rest % m
			rest /= m
		}
		for k, p := range s.Vary {
			v := p.Values[pick[k]]
			r.Params = append(r.Params, Value{Key: p.Key, Value: v})
			r.Sets = append(r.Sets, p.Key+"="+string(v))
		}
		runs[i] = r
	}
	return runs
}

// Keys lists the varied keys in order.
func (s *Spec) Keys() []string {
	keys := make([]string, len(s.Vary))
	for i, p := range s.Vary {
		keys[i] = p.Key
	}
	return keys
}

// ScenePath is the scene argument for scene.Load: the built-in name, or the
// scene file's path with a relative path taken from the spec file's folder.
func (s *Spec) ScenePath() string {
	for _, b := range scene.Builtins() {
		if b.Name == s.Scene {
			return s.Scene
		}
	}
	if filepath.IsAbs(s.Scene) || s.Source == "" {
		return s.Scene
	}
	path := filepath.Join(filepath.Dir(s.Source), s.Scene)
	if _, err := os.Stat(path); err != nil && !strings.ContainsAny(s.Scene, `/.\`) {
		return s.Scene // neither a built-in nor a file: scene.Load says so
	}
	return path
}

// LoadScene builds the scene of run r.
func (s *Spec) LoadScene(r Run) (*scene.Scene, error) {
	sc, err := scene.Load(s.ScenePath(), r.Sets)
	if err != nil {
		return nil, fmt.Errorf("sweep: %s: run %d (%s): %w", s.Source, r.Index, r.Params.String(), err)
	}
	return sc, nil
}

// String writes the parameters as key=value, comma-separated.
func (ps Params) String() string {
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = p.Key + "=" + string(p.Value)
	}
	return strings.Join(parts, ", ")
}

// Validate builds the scene of every run (or of the runs listed in only),
// so that a bad key or value fails before anything runs, with an error
// naming the run, its parameters and the key.
func (s *Spec) Validate(runs []Run) error {
	var errs []error
	for _, r := range runs {
		if _, err := s.LoadScene(r); err != nil {
			errs = append(errs, err)
			if len(errs) == 5 {
				errs = append(errs, fmt.Errorf("sweep: %s: (stopped checking after 5 bad runs)", s.Source))
				break
			}
		}
	}
	return errors.Join(errs...)
}

// setsWorkers reports whether the spec sets settings.workers itself.
func (s *Spec) setsWorkers() bool {
	for _, set := range s.Base {
		if k, _, _ := strings.Cut(set, "="); strings.TrimSpace(k) == "settings.workers" {
			return true
		}
	}
	return slices.Contains(s.Keys(), "settings.workers")
}
