package sweep

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/gpusim/gpusim/internal/testfile"
	"github.com/gpusim/gpusim/run"
)

// smallSpec is 4 runs of settle, 30 spheres for 5 steps, on the CPU path:
// two frictions by two seeds.
const smallSpec = `{"scene": "settle", "base": ["n=30", "run.steps=5"],
 "vary": {"materials.0.friction": [0.2, 0.5], "generators.0.seed": {"range": [1, 2]}}, "backend": "cpu"}`

// recorder counts the runs started.
type recorder struct {
	mu      sync.Mutex
	started []int
}

func (r *recorder) start(i int) {
	r.mu.Lock()
	r.started = append(r.started, i)
	r.mu.Unlock()
}

func (r *recorder) take() []int {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := slices.Sorted(slices.Values(r.started))
	r.started = nil
	return s
}

// prepare parses text, validates it and writes its manifest into a new
// folder.
func prepare(t *testing.T, text string) (*Spec, string) {
	t.Helper()
	s := parse(t, text)
	if err := s.Validate(s.Expand()); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := WriteManifest(dir, NewManifest(s)); err != nil {
		t.Fatal(err)
	}
	return s, dir
}

func runFolders(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(filepath.Join(dir, "runs"))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

// A sweep runs end to end; started again it skips every complete run; a
// run whose DONE marker is gone is cleaned and run again, alone.
func TestSweepRunsAndResumes(t *testing.T) {
	s, dir := prepare(t, smallSpec)
	var rec recorder
	opt := Options{Dir: dir, Jobs: 2, Started: rec.start}
	rep, err := Execute(context.Background(), s, opt)
	if err != nil {
		t.Fatal(err)
	}
	if got := rec.take(); !reflect.DeepEqual(got, []int{0, 1, 2, 3}) || !reflect.DeepEqual(rep.Done, []int{0, 1, 2, 3}) {
		t.Fatalf("started %v, done %v; want runs 0 to 3", got, rep.Done)
	}
	if rep.Workers != max(1, runtime.NumCPU()/2) {
		t.Errorf("2 CPU runs at once got %d workers each; want NumCPU/2 = %d (at least 1)", rep.Workers, max(1, runtime.NumCPU()/2))
	}
	if got := runFolders(t, dir); !reflect.DeepEqual(got, []string{"0000", "0001", "0002", "0003"}) {
		t.Fatalf("run folders %v", got)
	}
	for i := range 4 {
		folder := filepath.Join(dir, "runs", "000"+strconv.Itoa(i))
		for _, f := range []string{"stats.csv", "final.csv", "summary.json", DoneFile} {
			if _, err := os.Stat(filepath.Join(folder, f)); err != nil {
				t.Errorf("run %d: %v", i, err)
			}
		}
		if !Complete(folder, i) {
			t.Errorf("run %d is not complete", i)
		}
		if Complete(folder, i+1) {
			t.Errorf("run %d's marker passes for run %d", i, i+1)
		}
	}
	// The runs computed what their parameters say.
	var sum struct {
		Settings struct{ Workers int } `json:"settings"`
		Doc      struct {
			Materials  []struct{ Friction float64 }
			Generators []struct{ Seed any }
		} `json:"scene_doc"`
	}
	data, err := os.ReadFile(filepath.Join(dir, "runs", "0002", "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &sum); err != nil {
		t.Fatal(err)
	}
	if sum.Doc.Materials[0].Friction != 0.5 || sum.Doc.Generators[0].Seed != 1.0 || sum.Settings.Workers != rep.Workers {
		t.Errorf("run 2 ran friction %v, seed %v, workers %d; want 0.5, 1, %d", sum.Doc.Materials[0].Friction, sum.Doc.Generators[0].Seed, sum.Settings.Workers, rep.Workers)
	}

	summary0 := filepath.Join(dir, "runs", "0000", "summary.json")
	before, err := os.Stat(summary0)
	if err != nil {
		t.Fatal(err)
	}
	rep, err = Execute(context.Background(), s, opt)
	if err != nil {
		t.Fatal(err)
	}
	if got := rec.take(); len(got) != 0 || !reflect.DeepEqual(rep.Skipped, []int{0, 1, 2, 3}) {
		t.Errorf("second pass started %v, skipped %v; want none started, all skipped", got, rep.Skipped)
	}

	// Run 2 loses its marker and has a stale file; run 3's summary no
	// longer matches its marker's checksum.
	stale := filepath.Join(dir, "runs", "0002", "stale.txt")
	if err := os.Remove(filepath.Join(dir, "runs", "0002", DoneFile)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(stale, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "runs", "0003", "summary.json"), []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err = Execute(context.Background(), s, opt)
	if err != nil {
		t.Fatal(err)
	}
	if got := rec.take(); !reflect.DeepEqual(got, []int{2, 3}) || !reflect.DeepEqual(rep.Skipped, []int{0, 1}) {
		t.Errorf("third pass started %v, skipped %v; want 2 and 3 run again, 0 and 1 skipped", got, rep.Skipped)
	}
	if _, err := os.Stat(stale); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the incomplete run's stale file survived the rerun: %v", err)
	}
	after, err := os.Stat(summary0)
	if err != nil {
		t.Fatal(err)
	}
	if !after.ModTime().Equal(before.ModTime()) {
		t.Errorf("complete run 0's summary.json was rewritten (%v → %v)", before.ModTime(), after.ModTime())
	}
	if !Complete(filepath.Join(dir, "runs", "0002"), 2) || !Complete(filepath.Join(dir, "runs", "0003"), 3) {
		t.Error("rerun runs are not complete")
	}
}

// Options.Only runs exactly the runs listed: only their folders appear.
func TestSweepOnlyOneRun(t *testing.T) {
	s, dir := prepare(t, smallSpec)
	var rec recorder
	rep, err := Execute(context.Background(), s, Options{Dir: dir, Only: []int{2}, Started: rec.start})
	if err != nil {
		t.Fatal(err)
	}
	if got := rec.take(); !reflect.DeepEqual(got, []int{2}) || !reflect.DeepEqual(rep.Done, []int{2}) || rep.Jobs != 1 {
		t.Errorf("started %v, done %v, jobs %d; want run 2 alone", got, rep.Done, rep.Jobs)
	}
	if got := runFolders(t, dir); !reflect.DeepEqual(got, []string{"0002"}) {
		t.Errorf("run folders %v, want [0002]", got)
	}
	if _, err := Execute(context.Background(), s, Options{Dir: dir, Only: []int{4}}); err == nil || !strings.Contains(err.Error(), "run 4 out of range [0, 4)") {
		t.Errorf("run 4 of 4: error %v", err)
	}
}

// A run that fails (its bodies overlap at the start) gets a FAILED marker;
// the others complete, and the error lists the failed run.
func TestSweepFailedRunDoesNotStopOthers(t *testing.T) {
	s, dir := prepare(t, `{"scene": "rolling-ball", "base": ["run.steps=5"], "backend": "cpu",
		"vary": {"bodies.0.pos": [[0, 0, 1], [0, 0, 0.5], [0, 0, 1.5]]}}`)
	rep, err := Execute(context.Background(), s, Options{Dir: dir, Jobs: 1})
	if err == nil || !strings.Contains(err.Error(), "1 of 3 runs failed: [1]") {
		t.Fatalf("error %v, want one naming run 1", err)
	}
	if !reflect.DeepEqual(rep.Done, []int{0, 2}) || len(rep.Failed) != 1 || rep.Failed[0].Index != 1 {
		t.Errorf("done %v, failed %v", rep.Done, rep.Failed)
	}
	msg, err := os.ReadFile(filepath.Join(dir, "runs", "0001", FailedFile))
	if err != nil || !strings.Contains(string(msg), "overlap") {
		t.Errorf("run 1's FAILED: %q, %v; want the overlap error", msg, err)
	}
	c, err := Collect(dir)
	if err != nil {
		t.Fatal(err)
	}
	var status []string
	for _, r := range c.Rows {
		status = append(status, r.Status)
	}
	if !reflect.DeepEqual(status, []string{StatusDone, StatusFailed, StatusDone}) {
		t.Errorf("collect's statuses %v", status)
	}
}

// A sweep cancelled during its first run leaves that run incomplete and
// starts no other; started again it runs all four.
func TestSweepCancelThenResume(t *testing.T) {
	s, dir := prepare(t, smallSpec)
	ctx, cancel := context.WithCancel(context.Background())
	var rec recorder
	rep, err := Execute(ctx, s, Options{Dir: dir, Jobs: 1, Started: func(i int) { rec.start(i); cancel() }})
	if err == nil || !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want a cancelled sweep", err)
	}
	if got := rec.take(); !reflect.DeepEqual(got, []int{0}) || !reflect.DeepEqual(rep.Incomplete, []int{0, 1, 2, 3}) || len(rep.Done) != 0 {
		t.Fatalf("started %v, incomplete %v, done %v; want run 0 started and all incomplete", got, rep.Incomplete, rep.Done)
	}
	if Complete(filepath.Join(dir, "runs", "0000"), 0) {
		t.Fatal("the cancelled run is marked complete")
	}
	c, err := Collect(dir)
	if err != nil {
		t.Fatal(err)
	}
	if c.Rows[0].Status != StatusInterrupted || c.Rows[1].Status != StatusMissing {
		t.Errorf("statuses %s, %s; want interrupted, missing", c.Rows[0].Status, c.Rows[1].Status)
	}
	rep, err = Execute(context.Background(), s, Options{Dir: dir, Jobs: 2, Started: rec.start})
	if err != nil {
		t.Fatal(err)
	}
	if got := rec.take(); !reflect.DeepEqual(got, []int{0, 1, 2, 3}) {
		t.Errorf("resumed sweep started %v, want all four", got)
	}
	if !reflect.DeepEqual(rep.Done, []int{0, 1, 2, 3}) || len(rep.Failed) != 0 || len(rep.Incomplete) != 0 {
		t.Errorf("resumed sweep: done %v, failed %v, incomplete %v; want all four done", rep.Done, rep.Failed, rep.Incomplete)
	}
}

// The manifest of a folder must list the same runs as the spec.
func TestManifestSpecChanged(t *testing.T) {
	s, dir := prepare(t, smallSpec)
	data, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(m.Runs, s.Expand()) || !strings.Contains(string(data), `"params": {`) {
		t.Errorf("manifest runs differ from the expansion:\n%s", data)
	}
	renamed := parse(t, strings.Replace(smallSpec, `"scene"`, `"name": "other", "scene"`, 1))
	if err := WriteManifest(dir, NewManifest(renamed)); err != nil {
		t.Errorf("same runs under another name: %v", err)
	}
	changed := parse(t, strings.Replace(smallSpec, "[0.2, 0.5]", "[0.2, 0.6]", 1))
	err = WriteManifest(dir, NewManifest(changed))
	if !errors.Is(err, ErrSpecChanged) || !strings.Contains(err.Error(), "run 2 is") {
		t.Errorf("changed friction: error %v, want ErrSpecChanged naming run 2", err)
	}
	fewer := parse(t, strings.Replace(smallSpec, "[0.2, 0.5]", "[0.2]", 1))
	if err := WriteManifest(dir, NewManifest(fewer)); !errors.Is(err, ErrSpecChanged) || !strings.Contains(err.Error(), "2 runs, were 4") {
		t.Errorf("fewer runs: error %v", err)
	}
}

func TestIndexFromEnv(t *testing.T) {
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	for _, c := range []struct {
		env  []string
		want int
		err  string
	}{
		{[]string{"SLURM_ARRAY_TASK_ID", "3"}, 3, ""},
		{[]string{"JOB_COMPLETION_INDEX", "0"}, 0, ""},
		{[]string{"SLURM_ARRAY_TASK_ID", "5", "JOB_COMPLETION_INDEX", "5"}, 5, ""},
		{nil, 0, "neither SLURM_ARRAY_TASK_ID nor JOB_COMPLETION_INDEX is set"},
		{[]string{"SLURM_ARRAY_TASK_ID", "x1"}, 0, `SLURM_ARRAY_TASK_ID="x1" is not a run index`},
		{[]string{"JOB_COMPLETION_INDEX", "-1"}, 0, `JOB_COMPLETION_INDEX="-1" is not a run index`},
		{[]string{"SLURM_ARRAY_TASK_ID", "1", "JOB_COMPLETION_INDEX", "2"}, 0, "SLURM_ARRAY_TASK_ID=1 and JOB_COMPLETION_INDEX=2 disagree"},
	} {
		got, err := IndexFromEnv(env(c.env...))
		switch {
		case c.err == "" && (err != nil || got != c.want):
			t.Errorf("%v: %d, %v; want %d", c.env, got, err, c.want)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%v: error %v, want %q", c.env, err, c.err)
		}
	}
}

// collect.csv has a row per run whose cells equal the run's summary.json,
// read here independently as generic JSON.
func TestCollectMatchesSummaries(t *testing.T) {
	s, dir := prepare(t, smallSpec)
	if _, err := Execute(context.Background(), s, Options{Dir: dir, Jobs: 2}); err != nil {
		t.Fatal(err)
	}
	// Run 3 loses its marker: collect trusts only DONE, so its row is
	// incomplete (a summary without interrupted_at_step) and has no results.
	if err := os.Remove(filepath.Join(dir, "runs", "0003", DoneFile)); err != nil {
		t.Fatal(err)
	}
	c, err := Collect(dir)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "collect.csv")
	if err := c.WriteCSV(path); err != nil {
		t.Fatal(err)
	}
	rows := testfile.CSV(t, path)
	wantHeader := "index,materials.0.friction,generators.0.seed,status,backend,device,host,steps," + strings.Join(ResultNames(), ",")
	if strings.Join(rows[0], ",") != wantHeader || len(rows) != 5 {
		t.Fatalf("header %v and %d rows; want %s and 4 rows", rows[0], len(rows)-1, wantHeader)
	}
	field := map[string][]string{
		"final_contacts": {"final", "contacts"}, "iterations_mean": {"iterations_mean"}, "final_residual": {"final", "residual"},
		"steps_not_converged": {"steps_not_converged"}, "wall_s": {"wall_s"}, "step_s_median": {"step_s_median"},
		"weight_N": {"final", "weight_N"}, "mean_height_m": {"final", "mean_height_m"}, "max_penetration_m": {"final", "max_penetration_m"},
		"escaped": {"final", "escaped"}, "max_speed_m_s": {"final", "max_speed_m_s"}, "steps": {"steps"},
	}
	runs := s.Expand()
	for i, rec := range rows[1:] {
		col := func(name string) string { return rec[slices.Index(rows[0], name)] }
		p := runs[i].Params
		if col("index") != strconv.Itoa(i) || col("materials.0.friction") != string(p[0].Value) || col("generators.0.seed") != string(p[1].Value) {
			t.Errorf("row %d: index and parameters %v, want %d, %s", i, rec[:3], i, p)
		}
		if i == 3 {
			if col("status") != StatusIncomplete || col("wall_s") != "" {
				t.Errorf("run 3 without DONE: status %s, wall_s %q; want not done and no results", col("status"), col("wall_s"))
			}
			continue
		}
		if col("status") != StatusDone || col("backend") != "cpu" {
			t.Errorf("row %d: status %s, backend %s", i, col("status"), col("backend"))
		}
		if host, _ := os.Hostname(); col("host") != host || col("device") != "" {
			t.Errorf("row %d: host %q, device %q; want %q and none on the CPU path", i, col("host"), col("device"), host)
		}
		var sum map[string]any
		data, err := os.ReadFile(filepath.Join(dir, "runs", "000"+strconv.Itoa(i), "summary.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, &sum); err != nil {
			t.Fatal(err)
		}
		for name, path := range field {
			var v any = sum
			for _, k := range path {
				v = v.(map[string]any)[k]
			}
			got, err := strconv.ParseFloat(col(name), 64)
			if err != nil || got != v.(float64) {
				t.Errorf("row %d, %s: %q, summary.json has %v", i, name, col(name), v)
			}
		}
		fz := sum["final"].(map[string]any)["fixed_force_N"].([]any)[2].(float64)
		if got, _ := strconv.ParseFloat(col("fixed_force_z_N"), 64); got != fz {
			t.Errorf("row %d: fixed_force_z_N %s, summary.json has %v", i, col("fixed_force_z_N"), fz)
		}
	}
}

// The plot is made, is not blank, and draws the line's colour; bad --x
// and --y are errors.
func TestCollectPlot(t *testing.T) {
	s, dir := prepare(t, smallSpec)
	if _, err := Execute(context.Background(), s, Options{Dir: dir, Jobs: 2}); err != nil {
		t.Fatal(err)
	}
	c, err := Collect(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := DefaultOver(c.Manifest.Keys, "materials.0.friction"); !reflect.DeepEqual(got, []string{"generators.0.seed"}) {
		t.Errorf("default over %v, want the seed key", got)
	}
	path, err := c.Plot("materials.0.friction", "max_speed_m_s", DefaultOver(c.Manifest.Keys, "materials.0.friction"), PlotOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(path) != "collect-max_speed_m_s-vs-materials.0.friction.png" {
		t.Errorf("plot file %s", path)
	}
	img := testfile.PNG(t, path)
	b := img.Bounds()
	// 768 × 480: 8 × 5 inches at gonum/plot's 96 dpi.
	if b.Dx() != 768 || b.Dy() != 480 {
		t.Errorf("plot %v, want 768 × 480", b)
	}
	blue := color.RGBA{31, 119, 180, 255} // lineColors[0]
	ink, line := 0, 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if r>>8 < 250 || g>>8 < 250 || bl>>8 < 250 {
				ink++
			}
			if uint8(r>>8) == blue.R && uint8(g>>8) == blue.G && uint8(bl>>8) == blue.B {
				line++
			}
		}
	}
	// A line across the plot is several hundred pixels of its colour (the
	// axes, labels and grid alone are grey and black); 200 is well below
	// the 600 of a 1.5 pt line across the 700 pixels of the data area.
	if ink < 2000 || line < 200 {
		t.Errorf("plot has %d non-white pixels and %d of the line colour: blank?", ink, line)
	}
	for _, bad := range []struct{ x, y, want string }{
		{"friction", "max_speed_m_s", `--x "friction" is not a varied parameter`},
		{"materials.0.friction", "speed", `--y "speed" is not a result column`},
	} {
		if _, err := c.Plot(bad.x, bad.y, nil, PlotOptions{}); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("--x %s --y %s: error %v", bad.x, bad.y, err)
		}
	}
	if _, err := c.Plot("materials.0.friction", "wall_s", []string{"materials.0.friction"}, PlotOptions{}); err == nil {
		t.Error("averaging over x itself was accepted")
	}
}

// meanStd is the mean and the n − 1 standard deviation: for 1, 2, 3, 4 the
// mean is 2.5 and the variance (2.25 + 0.25 + 0.25 + 2.25)/3 = 5/3.
func TestMeanStd(t *testing.T) {
	m, s := meanStd([]float64{1, 2, 3, 4})
	// 1e-15: a few ulps of the sums of four small numbers.
	if math.Abs(m-2.5) > 1e-15 || math.Abs(s-math.Sqrt(5.0/3)) > 1e-15 {
		t.Errorf("mean %v, std %v; want 2.5, %v", m, s, math.Sqrt(5.0/3))
	}
	if m, s := meanStd([]float64{7}); m != 7 || s != 0 {
		t.Errorf("one value: mean %v, std %v; want 7, 0", m, s)
	}
}

// A parameter with values that are not numbers cannot be the x axis.
func TestPlotNonNumericX(t *testing.T) {
	s, dir := prepare(t, `{"scene": "rolling-ball", "base": ["run.steps=3"], "backend": "cpu",
		"vary": {"settings.solver": ["apgd", "apgd-ar"], "mu": [0.2, 0.4]}}`)
	if _, err := Execute(context.Background(), s, Options{Dir: dir, Jobs: 1}); err != nil {
		t.Fatal(err)
	}
	c, err := Collect(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Plot("settings.solver", "max_speed_m_s", nil, PlotOptions{}); err == nil || !strings.Contains(err.Error(), `run 0's value "apgd" is not a number`) {
		t.Errorf("string x: error %v", err)
	}
	path, err := c.Plot("mu", "max_speed_m_s", nil, PlotOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rec := c.Record(1); rec[1] != "apgd" || rec[2] != "0.4" {
		t.Errorf("row 1 parameters %v, want apgd without quotes and 0.4", rec[:3])
	}
	if _, err := os.Stat(path); err != nil {
		t.Error(err)
	}
}

// Log axes: a parameter spread over decades plots on a log x axis, a
// positive result on a log y axis, and the picture differs from the
// linear one; a value that is not positive on a log axis is an error
// naming the run.
func TestPlotLogAxes(t *testing.T) {
	s, dir := prepare(t, `{"scene": "rolling-ball", "base": ["run.steps=3"], "backend": "cpu",
		"vary": {"v0": {"logspace": [0.1, 10, 3]}}}`)
	if _, err := Execute(context.Background(), s, Options{Dir: dir, Jobs: 1}); err != nil {
		t.Fatal(err)
	}
	c, err := Collect(dir)
	if err != nil {
		t.Fatal(err)
	}
	read := func(path string) []byte {
		t.Helper()
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	path, err := c.Plot("v0", "max_speed_m_s", nil, PlotOptions{})
	if err != nil {
		t.Fatal(err)
	}
	linear := read(path)
	if _, err := c.Plot("v0", "max_speed_m_s", nil, PlotOptions{LogX: true, LogY: true}); err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(read(path), linear) {
		t.Error("the log-log plot is the linear one")
	}
	// The plane carries the ball: the force on it is negative.
	if _, err := c.Plot("v0", "fixed_force_z_N", nil, PlotOptions{LogY: true}); err == nil || !strings.Contains(err.Error(), "run 0's value") || !strings.Contains(err.Error(), "not positive") {
		t.Errorf("negative y on a log axis: %v", err)
	}
	s, dir = prepare(t, `{"scene": "rolling-ball", "base": ["run.steps=3"], "backend": "cpu", "vary": {"v0": [0, 1]}}`)
	if _, err := Execute(context.Background(), s, Options{Dir: dir, Jobs: 1}); err != nil {
		t.Fatal(err)
	}
	if c, err = Collect(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Plot("v0", "max_speed_m_s", nil, PlotOptions{LogX: true}); err == nil || !strings.Contains(err.Error(), "run 0's value 0 is not positive") {
		t.Errorf("zero x on a log axis: %v", err)
	}
}

// With two Vulkan devices (lavapipe listed twice through
// VK_ICD_FILENAMES) a Vulkan sweep runs two runs at once, each job slot
// on its own device: summary.json records which, and both are used.
func TestSweepTwoDevices(t *testing.T) {
	icds, _ := filepath.Glob("/usr/share/vulkan/icd.d/lvp_icd.*.json")
	if len(icds) == 0 {
		if os.Getenv("GPUSIM_REQUIRE_VULKAN") == "1" {
			t.Fatal("no lavapipe ICD under /usr/share/vulkan/icd.d")
		}
		t.Skip("no lavapipe ICD")
	}
	data, err := os.ReadFile(icds[0])
	if err != nil {
		t.Fatal(err)
	}
	second := filepath.Join(t.TempDir(), "lvp2.json")
	if err := os.WriteFile(second, data, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("VK_ICD_FILENAMES", icds[0]+":"+second)
	t.Setenv("CUDA_VISIBLE_DEVICES", "") // hides NVIDIA GPUs only: lavapipe stays
	jobs, cpu, why, err := DefaultJobs("vulkan")
	if err != nil || jobs != 2 || cpu {
		t.Fatalf("DefaultJobs(vulkan) = %d, %v, %q, %v; want 2 Vulkan jobs", jobs, cpu, why, err)
	}
	s, dir := prepare(t, `{"scene": "rolling-ball", "base": ["run.steps=20"], "backend": "vulkan",
		"vary": {"mu": [0.1, 0.2, 0.3, 0.4]}}`)
	rep, err := Execute(context.Background(), s, Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Jobs != 2 || len(rep.Done) != 4 {
		t.Fatalf("jobs %d, done %v; want 2 and 4 runs", rep.Jobs, rep.Done)
	}
	used := map[int]int{}
	for i := range 4 {
		var sum struct {
			Backend string
			Device  *run.DeviceSummary
		}
		b, err := os.ReadFile(filepath.Join(dir, "runs", fmt.Sprintf("%04d", i), "summary.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &sum); err != nil || sum.Device == nil || !strings.HasPrefix(sum.Backend, "vulkan") {
			t.Fatalf("run %d: backend %q, device %+v, %v", i, sum.Backend, sum.Device, err)
		}
		used[sum.Device.Index]++
	}
	if len(used) != 2 {
		t.Errorf("runs per device %v; want both devices used", used)
	}
}
