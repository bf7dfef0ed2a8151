package run

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpusim/gpusim/scene"
)

// TestSummaryProducts: the summary counts apgd's products with N (each
// step's solve takes its iterations, at least, and the start's two) and
// leaves them out for a solver that does not count them (gs).
func TestSummaryProducts(t *testing.T) {
	for _, solver := range []string{"apgd", "gs"} {
		sc, err := scene.LoadBuiltin("settle", []string{"n=64"})
		if err != nil {
			t.Fatal(err)
		}
		sc.Steps = 6
		sc.Settings.Solver, sc.Settings.Tol, sc.Settings.MaxIter = solver, 0, 20
		dir := t.TempDir()
		sum, err := Run(context.Background(), sc, Options{Backend: "cpu", OutDir: dir})
		if err != nil {
			t.Fatal(err)
		}
		js, err := os.ReadFile(filepath.Join(dir, "summary.json"))
		if err != nil {
			t.Fatal(err)
		}
		has := strings.Contains(string(js), `"products_total"`)
		switch solver {
		case "apgd":
			if sum.ProductsTotal < sum.IterationsTotal+2*sum.Steps || sum.ProductsMean != float64(sum.ProductsTotal)/float64(sum.Steps) || !has {
				t.Errorf("apgd: %d products, mean %g, over %d iterations in %d steps; in summary.json %v",
					sum.ProductsTotal, sum.ProductsMean, sum.IterationsTotal, sum.Steps, has)
			}
		case "gs":
			if sum.ProductsTotal != 0 || has {
				t.Errorf("gs: %d products, in summary.json %v: gs does not count them", sum.ProductsTotal, has)
			}
		}
	}
}
