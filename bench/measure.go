package bench

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/gpusim/gpusim/checkpoint"
	"github.com/gpusim/gpusim/cpuref"
	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/gpu"
	"github.com/gpusim/gpusim/run"
	"github.com/gpusim/gpusim/scene"
)

// Request asks for one measurement.
type Request struct {
	Case    string `json:"case"`
	Backend string `json:"backend"` // cpu or vulkan
	Device  string `json:"device,omitempty"`
	// Steps and Warmup override the case's when Steps > 0 and Warmup ≥ 0.
	Steps  int `json:"steps"`
	Warmup int `json:"warmup"`
	// Workers, when > 0, overrides the scene's settings.workers (the CPU
	// path's goroutines; the Vulkan backend's host work).
	Workers int `json:"workers,omitempty"`
	// Precision, when set, overrides the scene's settings.precision
	// ("double" or "mixed").
	Precision string `json:"precision,omitempty"`
	// Baseline measures a process that only opens the backend (Case is
	// ignored): its peak resident memory is subtracted from each case's
	// (Result.BytesPerBody).
	Baseline bool `json:"baseline,omitempty"`
}

// Phase is a wall time per step (s): median and mean over the measured
// steps.
type Phase struct {
	Median float64 `json:"median_s"`
	Mean   float64 `json:"mean_s"`
}

// Result is the measurement of one case on one backend. Times are wall
// clock over the measured steps (warm-up excluded); memory figures are
// bytes.
type Result struct {
	Case    string `json:"case"`
	Kind    Kind   `json:"kind"`
	Backend string `json:"backend"` // as named by the backend: "cpu", "vulkan: <device>"; " mixed" follows with settings.precision "mixed"
	// Precision is the case's settings.precision.
	Precision string `json:"precision,omitempty"`
	// Bodies counts the movable bodies (fixed walls and planes excluded).
	Bodies int     `json:"bodies"`
	Dt     float64 `json:"dt_s"`
	Solver string  `json:"solver"`
	Tol    float64 `json:"tol"`
	// MaxIter is the solver's iteration cap.
	MaxIter int `json:"max_iter"`
	Warmup  int `json:"warmup_steps"`
	Steps   int `json:"steps"`
	// Workers is the worker count the case ran with: settings.workers, or
	// GOMAXPROCS where that is 0.
	Workers int `json:"workers"`
	// StartMaxSpeed (m/s) and StartMaxPenetration (m) say how settled the
	// state was when the measured steps began (after the warm-up): the
	// largest speed of a movable body and the deepest overlap among the
	// last warm-up step's contacts (0 without warm-up: no contacts yet).
	StartMaxSpeed       float64 `json:"start_max_speed_m_s"`
	StartMaxPenetration float64 `json:"start_max_penetration_m"`

	Step      Phase `json:"step"`
	Collide   Phase `json:"collide"`
	Build     Phase `json:"build"` // Jacobian and r
	Solve     Phase `json:"solve"`
	Integrate Phase `json:"integrate"` // force on fixed bodies and update
	// BodyStepsPerSecond is Bodies over the mean wall time per step.
	BodyStepsPerSecond float64 `json:"body_steps_per_s"`

	ContactsMean   float64 `json:"contacts_mean"`
	IterationsMean float64 `json:"iterations_mean"`
	IterationsLast int     `json:"iterations_last"`
	ResidualLast   float64 `json:"residual_last"`
	ResidualMedian float64 `json:"residual_median"`
	// SubmitsPerStep counts submit-and-wait round trips to the device (0
	// on the CPU path); SubmitsPerIteration divides them by the mean
	// solver iterations.
	SubmitsPerStep      float64 `json:"submits_per_step"`
	SubmitsPerIteration float64 `json:"submits_per_iteration"`
	// RecordedPerStep counts the command buffers recorded per step (0 on
	// the CPU path): the rest of the submits ran ones recorded before.
	RecordedPerStep float64 `json:"recorded_per_step"`

	// AllocBytesPerStep and MallocsPerStep are the Go heap's TotalAlloc and
	// Mallocs growth over the measured steps, per step.
	AllocBytesPerStep float64 `json:"alloc_bytes_per_step"`
	MallocsPerStep    float64 `json:"mallocs_per_step"`
	// PeakRSS is the process's peak resident memory (VmHWM) at the end;
	// BaselineRSS that of a process that only opened the backend; their
	// difference over Bodies is BytesPerBody (Go's heap headroom, GOGC,
	// included).
	PeakRSS      int64   `json:"peak_rss_bytes"`
	BaselineRSS  int64   `json:"baseline_rss_bytes"`
	BytesPerBody float64 `json:"bytes_per_body"`
	// DeviceMemory is the largest device memory (sum of buffer capacities)
	// seen after a step; 0 on the CPU path.
	DeviceMemory int64 `json:"device_memory_bytes"`
	// DeviceEstimate is gpu.EstimateBytes for the case's model at the
	// contacts of each measured step, the largest (the Vulkan backend's
	// EstimateDeviceMemoryBytes): what DeviceMemory should come to; 0 on
	// the CPU path.
	DeviceEstimate int64 `json:"device_memory_estimate_bytes"`

	// TrafficPerContactIteration is the backend's traffic model of an
	// APGD iteration (gpu.APGDTraffic on Vulkan, cpuref.TrafficFor's
	// cpuref.APGDTraffic on the CPU, for the case's model) at the case's mean
	// bodies per contact, and TrafficRate the rate it implies over the
	// solve's median time: bytes per contact-iteration × contacts ×
	// iterations / solve time (bytes/s). Rows with apgd only.
	TrafficPerContactIteration float64 `json:"traffic_bytes_per_contact_iteration"`
	TrafficRate                float64 `json:"traffic_bytes_per_s"`

	// End-of-run figures, as summary.json reports them.
	ContactsEnd    int     `json:"contacts_end"`
	MaxPenetration float64 `json:"max_penetration_m"`
	MeanHeight     float64 `json:"mean_height_m"`
	Escaped        *int    `json:"escaped,omitempty"`

	// Notes are the backend's engine.Noter lines for the case's model
	// (rows of the narrowphase table computed on the host, say).
	Notes []string `json:"notes,omitempty"`

	// Error, if set, says why the case has no figures.
	Error string `json:"error,omitempty"`
}

// Measure runs one request in this process. Peak memory is per process:
// gpusim bench runs each request in a process of its own.
func Measure(req Request) (*Result, error) {
	if req.Backend != "cpu" && req.Backend != "vulkan" {
		return nil, fmt.Errorf("bench: unknown backend %q (want cpu or vulkan)", req.Backend)
	}
	if req.Baseline {
		be, _, err := run.NewBackend(req.Backend, req.Device, false, 0)
		if err != nil {
			return nil, fmt.Errorf("bench: baseline: %w", err)
		}
		defer be.Close()
		rss, err := PeakRSS()
		if err != nil {
			return nil, err
		}
		return &Result{Case: "baseline", Backend: be.Name(), PeakRSS: rss}, nil
	}
	c, err := Lookup(req.Case)
	if err != nil {
		return nil, err
	}
	var sc *scene.Scene
	var ck *checkpoint.Checkpoint
	if path, ok := strings.CutPrefix(c.Scene, "file:"); ok && strings.HasSuffix(path, ".ckpt") {
		// A checkpoint: its run's scene and settings, and (below) its
		// state and warm-start memory, so that a settled bed starts as
		// settled as the run left it.
		if sc, ck, err = run.Resume(path); err == nil && ck.State.Len() != len(sc.Model.Bodies) {
			err = fmt.Errorf("checkpoint %s: a pour that has not ended (%d of %d bodies): not a benchmark case", path, ck.State.Len(), sc.TotalBodies())
		}
	} else {
		sc, err = c.Load()
	}
	if err != nil {
		return nil, fmt.Errorf("bench: case %s: %w", c.Name, err)
	}
	if req.Workers > 0 {
		sc.Settings.Workers = req.Workers
	}
	if req.Precision != "" {
		sc.Settings.Precision = req.Precision
		if err := sc.Settings.Validate(); err != nil {
			return nil, fmt.Errorf("bench: case %s: %w", c.Name, err)
		}
	}
	be, _, err := run.NewBackend(req.Backend, req.Device, false, sc.Settings.Workers)
	if err != nil {
		return nil, fmt.Errorf("bench: case %s: %w", c.Name, err)
	}
	defer be.Close()
	if req.Steps > 0 {
		c.Steps = req.Steps
	}
	if req.Warmup >= 0 {
		c.Warmup = req.Warmup
	}
	sim, err := engine.NewSim(&sc.Model, sc.Settings, be)
	if err != nil {
		return nil, fmt.Errorf("bench: case %s: %w", c.Name, err)
	}
	if ck != nil {
		if err := sim.Restore(ck.Step, &ck.State, ck.Warm); err != nil && !errors.Is(err, engine.ErrNoWarmStartData) {
			return nil, fmt.Errorf("bench: case %s: %w", c.Name, err)
		}
	}
	s := sc.Settings
	res := &Result{Case: c.Name, Kind: c.Kind, Backend: be.Name(), Dt: s.Dt, Solver: s.Solver, Tol: s.Tol,
		MaxIter: s.MaxIter, Warmup: c.Warmup, Steps: c.Steps, Workers: s.Workers, Precision: s.Precision}
	if s.Mixed() {
		res.Backend += " mixed"
	}
	if res.Workers <= 0 {
		res.Workers = runtime.GOMAXPROCS(0)
	}
	for _, b := range sc.Model.Bodies {
		if !b.Fixed && b.Shape.Kind != engine.Plane {
			res.Bodies++
		}
	}
	if n, ok := be.(engine.Noter); ok {
		res.Notes = n.Notes()
		for _, line := range res.Notes {
			fmt.Fprintf(os.Stderr, "bench: case %s: %s\n", c.Name, line)
		}
	}
	dm, _ := be.(engine.DeviceMemory)
	de, _ := be.(interface{ EstimateDeviceMemoryBytes(contacts int) int64 })
	for range c.Warmup {
		if _, err := sim.Step(); err != nil {
			return nil, fmt.Errorf("bench: case %s: warm-up %w", c.Name, err)
		}
	}
	if res.StartMaxSpeed, res.StartMaxPenetration, err = settledness(be, &sc.Model); err != nil {
		return nil, fmt.Errorf("bench: case %s: %w", c.Name, err)
	}
	stats := make([]engine.StepStats, 0, c.Steps)
	runtime.GC()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	for range c.Steps {
		st, err := sim.Step()
		if err != nil {
			return nil, fmt.Errorf("bench: case %s: %w", c.Name, err)
		}
		stats = append(stats, st)
		if dm != nil {
			res.DeviceMemory = max(res.DeviceMemory, dm.DeviceMemoryBytes())
		}
		if de != nil {
			res.DeviceEstimate = max(res.DeviceEstimate, de.EstimateDeviceMemoryBytes(st.Contacts))
		}
	}
	runtime.ReadMemStats(&m1)
	// The process's peak so far: the engine's, with the one copy of the
	// body state that settledness read back, before the end-of-run
	// figures below read the state and the contacts again.
	if res.PeakRSS, err = PeakRSS(); err != nil {
		return nil, err
	}
	n := float64(c.Steps)
	res.AllocBytesPerStep = float64(m1.TotalAlloc-m0.TotalAlloc) / n
	res.MallocsPerStep = float64(m1.Mallocs-m0.Mallocs) / n
	summarise(res, stats)
	if s.Solver == "apgd" && res.ContactsMean > 0 && res.Solve.Median > 0 {
		model := cpuref.TrafficFor(&sc.Model, res.ContactsMean).BytesPerContactIteration
		if req.Backend == "vulkan" {
			model = gpu.APGDTraffic{F32: s.MixedFor(&sc.Model), Materials: !engine.OneMaterial(sc.Model.Materials), Arms: sc.Model.ArmsAlongNormal()}.BytesPerContactIteration
		}
		res.TrafficPerContactIteration = model(float64(res.Bodies) / res.ContactsMean)
		res.TrafficRate = res.TrafficPerContactIteration * res.ContactsMean * res.IterationsMean / res.Solve.Median
	}

	var state engine.State
	var con engine.Contacts
	if err := errors.Join(be.ReadState(&state), be.ReadContacts(&con)); err != nil {
		return nil, fmt.Errorf("bench: case %s: %w", c.Name, err)
	}
	f := run.FinalFigures(sc, &state, &con, stats[len(stats)-1])
	res.ContactsEnd, res.MaxPenetration, res.MeanHeight, res.Escaped = f.Contacts, f.MaxPenetration, f.MeanHeight, f.Escaped
	return res, nil
}

// hostContacts is implemented by a backend whose contacts live in host
// memory (cpuref's, through its collide.Collider): Contacts returns them
// without a copy, to be read only.
type hostContacts interface {
	Contacts() *engine.Contacts
}

// settledness returns the largest speed of a movable body of m in the
// backend's state and the deepest overlap (−Φ) among its contacts. The
// contacts are read in place where the backend holds them on the host, so
// that a copy of them (120 bytes per contact) does not count in the
// case's peak memory.
func settledness(be engine.Backend, m *engine.Model) (speed, depth float64, err error) {
	var state engine.State
	if err := be.ReadState(&state); err != nil {
		return 0, 0, err
	}
	con := new(engine.Contacts)
	if h, ok := be.(hostContacts); ok {
		con = h.Contacts()
	} else if err := be.ReadContacts(con); err != nil {
		return 0, 0, err
	}
	for i := 0; i < state.Len() && i < len(m.Bodies); i++ {
		if m.Bodies[i].Fixed {
			continue
		}
		v := state.Vel[3*i : 3*i+3]
		speed = max(speed, math.Sqrt(v[0]*v[0]+v[1]*v[1]+v[2]*v[2]))
	}
	for _, phi := range con.Phi {
		depth = max(depth, -phi)
	}
	return speed, depth, nil
}

// summarise fills the per-step figures of res from the measured steps.
func summarise(res *Result, stats []engine.StepStats) {
	phase := func(get func(engine.StepStats) float64) Phase {
		xs := make([]float64, len(stats))
		for i, st := range stats {
			xs[i] = get(st)
		}
		return Phase{Median: median(xs), Mean: mean(xs)}
	}
	res.Step = phase(func(s engine.StepStats) float64 { return s.StepSeconds })
	res.Collide = phase(func(s engine.StepStats) float64 { return s.CollideSeconds })
	res.Build = phase(func(s engine.StepStats) float64 { return s.BuildSeconds })
	res.Solve = phase(func(s engine.StepStats) float64 { return s.SolveSeconds })
	res.Integrate = phase(func(s engine.StepStats) float64 { return s.IntegrateSeconds })
	res.ContactsMean = phase(func(s engine.StepStats) float64 { return float64(s.Contacts) }).Mean
	res.IterationsMean = phase(func(s engine.StepStats) float64 { return float64(s.Solve.Iterations) }).Mean
	res.ResidualMedian = phase(func(s engine.StepStats) float64 { return s.Solve.Residual }).Median
	res.SubmitsPerStep = phase(func(s engine.StepStats) float64 { return float64(s.Submits) }).Mean
	res.RecordedPerStep = phase(func(s engine.StepStats) float64 { return float64(s.Recorded) }).Mean
	last := stats[len(stats)-1]
	res.IterationsLast, res.ResidualLast = last.Solve.Iterations, last.Solve.Residual
	if res.IterationsMean > 0 {
		res.SubmitsPerIteration = res.SubmitsPerStep / res.IterationsMean
	}
	if res.Step.Mean > 0 {
		res.BodyStepsPerSecond = float64(res.Bodies) / res.Step.Mean
	}
}

func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// median returns the middle value, the mean of the two middle ones for an
// even count.
func median(xs []float64) float64 {
	n := len(xs)
	if n == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// PeakRSS returns this process's peak resident set size (VmHWM of
// /proc/self/status) in bytes.
func PeakRSS() (int64, error) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, fmt.Errorf("bench: peak memory: %w", err)
	}
	defer f.Close()
	return parseVmHWM(f)
}

func parseVmHWM(r io.Reader) (int64, error) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:")
		if !ok {
			continue
		}
		fields := strings.Fields(rest)
		if len(fields) != 2 || fields[1] != "kB" {
			return 0, fmt.Errorf("bench: /proc/self/status: VmHWM line %q is not \"N kB\"", sc.Text())
		}
		kb, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("bench: /proc/self/status: VmHWM: %w", err)
		}
		return kb << 10, nil
	}
	if err := sc.Err(); err != nil {
		return 0, fmt.Errorf("bench: /proc/self/status: %w", err)
	}
	return 0, errors.New("bench: /proc/self/status has no VmHWM line")
}
