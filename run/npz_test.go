package run

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"codeberg.org/sbinet/npyio/npz"
	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/checkpoint"
	"github.com/gpusim/gpusim/internal/testfile"
)

// npzFrame is a NumPy frame read back with npyio.
type npzFrame struct {
	t                                     float64
	step                                  int64
	id, bodies                            []int64
	pos, quat, vel, omega                 []float64
	point, pointB, normal, gap, force, fn []float64
	shapes                                map[string][]int
}

func readNPZ(t *testing.T, path string) *npzFrame {
	t.Helper()
	r, err := npz.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	keys := r.Keys()
	var want []string
	for _, k := range npzArrays {
		want = append(want, k+".npy")
	}
	if !slices.Equal(keys, want) {
		t.Fatalf("%s holds %q, want %q", path, keys, want)
	}
	f := &npzFrame{shapes: map[string][]int{}}
	for k, ptr := range map[string]any{"t": &f.t, "step": &f.step, "id": &f.id, "pos": &f.pos, "quat": &f.quat, "vel": &f.vel,
		"omega": &f.omega, "contact_bodies": &f.bodies, "contact_point": &f.point, "contact_point_b": &f.pointB,
		"contact_normal": &f.normal, "contact_gap": &f.gap, "contact_force": &f.force, "contact_force_nuw": &f.fn} {
		h := r.Header(k + ".npy")
		if h == nil {
			t.Fatalf("%s: no %s", path, k)
		}
		f.shapes[k] = h.Descr.Shape
		if sh := h.Descr.Shape; len(sh) > 0 && sh[0] == 0 {
			continue // npyio does not read an empty array; its shape is checked
		}
		if err := r.Read(k+".npy", ptr); err != nil {
			t.Fatalf("%s: %s: %v", path, k, err)
		}
	}
	return f
}

// checkShapes checks the shapes of a frame of n bodies and nc contacts.
func (f *npzFrame) checkShapes(t *testing.T, n, nc int) {
	t.Helper()
	want := map[string][]int{"t": {}, "step": {}, "id": {n}, "pos": {n, 3}, "quat": {n, 4}, "vel": {n, 3}, "omega": {n, 3},
		"contact_bodies": {nc, 2}, "contact_point": {nc, 3}, "contact_point_b": {nc, 3}, "contact_normal": {nc, 3},
		"contact_gap": {nc}, "contact_force": {nc, 3}, "contact_force_nuw": {nc, 3}}
	for k, w := range want {
		if got := f.shapes[k]; !slices.Equal(got, w) && !(len(got) == 0 && len(w) == 0) {
			t.Errorf("step %d: %s has shape %v, want %v", f.step, k, got, w)
		}
	}
}

// bodyRow is the row of body i as final.csv and trace.csv write it.
func (f *npzFrame) bodyRow(i int) []float64 {
	var v []float64
	v = append(v, f.pos[3*i:3*i+3]...)
	v = append(v, f.quat[4*i:4*i+4]...)
	v = append(v, f.vel[3*i:3*i+3]...)
	return append(v, f.omega[3*i:3*i+3]...)
}

// sameRow reports whether the CSV fields (id, then the body's columns)
// hold exactly the frame's numbers of body i.
func (f *npzFrame) sameRow(t *testing.T, what string, i int, fields []string) {
	t.Helper()
	if id, err := strconv.Atoi(fields[0]); err != nil || id != i || f.id[i] != int64(i) {
		t.Fatalf("%s: body %d: row of id %s, frame id %d", what, i, fields[0], f.id[i])
	}
	for k, w := range f.bodyRow(i) {
		v, err := strconv.ParseFloat(fields[k+1], 64)
		if err != nil || v != w {
			t.Errorf("%s: body %d column %d: %s, frame %v", what, i, k+1, fields[k+1], w)
		}
	}
}

// TestRunWritesNPZ runs the restart scene 7 steps with NumPy frames every
// 3: steps 0, 3, 6 and 7, read back with npyio. Their body arrays equal
// trace.csv's rows of the step and the last frame's final.csv, bit for
// bit; their contact count is stats.csv's; and their contact forces,
// summed per static body in contact order, are reactions.csv's forces bit
// for bit (the same world-frame force engine.ContactReactions sums).
func TestRunWritesNPZ(t *testing.T) {
	sc := loadRestart(t, true)
	sc.Steps = 7
	n := len(sc.Model.Bodies)
	sc.Trace = nil
	for i := range n {
		sc.Trace = append(sc.Trace, i)
	}
	dir := t.TempDir()
	if _, err := Run(context.Background(), sc, Options{Backend: "cpu", OutDir: dir, NPZEvery: 3, Reactions: true}); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, NPZDir, "*"))
	var want []string
	for _, k := range []int{0, 3, 6, 7} {
		want = append(want, filepath.Join(dir, filepath.FromSlash(NPZFile(k))))
	}
	if !slices.Equal(files, want) {
		t.Fatalf("npz/ holds %q, want %q", files, want)
	}
	stats := testfile.CSV(t, filepath.Join(dir, "stats.csv"))
	trace := testfile.CSV(t, filepath.Join(dir, "trace.csv"))
	rxn := testfile.CSV(t, filepath.Join(dir, "reactions.csv"))
	var f *npzFrame
	for _, k := range []int{0, 3, 6, 7} {
		f = readNPZ(t, filepath.Join(dir, filepath.FromSlash(NPZFile(k))))
		if f.step != int64(k) || k == 0 && f.t != 0 {
			t.Errorf("frame %d: step %d, t %v", k, f.step, f.t)
		}
		nc := 0
		if k > 0 {
			if nc, _ = strconv.Atoi(stats[k][3]); stats[k][0] != strconv.Itoa(k) || strconv.FormatFloat(f.t, 'g', -1, 64) != stats[k][1] {
				t.Fatalf("stats.csv row %d is %q", k, stats[k])
			}
		}
		f.checkShapes(t, n, nc)
		if k == 0 {
			continue // trace.csv and reactions.csv start at step 1
		}
		for i := range n {
			row := trace[1+(k-1)*n+i]
			if row[0] != strconv.Itoa(k) {
				t.Fatalf("trace.csv row %q, want step %d", row, k)
			}
			f.sameRow(t, "trace.csv step "+strconv.Itoa(k), i, row[2:])
		}
		if nc == 0 {
			t.Fatalf("step %d has no contacts: the test sees no contact arrays", k)
		}
		sum := map[int64]mgl64.Vec3{}
		for c := range nc {
			a, b := f.bodies[2*c], f.bodies[2*c+1]
			if a >= b || b >= int64(n) {
				t.Errorf("step %d contact %d: bodies %d, %d", k, c, a, b)
			}
			nrm := mgl64.Vec3{f.normal[3*c], f.normal[3*c+1], f.normal[3*c+2]}
			// 1e-12: the collider normalises n, which leaves |n| − 1 a
			// few ulps (~1e-16); the bound is far above that and far below
			// any normal that is not a unit vector.
			if d := nrm.Len() - 1; d > 1e-12 || d < -1e-12 {
				t.Errorf("step %d contact %d: |normal| = %v", k, c, nrm.Len())
			}
			fc := mgl64.Vec3{f.force[3*c], f.force[3*c+1], f.force[3*c+2]}
			// force·n = (γ_n n·n + γ_u u·n + γ_w w·n)/h is γ_n/h up to
			// rounding (n, u, w orthonormal to ~1e-16): 1e-9 relative
			// (absolute below 1 N) is far above that and catches a force
			// built in another frame or scaled by other than 1/h.
			if d := fc.Dot(nrm) - f.fn[3*c]; d > 1e-9*(1+fc.Len()) || d < -1e-9*(1+fc.Len()) {
				t.Errorf("step %d contact %d: force·normal %v, normal component %v", k, c, fc.Dot(nrm), f.fn[3*c])
			}
			sum[a] = sum[a].Sub(fc)
			sum[b] = sum[b].Add(fc)
		}
		checked := 0
		for _, row := range rxn[1:] {
			if row[0] != strconv.Itoa(k) || row[2] != "body" {
				continue
			}
			id, _ := strconv.Atoi(row[3])
			for j := range 3 {
				v, _ := strconv.ParseFloat(row[4+j], 64)
				if v != sum[int64(id)][j] {
					t.Errorf("step %d body %d: reactions.csv force %s, the frame's contact forces sum to %v", k, id, row[4:7], sum[int64(id)])
					break
				}
			}
			checked++
		}
		if checked == 0 {
			t.Fatalf("reactions.csv has no body rows at step %d", k)
		}
	}
	final := testfile.CSV(t, filepath.Join(dir, "final.csv"))
	if len(final) != 1+n {
		t.Fatalf("final.csv has %d rows", len(final))
	}
	for i := range n {
		f.sameRow(t, "final.csv", i, final[1+i])
	}
}

// TestNPZResume resumes the restart scene from a checkpoint of step 4
// into the folder of the run that wrote it, which had frames every 3 up
// to step 9: the resumed run removes the frames after step 4 and writes
// its own, byte for byte those of the unsplit run.
func TestNPZResume(t *testing.T) {
	dir := t.TempDir()
	full, split := filepath.Join(dir, "full"), filepath.Join(dir, "split")
	sc := loadRestart(t, true)
	sc.Steps = 9
	if _, err := Run(context.Background(), sc, Options{Backend: "cpu", OutDir: full, NPZEvery: 3}); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), sc, Options{Backend: "cpu", OutDir: split, NPZEvery: 3, CheckpointEvery: 4}); err != nil {
		t.Fatal(err)
	}
	// A stray frame of another run's step 8 goes too.
	if err := os.WriteFile(filepath.Join(split, filepath.FromSlash(NPZFile(8))), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	ck, err := checkpoint.Read(filepath.Join(split, "checkpoints", checkpoint.FileName(4)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), sc, Options{Backend: "cpu", OutDir: split, NPZEvery: 3, Resume: ck}); err != nil {
		t.Fatal(err)
	}
	fullFiles, _ := filepath.Glob(filepath.Join(full, NPZDir, "*"))
	splitFiles, _ := filepath.Glob(filepath.Join(split, NPZDir, "*"))
	if len(fullFiles) != 4 || len(splitFiles) != len(fullFiles) {
		t.Fatalf("frames: unsplit %q, resumed %q", fullFiles, splitFiles)
	}
	for i := range fullFiles {
		if filepath.Base(fullFiles[i]) != filepath.Base(splitFiles[i]) || !bytes.Equal(readFile(t, fullFiles[i]), readFile(t, splitFiles[i])) {
			t.Errorf("resumed %s differs from the unsplit run's %s", splitFiles[i], fullFiles[i])
		}
	}
}

// TestReadNPZScript runs examples/read_npz.py on a run's folder: it must
// rebuild final.csv's text exactly from the last frame. It needs python3
// with numpy (Debian: python3-numpy): the python3 on PATH, or else
// /usr/bin/python3 (a pyenv or virtualenv python3 may lack the Debian
// package's numpy).
func TestReadNPZScript(t *testing.T) {
	py, why := "", "no python3"
	cands := []string{"/usr/bin/python3"}
	if p, err := exec.LookPath("python3"); err == nil {
		cands = append([]string{p}, cands...)
	}
	for _, p := range cands {
		out, err := exec.Command(p, "-c", "import numpy").CombinedOutput()
		if err == nil {
			py = p
			break
		}
		if _, serr := os.Stat(p); serr == nil {
			why = fmt.Sprintf("%s has no numpy (apt-get install python3-numpy): %v: %s", p, err, bytes.TrimSpace(out))
		}
	}
	if py == "" {
		testfile.Missing(t, why)
	}
	sc := loadRestart(t, true)
	sc.Steps = 5
	dir := t.TempDir()
	if _, err := Run(context.Background(), sc, Options{Backend: "cpu", OutDir: dir, NPZEvery: 2}); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join("..", "examples", "read_npz.py")
	out, err := exec.Command(py, script, dir, "--final-csv", filepath.Join(dir, "final.csv")).CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", script, err, out)
	}
	lines := fmt.Sprintf("all %d lines identical", 1+len(sc.Model.Bodies))
	for _, s := range []string{"step-00000000.npz", "step-00000004.npz", "step-00000005.npz", lines} {
		if !strings.Contains(string(out), s) {
			t.Errorf("the script's output lacks %q:\n%s", s, out)
		}
	}
	// A changed digit in final.csv is a difference, exit status 1.
	final := readFile(t, filepath.Join(dir, "final.csv"))
	i := bytes.LastIndexAny(final, "123456789")
	final[i] = '0' + (final[i]-'0')%9 + 1
	if err := os.WriteFile(filepath.Join(dir, "final.csv"), final, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(py, script, dir, "--quiet", "--final-csv", filepath.Join(dir, "final.csv"))
	out, err = cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(string(out), "differs") {
		t.Errorf("a changed final.csv: %v\n%s", err, out)
	}
}
