package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gpusim/gpusim/checkpoint"
	"github.com/gpusim/gpusim/gpu"
	"github.com/gpusim/gpusim/internal/outdir"
)

var update = flag.Bool("update", false, "rewrite docs/errors.md from the bad-input catalogue")

// badInput is one bad input of the catalogue: files written into a fresh
// folder (the working directory of the command), the command line, and
// what the error must say. Every case must exit with its code (exitUsage
// unless it says otherwise), name the file, flag or field and the
// problem, and leave no output folder.
type badInput struct {
	input string            // what is wrong, as the table in docs/errors.md says it
	files map[string]string // relative path → content (fifo: a FIFO)
	args  []string
	want  []string // substrings of the error line
	code  int      // the exit code; 0 means exitUsage
}

// fifo as the content of a catalogue file makes it a FIFO (named pipe).
const fifo = "\x00FIFO"

// A one-sphere scene on a plane, with its material: sceneFile fills in
// the parts a case changes.
const (
	sphereBody = `{"shape": {"type": "sphere", "radius": 0.5}, "pos": [0, 0, 0.5], "density": 7800}`
	planeBody  = `{"shape": {"type": "plane"}, "fixed": true}`
	steel      = `[{"name": "steel", "friction": 0.3}]`
)

func sceneFile(materials, settings, bodies string) string {
	s := `{"materials": ` + materials + `, "bodies": [` + bodies + `]`
	if settings != "" {
		s += `, "settings": ` + settings
	}
	return s + "}\n"
}

func sphere(shape, massOrDensity string) string {
	return `{"shape": ` + shape + `, "pos": [0, 0, 2], ` + massOrDensity + `}`
}

// A valid 2-contact problem (W 6 × 6 diagonal, FCLib-style folder);
// problem replaces some of its files.
const (
	goodW  = "%%MatrixMarket matrix coordinate real general\n6 6 6\n1 1 1\n2 2 1\n3 3 1\n4 4 1\n5 5 1\n6 6 1\n"
	goodQ  = "-1\n0\n0\n-1\n0\n0\n"
	goodMu = "0.5\n0.5\n"
)

func problem(w, q, mu string) map[string]string {
	m := map[string]string{}
	for name, v := range map[string]string{"p/W.mtx": w, "p/q.txt": q, "p/mu.txt": mu} {
		if v != "-" {
			m[name] = v
		}
	}
	return m
}

func runArgs(scene string, flags ...string) []string {
	return append([]string{"run", scene, "--backend", "cpu", "--steps", "2", "--quiet", "--out", "out"}, flags...)
}

func badInputs() []badInput {
	scene := func(body string) map[string]string {
		return map[string]string{"s.json": body}
	}
	mini := scene(sceneFile(steel, "", sphereBody+", "+planeBody))
	return []badInput{
		// Scene files.
		{"scene: JSON syntax error", scene(`{"bodies": [ }`), runArgs("s.json"), []string{"s.json:1:15:", "invalid character"}, 0},
		{"scene: unknown field", scene(`{"bodiez": []}`), runArgs("s.json"), []string{"s.json: bodiez: unknown field"}, 0},
		{"scene: wrong type", scene(sceneFile(steel, "", sphere(`{"type": "sphere", "radius": "big"}`, `"mass": 1`))), runArgs("s.json"),
			[]string{"s.json: bodies[0].shape.radius: expected a number"}, 0},
		{"scene: zero mass", scene(sceneFile(steel, "", sphere(`{"type": "sphere", "radius": 1}`, `"mass": 0`))), runArgs("s.json"),
			[]string{"s.json: bodies[0].mass: 0 must be positive"}, 0},
		{"scene: negative mass", scene(sceneFile(steel, "", sphere(`{"type": "sphere", "radius": 1}`, `"mass": -1`))), runArgs("s.json"),
			[]string{"s.json: bodies[0].mass: -1 must be positive"}, 0},
		{"scene: zero radius", scene(sceneFile(steel, "", sphere(`{"type": "sphere", "radius": 0}`, `"mass": 1`))), runArgs("s.json"),
			[]string{"s.json: bodies[0].shape.radius: 0 must be positive"}, 0},
		{"scene: negative semi-axis", scene(sceneFile(steel, "", sphere(`{"type": "ellipsoid", "semi_axes": [1, -1, 1]}`, `"mass": 1`))), runArgs("s.json"),
			[]string{"s.json: bodies[0].shape.semi_axes[1]", "-1 must be positive"}, 0},
		{"scene: negative half-extent", scene(sceneFile(steel, "", sphere(`{"type": "box", "half_extents": [1, 1, -2]}`, `"mass": 1`))), runArgs("s.json"),
			[]string{"s.json: bodies[0].shape.half_extents[2]", "-2 must be positive"}, 0},
		{"scene: zero density", scene(sceneFile(steel, "", sphere(`{"type": "sphere", "radius": 1}`, `"density": 0`))), runArgs("s.json"),
			[]string{"s.json: bodies[0].density: 0 must be positive"}, 0},
		{"scene: NaN (not JSON)", scene(sceneFile(steel, "", `{"shape": {"type": "sphere", "radius": 1}, "mass": 1, "pos": [0, NaN, 0]}`)), runArgs("s.json"),
			[]string{"s.json:1:", "invalid character 'N'"}, 0},
		{"scene: Inf (1e999)", scene(sceneFile(steel, "", sphere(`{"type": "sphere", "radius": 1}`, `"mass": 1e999`))), runArgs("s.json"),
			[]string{"s.json: bodies[0].mass: number 1e999 is out of range"}, 0},
		{"scene: μ < 0", scene(sceneFile(`[{"name": "a", "friction": -0.5}]`, "", sphereBody)), runArgs("s.json"),
			[]string{"s.json: materials[0].friction: -0.5 must be ≥ 0"}, 0},
		{"scene: cohesion < 0", scene(sceneFile(`[{"name": "a", "friction": 0.5, "cohesion": -1}]`, "", sphereBody)), runArgs("s.json"),
			[]string{"s.json: materials[0].cohesion: -1 must be ≥ 0"}, 0},
		{"scene: dt = 0", scene(sceneFile(steel, `{"dt": 0}`, sphereBody)), runArgs("s.json"),
			[]string{"s.json: settings: dt = 0 must be positive"}, 0},
		{"scene: dt < 0", scene(sceneFile(steel, `{"dt": -0.01}`, sphereBody)), runArgs("s.json"),
			[]string{"s.json: settings: dt = -0.01 must be positive"}, 0},
		{"scene: empty ({})", scene(`{}`), runArgs("s.json"), []string{"s.json: the scene has no bodies and no generators"}, 0},
		{"scene: no bodies ([])", scene(sceneFile(steel, "", "")), runArgs("s.json"), []string{"s.json: the scene has no bodies and no generators"}, 0},
		{"scene: only fixed bodies", scene(sceneFile(steel, "", planeBody)), runArgs("s.json"),
			[]string{"s.json: the scene has no movable bodies"}, 0},
		{"scene: bodies overlapping at the start (> 5 %)", scene(sceneFile(steel, "",
			sphere(`{"type": "sphere", "radius": 1}`, `"mass": 1`)+", "+`{"shape": {"type": "sphere", "radius": 1}, "pos": [1, 0, 2], "mass": 1}`)),
			runArgs("s.json"), []string{"s.json: 1 pair of bodies overlaps at the start", "bodies 0 (sphere) and 1 (sphere) by 1 m"}, 0},
		{"scene: subnormal mass (1e-320)", scene(sceneFile(steel, "", sphere(`{"type": "sphere", "radius": 1}`, `"mass": 1e-320`))), runArgs("s.json"),
			[]string{"s.json: body 0: mass 1e-320 is too small: its inverse overflows float64"}, 0},
		{"scene: angular velocity whose magnitude overflows", scene(sceneFile(steel, "", `{"shape": {"type": "sphere", "radius": 1}, "pos": [0, 0, 2], "mass": 1, "omega": [1e300, 0, 0]}`)), runArgs("s.json"),
			[]string{"s.json: body 0: angular velocity [1e+300 0 0] is too large"}, 0},
		{"scene: run.duration of more than 10⁹ steps", scene(`{"materials": ` + steel + `, "bodies": [` + sphereBody + `], "run": {"duration": 1e300}}`),
			[]string{"run", "s.json", "--backend", "cpu", "--quiet", "--out", "out"},
			[]string{"s.json: run.duration: 1e+300 s at dt = 0.01 s is 1e+302 steps, more than the limit of 1000000000"}, 0},
		{"scene: missing file", nil, runArgs("nofile.json"), []string{"nofile.json", "no such file"}, 0},
		{"scene: a FIFO (named pipe)", map[string]string{"s.json": fifo}, runArgs("s.json"), []string{"scene: s.json is a FIFO (named pipe), not a regular file"}, 0},
		{"scene: /dev/zero", nil, runArgs("/dev/zero"), []string{"scene: /dev/zero is a character device, not a regular file"}, 0},
		{"scene: a folder", map[string]string{"d/x": ""}, runArgs("d"), []string{"scene: d is a directory, not a regular file"}, 0},
		{"scene: file larger than --max-input-size", mini, runArgs("s.json", "--max-input-size", "64"),
			[]string{"scene: s.json is", "more than the cap of 64 bytes on input files (--max-input-size raises it)"}, 0},
		{"scene: name that would climb out of out/", scene(strings.Replace(sceneFile(steel, "", sphereBody+", "+planeBody), "{", `{"name": "../../../victim", `, 1)),
			[]string{"run", "s.json", "--backend", "cpu", "--steps", "2", "--quiet"}, []string{`s.json: name: "../../../victim" cannot name a folder: it holds '/'; want letters, digits, '.', '_' and '-'`}, 0},
		{"scene: name with a space (--set)", mini, runArgs("s.json", "--set", "name=my run"), []string{`s.json: name: "my run" cannot name a folder: it holds ' '`}, 0},
		{"not enough memory (exit 1): 2²⁴ bodies in 8 GiB", nil, []string{"run", "settle", "--set", "n=16777216", "--backend", "cpu", "--max-memory", "8G"},
			[]string{"builtin:settle: not enough memory: 16777221 bodies on the cpu backend need about 74.4 GiB of host memory", "more than the 8 GiB available (--max-memory)"}, exitFailure},
		{"--max-memory lots", mini, runArgs("s.json", "--max-memory", "lots"), []string{"--max-memory lots: want a number of bytes > 0 with an optional suffix"}, 0},
		{"--max-input-size 0", mini, runArgs("s.json", "--max-input-size", "0"), []string{"--max-input-size 0: want a number of bytes > 0"}, 0},
		{"scene: unknown built-in", nil, runArgs("nope"), []string{`"nope"`}, 0},
		{"scene: none given", nil, []string{"run", "--out", "out"}, []string{"run takes one scene name or file, got 0 arguments"}, 0},

		// Flags of gpusim run.
		{"--dt 0", mini, runArgs("s.json", "--dt", "0"), []string{"dt = 0 must be positive and finite"}, 0},
		{"--dt -1", mini, runArgs("s.json", "--dt", "-1"), []string{"dt = -1 must be positive and finite"}, 0},
		{"--dt NaN", mini, runArgs("s.json", "--dt", "NaN"), []string{"dt = NaN must be positive and finite"}, 0},
		{"--dt Inf", mini, runArgs("s.json", "--dt", "Inf"), []string{"dt = +Inf must be positive and finite"}, 0},
		{"--memprofile in a missing folder", mini, runArgs("s.json", "--memprofile", "no/such/heap.prof"),
			[]string{"--memprofile: open no/such/heap.prof: no such file or directory"}, 0},
		{"--steps -3", mini, runArgs("s.json", "--steps", "-3"), []string{"--steps -3 must be ≥ 1"}, 0},
		{"--duration 0", mini, runArgs("s.json", "--duration", "0"), []string{"--duration 0 must be positive"}, 0},
		{"--duration NaN", mini, runArgs("s.json", "--duration", "NaN"), []string{"--duration NaN must be positive"}, 0},
		{"--steps beyond 10⁹", mini, runArgs("s.json", "--steps", "9223372036854775807"), []string{"9223372036854775807 steps is more than the limit of 1000000000 in one run"}, 0},
		{"--duration of more than 10⁹ steps", mini, []string{"run", "s.json", "--backend", "cpu", "--quiet", "--out", "out", "--duration", "1e17"},
			[]string{"1e+17 s at dt = 0.01 s is 1e+19 steps, more than the limit"}, 0},
		{"--duration under half a time step", mini, []string{"run", "s.json", "--backend", "cpu", "--quiet", "--out", "out", "--duration", "1e-9"},
			[]string{"1e-09 s is less than half a time step (dt = 0.01 s): the run would take no step"}, 0},
		{"--max-iter 0", mini, runArgs("s.json", "--max-iter", "0"), []string{"max_iter = 0 must be ≥ 1"}, 0},
		{"--tol -1", mini, runArgs("s.json", "--tol", "-1"), []string{"tol = -1 must be ≥ 0 and finite"}, 0},
		{"--tol NaN", mini, runArgs("s.json", "--tol", "NaN"), []string{"tol = NaN must be ≥ 0 and finite"}, 0},
		{"--solver nope", mini, runArgs("s.json", "--solver", "nope"), []string{`unknown solver "nope"`}, 0},
		{"--backend gpu", mini, []string{"run", "s.json", "--backend", "gpu", "--out", "out"}, []string{`unknown backend "gpu"`}, 0},
		{"--vk-memory-limit -1", mini, runArgs("s.json", "--vk-memory-limit", "-1"), []string{"--vk-memory-limit -1: want a number of bytes ≥ 0"}, 0},
		{"--workers -1", mini, runArgs("s.json", "--workers", "-1"), []string{"workers = -1 must be ≥ 0"}, 0},
		{"--precision single", mini, runArgs("s.json", "--precision", "single"), []string{`precision "single" is not "double" or "mixed"`}, 0},
		{"--precision mixed with gs", mini, runArgs("s.json", "--precision", "mixed", "--solver", "gs"), []string{`precision "mixed" is for the solvers apgd and apgd-ar, not gs`}, 0},
		{"--checkpoint -1", mini, runArgs("s.json", "--checkpoint", "-1"), []string{"--checkpoint -1"}, 0},
		{"--vtk -1", mini, runArgs("s.json", "--vtk", "-1"), []string{"--vtk -1"}, 0},
		{"--npz -1", mini, runArgs("s.json", "--npz", "-1"), []string{"--npz -1: want a number of steps ≥ 1"}, 0},
		{"--dump-problem 0 DIR", mini, runArgs("s.json", "--dump-problem", "0", "d"), []string{`--dump-problem: step "0" is not a step number`}, 0},
		{"--trace 99999", mini, runArgs("s.json", "--trace", "99999"), []string{"--trace: body id 99999 out of range [0, 2)"}, 0},
		{"--trace x", mini, runArgs("s.json", "--trace", "x"), []string{`--trace: "x" is not a body id`}, 0},
		{"--set n=-5 (built-in parameter)", nil, runArgs("settle", "--set", "n=-5"), []string{"builtin:settle: parameter n = -5 must be an integer"}, 0},
		{"--set n=NaN", nil, runArgs("settle", "--set", "n=NaN"), []string{"builtin:settle: --set n=NaN: parameter n wants a finite number"}, 0},
		{"--set unknown path", mini, runArgs("s.json", "--set", "foo=1"), []string{`s.json: --set foo=1: top level has no field "foo"`}, 0},
		{"--set without =", mini, runArgs("s.json", "--set", "settings.dt"), []string{"settings.dt"}, 0},
		{"--set bad value type", mini, runArgs("s.json", "--set", "settings.dt=fast"), []string{"s.json: settings.dt: expected a number"}, 0},
		{"--set settings.dt=-1", mini, runArgs("s.json", "--set", "settings.dt=-1"), []string{"s.json: settings: dt = -1 must be positive"}, 0},
		{"--set NaN in a vector", mini, runArgs("s.json", "--set", "bodies.0.pos=[0,NaN,0]"), []string{"s.json: bodies[0].pos"}, 0},
		{"--set bodies.0.density=-1", mini, runArgs("s.json", "--set", "bodies.0.density=-1"), []string{"s.json: bodies[0].density: -1 must be positive"}, 0},
		{"--set materials.0.cohesion=-2", mini, runArgs("s.json", "--set", "materials.0.cohesion=-2"), []string{"s.json: materials[0].cohesion: -2 must be ≥ 0"}, 0},
		{"--resume missing.ckpt", nil, []string{"run", "--resume", "missing.ckpt", "--out", "out"}, []string{"--resume:", "missing.ckpt", "no such file"}, 0},
		{"--resume a file that is not a checkpoint", map[string]string{"bad.ckpt": "not a checkpoint\n"}, []string{"run", "--resume", "bad.ckpt", "--out", "out"},
			[]string{"--resume:", "bad.ckpt"}, 0},
		{"--resume with a physics flag", map[string]string{"bad.ckpt": "x"}, []string{"run", "--resume", "bad.ckpt", "--dt", "0.1", "--out", "out"},
			[]string{"--resume continues the run with the checkpoint's scene and settings: --dt cannot change them"}, 0},
		{"unknown flag", mini, runArgs("s.json", "--bogus"), []string{"flag provided but not defined: -bogus"}, 0},
		{"flag without its value", mini, []string{"run", "s.json", "--out", "out", "--steps"}, []string{"flag needs an argument: -steps"}, 0},
		{"flag value of the wrong type", mini, runArgs("s.json", "--steps", "many"), []string{`invalid value "many" for flag -steps`}, 0},
		{"unknown command", nil, []string{"runn"}, []string{`unknown command "runn"`}, 0},

		// Problem folders of gpusim solve.
		{"solve: bad Matrix Market header", problem("%%MatrixMarket matrix array real general\n6 6\n", goodQ, goodMu), solveArgs(),
			[]string{"p/W.mtx", "array"}, 0},
		{"solve: no Matrix Market banner", problem("6 6 6\n", goodQ, goodMu), solveArgs(), []string{"p/W.mtx:1:"}, 0},
		{"solve: index out of range", problem(strings.Replace(goodW, "6 6 1\n", "7 6 1\n", 1), goodQ, goodMu), solveArgs(),
			[]string{"p/W.mtx:8:", "row index 7 out of range [1, 6]"}, 0},
		{"solve: duplicate entry", problem(strings.Replace(goodW, "6 6 1\n", "5 5 1\n", 1), goodQ, goodMu), solveArgs(),
			[]string{"p/W.mtx:8: entry (5, 5) given twice"}, 0},
		{"solve: W size not a multiple of 3", problem("%%MatrixMarket matrix coordinate real general\n4 4 1\n1 1 1\n", "1\n2\n3\n4\n", "0.5\n"), solveArgs(),
			[]string{"p/W.mtx", "multiple of 3"}, 0},
		{"solve: W size ≠ 3·len(mu)", problem(goodW, goodQ, "0.5\n"), solveArgs(), []string{"p/mu.txt has 1 values, want nc = 2"}, 0},
		{"solve: q of the wrong length", problem(goodW, "1\n2\n", goodMu), solveArgs(), []string{"p/q.txt has 2 values, want 6"}, 0},
		{"solve: NaN in q", problem(goodW, strings.Replace(goodQ, "-1", "NaN", 1), goodMu), solveArgs(), []string{"p/q.txt:1:", "NaN"}, 0},
		{"solve: Inf in W", problem(strings.Replace(goodW, "1 1 1\n", "1 1 Inf\n", 1), goodQ, goodMu), solveArgs(), []string{"p/W.mtx:3:", "Inf"}, 0},
		{"solve: W not positive semidefinite", problem(strings.Replace(goodW, "4 4 1\n", "4 4 -2\n", 1), goodQ, goodMu), solveArgs(),
			[]string{`fclib: problem "p": contact 1: its 3×3 block of W has the eigenvalue -2 < 0, so W is not positive semidefinite`}, 0},
		{"solve: μ < 0", problem(goodW, goodQ, "0.5\n-0.1\n"), solveArgs(), []string{"p/mu.txt:2: friction coefficient -0.1 is negative"}, 0},
		{"solve: missing W.mtx", problem("-", goodQ, goodMu), solveArgs(), []string{"p/W.mtx: no such file"}, 0},
		{"solve: missing q.txt", problem(goodW, "-", goodMu), solveArgs(), []string{"p/q.txt: no such file"}, 0},
		{"solve: missing mu.txt", problem(goodW, goodQ, "-"), solveArgs(), []string{"p/mu.txt: no such file"}, 0},
		{"solve: missing folder", nil, solveArgs(), []string{"p: no such file"}, 0},
		{"solve: W.mtx a FIFO", map[string]string{"p/W.mtx": fifo, "p/q.txt": goodQ, "p/mu.txt": goodMu}, solveArgs(), []string{"fclib: p/W.mtx is a FIFO (named pipe), not a regular file"}, 0},
		{"solve: file larger than --max-input-size", problem(goodW, goodQ, goodMu), solveArgs("--max-input-size", "32"),
			[]string{"fclib: p/W.mtx is", "more than the cap of 32 bytes on input files (--max-input-size raises it)"}, 0},
		{"solve: --tol -1", problem(goodW, goodQ, goodMu), solveArgs("--tol", "-1"), []string{"--tol -1 must be ≥ 0"}, 0},
		{"solve: --max-iter 0", problem(goodW, goodQ, goodMu), solveArgs("--max-iter", "0"), []string{"--max-iter 0 must be ≥ 1"}, 0},
		{"solve: --solver nope", problem(goodW, goodQ, goodMu), solveArgs("--solver", "nope"), []string{`unknown solver "nope"`}, 0},
		{"solve: no folder given", nil, []string{"solve", "--out", "out"}, []string{"solve takes one problem folder, got 0 arguments"}, 0},

		// Other commands.
		{"compare: neither a problem nor a scene", nil, []string{"compare", "nope", "--out", "out"}, []string{"nope is neither a problem folder nor a scene"}, 0},
		{"plot: no run in the folder", nil, []string{"plot", "nope"}, []string{"nope/stats.csv: no such file"}, 0},
		{"render: no run in the folder", nil, []string{"render", "nope", "--out", "out/x.png"}, []string{"nope has neither run.pvd nor a readable summary.json"}, 0},
		{"scenes --dump: unknown scene", nil, []string{"scenes", "--dump", "nope"}, []string{`no built-in scene "nope"`}, 0},
		{"compare: problem file larger than --max-input-size", problem(goodW, goodQ, goodMu), []string{"compare", "p", "--out", "out", "--max-input-size", "32"},
			[]string{"fclib: p/W.mtx is", "more than the cap of 32 bytes on input files (--max-input-size raises it)"}, 0},
		{"sweep: spec larger than --max-input-size", map[string]string{"spec.json": `{"name": "s", "scene": "settle", "vary": {"n": [10]}}`},
			[]string{"sweep", "spec.json", "--out", "out", "--max-input-size", "16"}, []string{"sweep: spec.json is", "more than the cap of 16 bytes"}, 0},
		{"sweep: spec a FIFO", map[string]string{"spec.json": fifo}, []string{"sweep", "spec.json", "--out", "out"}, []string{"sweep: spec.json is a FIFO (named pipe), not a regular file"}, 0},
		{"sweep: name that would climb out of out/", map[string]string{"spec.json": `{"name": "../../../victim", "scene": "settle", "vary": {"n": [1]}}`},
			[]string{"sweep", "spec.json"}, []string{`sweep: spec.json: name: "../../../victim" cannot name a folder`}, 0},
	}
}

func solveArgs(flags ...string) []string {
	return append([]string{"solve", "p", "--out", "out"}, flags...)
}

// errorLine is the line of stderr that cli writes for an error.
func errorLine(stderr string) string {
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.HasPrefix(lines[i], "gpusim: ") {
			return lines[i]
		}
	}
	return ""
}

// TestBadInputs runs every bad input of the catalogue through cli in a
// fresh working directory and checks exit code 2, the error line and
// that no output folder was made. With -update it rewrites
// docs/errors.md from the table; without, it fails if the file differs.
func TestBadInputs(t *testing.T) {
	var doc bytes.Buffer
	doc.WriteString(errorsDocHead)
	for _, c := range badInputs() {
		var line string
		var code int
		t.Run(c.input, func(t *testing.T) {
			dir := t.TempDir()
			for name, body := range c.files {
				path := filepath.Join(dir, name)
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if body == fifo {
					if err := syscall.Mkfifo(path, 0o644); err != nil {
						t.Skipf("mkfifo: %v", err)
					}
					continue
				}
				if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			t.Chdir(dir)
			var stdout, stderr bytes.Buffer
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Fatalf("gpusim %s panicked: %v", strings.Join(c.args, " "), r)
					}
				}()
				code = cli(c.args, &stdout, &stderr)
			}()
			line = errorLine(stderr.String())
			want := exitUsage
			if c.code != 0 {
				want = c.code
			}
			if code != want {
				t.Errorf("gpusim %s: exit %d, want %d; stderr:\n%s", strings.Join(c.args, " "), code, want, stderr.String())
			}
			for _, w := range c.want {
				if !strings.Contains(line, w) {
					t.Errorf("gpusim %s: error line %q does not contain %q", strings.Join(c.args, " "), line, w)
				}
			}
			for _, out := range []string{"out", "../../../victim"} {
				if _, err := os.Stat(filepath.Join(dir, out)); err == nil {
					t.Errorf("gpusim %s: left an output folder %s", strings.Join(c.args, " "), out)
				}
			}
		})
		fmt.Fprintf(&doc, "| %s | `%s` | %d | %s |\n", mdCell(c.input), strings.Join(c.args, " "), code, mdCell(strings.TrimPrefix(line, "gpusim: ")))
	}
	doc.WriteString(errorsDocFolders)
	for _, c := range folderCases() {
		var line string
		var code int
		t.Run(c.input, func(t *testing.T) {
			t.Chdir(t.TempDir())
			if err := os.WriteFile("s.json", []byte(sceneFile(steel, "", sphereBody+", "+planeBody)), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile("spec.json", []byte(`{"name": "s", "scene": "s.json", "base": ["run.steps=2"], "vary": {"materials.0.friction": [0.1, 0.2]}}`), 0o644); err != nil {
				t.Fatal(err)
			}
			for _, args := range c.before {
				var stdout, stderr bytes.Buffer
				if code := cli(args, &stdout, &stderr); code != exitOK {
					t.Fatalf("gpusim %s: exit %d; stderr:\n%s", strings.Join(args, " "), code, stderr.String())
				}
			}
			if c.hold != "" {
				l, err := outdir.Acquire(c.hold, false, nil)
				if err != nil {
					t.Fatal(err)
				}
				defer l.Release()
			}
			var stdout, stderr bytes.Buffer
			code = cli(c.args, &stdout, &stderr)
			line = errorLine(stderr.String())
			if code != c.code {
				t.Errorf("gpusim %s: exit %d, want %d; stderr:\n%s", strings.Join(c.args, " "), code, c.code, stderr.String())
			}
			for _, w := range c.want {
				if !strings.Contains(line, w) {
					t.Errorf("gpusim %s: error line %q does not contain %q", strings.Join(c.args, " "), line, w)
				}
			}
		})
		// The lock holder's pid, host, start time and command change from
		// run to run: the table shows placeholders.
		line = holderRE.ReplaceAllString(line, "(pid PID on host HOST, started TIME: COMMAND)")
		fmt.Fprintf(&doc, "| %s | %s | `%s` | %d | %s |\n", mdCell(c.input), mdCell(c.setup), strings.Join(c.args, " "), code, mdCell(strings.TrimPrefix(line, "gpusim: ")))
	}
	doc.WriteString(errorsDocFailures)
	path := filepath.Join("..", "..", "docs", "errors.md")
	if *update {
		if err := os.WriteFile(path, doc.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	old, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./cmd/gpusim -run TestBadInputs -update)", err)
	}
	if !bytes.Equal(old, doc.Bytes()) {
		t.Errorf("%s is stale: run go test ./cmd/gpusim -run TestBadInputs -update", path)
	}
}

// folderCase is an output folder that a command cannot use: the commands
// before run first (in a fresh folder holding s.json, the one-sphere
// scene), hold names a folder whose lock the test holds meanwhile (as a
// running gpusim would), then args must fail with code and an error line
// holding want.
type folderCase struct {
	input  string
	setup  string // what was done before, for the table
	before [][]string
	hold   string
	args   []string
	want   []string
	code   int
}

func folderCases() []folderCase {
	first := runArgs("s.json", "--checkpoint", "1")
	return []folderCase{
		{"run: the output folder holds another run's outputs", "`" + strings.Join(first, " ") + "`", [][]string{first}, "",
			runArgs("s.json"), []string{"run: out holds the outputs of another run", "--overwrite replaces them"}, exitUsage},
		{"run: the output folder is in use by a running gpusim", "a gpusim process holds out/.gpusim.lock", nil, "out",
			runArgs("s.json"), []string{"run: out is in use by another gpusim process (pid"}, exitUsage},
		{"run: --overwrite with --resume of a checkpoint inside --out", "`" + strings.Join(first, " ") + "`", [][]string{first}, "",
			[]string{"run", "--resume", "out/checkpoints/step-000001.ckpt", "--out", "out", "--overwrite"},
			[]string{"--overwrite would remove the checkpoint"}, exitUsage},
		{"sweep: the sweep folder is in use by a running gpusim", "a gpusim process holds out/.gpusim.lock", nil, "out",
			[]string{"sweep", "spec.json", "--out", "out"}, []string{"sweep: out is in use by another gpusim process (pid"}, exitUsage},
	}
}

// holderRE matches the part of a busy folder's error that names its
// holder's process.
var holderRE = regexp.MustCompile(`\(pid \d+ on host \S+, started \S+: [^)]*\)`)

func mdCell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}

const errorsDocHead = `# Bad inputs and what gpusim says

Generated by ` + "`go test ./cmd/gpusim -run TestBadInputs -update`" + ` from the catalogue in
cmd/gpusim/badinput_test.go; the test fails when this file is stale.

An error is one line on stderr, ` + "`gpusim: `" + ` followed by where (file, field or line, flag) and what is
wrong. The exit code says which class it is:

- **0**: the command did what it was asked.
- **2, bad command line or bad input**: a flag, a scene file, a problem folder, a sweep spec or a
  checkpoint that cannot be used as given, found before anything is written — a syntax error, a value
  out of range, a scene name that is not one folder name, a file that is not a regular file (a FIFO,
  a device such as /dev/zero, a folder) or is larger than ` + "`--max-input-size`" + `. The rows below.
- **1, run failure**: the input was good but the run could not be done or completed — not enough
  memory detected in time (the estimate exceeds MemAvailable, a cgroup limit or ` + "`--max-memory`" + `;
  rows below), a guard stopping a diverging run, the device (lost, out of device memory), the disk
  (full, not writable), an interrupted run. The last section below gives their messages.

An output folder that another gpusim process is using, or that holds the outputs of another run, is
refused before the run starts with exit code 2 (the second table).

Each row ran in a fresh folder holding the scene file s.json (a sphere on a plane unless the row
says otherwise), the problem folder p (two contacts, W 6 × 6) or the sweep spec spec.json. Every
one exits with the code shown, writes the error line shown (after "gpusim: ") to stderr, and creates
no output folder.

| input | command | exit code | message |
|---|---|---|---|
`

const errorsDocFolders = `
## Output folders in use or holding another run

Each row ran in a fresh folder holding s.json (a sphere on a plane) and spec.json (a sweep of it
over two friction coefficients) after what the second column says. A run takes an exclusive lock on its output folder (` + "`OUT/.gpusim.lock`" + `, flock(2), naming the
holder's pid, host, start time and command; the kernel releases it when the process ends, so a killed
run's lock is taken over with a notice); a folder that holds a run's files is used again only with
` + "`--overwrite`" + ` (which removes gpusim's files and keeps the user's) or by ` + "`--resume`" + ` of that run's checkpoint
(which cuts stats.csv, trace.csv, frames and checkpoints back to the checkpoint's step). A whole
sweep locks its folder alone; runs of a sweep by ` + "`--index`" + ` share it and each locks its own run folder.

| input | before | command | exit code | message |
|---|---|---|---|---|
`

const errorsDocFailures = `
## Failures during a run (exit code 1)

These need a failing machine, so they are not run here: each message is the one the named test
checks.

| failure | example message | test |
|---|---|---|
| not enough memory, detected before anything is allocated | ` + "`builtin:settle: not enough memory: 16777221 bodies on the cpu backend need about 74.4 GiB of host memory (...), more than the 22.7 GiB available (MemAvailable in /proc/meminfo); ...`" + ` (rows above, with ` + "`--max-memory`" + `) | TestBadInputs, run.TestRunRefusesBeforeOutputs |
| disk full while writing | ` + "`run: write out/a/trace.csv: no space left on device (the file ends at its last complete row); run: write out/a/final.csv: ...`" + ` | tests.TestFaultFullDisk (a 64 KiB tmpfs) |
| a guard: the run diverged | ` + "`step K: bodies outside the guard domain ... the outputs hold step K−1, the last good one; checkpoint of step K−1: OUT/checkpoints/...`" + ` | run.TestGuardStopsRunawayBody, run.TestGuardStopsDivergence |
| the device ran out of memory | ` + "`... gpu: vkAllocateMemory: out of device memory (VK_ERROR_OUT_OF_DEVICE_MEMORY) (N bytes)`" + ` (` + "`--backend vulkan`" + `; ` + "`auto`" + ` falls back to the CPU path) | TestVulkanOutOfMemory |
| interrupted (SIGINT, SIGTERM) | ` + "`interrupted after step K; outputs so far in OUT; resume with: gpusim run --resume OUT/checkpoints/step-00000K.ckpt`" + ` | TestRunInterrupt (cmd/gpusim), run.TestInterruptWritesCheckpoint |
| solve: the problem has no minimum | ` + "`UNBOUNDED (no solution)`" + ` on stdout, status ` + "`unbounded`" + ` in summary.json | TestSolveUnbounded |
`

// TestVulkanOutOfMemory caps the Vulkan device below what a small scene
// needs: --backend vulkan fails with exit code 1 and says the device ran
// out of memory, leaving no output folder; --backend auto (with the device
// named, so that auto tries a CPU Vulkan device such as lavapipe) runs on
// the CPU path and says so.
func TestVulkanOutOfMemory(t *testing.T) {
	if _, err := gpu.Devices(); err != nil {
		t.Skipf("no Vulkan: %v", err)
	}
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.WriteFile("s.json", []byte(sceneFile(steel, "", sphereBody+", "+planeBody)), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"run", "s.json", "--steps", "2", "--quiet", "--device", "0", "--vk-memory-limit", "16384", "--out", "out"}
	var stdout, stderr bytes.Buffer
	code := cli(append(args, "--backend", "vulkan"), &stdout, &stderr)
	line := errorLine(stderr.String())
	if code != exitFailure || !strings.Contains(line, "s.json: gpu: load 2 bodies") || !strings.Contains(line, "out of device memory") {
		t.Errorf("--backend vulkan: exit %d, error %q; want %d and out of device memory while loading", code, line, exitFailure)
	}
	if _, err := os.Stat("out"); err == nil {
		t.Error("--backend vulkan: left an output folder")
	}
	stderr.Reset()
	code = cli(append(args, "--backend", "auto"), &stdout, &stderr)
	if code != exitOK || !strings.Contains(stderr.String(), "out of device memory") || !strings.Contains(stderr.String(), "running on the CPU path") {
		t.Errorf("--backend auto: exit %d; want %d and a notice of the fallback; stderr:\n%s", code, exitOK, stderr.String())
	}
}

// killChildEnv carries the arguments of gpusim (separated by \x1f) to the
// child process of TestKilledRunLeavesValidFiles.
const killChildEnv = "GPUSIM_TEST_KILL_CHILD_ARGS"

// TestKilledRunLeavesValidFiles runs gpusim in a child process (this test
// binary, re-entered), kills it with SIGKILL after a few steps and checks
// what it leaves: stats.csv and trace.csv end with a complete line, every
// row has the header's columns, the steps run 1, 2, … without a gap (the
// trace at most one step behind stats, written after it in the same
// step); every checkpoint reads back; summary.json is absent or complete.
func TestKilledRunLeavesValidFiles(t *testing.T) {
	if args := os.Getenv(killChildEnv); args != "" {
		os.Exit(cli(strings.Split(args, "\x1f"), os.Stdout, os.Stderr))
	}
	dir := t.TempDir()
	args := []string{"run", "settle", "--set", "n=200", "--backend", "cpu", "--workers", "1", "--steps", "100000",
		"--trace", "0,1,2", "--checkpoint", "3", "--out", dir, "--quiet"}
	cmd := exec.Command(os.Args[0], "-test.run=^TestKilledRunLeavesValidFiles$")
	cmd.Env = append(os.Environ(), killChildEnv+"="+strings.Join(args, "\x1f"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stats := filepath.Join(dir, "stats.csv")
	deadline := time.Now().Add(2 * time.Minute)
	for {
		data, _ := os.ReadFile(stats)
		if bytes.Count(data, []byte("\n")) > 8 {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("no 8 steps in 2 minutes; stderr:\n%s", stderr.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err == nil {
		t.Fatal("the child exited normally: it was not killed")
	}
	last := checkKilledCSV(t, stats, 1)
	traced := checkKilledCSV(t, filepath.Join(dir, "trace.csv"), 3)
	if traced != last && traced != last-1 {
		t.Errorf("trace.csv ends at step %d, stats.csv at %d", traced, last)
	}
	t.Logf("killed after step %d", last)
	cks, err := filepath.Glob(filepath.Join(dir, "checkpoints", "*.ckpt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(cks) == 0 {
		t.Error("no checkpoint after 8 steps with --checkpoint 3")
	}
	for _, p := range cks {
		if _, err := checkpoint.Read(p); err != nil {
			t.Errorf("checkpoint left by the killed run: %v", err)
		}
	}
	if data, err := os.ReadFile(filepath.Join(dir, "summary.json")); err == nil && !json.Valid(data) {
		t.Errorf("summary.json is not complete JSON:\n%s", data)
	}
}

// checkKilledCSV checks a CSV file of a killed run whose rows come in
// groups of perStep for each step 1, 2, …, and returns its last step.
func checkKilledCSV(t *testing.T, path string, perStep int) int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) == 0 || data[len(data)-1] != '\n' {
		t.Fatalf("%s does not end with a complete line: %q", path, data[max(0, len(data)-80):])
	}
	rows, err := csv.NewReader(bytes.NewReader(data)).ReadAll() // errors on rows of another width
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if (len(rows)-1)%perStep != 0 {
		t.Fatalf("%s: %d rows, not whole steps of %d", path, len(rows)-1, perStep)
	}
	for i, r := range rows[1:] {
		k, err := strconv.Atoi(r[0])
		if want := i/perStep + 1; err != nil || k != want {
			t.Fatalf("%s: row %d is of step %q, want %d", path, i+1, r[0], want)
		}
	}
	return (len(rows) - 1) / perStep
}
