package main

import (
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPlotCommand plots a short traced run and checks the PNGs it lists.
func TestPlotCommand(t *testing.T) {
	dir := t.TempDir()
	if code, _, errOut := runCLI(t, "run", "rolling-ball", "--steps", "20", "--out", dir, "--backend", "cpu", "--quiet"); code != exitOK {
		t.Fatalf("run: exit %d: %s", code, errOut)
	}
	code, out, errOut := runCLI(t, "plot", dir)
	if code != exitOK {
		t.Fatalf("plot: exit %d: %s", code, errOut)
	}
	files := strings.Fields(out)
	// Five plots of stats.csv and two of trace.csv (rolling-ball traces the ball).
	if len(files) != 7 {
		t.Fatalf("plot listed %d files, want 7:\n%s", len(files), out)
	}
	for _, f := range files {
		if filepath.Dir(f) != filepath.Join(dir, "plots") {
			t.Errorf("%s is not in %s/plots", f, dir)
		}
		r, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := png.DecodeConfig(r)
		r.Close()
		// 8 × 5 inches at gonum/plot's 96 dpi.
		if err != nil || cfg.Width != 768 || cfg.Height != 480 {
			t.Errorf("%s: %d × %d, %v; want a 768 × 480 PNG", f, cfg.Width, cfg.Height, err)
		}
	}
	if code, _, errOut := runCLI(t, "plot", filepath.Join(dir, "nothing")); code != exitUsage || !strings.Contains(errOut, "stats.csv") {
		t.Errorf("plot of a missing folder: exit %d, %q", code, errOut)
	}
	if code, _, _ := runCLI(t, "plot"); code != exitUsage {
		t.Errorf("plot without a folder: exit %d", code)
	}
}
