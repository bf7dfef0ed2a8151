package main

import (
	"fmt"
	"image/color"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpusim/gpusim/internal/testfile"
)

// TestRenderCommand runs a small settle with frames and renders the last
// frame and frame 1 at a given size.
func TestRenderCommand(t *testing.T) {
	dir := t.TempDir()
	if code, _, errOut := runCLI(t, "run", "settle", "--set", "n=20", "--steps", "6", "--vtk", "3", "--vtk-contacts",
		"--out", dir, "--backend", "cpu", "--quiet"); code != exitOK {
		t.Fatalf("run: exit %d: %s", code, errOut)
	}
	for _, f := range []string{"run.pvd", "contacts.pvd", "vtk/container.vtp", "vtk/frame-000006.vtp", "vtk/contacts-000003.vtp"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("run --vtk 3 --vtk-contacts: %v", err)
		}
	}
	for _, c := range []struct {
		args []string
		file string
	}{
		{[]string{"render", dir, "--width", "320", "--height", "240"}, "render.png"},
		{[]string{"render", dir, "--frame", "1", "--width", "320", "--height", "240"}, "render-frame-1.png"},
	} {
		code, out, errOut := runCLI(t, c.args...)
		if code != exitOK {
			t.Fatalf("%v: exit %d: %s", c.args, code, errOut)
		}
		path := filepath.Join(dir, c.file)
		if !strings.HasPrefix(out, path) {
			t.Errorf("%v printed %q, want it to name %s", c.args, out, path)
		}
		img := testfile.PNG(t, path)
		if b := img.Bounds(); b.Dx() != 320 || b.Dy() != 240 {
			t.Errorf("%s: %v, want 320 × 240", path, b)
		}
		colours := map[color.Color]bool{}
		ink := 0
		for y := 0; y < 240; y++ {
			for x := 0; x < 320; x++ {
				c := img.At(x, y)
				colours[c] = true
				if r, g, b, _ := c.RGBA(); r != 0xffff || g != 0xffff || b != 0xffff {
					ink++
				}
			}
		}
		// A blank picture has one colour and no ink; shaded spheres, walls
		// and the colour bar give hundreds of colours and several % ink.
		if len(colours) < 50 || float64(ink) < 0.02*320*240 {
			t.Errorf("%s looks blank: %d colours, %d pixels not white", path, len(colours), ink)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"render", dir, "--frame", "7"}, "frames 0 to 2"},
		{[]string{"render", dir, "--width", "10"}, "picture size"},
		{[]string{"render", filepath.Join(dir, "nothing")}, "summary.json"},
		{[]string{"run", "settle", "--vtk", "-1"}, "--vtk"},
		{[]string{"run", "settle", "--vtk-contacts"}, "--vtk-contacts needs --vtk"},
	} {
		if code, _, errOut := runCLI(t, c.args...); code != exitUsage || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, %q; want exit %d mentioning %q", c.args, code, errOut, exitUsage, c.want)
		}
	}
}

// runFiles returns the contents of every file under dir, by path.
func runFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		files[path] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// barRegion returns the pixels of the colour bar's margin (the right 110
// pixels, below the caption): its colours and the range's labels.
func barRegion(t *testing.T, path string) string {
	t.Helper()
	img := testfile.PNG(t, path)
	b := img.Bounds()
	var s strings.Builder
	for y := 30; y < b.Dy(); y++ {
		for x := b.Dx() - 110; x < b.Dx(); x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			s.WriteString(string([]byte{byte(r >> 8), byte(g >> 8), byte(bl >> 8)}))
		}
	}
	return s.String()
}

// TestRenderAll renders every frame of a run: consecutive frame-NNNNNN.png
// names, the ffmpeg command, one colour range for all frames by default
// (the bar identical in each) and each frame's own with --range frame, a
// fixed --range, stale frames of a longer render removed, and the run's
// own files untouched.
func TestRenderAll(t *testing.T) {
	dir := t.TempDir()
	runOK(t, "run", "settle", "--set", "n=20", "--steps", "9", "--vtk", "3", "--vtk-contacts", "--out", dir, "--backend", "cpu", "--quiet")
	before := runFiles(t, dir)
	outDir := filepath.Join(t.TempDir(), "movie")
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"frame-000007.png", "keep.txt"} {
		if err := os.WriteFile(filepath.Join(outDir, f), []byte("old"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := runOK(t, "render", dir, "--all", "--out", outDir, "--width", "320", "--height", "240")
	for _, want := range []string{"4 frames frame-000000.png … frame-000003.png", "over the run's 4 frames",
		"ffmpeg -framerate 25 -i " + filepath.Join(outDir, "frame-%06d.png"), "camera: automatic, as --camera "} {
		if !strings.Contains(out, want) {
			t.Errorf("render --all printed %q; want it to say %q", out, want)
		}
	}
	entries, err := os.ReadDir(outDir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if want := "frame-000000.png frame-000001.png frame-000002.png frame-000003.png keep.txt"; strings.Join(names, " ") != want {
		t.Errorf("--out holds %v, want %s (frame-000007.png of an older render removed)", names, want)
	}
	bar := barRegion(t, filepath.Join(outDir, "frame-000000.png"))
	for k := 1; k < 4; k++ {
		if barRegion(t, filepath.Join(outDir, fmt.Sprintf("frame-%06d.png", k))) != bar {
			t.Errorf("frame %d: colour bar differs from frame 0's; want one range over the run", k)
		}
	}
	// Each frame's own range: the speed range of a settling run changes
	// (frame 0 starts at rest).
	runOK(t, "render", dir, "--all", "--out", outDir, "--width", "320", "--height", "240", "--range", "frame")
	if barRegion(t, filepath.Join(outDir, "frame-000000.png")) == barRegion(t, filepath.Join(outDir, "frame-000003.png")) {
		t.Error("--range frame: frames 0 and 3 have the same colour bar; want each frame's range")
	}
	// A fixed range, by contact force.
	out = runOK(t, "render", dir, "--all", "--out", outDir, "--width", "320", "--height", "240", "--range", "0,50", "--color-by", "force")
	if !strings.Contains(out, "colour: contact force 0 to 50 N (fixed by --range)") {
		t.Errorf("--range 0,50 --color-by force printed %q", out)
	}
	// The run's folder: only render's own PNGs are new.
	runOK(t, "render", dir, "--all", "--width", "320", "--height", "240")
	runOK(t, "render", dir, "--frame", "2", "--width", "320", "--height", "240", "--color-by", "z", "--range", "run")
	after := runFiles(t, dir)
	for path, data := range before {
		if after[path] != data {
			t.Errorf("render changed the run's file %s", path)
		}
	}
	for path := range after {
		if _, ok := before[path]; !ok && !strings.HasPrefix(path, filepath.Join(dir, "render")) {
			t.Errorf("render wrote %s into the run's folder", path)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "render", "frame-000003.png")); err != nil {
		t.Errorf("--all without --out: %v", err)
	}
}

// TestRenderCamera: a moved camera changes the picture; the same camera
// gives the same picture.
func TestRenderCamera(t *testing.T) {
	dir := t.TempDir()
	runOK(t, "run", "settle", "--set", "n=20", "--steps", "2", "--vtk", "2", "--out", dir, "--backend", "cpu", "--quiet")
	read := func(camera, name string) string {
		path := filepath.Join(dir, name)
		out := runOK(t, "render", dir, "--camera", camera, "--width", "320", "--height", "240", "--out", path)
		if !strings.Contains(out, "camera: --camera "+camera) {
			t.Errorf("--camera %s printed %q", camera, out)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	a := read("3,-5,3,0,0,0.2,40", "a.png")
	if b := read("3,-5,3,0,0,0.2,40", "b.png"); a != b {
		t.Error("the same camera drew two different pictures")
	}
	if c := read("-3,-5,2,0,0,0.2,40", "c.png"); a == c {
		t.Error("a moved camera drew the same picture")
	}
}

// TestRenderBadFlags: bad camera, colour and range values are usage
// errors naming the flag, found before the run is read.
func TestRenderBadFlags(t *testing.T) {
	dir := t.TempDir()
	runOK(t, "run", "settle", "--set", "n=5", "--steps", "2", "--vtk", "1", "--out", dir, "--backend", "cpu", "--quiet")
	noFrames := t.TempDir()
	runOK(t, "run", "settle", "--set", "n=5", "--steps", "2", "--out", noFrames, "--backend", "cpu", "--quiet")
	before := runFiles(t, dir)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--camera", "1,2,3"}, `--camera "1,2,3": want px,py,pz,tx,ty,tz or px,py,pz,tx,ty,tz,fov_deg (6 or 7 numbers), got 3`},
		{[]string{"--camera", "1,2,3,4,5,6,7,8"}, "got 8"},
		{[]string{"--camera", "1,2,x,0,0,0"}, `pz = "x" is not a number`},
		{[]string{"--camera", "1,2,inf,0,0,0"}, "pz = +Inf: want a finite number"},
		{[]string{"--camera", "0,0,NaN,0,0,0"}, "pz = NaN: want a finite number"},
		{[]string{"--camera", "1,2,3,1,2,3"}, "the position and the target are the same point"},
		{[]string{"--camera", "5,5,5,0,0,0,0"}, "fov 0°: want 0 < fov < 180"},
		{[]string{"--camera", "5,5,5,0,0,0,180"}, "fov 180°: want 0 < fov < 180"},
		{[]string{"--color-by", "colour"}, `--color-by "colour": want one of speed, z, id, force, none`},
		{[]string{"--range", "2,1"}, `--range "2,1": want lo < hi`},
		{[]string{"--range", "1,1"}, `--range "1,1": want lo < hi`},
		{[]string{"--range", "0,nan"}, "want finite numbers"},
		{[]string{"--range", "0,1,2"}, "want lo,hi (two numbers), run or frame"},
		{[]string{"--range", "0,a"}, `"a" is not a number`},
		{[]string{"--range", "all"}, "want lo,hi (two numbers), run or frame"},
		{[]string{"--color-by", "none", "--range", "0,1"}, "--color-by none has no colour range"},
		{[]string{"--all", "--frame", "1"}, "--all draws every frame: leave out --frame"},
		{[]string{"--out", filepath.Join(dir, "summary.json")}, "want a file name ending in .png"},
		{[]string{"--all", "--out", "x.png"}, "with --all, --out names a folder"},
		{[]string{"--all", "--out", filepath.Join(dir, "summary.json")}, "is a file; with --all, --out names a folder"},
		{[]string{"--color-by", "force"}, "--color-by force: " + dir + " has no contact frames"},
	} {
		wantUsage(t, c.args, append([]string{"render", dir}, c.args...), c.want)
	}
	wantUsage(t, []string{"no frames, --all"}, []string{"render", noFrames, "--all"}, "--all: "+noFrames+" has no ParaView frames")
	wantUsage(t, []string{"no frames, by force"}, []string{"render", noFrames, "--color-by", "force"}, "--color-by force: "+noFrames+" has no contact frames")
	after := runFiles(t, dir)
	if len(after) != len(before) {
		t.Errorf("bad flags: the run's folder had %d files, has %d", len(before), len(after))
	}
	for path, data := range before {
		if after[path] != data {
			t.Errorf("bad flags: %s changed", path)
		}
	}
}

// TestRenderPour: a run whose bodies enter over time (a pour generator)
// is drawn from final.csv, which holds more bodies than the scene's model
// at t = 0: every entered body, with the shapes of the pour.
func TestRenderPour(t *testing.T) {
	dir := t.TempDir()
	if code, _, errOut := runCLI(t, "run", filepath.Join("..", "..", "examples", "pour.json"), "--steps", "60",
		"--out", dir, "--backend", "cpu", "--quiet"); code != exitOK {
		t.Fatalf("run: exit %d: %s", code, errOut)
	}
	code, out, errOut := runCLI(t, "render", dir, "--width", "320", "--height", "240")
	if code != exitOK {
		t.Fatalf("render: exit %d: %s", code, errOut)
	}
	// examples/pour.json has 6 bodies at t = 0 (the container); after 60
	// steps grains have entered, so final.csv has more rows than the
	// scene's model: the case this test is for.
	final := string(readFileT(t, filepath.Join(dir, "final.csv")))
	if n := strings.Count(final, "\n") - 1; n <= 6 {
		t.Fatalf("final.csv has %d bodies: no grain entered in 60 steps, the test checks nothing", n)
	}
	if !strings.HasPrefix(out, filepath.Join(dir, "render.png")) {
		t.Errorf("render printed %q, want it to name render.png", out)
	}
	testfile.PNG(t, filepath.Join(dir, "render.png"))
}
