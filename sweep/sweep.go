package sweep

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/gpusim/gpusim/internal/atomicfile"
	"github.com/gpusim/gpusim/internal/outdir"
	"github.com/gpusim/gpusim/run"
)

// Manifest is what SWEEP_DIR/manifest.json holds: the spec's fields and
// the expanded runs.
type Manifest struct {
	Name        string   `json:"name"`
	Scene       string   `json:"scene"`
	Base        []string `json:"base"`
	Mode        string   `json:"mode"`
	Backend     string   `json:"backend"`
	Keys        []string `json:"keys"`
	Observables []string `json:"observables,omitempty"`
	Runs        []Run    `json:"runs"`
}

// ErrSpecChanged is returned when a sweep folder's manifest lists other
// runs than the spec.
var ErrSpecChanged = errors.New("the spec changed")

// NewManifest returns the manifest of a spec.
func NewManifest(s *Spec) *Manifest {
	return &Manifest{Name: s.Name, Scene: s.Scene, Base: slices.Clone(s.Base), Mode: s.Mode, Backend: s.Backend,
		Keys: s.Keys(), Observables: s.Observables, Runs: s.Expand()}
}

// ReadManifest reads dir/manifest.json.
func ReadManifest(dir string) (*Manifest, error) {
	path := filepath.Join(dir, "manifest.json")
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("sweep: %s is not a sweep folder (no manifest.json): %w", dir, err)
		}
		return nil, fmt.Errorf("sweep: %w", err)
	}
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("sweep: %s: %w", path, err)
	}
	if len(m.Runs) == 0 {
		return nil, fmt.Errorf("sweep: %s: no runs", path)
	}
	for i, r := range m.Runs {
		if r.Index != i || !filepath.IsLocal(filepath.FromSlash(r.Folder)) || len(r.Params) != len(m.Keys) {
			return nil, fmt.Errorf("sweep: %s: runs[%d] is not run %d with a folder inside the sweep and %d parameters", path, i, i, len(m.Keys))
		}
	}
	return &m, nil
}

// differs says how m and old differ in what the runs compute, "" if not.
func (m *Manifest) differs(old *Manifest) string {
	switch {
	case m.Scene != old.Scene:
		return fmt.Sprintf("scene %q, was %q", m.Scene, old.Scene)
	case m.Mode != old.Mode:
		return fmt.Sprintf("mode %s, was %s", m.Mode, old.Mode)
	case m.Backend != old.Backend:
		return fmt.Sprintf("backend %s, was %s", m.Backend, old.Backend)
	case !slices.Equal(m.Keys, old.Keys):
		return fmt.Sprintf("varied keys %v, were %v", m.Keys, old.Keys)
	case len(m.Runs) != len(old.Runs):
		return fmt.Sprintf("%d runs, were %d", len(m.Runs), len(old.Runs))
	}
	for i, r := range m.Runs {
		if !slices.Equal(r.Sets, old.Runs[i].Sets) || r.Folder != old.Runs[i].Folder {
			return fmt.Sprintf("run %d is %v, was %v", i, r.Sets, old.Runs[i].Sets)
		}
	}
	return ""
}

// WriteManifest writes dir/manifest.json (creating dir), or checks that the
// one there lists the same runs: if not, it returns an error wrapping
// ErrSpecChanged that says what changed. A manifest that differs only in
// name or observables is rewritten.
func WriteManifest(dir string, m *Manifest) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("sweep: %w", err)
	}
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("sweep: encode manifest: %w", err)
	}
	data = append(data, '\n')
	path := filepath.Join(dir, "manifest.json")
	old, err := os.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return fmt.Errorf("sweep: %w", err)
	case bytes.Equal(old, data):
		return nil
	default:
		om, err := ReadManifest(dir)
		if err != nil {
			return fmt.Errorf("%w; remove it or choose another output folder", err)
		}
		if d := m.differs(om); d != "" {
			return fmt.Errorf("sweep: %s: %w since this folder's runs were listed (%s): use another output folder, or remove this one to start over", path, ErrSpecChanged, d)
		}
	}
	return writeAtomic(path, data)
}

// writeAtomic writes data to a temporary file in path's folder, syncs it
// and renames it over path, so a reader (or a scheduler task writing the
// same file) never sees a partial file.
func writeAtomic(path string, data []byte) error {
	if err := atomicfile.WriteBytes(path, data); err != nil {
		return fmt.Errorf("sweep: %w", err)
	}
	return nil
}

// Done is what a complete run's DONE marker holds. It is written last, after
// every output of the run.
type Done struct {
	Index int `json:"index"`
	// WallSeconds is the run's wall time (s).
	WallSeconds float64 `json:"wall_s"`
	// SummarySHA256 is the checksum of the run's summary.json.
	SummarySHA256 string    `json:"summary_sha256"`
	Finished      time.Time `json:"finished"`
}

// Marker file names in a run folder.
const (
	DoneFile   = "DONE"
	FailedFile = "FAILED"
)

// Complete reports whether the run in folder is complete: its DONE marker
// names run index and the checksum of the summary.json beside it.
func Complete(folder string, index int) bool {
	data, err := os.ReadFile(filepath.Join(folder, DoneFile))
	if err != nil {
		return false
	}
	var d Done
	if json.Unmarshal(data, &d) != nil || d.Index != index {
		return false
	}
	sum, err := os.ReadFile(filepath.Join(folder, "summary.json"))
	return err == nil && checksum(sum) == d.SummarySHA256
}

func checksum(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// Options control Execute.
type Options struct {
	// Dir is the sweep folder.
	Dir string
	// Jobs is the number of runs at once; 0 chooses (see DefaultJobs).
	Jobs int
	// Only, if not nil, lists the run indices to run (those of the others
	// are left alone); nil runs all.
	Only []int
	// Log receives a line per run started and ended; nil discards.
	Log *slog.Logger
	// Started, if set, is called as each run starts.
	Started func(index int)
}

// Failure is a run that failed.
type Failure struct {
	Index int
	Err   error
}

// Report says what Execute did.
type Report struct {
	// Skipped were complete already; Done completed now.
	Skipped, Done []int
	// Failed ended with an error (written to their FAILED marker).
	Failed []Failure
	// Incomplete were not finished: cancelled, or never started because the
	// sweep was cancelled.
	Incomplete []int
	// Busy were not run because another process holds their folder (its
	// error wraps outdir.ErrBusy); their folders are left alone.
	Busy []Failure
	// Jobs is the number of runs that ran at once; Workers the CPU path's
	// goroutines per run (0: the scene's setting).
	Jobs, Workers int
}

// plan is how runs are placed: how many at once, on which Vulkan devices.
type plan struct {
	jobs    int
	devices []string // per job slot; "" lets the backend choose
	cpu     bool
	why     string
	note    string // how CUDA_VISIBLE_DEVICES restricted the devices, or ""
}

// DefaultJobs returns the number of runs at once when none is given: one
// per usable GPU when the runs use Vulkan ("vulkan": devices with float64;
// "auto": such devices that are not CPU implementations, the rule of
// run.NewBackend), else one per CPU the process may use
// (runtime.GOMAXPROCS: the CPUs of its affinity mask and cgroup CPU limit,
// or the GOMAXPROCS variable), with a line
// saying which. cpu reports that the runs use the CPU path. The GPUs are
// those CUDA_VISIBLE_DEVICES leaves visible (run.Devices), so that a
// scheduler's job that was given some of a node's GPUs uses those; a bad
// value of it is an error wrapping run.ErrBadSelection.
func DefaultJobs(backend string) (jobs int, cpu bool, why string, err error) {
	p, err := newPlan(backend)
	return p.jobs, p.cpu, p.why + p.note, err
}

func newPlan(backend string) (plan, error) {
	cpuPlan := func(why string) plan {
		n := runtime.GOMAXPROCS(0)
		return plan{jobs: n, cpu: true, why: fmt.Sprintf("%s: %d runs at once (one per CPU core)", why, n)}
	}
	if backend == "cpu" {
		return cpuPlan("backend cpu"), nil
	}
	infos, note, err := run.Devices(backend)
	if errors.Is(err, run.ErrBadSelection) {
		return plan{}, fmt.Errorf("sweep: %w", err)
	}
	if err != nil {
		if backend == "vulkan" {
			return plan{jobs: 1, why: fmt.Sprintf("backend vulkan: %v", err)}, nil
		}
		return cpuPlan(fmt.Sprintf("no Vulkan (%v), runs on the CPU path", err)), nil
	}
	// A scheduler's CUDA_VISIBLE_DEVICES gives the sweep its GPUs.
	if note != "" {
		note = " (" + note + ")"
	}
	var devs []string
	for _, d := range infos {
		devs = append(devs, strconv.Itoa(d.Index))
	}
	switch {
	case len(devs) == 0 && backend == "auto":
		p := cpuPlan("no GPU with float64, runs on the CPU path")
		p.note = note
		return p, nil
	case len(devs) <= 1:
		return plan{jobs: 1, devices: []string{""}, why: "one Vulkan device: one run at a time", note: note}, nil
	}
	return plan{jobs: len(devs), devices: devs, why: fmt.Sprintf("%d Vulkan devices: one run on each at a time", len(devs)), note: note}, nil
}

// Execute runs the runs of the spec listed in the manifest already written
// in opt.Dir (see WriteManifest): each in its own folder, opt.Jobs at a
// time, skipping those complete already and removing the folders of
// incomplete ones before running them again. A run that succeeds gets a
// DONE marker, written last; one that fails gets a FAILED marker with the
// error and does not stop the others. A cancelled ctx starts no more runs
// and cancels the running ones, which stay incomplete. The error is nil
// only if every run asked for is complete.
//
// With several runs at once on the CPU path, each run's
// settings.workers is set to GOMAXPROCS / jobs (at least 1), unless the spec
// sets settings.workers itself.
func Execute(ctx context.Context, s *Spec, opt Options) (*Report, error) {
	log := opt.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	runs := s.Expand()
	todo := opt.Only
	if todo == nil {
		todo = make([]int, len(runs))
		for i := range todo {
			todo[i] = i
		}
	}
	// A whole sweep holds its folder alone; single runs (a scheduler's
	// array tasks, --index) share it, each holding its run's folder.
	lock, err := outdir.Acquire(opt.Dir, opt.Only != nil, func(msg string) { log.Warn(msg) })
	if err != nil {
		return nil, fmt.Errorf("sweep: %w", err)
	}
	defer lock.Release()
	rep := &Report{}
	var queue []int
	for _, i := range todo {
		if i < 0 || i >= len(runs) {
			return nil, fmt.Errorf("sweep: run %d out of range [0, %d)", i, len(runs))
		}
		if Complete(filepath.Join(opt.Dir, runs[i].Folder), i) {
			rep.Skipped = append(rep.Skipped, i)
			continue
		}
		queue = append(queue, i)
	}
	if len(rep.Skipped) > 0 {
		log.Info("skipping complete runs", "complete", len(rep.Skipped), "to_run", len(queue))
	}
	if len(queue) == 0 {
		return rep, nil
	}
	p, err := newPlan(s.Backend)
	if err != nil {
		return nil, err
	}
	if opt.Jobs > 0 {
		p.jobs = opt.Jobs
		p.why = fmt.Sprintf("--jobs %d", opt.Jobs)
	}
	p.jobs = min(p.jobs, len(queue))
	if p.cpu && p.jobs > 1 && !s.setsWorkers() {
		rep.Workers = max(1, runtime.GOMAXPROCS(0)/p.jobs)
	}
	rep.Jobs = p.jobs
	log.Info("sweep", "runs", len(queue), "jobs", p.jobs, "plan", p.why+p.note, "workers_per_run", rep.Workers)

	var (
		mu      sync.Mutex
		notices = map[string]bool{}
		next    = make(chan int)
		wg      sync.WaitGroup
	)
	notice := func(idx int) func(string) {
		return func(msg string) {
			mu.Lock()
			seen := notices[msg]
			notices[msg] = true
			mu.Unlock()
			if !seen {
				log.Warn(msg, "run", idx)
			}
		}
	}
	start := time.Now()
	for slot := range p.jobs {
		device := ""
		if len(p.devices) > 0 {
			device = p.devices[slot%len(p.devices)]
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if opt.Started != nil {
					opt.Started(i)
				}
				err := runOne(ctx, s, runs[i], opt.Dir, device, rep.Workers, log, notice(i))
				mu.Lock()
				switch {
				case err == nil:
					rep.Done = append(rep.Done, i)
				case errors.Is(err, outdir.ErrBusy):
					rep.Busy = append(rep.Busy, Failure{i, err})
				case ctx.Err() != nil:
					rep.Incomplete = append(rep.Incomplete, i)
				default:
					rep.Failed = append(rep.Failed, Failure{i, err})
				}
				// Progress of a local sweep: runs finished and an estimate
				// of the time left from the mean so far.
				if finished := len(rep.Done) + len(rep.Failed); len(queue) > 1 && ctx.Err() == nil {
					el := time.Since(start)
					left := time.Duration(float64(el) / float64(finished) * float64(len(queue)-finished))
					log.Info("progress", "finished", fmt.Sprintf("%d/%d", finished, len(queue)), "failed", len(rep.Failed),
						"elapsed", el.Round(time.Second).String(), "left_about", left.Round(time.Second).String())
				}
				mu.Unlock()
			}
		}()
	}
	var notStarted []int
dispatch:
	for k, i := range queue {
		if ctx.Err() != nil {
			notStarted = queue[k:]
			break
		}
		select {
		case next <- i:
		case <-ctx.Done():
			notStarted = queue[k:]
			break dispatch
		}
	}
	close(next)
	wg.Wait()
	rep.Incomplete = append(rep.Incomplete, notStarted...)
	slices.Sort(rep.Done)
	slices.Sort(rep.Incomplete)
	slices.SortFunc(rep.Failed, func(a, b Failure) int { return a.Index - b.Index })
	var errs []error
	for _, b := range rep.Busy {
		errs = append(errs, b.Err)
	}
	if len(rep.Failed) > 0 {
		idx := make([]int, len(rep.Failed))
		for k, f := range rep.Failed {
			idx[k] = f.Index
		}
		errs = append(errs, fmt.Errorf("%d of %d runs failed: %v (errors in their folders' FAILED files)", len(idx), len(queue), idx))
	}
	if len(rep.Incomplete) > 0 {
		errs = append(errs, fmt.Errorf("stopped with %d runs incomplete (%v): run the same command again to finish them: %w",
			len(rep.Incomplete), rep.Incomplete, ctx.Err()))
	}
	if len(errs) > 0 {
		return rep, fmt.Errorf("sweep: %w", errors.Join(errs...))
	}
	return rep, nil
}

// runOne runs one run in its folder and writes its DONE or FAILED marker.
// It holds the folder's lock throughout (another process holding it is an
// error wrapping outdir.ErrBusy, and the folder is left alone) and empties
// the folder first: an incomplete run starts again from the beginning.
func runOne(ctx context.Context, s *Spec, r Run, dir, device string, workers int, log *slog.Logger, notice func(string)) error {
	folder := filepath.Join(dir, filepath.FromSlash(r.Folder))
	lock, err := outdir.Acquire(folder, false, notice)
	if err != nil {
		return fmt.Errorf("sweep: run %d: %w", r.Index, err)
	}
	defer lock.Release()
	if Complete(folder, r.Index) {
		return nil // completed by another process since the sweep looked
	}
	if err := outdir.ClearAll(folder); err != nil {
		return fmt.Errorf("sweep: run %d: clean %s: %w", r.Index, folder, err)
	}
	fail := func(err error) error {
		if ctx.Err() == nil {
			if werr := writeAtomic(filepath.Join(folder, FailedFile), []byte(err.Error()+"\n")); werr != nil {
				err = errors.Join(err, werr)
			}
			log.Error("run failed", "run", r.Index, "params", r.Params.String(), "err", err)
		} else {
			log.Warn("run stopped", "run", r.Index, "out", folder)
		}
		return err
	}
	sc, err := s.LoadScene(r)
	if err != nil {
		return fail(err)
	}
	if workers > 0 {
		sc.Settings.Workers = workers
	}
	log.Info("run started", "run", r.Index, "params", r.Params.String(), "out", folder)
	sum, err := run.Run(ctx, sc, run.Options{Backend: s.Backend, Device: device, OutDir: folder, DirLocked: true, Notice: notice})
	if err != nil {
		return fail(fmt.Errorf("sweep: run %d (%s): %w", r.Index, r.Params.String(), err))
	}
	data, err := os.ReadFile(filepath.Join(folder, "summary.json"))
	if err != nil {
		return fail(fmt.Errorf("sweep: run %d: %w", r.Index, err))
	}
	done, err := json.MarshalIndent(Done{Index: r.Index, WallSeconds: sum.WallSeconds, SummarySHA256: checksum(data),
		Finished: time.Now().UTC()}, "", "  ")
	if err != nil {
		return fail(err)
	}
	if err := writeAtomic(filepath.Join(folder, DoneFile), append(done, '\n')); err != nil {
		return fail(err)
	}
	log.Info("run done", "run", r.Index, "backend", sum.Backend, "steps", sum.Steps, "wall_s", sum.WallSeconds)
	return nil
}

// IndexFromEnv reads the run index of a scheduler task from the
// environment: SLURM_ARRAY_TASK_ID (Slurm job arrays) or
// JOB_COMPLETION_INDEX (Kubernetes Indexed Jobs). It is an error if
// neither is set, if the one set is not an integer ≥ 0, or if both are set
// to different values; the error names the variable.
func IndexFromEnv(getenv func(string) string) (int, error) {
	vars := []string{"SLURM_ARRAY_TASK_ID", "JOB_COMPLETION_INDEX"}
	idx, from := -1, ""
	for _, name := range vars {
		v := getenv(name)
		if v == "" {
			continue
		}
		i, err := strconv.Atoi(v)
		if err != nil || i < 0 {
			return 0, fmt.Errorf("sweep: %s=%q is not a run index (an integer ≥ 0)", name, v)
		}
		if from != "" && i != idx {
			return 0, fmt.Errorf("sweep: %s=%d and %s=%d disagree", from, idx, name, i)
		}
		idx, from = i, name
	}
	if from == "" {
		return 0, fmt.Errorf("sweep: --index-from-env: neither %s nor %s is set", vars[0], vars[1])
	}
	return idx, nil
}
