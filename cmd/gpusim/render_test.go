package main

import (
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
