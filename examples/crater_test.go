package examples

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gpusim/gpusim/internal/testfile"
)

// TestCraterScript runs the crater study's script (crater/fit.sh, the
// command docs/validation.md prints) at a toy size — 300 grains, one ball,
// one drop — so that the script, its Python helper and the CLI commands it
// calls keep working together: it must settle the bed, drop the ball,
// write a results row with a finite depth and print the fit. The figures
// of the real study take an hour and are not checked here.
func TestCraterScript(t *testing.T) {
	for _, tool := range []string{"bash", "python3"} {
		if _, err := exec.LookPath(tool); err != nil {
			testfile.Missing(t, fmt.Sprintf("%s: %v", tool, err))
		}
	}
	out := t.TempDir()
	// fit.sh runs from the repository root (it builds ./cmd/gpusim).
	cmd := exec.Command("bash", filepath.Join("examples", "crater", "fit.sh"))
	cmd.Dir = ".."
	cmd.Env = append(os.Environ(), "N=300", "BOX=0.2", "HEIGHTS=0.1", "RHOS=2200", "T_FALL=0.3", "CHUNK=0.05",
		"T_IMPACT=0.02", "MAX_SETTLE=2", "KE_FRAC=1e-2", "OUT="+out)
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("fit.sh: %v\n%s", err, b)
	}
	for _, s := range []string{"bed: 300 grains", "| runs | n | k (± standard error)"} {
		if !strings.Contains(string(b), s) {
			t.Errorf("fit.sh's output lacks %q:\n%s", s, b)
		}
	}
	rows := testfile.CSV(t, filepath.Join(out, "results.csv"))
	if len(rows) != 2 {
		t.Fatalf("results.csv has %d rows, want the header and one drop", len(rows))
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	d, err := strconv.ParseFloat(rows[1][col["d"]], 64)
	// The toy bed is 4 layers of 2 cm grains: a teflon ball from 0.1 m
	// goes in less than its own diameter (0.06 m).
	if err != nil || !(d > -0.06 && d < 0.06) {
		t.Errorf("depth %q (%v): want a finite depth under the ball's diameter", rows[1][col["d"]], err)
	}
}
