package bench

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"
)

// TestBenchQuickMatrix runs the quick matrix on the CPU path in this
// process and checks that the report carries every figure of every case,
// in JSON and in Markdown.
func TestBenchQuickMatrix(t *testing.T) {
	cases := Matrix(true)
	rep, err := Run(Config{Backends: []string{"cpu"}, Cases: cases, Warmup: -1, Exec: Measure})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Results) != len(cases) {
		t.Fatalf("%d results for %d cases", len(rep.Results), len(cases))
	}
	for i, r := range rep.Results {
		c := cases[i]
		if r.Error != "" || r.Case != c.Name || r.Backend != "cpu" || r.Steps != c.Steps || r.Warmup != c.Warmup {
			t.Errorf("result %d: case %q backend %q steps %d+%d error %q; want %s on cpu, %d+%d steps",
				i, r.Case, r.Backend, r.Warmup, r.Steps, r.Error, c.Name, c.Warmup, c.Steps)
		}
		if r.Bodies < 1 || !(r.Step.Median > 0) || !(r.Step.Mean > 0) || !(r.BodyStepsPerSecond > 0) ||
			!(r.PeakRSS > 0) || !(r.BaselineRSS > 0) || !(r.AllocBytesPerStep >= 0) {
			t.Errorf("%s: missing figures: %+v", r.Case, r)
		}
		// The phases split the step between consecutive clock readings, so
		// they add up to it; 1e-12 relative covers the rounding of the
		// conversions to seconds and of the sums (a few ulps).
		if sum := r.Collide.Mean + r.Build.Mean + r.Solve.Mean + r.Integrate.Mean; math.Abs(sum-r.Step.Mean) > 1e-12*r.Step.Mean {
			t.Errorf("%s: phases add up to %g s, the step took %g s", r.Case, sum, r.Step.Mean)
		}
		if r.SubmitsPerStep != 0 {
			t.Errorf("%s: %g submits per step on the CPU path", r.Case, r.SubmitsPerStep)
		}
		if r.Escaped == nil || *r.Escaped != 0 {
			t.Errorf("%s: escaped %v, want 0 (the scenes have a box container)", r.Case, r.Escaped)
		}
	}

	var js bytes.Buffer
	if err := rep.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Commit  string           `json:"commit"`
		Machine map[string]any   `json:"machine"`
		Results []map[string]any `json:"results"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatalf("bench.json is not JSON: %v", err)
	}
	if doc.Commit == "" || doc.Machine["cpu"] == "" || doc.Machine["cores"] == nil {
		t.Errorf("commit %q, machine %v", doc.Commit, doc.Machine)
	}
	for _, key := range jsonKeys(reflect.TypeOf(Result{})) {
		for _, r := range doc.Results {
			if _, ok := r[key]; !ok && key != "error" && key != "notes" { // omitted when empty
				t.Errorf("bench.json: result %v has no %q", r["case"], key)
			}
		}
	}

	var md bytes.Buffer
	if err := rep.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	text := md.String()
	for _, col := range []string{"step median", "collide", "build", "solve", "integrate", "iterations (mean)", "residual last",
		"residual median", "submits / step", "submits / iteration", "recorded / step", "allocated B / step", "mallocs / step", "peak RSS",
		"bytes / body", "device memory", "bodies × steps / s", "max penetration", "mean height", "escaped", "workers", "max speed (m/s)", "speed-up"} {
		if !strings.Contains(text, "| "+col) {
			t.Errorf("bench.md has no column %q", col)
		}
	}
	for i, c := range cases {
		// A row in each of the four tables, and one in the traffic table
		// for an apgd case with contacts.
		want := 4
		if r := rep.Results[i]; r.Solver == "apgd" && r.ContactsMean > 0 {
			want = 5
			if !(r.TrafficPerContactIteration > 0) || !(r.TrafficRate > 0) {
				t.Errorf("%s: apgd on the CPU without the traffic model's figures", c.Name)
			}
		}
		if n := strings.Count(text, "| "+c.Name+" | cpu |"); n != want {
			t.Errorf("bench.md has %d rows of %s, want %d", n, c.Name, want)
		}
	}
}

// jsonKeys lists the JSON names of a struct's fields.
func jsonKeys(t reflect.Type) []string {
	var keys []string
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		keys = append(keys, name)
	}
	return keys
}

// TestBenchFitPowerLaw: exact power laws come back to rounding.
func TestBenchFitPowerLaw(t *testing.T) {
	x := []float64{1000, 2000, 4000, 8000, 16000, 32000, 64000}
	for _, a := range []float64{0.9, 1, 1.07, 1.5} {
		y := make([]float64, len(x))
		for i := range x {
			y[i] = 3e-6 * math.Pow(x[i], a)
		}
		ga, gb, r2, err := FitPowerLaw(x, y)
		if err != nil {
			t.Fatal(err)
		}
		// Logs of these numbers are below 20 and exact to a few ulps
		// (1e-15 relative); 1e-9 leaves room for the sums over 7 points.
		if math.Abs(ga-a) > 1e-9 || math.Abs(gb-math.Log(3e-6)) > 1e-9 || math.Abs(r2-1) > 1e-9 {
			t.Errorf("y = 3e-6·x^%g: fit exponent %v, intercept %v (want %v), R² %v", a, ga, gb, math.Log(3e-6), r2)
		}
	}
	// A point off the line lowers R² below 1 and moves the exponent.
	y := []float64{1, 2, 4, 8 * 1.5}
	a, _, r2, err := FitPowerLaw([]float64{1, 2, 4, 8}, y)
	if err != nil || !(r2 < 1) || !(a > 1) {
		t.Errorf("noisy fit: exponent %v, R² %v, err %v; want exponent > 1 and R² < 1", a, r2, err)
	}
	for _, bad := range []struct{ x, y []float64 }{
		{[]float64{1000}, []float64{1}},
		{[]float64{1000, 1000}, []float64{1, 2}},
		{[]float64{0, 1000}, []float64{1, 2}},
		{[]float64{1000, 2000}, []float64{1, -2}},
		{[]float64{1000, 2000}, []float64{1}},
	} {
		if _, _, _, err := FitPowerLaw(bad.x, bad.y); err == nil {
			t.Errorf("FitPowerLaw(%v, %v): no error", bad.x, bad.y)
		}
	}
}

// TestBenchFitsKinds: the report fits the settle rows and the scaling
// rows per backend, and leaves out other cases and failed ones.
func TestBenchFitsKinds(t *testing.T) {
	row := func(c string, k Kind, be string, contacts, step float64, failed bool) Result {
		r := Result{Case: c, Kind: k, Backend: be, ContactsMean: contacts, Step: Phase{Mean: step}}
		if failed {
			r.Error = "failed"
		}
		return r
	}
	fs := Fits([]Result{
		row("settle-1000", KindSettle, "cpu", 1000, 1e-3, false),
		row("settle-8000", KindSettle, "cpu", 8000, 8e-3, false),
		row("settle-64000", KindSettle, "cpu", 0, 0, true),
		row("pressure", KindOther, "cpu", 5000, 1, false),
		row("settle-1000", KindSettle, "vulkan: x", 1000, 1e-2, false),
	})
	if len(fs) != 1 || fs[0].Backend != "cpu" || len(fs[0].Cases) != 2 || math.Abs(fs[0].Exponent-1) > 1e-12 {
		t.Errorf("fits %+v; want one fit of the two cpu settle rows with exponent 1", fs)
	}
}

func TestBenchParseVmHWM(t *testing.T) {
	got, err := parseVmHWM(strings.NewReader("Name:\tgpusim\nVmPeak:\t  999 kB\nVmHWM:\t   12345 kB\nVmRSS:\t 1 kB\n"))
	if err != nil || got != 12345*1024 {
		t.Errorf("got %d, %v; want %d", got, err, 12345*1024)
	}
	for _, bad := range []string{"VmRSS: 1 kB\n", "VmHWM: 12 MB\n", "VmHWM: x kB\n"} {
		if _, err := parseVmHWM(strings.NewReader(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	if rss, err := PeakRSS(); err != nil || rss <= 0 {
		t.Errorf("PeakRSS of this process: %d, %v", rss, err)
	}
}

func TestBenchCases(t *testing.T) {
	for _, cs := range [][]Case{Matrix(false), Matrix(true), ScalingCases()} {
		for _, c := range cs {
			got, err := Lookup(c.Name)
			if err != nil || got.Name != c.Name {
				t.Errorf("Lookup(%s): %v, %v", c.Name, got.Name, err)
			}
			if testing.Short() && !strings.HasSuffix(c.Name, "64") && !strings.HasSuffix(c.Name, "27") {
				continue
			}
			sc, err := c.Load()
			if err != nil {
				t.Errorf("%s: %v", c.Name, err)
				continue
			}
			if c.Kind == KindSettle && (sc.Settings.Dt != 0.01 || c.Steps != 2 && c.Steps != settleSteps || c.Warmup != 0) {
				t.Errorf("%s: h = %v, %d + %d steps; settle.md runs 2 s at h = 0.01 s without warm-up", c.Name, sc.Settings.Dt, c.Warmup, c.Steps)
			}
		}
	}
	if _, err := Lookup("nope"); err == nil || !strings.Contains(err.Error(), "settle-1000") {
		t.Errorf("Lookup(nope): %v; want an error listing the cases", err)
	}
	if _, err := Measure(Request{Case: "settle-64", Backend: "gpu"}); err == nil || !strings.Contains(err.Error(), "gpu") {
		t.Errorf("Measure on backend gpu: %v", err)
	}
}
