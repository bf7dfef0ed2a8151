package sweep

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"
)

func parse(t *testing.T, text string) *Spec {
	t.Helper()
	s, err := Parse([]byte(text), "test.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func sets(runs []Run) []string {
	var out []string
	for _, r := range runs {
		out = append(out, strings.Join(r.Sets, " "))
	}
	return out
}

// Grid order: the spec's key order (not sorted: "z" comes first), the last
// key fastest; base first in every run's overrides.
func TestExpandGridOrder(t *testing.T) {
	s := parse(t, `{"scene": "settle", "base": ["n=10"], "vary": {"z": [1, 2], "a": ["x", "y", "z"]}}`)
	want := []string{
		`n=10 z=1 a="x"`, `n=10 z=1 a="y"`, `n=10 z=1 a="z"`,
		`n=10 z=2 a="x"`, `n=10 z=2 a="y"`, `n=10 z=2 a="z"`,
	}
	runs := s.Expand()
	if got := sets(runs); !reflect.DeepEqual(got, want) {
		t.Errorf("grid expansion:\n got %q\nwant %q", got, want)
	}
	for i, r := range runs {
		if r.Index != i || r.Folder != []string{"runs/0000", "runs/0001", "runs/0002", "runs/0003", "runs/0004", "runs/0005"}[i] {
			t.Errorf("run %d: index %d, folder %s", i, r.Index, r.Folder)
		}
	}
	if got := runs[4].Params.String(); got != `z=2, a="y"` {
		t.Errorf("run 4 params %s, want z=2, a=\"y\"", got)
	}
	// The same text expands the same way every time.
	if again := parse(t, `{"scene": "settle", "base": ["n=10"], "vary": {"z": [1, 2], "a": ["x", "y", "z"]}}`).Expand(); !reflect.DeepEqual(again, runs) {
		t.Error("two expansions of one spec differ")
	}
}

func TestExpandZip(t *testing.T) {
	s := parse(t, `{"scene": "settle", "mode": "zip", "vary": {"mu": [0.1, 0.2, 0.3], "seed": {"range": [7, 9]}, "s": [[1,2], {"k": true}, "v"]}}`)
	want := []string{`mu=0.1 seed=7 s=[1,2]`, `mu=0.2 seed=8 s={"k":true}`, `mu=0.3 seed=9 s="v"`}
	if got := sets(s.Expand()); !reflect.DeepEqual(got, want) {
		t.Errorf("zip expansion:\n got %q\nwant %q", got, want)
	}
}

func TestRanges(t *testing.T) {
	for _, c := range []struct{ values, want string }{
		{`{"range": [1, 3]}`, `1 2 3`},
		{`{"range": [-2, 10, 5]}`, `-2 3 8`},
		{`{"range": [4, 4]}`, `4`},
		// 0.1 + 0.1·k is not exact in binary; 12 significant digits print 0.3.
		{`{"linspace": [0.1, 0.5, 5]}`, `0.1 0.2 0.3 0.4 0.5`},
		{`{"linspace": [1, 0, 3]}`, `1 0.5 0`},
		{`{"linspace": [2.5, 9, 1]}`, `2.5`},
		{`{"logspace": [1, 100, 3]}`, `1 10 100`},
		{`{"logspace": [0.001, 1, 4]}`, `0.001 0.01 0.1 1`},
		{`[0.20, 1e3, "apgd-ar", true]`, `0.20 1e3 "apgd-ar" true`},
	} {
		s := parse(t, `{"scene": "settle", "vary": {"k": `+c.values+`}}`)
		var got []string
		for _, v := range s.Vary[0].Values {
			got = append(got, string(v))
		}
		if strings.Join(got, " ") != c.want {
			t.Errorf("%s: got %v, want %s", c.values, got, c.want)
		}
	}
}

func TestManifestParamsKeepOrder(t *testing.T) {
	s := parse(t, `{"scene": "settle", "vary": {"z": [1], "a": [2], "m": ["q"]}}`)
	data, err := json.Marshal(s.Expand()[0].Params)
	if err != nil {
		t.Fatal(err)
	}
	if string(data) != `{"z":1,"a":2,"m":"q"}` {
		t.Errorf("params JSON %s, want {\"z\":1,\"a\":2,\"m\":\"q\"}", data)
	}
	var back Params
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, s.Expand()[0].Params) {
		t.Errorf("params read back as %v", back)
	}
}

// Bad specs are rejected by Parse with an error naming what is wrong.
func TestBadSpecs(t *testing.T) {
	for _, c := range []struct{ name, text, want string }{
		{"zip unequal", `{"scene": "settle", "mode": "zip", "vary": {"a": [1, 2], "b": [1]}}`, "a has 2 values, b has 1"},
		{"empty list", `{"scene": "settle", "vary": {"a": []}}`, "vary.a: empty list"},
		{"duplicate key", `{"scene": "settle", "vary": {"a": [1], "b": [2], "a": [3]}}`, "key a given twice"},
		{"duplicate base", `{"scene": "settle", "base": ["n=1", "n=2"], "vary": {"a": [1]}}`, "key n is set twice"},
		{"base and vary", `{"scene": "settle", "base": ["n=1"], "vary": {"n": [1]}}`, "n is also set in base"},
		{"bad base", `{"scene": "settle", "base": ["n"], "vary": {"a": [1]}}`, `base[0] "n": want key=value`},
		{"bad key", `{"scene": "settle", "vary": {"a=1": [1]}}`, `key "a=1"`},
		{"no scene", `{"vary": {"a": [1]}}`, `"scene" is missing`},
		{"no vary", `{"scene": "settle"}`, `"vary" is missing`},
		{"empty vary", `{"scene": "settle", "vary": {}}`, `"vary" is empty`},
		{"vary not object", `{"scene": "settle", "vary": [1]}`, `"vary" must be an object`},
		{"mode", `{"scene": "settle", "mode": "cross", "vary": {"a": [1]}}`, `mode "cross"`},
		{"backend", `{"scene": "settle", "backend": "cuda", "vary": {"a": [1]}}`, `backend "cuda"`},
		{"unknown field", `{"scene": "settle", "vary": {"a": [1]}, "seeds": [1]}`, `unknown field "seeds"`},
		{"null value", `{"scene": "settle", "vary": {"a": [1, null]}}`, "vary.a: value 1 is null"},
		{"scalar values", `{"scene": "settle", "vary": {"a": 1}}`, "vary.a: want a list"},
		{"float range", `{"scene": "settle", "vary": {"a": {"range": [0.5, 2]}}}`, "0.5 is not an integer"},
		{"reversed range", `{"scene": "settle", "vary": {"a": {"range": [3, 1]}}}`, "last 1 is below first 3"},
		{"zero step", `{"scene": "settle", "vary": {"a": {"range": [1, 3, 0]}}}`, "step 0"},
		{"two ranges", `{"scene": "settle", "vary": {"a": {"range": [1, 3], "linspace": [0, 1, 2]}}}`, "exactly one of"},
		{"range field", `{"scene": "settle", "vary": {"a": {"ramge": [1, 3]}}}`, `unknown field "ramge"`},
		{"linspace count", `{"scene": "settle", "vary": {"a": {"linspace": [0, 1, 0]}}}`, "count 0"},
		{"logspace sign", `{"scene": "settle", "vary": {"a": {"logspace": [0, 1, 3]}}}`, "must be > 0"},
		{"observable", `{"scene": "settle", "vary": {"a": [1]}, "observables": ["height"]}`, `observables[0] "height": not a result`},
		{"too many", `{"scene": "settle", "vary": {"a": {"range": [1, 1000]}, "b": {"range": [1, 1000]}}}`, "1000000 runs: more than 100000"},
		{"syntax", `{"scene": "settle", "vary": {"a": [1,]}}`, "invalid character"},
		// The name becomes out/sweep-NAME: one path component only.
		{"name climbs out", `{"name": "../../../victim", "scene": "settle", "vary": {"a": [1]}}`, `name: "../../../victim" cannot name a folder: it holds '/'`},
		{"name hidden", `{"name": ".x", "scene": "settle", "vary": {"a": [1]}}`, `name: ".x" cannot name a folder: it starts with '.'`},
		{"name with a space", `{"name": "a b", "scene": "settle", "vary": {"a": [1]}}`, `name: "a b" cannot name a folder: it holds ' '`},
	} {
		_, err := Parse([]byte(c.text), "bad.json")
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "sweep: bad.json: ") {
			t.Errorf("%s: error %v, want one from bad.json containing %q", c.name, err, c.want)
		}
	}
}

// Validate builds every run's scene: an unknown scene, a misspelt key and
// a bad value in one run fail with the run, its parameters and the key.
func TestValidateNamesRunAndKey(t *testing.T) {
	for _, c := range []struct {
		name, text string
		want       []string
	}{
		{"unknown scene", `{"scene": "setle", "vary": {"n": [10]}}`, []string{"run 0", `"setle" is neither a built-in scene`}},
		{"bad key", `{"scene": "settle", "vary": {"n": [10], "materials.0.frictoin": [0.2]}}`, []string{"run 0", "materials.0.frictoin"}},
		{"bad value", `{"scene": "settle", "base": ["n=10"], "vary": {"materials.0.friction": [0.2, 0.4, -1]}}`,
			[]string{"run 2 (materials.0.friction=-1)", "friction"}},
		{"bad param", `{"scene": "settle", "vary": {"n": [10, "many"]}}`, []string{"run 1", "parameter n wants a finite number"}},
	} {
		s := parse(t, c.text)
		err := s.Validate(s.Expand())
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q lacks %q", c.name, err, w)
			}
		}
	}
	good := parse(t, `{"scene": "settle", "base": ["n=10"], "vary": {"materials.0.friction": [0.2, 0.4], "settings.solver": ["apgd", "apgd-ar"]}}`)
	if err := good.Validate(good.Expand()); err != nil {
		t.Errorf("a good spec: %v", err)
	}
}

// The example specs of examples/sweeps load and every run's scene builds.
func TestExampleSpecs(t *testing.T) {
	files, err := filepath.Glob("../examples/sweeps/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no example specs in ../examples/sweeps: %v", err)
	}
	for _, f := range files {
		s, err := Load(f)
		if err != nil {
			t.Error(err)
			continue
		}
		if err := s.Validate(s.Expand()); err != nil {
			t.Error(err)
		}
	}
}

// TestLoadNotRegular: a FIFO given as the spec is refused at once (it
// blocked before), and so is a file above the cap; a spec named by its
// file gets a name made valid.
func TestLoadNotRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "spec.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan error, 1)
	go func() { _, err := Load(fifo); done <- err }()
	select {
	case err := <-done:
		if err == nil || err.Error() != "sweep: "+fifo+" is a FIFO (named pipe), not a regular file" {
			t.Errorf("FIFO: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Load of a FIFO still blocked after 10 s")
	}
	spec := filepath.Join(dir, "my sweep.json")
	if err := os.WriteFile(spec, []byte(`{"scene": "settle", "vary": {"n": [1, 2]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadWith(spec, 16); err == nil || !strings.Contains(err.Error(), "more than the cap of 16 bytes on input files (--max-input-size raises it)") {
		t.Errorf("over the cap: %v", err)
	}
	s, err := Load(spec)
	if err != nil || s.Name != "my_sweep" {
		t.Errorf("Load(%s): name %q, %v; want my_sweep", spec, s.Name, err)
	}
}
