package bench

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/gpusim/gpusim/cpuref"
	"github.com/gpusim/gpusim/engine"
)

// Report is what gpusim bench writes: bench.json is its JSON form,
// bench.md its tables.
type Report struct {
	// Commit is the source revision measured, "-dirty" appended when the
	// tree had uncommitted changes.
	Commit  string    `json:"commit"`
	Date    time.Time `json:"date"`
	Command string    `json:"command"`
	Machine Machine   `json:"machine"`
	Results []Result  `json:"results"`
	// Fits are the power laws of time per step against contacts, one per
	// backend and kind (settle rows, scaling rows) with two sizes or more.
	Fits []Fit `json:"fits,omitempty"`
}

// Machine describes where the figures were taken.
type Machine struct {
	CPU       string `json:"cpu"`
	Cores     int    `json:"cores"`
	GoVersion string `json:"go"`
	// SIMD names the CPU path's vector loops ("avx512", or "none":
	// cpuref.SIMD).
	SIMD     string   `json:"cpu_simd"`
	OS       string   `json:"os"`
	Backends []string `json:"backends"` // as the backends name themselves, device included
	// GCPercent is the garbage collector's target in the case processes
	// (gpusim's default 10, or GOGC): it sets how far peak memory runs
	// above the live heap.
	GCPercent int `json:"gc_percent"`
}

// Config says what Run measures.
type Config struct {
	Backends []string // cpu, vulkan
	Cases    []Case
	Device   string
	// Steps and Warmup override every case's when Steps > 0 and Warmup ≥ 0.
	Steps, Warmup int
	// Workers, if set, measures every case on the CPU path once per worker
	// count (settings.workers), one after the other, for the speed-up
	// table; the Vulkan backend runs each case once, at the scene's count.
	Workers []int
	// Precisions, if set, measures every case on every backend once per
	// settings.precision ("double", "mixed"); else at the scene's.
	Precisions []string
	// Exec carries out one request; gpusim bench runs each in a fresh
	// process so that its peak memory is its own.
	Exec func(Request) (*Result, error)
	// Progress, if set, sees each result as it comes.
	Progress func(*Result)
}

// Run measures every case on every backend, after a baseline process per
// backend. A case that fails gets a row with its error and the others go
// on; the error returned joins the failures.
func Run(cfg Config) (*Report, error) {
	if len(cfg.Backends) == 0 || len(cfg.Cases) == 0 {
		return nil, errors.New("bench: nothing to run (no backends or no cases)")
	}
	rep := &Report{Commit: Commit(), Date: time.Now().UTC().Truncate(time.Second), Machine: machine()}
	var errs []error
	for _, backend := range cfg.Backends {
		base, err := cfg.Exec(Request{Backend: backend, Device: cfg.Device, Warmup: -1, Baseline: true})
		if err != nil {
			return nil, fmt.Errorf("bench: baseline process on %s: %w", backend, err)
		}
		rep.Machine.Backends = append(rep.Machine.Backends, base.Backend)
		workers := []int{0}
		if backend == "cpu" && len(cfg.Workers) > 0 {
			workers = cfg.Workers
		}
		precisions := cfg.Precisions
		if len(precisions) == 0 {
			precisions = []string{""}
		}
		for _, c := range cfg.Cases {
			for _, w := range workers {
				for _, prec := range precisions {
					r, err := cfg.Exec(Request{Case: c.Name, Backend: backend, Device: cfg.Device, Steps: cfg.Steps, Warmup: cfg.Warmup, Workers: w, Precision: prec})
					if err != nil {
						errs = append(errs, fmt.Errorf("%s on %s: %w", c.Name, backend, err))
						r = &Result{Case: c.Name, Kind: c.Kind, Backend: base.Backend, Workers: w, Precision: prec, Error: err.Error()}
						if prec == engine.PrecisionMixed {
							r.Backend += " mixed"
						}
					} else {
						r.BaselineRSS = base.PeakRSS
						if r.Bodies > 0 {
							r.BytesPerBody = float64(r.PeakRSS-r.BaselineRSS) / float64(r.Bodies)
						}
					}
					if cfg.Progress != nil {
						cfg.Progress(r)
					}
					rep.Results = append(rep.Results, *r)
				}
			}
		}
	}
	rep.Fits = Fits(rep.Results)
	return rep, errors.Join(errs...)
}

// Fit is the least-squares line through (ln contacts, ln seconds per
// step): seconds per step ≈ exp(Intercept)·contacts^Exponent.
type Fit struct {
	Backend   string   `json:"backend"`
	Kind      Kind     `json:"kind"`
	Workers   int      `json:"workers"`
	Cases     []string `json:"cases"`
	Exponent  float64  `json:"exponent"`
	Intercept float64  `json:"intercept"`
	R2        float64  `json:"r2"`
}

// FitPowerLaw fits y = exp(b)·x^a by least squares on (ln x, ln y) and
// returns a, b and the coefficient of determination R² of that line. It
// needs two distinct positive x or more and positive y.
func FitPowerLaw(x, y []float64) (a, b, r2 float64, err error) {
	if len(x) != len(y) {
		return 0, 0, 0, fmt.Errorf("bench: fit: %d x and %d y", len(x), len(y))
	}
	n := float64(len(x))
	var sx, sy float64
	for i := range x {
		if !(x[i] > 0) || !(y[i] > 0) || math.IsInf(x[i], 0) || math.IsInf(y[i], 0) {
			return 0, 0, 0, fmt.Errorf("bench: fit: point %d (%v, %v) is not positive and finite", i, x[i], y[i])
		}
		sx += math.Log(x[i])
		sy += math.Log(y[i])
	}
	mx, my := sx/n, sy/n
	var sxx, sxy, syy float64
	for i := range x {
		dx, dy := math.Log(x[i])-mx, math.Log(y[i])-my
		sxx += dx * dx
		sxy += dx * dy
		syy += dy * dy
	}
	if !(sxx > 0) {
		return 0, 0, 0, errors.New("bench: fit: needs two distinct x or more")
	}
	a = sxy / sxx
	b = my - a*mx
	r2 = 1.0
	if syy > 0 {
		r2 = sxy * sxy / (sxx * syy)
	}
	return a, b, r2, nil
}

// Fits fits the mean time per step against the mean contacts per step of
// the settle rows and of the scaling rows, per backend, leaving out failed
// rows and groups of fewer than two sizes.
func Fits(rs []Result) []Fit {
	var out []Fit
	type key struct {
		backend string
		kind    Kind
		workers int
	}
	var keys []key
	for _, r := range rs {
		k := key{r.Backend, r.Kind, r.Workers}
		if r.Error == "" && r.Kind != KindOther && !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	for _, k := range keys {
		f := Fit{Backend: k.backend, Kind: k.kind, Workers: k.workers}
		var x, y []float64
		for _, r := range rs {
			if r.Backend == k.backend && r.Kind == k.kind && r.Workers == k.workers && r.Error == "" {
				f.Cases = append(f.Cases, r.Case)
				x = append(x, r.ContactsMean)
				y = append(y, r.Step.Mean)
			}
		}
		var err error
		if f.Exponent, f.Intercept, f.R2, err = FitPowerLaw(x, y); err == nil {
			out = append(out, f)
		}
	}
	return out
}

// Commit returns the revision of the running binary from its build
// information (vcs.revision, vcs.modified), else from git in the current
// folder, else "unknown".
func Commit() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		var rev string
		dirty := false
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
		if rev != "" {
			if dirty {
				rev += "-dirty"
			}
			return rev
		}
	}
	out, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	rev := strings.TrimSpace(string(out))
	if st, err := exec.Command("git", "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(strings.TrimSpace(string(st))) > 0 {
		rev += "-dirty"
	}
	return rev
}

func machine() Machine {
	m := Machine{CPU: "unknown", Cores: runtime.NumCPU(), GoVersion: runtime.Version(), SIMD: cpuref.SIMD(), OS: runtime.GOOS + "/" + runtime.GOARCH}
	// The case processes inherit this process's setting (gpusim's main sets
	// it the same way in both).
	m.GCPercent = debug.SetGCPercent(-1)
	debug.SetGCPercent(m.GCPercent)
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPU = strings.TrimSpace(v)
				break
			}
		}
	}
	return m
}

// fewestWorkers returns the row of rs for x's case and backend with the
// fewest workers.
func fewestWorkers(rs []Result, x Result) *Result {
	var best *Result
	for i := range rs {
		r := &rs[i]
		if r.Case == x.Case && r.Backend == x.Backend && (best == nil || r.Workers < best.Workers) {
			best = r
		}
	}
	return best
}

// WriteJSON writes the report as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("bench: encode: %w", err)
	}
	_, err = w.Write(append(data, '\n'))
	return err
}

// WriteMarkdown writes the report as Markdown tables: time per step and
// its phases, memory, end-of-run figures, the fits, and the failed cases.
func (r *Report) WriteMarkdown(w io.Writer) error {
	b := &strings.Builder{}
	fmt.Fprintf(b, "Commit `%s`, %s.  \n", r.Commit, r.Date.Format(time.RFC3339))
	fmt.Fprintf(b, "Machine: %s, %d cores, %s (CPU path's vector loops: %s), %s, GOGC=%d; backends: %s.  \n", r.Machine.CPU, r.Machine.Cores, r.Machine.GoVersion,
		r.Machine.SIMD, r.Machine.OS, r.Machine.GCPercent, strings.Join(r.Machine.Backends, "; "))
	if r.Command != "" {
		fmt.Fprintf(b, "Command: `%s`\n", r.Command)
	}
	var ok, failed []Result
	for _, x := range r.Results {
		if x.Error == "" {
			ok = append(ok, x)
		} else {
			failed = append(failed, x)
		}
	}
	ms := func(s float64) string { return fmt.Sprintf("%.3g", 1e3*s) }
	mib := func(n int64) string { return fmt.Sprintf("%.1f", float64(n)/(1<<20)) }

	b.WriteString("\n### Time per step\n\nWall time per step over the measured steps (warm-up excluded): the step's median and mean, and the median of each phase " +
		"(collision; Jacobian and r; warm start and solver; update of velocities and positions with the force on fixed bodies), in ms; " +
		"recorded / step: the command buffers a Vulkan backend recorded per step, its other submits running command buffers it had recorded before.\n\n")
	b.WriteString("| case | backend | bodies | warm-up + steps | contacts (mean) | step median | step mean | collide | build | solve | integrate | iterations (mean) | residual last | residual median | submits / step | submits / iteration | recorded / step | bodies × steps / s |\n")
	b.WriteString("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	for _, x := range ok {
		fmt.Fprintf(b, "| %s | %s | %d | %d + %d | %.0f | %s | %s | %s | %s | %s | %s | %.1f | %.3g | %.3g | %.2f | %.3f | %.2f | %.3g |\n",
			x.Case, x.Backend, x.Bodies, x.Warmup, x.Steps, x.ContactsMean, ms(x.Step.Median), ms(x.Step.Mean),
			ms(x.Collide.Median), ms(x.Build.Median), ms(x.Solve.Median), ms(x.Integrate.Median),
			x.IterationsMean, x.ResidualLast, x.ResidualMedian, x.SubmitsPerStep, x.SubmitsPerIteration, x.RecordedPerStep, x.BodyStepsPerSecond)
	}

	b.WriteString("\n### Memory\n\nGo heap allocation per measured step; peak resident memory (VmHWM) of the case's process after its measured steps (the engine, the scene and " +
		"one copy of the body state read back; the end-of-run figures are read after it) and of a process that only opened the backend; bytes per body = (peak − baseline) / bodies; device memory = largest sum of buffer capacities after a step (Vulkan only), " +
		"and gpu.EstimateBytes' estimate of it for the case's model at the contacts of the measured steps.\n\n")
	b.WriteString("| case | backend | bodies | allocated B / step | mallocs / step | peak RSS (MiB) | baseline RSS (MiB) | bytes / body | device memory (MiB) | estimate (MiB) |\n")
	b.WriteString("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	for _, x := range ok {
		fmt.Fprintf(b, "| %s | %s | %d | %.0f | %.1f | %s | %s | %.0f | %s | %s |\n", x.Case, x.Backend, x.Bodies, x.AllocBytesPerStep,
			x.MallocsPerStep, mib(x.PeakRSS), mib(x.BaselineRSS), x.BytesPerBody, mib(x.DeviceMemory), mib(x.DeviceEstimate))
	}

	b.WriteString("\n### End of run\n\n")
	b.WriteString("| case | backend | time step (s) | solver | tol | max iterations | contacts | iterations last | max penetration (m) | mean height (m) | escaped |\n")
	b.WriteString("| --- | --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	for _, x := range ok {
		esc := "–"
		if x.Escaped != nil {
			esc = fmt.Sprint(*x.Escaped)
		}
		fmt.Fprintf(b, "| %s | %s | %g | %s | %g | %d | %d | %d | %.3g | %.4g | %s |\n", x.Case, x.Backend, x.Dt, x.Solver, x.Tol,
			x.MaxIter, x.ContactsEnd, x.IterationsLast, x.MaxPenetration, x.MeanHeight, esc)
	}

	b.WriteString("\n### Start of the measured steps, and workers\n\nHow settled the state was when the measured steps began (after the warm-up): the largest speed of a " +
		"movable body and the deepest overlap among the last warm-up step's contacts; the workers the case ran with (settings.workers, GOMAXPROCS for 0), and " +
		"the speed-up, the median step of the same case and backend on the fewest workers measured over this row's.\n\n")
	b.WriteString("| case | backend | workers | max speed (m/s) | max penetration (m) | speed-up |\n| --- | --- | ---: | ---: | ---: | ---: |\n")
	for _, x := range ok {
		up := "–"
		if base := fewestWorkers(ok, x); base != nil && base.Workers < x.Workers && x.Step.Median > 0 {
			up = fmt.Sprintf("%.2f× (over %d)", base.Step.Median/x.Step.Median, base.Workers)
		}
		fmt.Fprintf(b, "| %s | %s | %d | %.3g | %.3g | %s |\n", x.Case, x.Backend, x.Workers, x.StartMaxSpeed, x.StartMaxPenetration, up)
	}

	traffic := false
	for _, x := range ok {
		if x.TrafficPerContactIteration <= 0 {
			continue
		}
		if !traffic {
			b.WriteString("\n### Solver traffic (model)\n\nBytes per contact and APGD iteration by the backend's traffic model (gpu/traffic.go, cpuref/traffic.go: " +
				"every array a pass touches a trip to memory, an upper bound) at the case's bodies per contact, and the rate it implies: model bytes × mean " +
				"contacts × mean iterations / median solve time.\n\n| case | backend | bytes / contact-iteration | implied rate (GB/s) |\n| --- | --- | ---: | ---: |\n")
			traffic = true
		}
		fmt.Fprintf(b, "| %s | %s | %.0f | %.3g |\n", x.Case, x.Backend, x.TrafficPerContactIteration, x.TrafficRate/1e9)
	}

	if len(r.Fits) > 0 {
		b.WriteString("\n### Scaling\n\nLeast-squares fit of ln(mean time per step) against ln(mean contacts per step): time ∝ contacts^exponent.\n\n")
		b.WriteString("| backend | rows | workers | cases | exponent | R² |\n| --- | --- | ---: | --- | ---: | ---: |\n")
		for _, f := range r.Fits {
			fmt.Fprintf(b, "| %s | %s | %d | %s | %.3f | %.4f |\n", f.Backend, f.Kind, f.Workers, strings.Join(f.Cases, ", "), f.Exponent, f.R2)
		}
	}
	notes := false
	for _, x := range ok {
		for _, line := range x.Notes {
			if !notes {
				b.WriteString("\n### Notes\n\nWhat the backend said of how it runs the case's model (engine.Noter).\n\n")
				notes = true
			}
			fmt.Fprintf(b, "- %s on %s: %s\n", x.Case, x.Backend, line)
		}
	}
	if len(failed) > 0 {
		b.WriteString("\n### Failed\n\n| case | backend | error |\n| --- | --- | --- |\n")
		for _, x := range failed {
			fmt.Fprintf(b, "| %s | %s | %s |\n", x.Case, x.Backend, strings.ReplaceAll(x.Error, "|", "\\|"))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
