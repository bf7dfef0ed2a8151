package run

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpusim/gpusim/scene"
)

// TestMeritUndefined runs flow-gap for two steps, before any sphere can
// reach the gap: its flow rate has no value. summary.json must still be
// written (JSON has no NaN: encoding one failed the run) with the figure
// marked undefined rather than given a made-up 0.
func TestMeritUndefined(t *testing.T) {
	sc, err := scene.LoadBuiltin("flow-gap", []string{"n=50"})
	if err != nil {
		t.Fatal(err)
	}
	sc.Steps = 2
	dir := t.TempDir()
	if _, err := Run(context.Background(), sc, Options{Backend: "cpu", OutDir: dir}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sum struct{ Merit *Merit }
	if err := json.Unmarshal(data, &sum); err != nil {
		t.Fatal(err)
	}
	if sum.Merit == nil {
		t.Fatal("summary.json has no merit")
	}
	for _, f := range sum.Merit.Figures {
		if f.Name == "flow_rate" {
			if !f.Undefined || f.Value != 0 {
				t.Errorf("flow_rate after 2 steps = %+v, want undefined", f)
			}
			if s := sum.Merit.String(); !strings.Contains(s, "flow_rate            undefined") {
				t.Errorf("printed merit does not say undefined:\n%s", s)
			}
			return
		}
	}
	t.Fatalf("no flow_rate in %+v", sum.Merit.Figures)
}
