// Command gpusim simulates granular media (rigid bodies with friction and
// contact) with the DVI / cone-complementarity method. Run "gpusim help".
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"strings"

	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/gpu"
	"github.com/gpusim/gpusim/run"
	"github.com/gpusim/gpusim/scene"
)

// Exit codes.
const (
	exitOK      = 0
	exitFailure = 1 // the run failed or was interrupted
	exitUsage   = 2 // bad command line or bad input
)

const usage = `gpusim: rigid bodies with friction and contact (DVI / cone complementarity)

Usage:
  gpusim scenes                 list the built-in scenes and their parameters
  gpusim scenes --dump NAME     print a built-in scene as a scene file (JSON)
  gpusim scenes --from RUN      print a scene starting from a run's end state
                                (its output folder or a checkpoint file)
  gpusim run SCENE|FILE [flags] run a built-in scene or a scene file
  gpusim solvers                list the solvers
  gpusim solve PROBLEM [flags]  solve one cone-complementarity problem (FCLib-style folder)
  gpusim compare PROBLEM|SCENE  compare solvers on one problem (table, histories, plots)
  gpusim devices                list the Vulkan devices
  gpusim plot DIR               plot a run's stats.csv, trace.csv and reactions.csv into DIR/plots
  gpusim render DIR [flags]     draw a run's bodies as a PNG (--frame K, --width, --height, --out)
  gpusim bench [flags]          the benchmark matrix on every backend: OUT/bench.md, OUT/bench.json (gpusim bench -h)
  gpusim sweep SPEC [flags]     run a parameter sweep (all runs, or one with --index I / --index-from-env)
  gpusim collect DIR [flags]    gather a sweep's summaries into DIR/collect.csv (--x P --y R: a plot)
  gpusim help                   this text

Run "gpusim run -h", "gpusim solve -h" or "gpusim compare -h" for their flags;
"gpusim run SCENE --dump-problem STEP DIR" writes the problem of a step as a folder.
`

func main() {
	setGCPercent()
	os.Exit(cli(os.Args[1:], os.Stdout, os.Stderr))
}

// gcPercent is the garbage collector's target that gpusim runs with unless
// GOGC is set. A run allocates its buffers while the contacts grow and
// then nothing per step (cpuref's TestStepAllocs), so the collector
// hardly runs after the first steps, and Go's default (100: the heap may
// grow to twice the live data before a collection) only inflates peak
// memory: at GOGC=10 settle N = 8000 peaks at about 5 KB per body instead
// of 7 KB, with no measurable change in time per step (gpusim bench).
const gcPercent = 10

// setGCPercent sets gcPercent unless the user chose one through GOGC.
func setGCPercent() {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(gcPercent)
	}
}

// usageError marks errors in the command line or the input: exit code 2.
type usageError struct{ error }

func cli(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	var err error
	switch args[0] {
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return exitOK
	case "scenes":
		err = cmdScenes(args[1:], stdout)
	case "solvers":
		for _, s := range engine.Solvers() {
			fmt.Fprintln(stdout, s)
		}
	case "run":
		err = cmdRun(args[1:], stdout, stderr)
	case "solve":
		err = cmdSolve(args[1:], stdout, stderr)
	case "compare":
		err = cmdCompare(args[1:], stdout, stderr)
	case "devices":
		err = cmdDevices(args[1:], stdout, stderr)
	case "plot":
		err = cmdPlot(args[1:], stdout, stderr)
	case "render":
		err = cmdRender(args[1:], stdout, stderr)
	case "bench":
		err = cmdBench(args[1:], stdout, stderr)
	case "bench-case": // hidden: one case of gpusim bench, in its own process
		err = cmdBenchCase(args[1:], stdout, stderr)
	case "sweep":
		err = cmdSweep(args[1:], stdout, stderr)
	case "collect":
		err = cmdCollect(args[1:], stdout, stderr)
	default:
		err = usageError{fmt.Errorf("unknown command %q (try gpusim help)", args[0])}
	}
	if err == nil {
		return exitOK
	}
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	fmt.Fprintf(stderr, "gpusim: %v\n", err)
	// Out of memory detected in time is a run failure, even where it was
	// found while the input was read.
	var ue usageError
	if errors.Is(err, run.ErrOutOfMemory) || (errors.As(err, &ue) && errors.Is(ue.error, run.ErrOutOfMemory)) {
		return exitFailure
	}
	// A --device or CUDA_VISIBLE_DEVICES that names no device is input.
	// So is a model that --backend vulkan cannot run (joints).
	if errors.As(err, &ue) || errors.Is(err, gpu.ErrBadSelection) || errors.Is(err, engine.ErrUnsupported) {
		return exitUsage
	}
	return exitFailure
}

func cmdScenes(args []string, w io.Writer) error {
	if len(args) > 0 {
		if len(args) != 2 || (args[0] != "--dump" && args[0] != "-dump" && args[0] != "--from" && args[0] != "-from") {
			return usageError{fmt.Errorf("usage: gpusim scenes [--dump NAME | --from RUN_DIR|CHECKPOINT]")}
		}
		var doc *scene.Doc
		if strings.HasSuffix(args[0], "from") {
			sc, st, err := run.EndState(args[1])
			if err != nil {
				return usageError{err}
			}
			if doc, err = scene.FromState(sc.Doc, &sc.Model, st); err != nil {
				return usageError{err}
			}
		} else {
			sc, err := scene.LoadBuiltin(args[1], nil)
			if err != nil {
				return usageError{err}
			}
			doc = sc.Doc
		}
		data, err := scene.Dump(doc)
		if err != nil {
			return err
		}
		_, err = w.Write(data)
		return err
	}
	for _, info := range scene.Builtins() {
		fmt.Fprintf(w, "%-14s %s\n", info.Name, info.Summary)
		if len(info.Params) > 0 {
			var ps []string
			for _, p := range info.Params {
				ps = append(ps, fmt.Sprintf("%s=%g", p.Name, p.Default))
			}
			fmt.Fprintf(w, "%-14s   parameters (--set): %s\n", "", strings.Join(ps, ", "))
		}
	}
	return nil
}

// bytesFlag reads the value of --max-memory or --max-input-size: "" is 0
// (the default), "off" is −1 (no limit), else a byte count with an
// optional suffix (run.ParseBytes); 0 given is an error (it would mean the
// default).
func bytesFlag(name, v string) (int64, error) {
	switch v {
	case "":
		return 0, nil
	case "off":
		return -1, nil
	}
	n, err := run.ParseBytes(v)
	if err != nil || n == 0 {
		return 0, usageError{fmt.Errorf("--%s %s: want a number of bytes > 0 with an optional suffix K, M, G or T (8G, 512M), or off", name, v)}
	}
	return n, nil
}

// multi collects a repeatable string flag.
type multi []string

func (m *multi) String() string     { return strings.Join(*m, ",") }
func (m *multi) Set(s string) error { *m = append(*m, s); return nil }

// parseInterleaved parses flags that may come before or after positional
// arguments and returns the positional ones. A bad flag is a usageError;
// -h gives flag.ErrHelp.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, usageError{err}
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// newFlagSet returns the flag set of the command name, which reports
// errors on stderr and whose -h prints usage and then the flags' defaults.
func newFlagSet(name string, stderr io.Writer, usage string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	return fs
}

// parseOne is parseInterleaved for a command that takes exactly one
// positional argument: it returns that argument, or a usageError that
// starts with what ("render takes one run folder") and counts the
// arguments given.
func parseOne(fs *flag.FlagSet, args []string, what string) (string, error) {
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return "", err
	}
	if len(pos) != 1 {
		return "", usageError{fmt.Errorf("%s, got %d arguments", what, len(pos))}
	}
	return pos[0], nil
}

// setFlags returns the names of the flags of fs given on the command line.
func setFlags(fs *flag.FlagSet) map[string]bool {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	return set
}

// dumpFlag takes the two values of --dump-problem STEP DIR out of args
// before flag parsing (the flag package gives a flag one value). It returns
// the remaining arguments, the step (0 if absent) and the folder.
func dumpFlag(args []string) (rest []string, step int, dir string, err error) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(rest, args[i:]...), step, dir, nil
		}
		if strings.HasPrefix(a, "--dump-problem=") || strings.HasPrefix(a, "-dump-problem=") {
			return nil, 0, "", usageError{fmt.Errorf("--dump-problem takes two values: --dump-problem STEP DIR")}
		}
		if a != "--dump-problem" && a != "-dump-problem" {
			rest = append(rest, a)
			continue
		}
		if step != 0 {
			return nil, 0, "", usageError{fmt.Errorf("--dump-problem given twice")}
		}
		if i+2 >= len(args) {
			return nil, 0, "", usageError{fmt.Errorf("--dump-problem takes two values: --dump-problem STEP DIR")}
		}
		step, err = strconv.Atoi(args[i+1])
		if err != nil || step < 1 {
			return nil, 0, "", usageError{fmt.Errorf("--dump-problem: step %q is not a step number ≥ 1 (usage: --dump-problem STEP DIR)", args[i+1])}
		}
		dir = args[i+2]
		if dir == "" || strings.HasPrefix(dir, "-") {
			return nil, 0, "", usageError{fmt.Errorf("--dump-problem: %q is not a folder (usage: --dump-problem STEP DIR)", dir)}
		}
		i += 2
	}
	return rest, step, dir, nil
}

func cmdRun(args []string, stdout, stderr io.Writer) error {
	args, dumpStep, dumpDir, err := dumpFlag(args)
	if err != nil {
		return err
	}
	fs := flag.NewFlagSet("gpusim run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		backend  = fs.String("backend", "auto", "auto (Vulkan if available, else CPU), cpu or vulkan")
		device   = fs.String("device", "", "Vulkan device: index, UUID (GPU-…), PCI address or name substring; default: the best GPU among those CUDA_VISIBLE_DEVICES leaves visible")
		vkValid  = fs.Bool("vk-validation", false, "turn on the Vulkan validation layers (errors fail the run)")
		vkMemory = fs.Int64("vk-memory-limit", 0, "cap the Vulkan device's buffers at this many bytes, as a smaller GPU would (for testing)")
		solver   = fs.String("solver", "", "solver (see gpusim solvers); default: the scene's")
		dt       = fs.Float64("dt", 0, "time step h (s); default: the scene's")
		steps    = fs.Int("steps", 0, "number of steps (overrides --duration)")
		duration = fs.Float64("duration", 0, "simulated time (s); default: the scene's")
		tol      = fs.Float64("tol", -1, "solver tolerance on the residual of eq. 25 (0: always run --max-iter)")
		maxIter  = fs.Int("max-iter", 0, "solver iteration cap")
		warm     = fs.Bool("warm-start", engine.DefaultSettings().WarmStart, "start each solve from the last step's impulses (overrides the scene's settings.warm_start; --warm-start=false turns it off)")
		workers  = fs.Int("workers", 0, "goroutines of the CPU path (0: all cores)")
		prec     = fs.String("precision", "", "settings.precision: double, or mixed (apgd, apgd-ar: float32 storage of the Jacobian and the solver's vectors, float64 arithmetic); default: the scene's")
		out      = fs.String("out", "", "output folder (default out/SCENE)")
		overwr   = fs.Bool("overwrite", false, "replace the outputs of an earlier run in the output folder (only the files gpusim writes)")
		trace    = fs.String("trace", "", "comma-separated body ids to trace (0-based, scene order)")
		quiet    = fs.Bool("quiet", false, "no progress and no summary on the terminal")
		cpuprof  = fs.String("cpuprofile", "", "write a Go CPU profile of the run to this file")
		memprof  = fs.String("memprofile", "", "write a Go heap profile to this file at the end of a run that took all its steps, while the engine is alive (go tool pprof -sample_index=inuse_space: the host memory the run holds, by allocation site)")
		vtkEvery = fs.Int("vtk", 0, "write ParaView frames (OUT/run.pvd, OUT/vtk/) of step 0, every N-th step and the last, and OUT/view.py (pvpython OUT/view.py shows them)")
		vtkCon   = fs.Bool("vtk-contacts", false, "with --vtk: also the contact network, a line between the bodies of each contact with its forces (OUT/contacts.pvd)")
		npzEvery = fs.Int("npz", 0, "write NumPy frames (OUT/npz/step-NNNNNNNN.npz: positions, orientations, velocities, contacts and their forces) of step 0, every N-th step and the last")
		rxn      = fs.Bool("reactions", false, "write OUT/reactions.csv (joint reactions, contact force and torque on fixed, plane and kinematic bodies, per step); on without it for scenes with joints or kinematic bodies")
		ckEvery  = fs.Int("checkpoint", 0, "write a checkpoint (OUT/checkpoints/step-NNNNNN.ckpt) every N steps; an interrupted run writes one anyway")
		resume   = fs.String("resume", "", "continue the run saved in this checkpoint; --steps and --duration count from the run's start")
		verbose  = fs.Bool("verbose", false, "debug logging, a line per step (no progress bar)")
		logJSON  = fs.Bool("log-json", false, "log as JSON lines (log/slog), no progress bar")
		maxMem   = fs.String("max-memory", "", "memory the run may take, in bytes with an optional suffix K, M, G or T (8G, 512M); checked against an estimate before anything is allocated; default: what the machine has (MemAvailable, or a cgroup's limit if lower); off: no check")
		maxInput = fs.String("max-input-size", "", "largest scene file read, in bytes with an optional suffix (default 256M); off: no cap")
		sets     multi
	)
	fs.Var(&sets, "set", "key=value override of a scene parameter or field (repeatable)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: gpusim run SCENE|FILE [flags]\n       gpusim run --resume CHECKPOINT [--steps N | --duration T] [--out DIR] [flags]\n\nFlags:\n")
		fs.PrintDefaults()
		fmt.Fprintf(stderr, "  -dump-problem STEP DIR\n    \twrite the cone-complementarity problem of step STEP (1-based) into the folder DIR\n    \t(W.mtx, q.txt, mu.txt: see gpusim solve); needs the CPU backend\n")
	}
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if *memprof != "" {
		// Every 4 KB allocated is sampled (Go's default, 512 KB, misses
		// most of the arrays of a small run), from before the scene is
		// read: the profile holds the model too.
		runtime.MemProfileRate = 4096
	}
	log := newLogger(stderr, *verbose, *quiet, *logJSON)
	set := setFlags(fs)
	switch *backend {
	case "auto", "cpu", "vulkan":
	default:
		return usageError{fmt.Errorf("unknown backend %q (want auto, cpu or vulkan)", *backend)}
	}
	memLimit, err := bytesFlag("max-memory", *maxMem)
	if err != nil {
		return err
	}
	inputCap, err := bytesFlag("max-input-size", *maxInput)
	if err != nil {
		return err
	}
	// The memory check runs once the scene's document is read and before
	// its bodies are made (a scene of 16.7 M bodies takes GBs to build),
	// and again in run.Run.
	lopt := scene.LoadOptions{MaxInputSize: inputCap, CheckBodies: func(n int) error {
		return run.CheckMemory(n, *backend, *device, memLimit)
	}}
	sc, ck, err := loadRunScene(pos, sets, *resume, set, dumpStep, lopt)
	if err != nil {
		return err
	}
	if *solver != "" {
		sc.Settings.Solver = *solver
	}
	if set["dt"] {
		sc.Settings.Dt = *dt
	}
	if set["tol"] {
		sc.Settings.Tol = *tol
	}
	if set["max-iter"] {
		sc.Settings.MaxIter = *maxIter
	}
	if set["warm-start"] {
		sc.Settings.WarmStart = *warm
	}
	if set["workers"] {
		sc.Settings.Workers = *workers
	}
	if set["precision"] {
		sc.Settings.Precision = *prec
	}
	if set["duration"] {
		if !(*duration > 0) {
			return usageError{fmt.Errorf("--duration %v must be positive", *duration)}
		}
		sc.Duration, sc.Steps = *duration, 0
	}
	if set["steps"] {
		if *steps < 1 {
			return usageError{fmt.Errorf("--steps %d must be ≥ 1", *steps)}
		}
		sc.Steps = *steps
	}
	if err := sc.Settings.Validate(); err != nil {
		return usageError{err}
	}
	if err := run.CheckLength(sc); err != nil {
		return usageError{err}
	}
	if ck != nil && ck.Step > run.Steps(sc) {
		return usageError{fmt.Errorf("--resume: the checkpoint is at step %d, past the run's end at step %d (--steps and --duration count from the start of the run)", ck.Step, run.Steps(sc))}
	}
	if dumpStep > 0 {
		if n := run.Steps(sc); dumpStep > n {
			return usageError{fmt.Errorf("--dump-problem: step %d is past the run's last step %d", dumpStep, n)}
		}
		switch *backend {
		case "vulkan":
			return usageError{fmt.Errorf("--dump-problem needs the CPU backend: the Vulkan backend's problem cannot be assembled into an explicit N")}
		case "auto":
			// Announced, not silent: the dump needs the assembled N.
			*backend = "cpu"
			log.Warn("--dump-problem: running on the CPU backend, whose problem can be assembled")
		}
	}
	if set["trace"] {
		ids, err := parseIDs(*trace, sc.TotalBodies()) // pour bodies too
		if err != nil {
			return usageError{fmt.Errorf("--trace: %w", err)}
		}
		sc.Trace = ids
	}
	if *out == "" {
		*out = defaultOut(sc, ck)
	}
	if err := checkOverwrite(*overwr, *resume, *out); err != nil {
		return err
	}
	if *ckEvery < 0 {
		return usageError{fmt.Errorf("--checkpoint %d: want a number of steps ≥ 1", *ckEvery)}
	}
	ctx, stop := interruptContext(log, os.Exit)
	defer stop()
	if *vtkEvery < 0 || (*vtkCon && *vtkEvery == 0) {
		return usageError{fmt.Errorf("--vtk %d: want a number of steps ≥ 1 (and --vtk-contacts needs --vtk)", *vtkEvery)}
	}
	if *npzEvery < 0 {
		return usageError{fmt.Errorf("--npz %d: want a number of steps ≥ 1 (0: none)", *npzEvery)}
	}
	if *vkMemory < 0 {
		return usageError{fmt.Errorf("--vk-memory-limit %d: want a number of bytes ≥ 0", *vkMemory)}
	}
	opt := run.Options{Backend: *backend, Device: *device, Validation: *vkValid, VulkanMemoryLimit: *vkMemory, OutDir: *out, DumpStep: dumpStep, DumpDir: dumpDir,
		VTKEvery: *vtkEvery, VTKContacts: *vtkCon, NPZEvery: *npzEvery, Reactions: *rxn, CheckpointEvery: *ckEvery, Resume: ck, Overwrite: *overwr, MaxMemory: memLimit,
		Notice:   func(s string) { log.Warn(s) },
		Progress: runProgress(stderr, log, *verbose, *quiet, *logJSON)}
	if *cpuprof != "" {
		f, err := os.Create(*cpuprof)
		if err != nil {
			return usageError{fmt.Errorf("--cpuprofile: %w", err)}
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return fmt.Errorf("--cpuprofile: %w", err)
		}
		defer pprof.StopCPUProfile()
	}
	if *memprof != "" {
		f, err := os.Create(*memprof)
		if err != nil {
			return usageError{fmt.Errorf("--memprofile: %w", err)}
		}
		defer f.Close()
		opt.AtEnd = func(sim *engine.Sim) error {
			runtime.GC() // the profile is that of the last collection
			err := pprof.Lookup("heap").WriteTo(f, 0)
			runtime.KeepAlive(sim)
			if err == nil {
				err = f.Close()
			}
			if err != nil {
				return fmt.Errorf("--memprofile: %w", err)
			}
			return nil
		}
	}
	sum, runErr := run.Run(ctx, sc, opt)
	if ie := (*run.InputError)(nil); errors.As(runErr, &ie) {
		return usageError{runErr}
	}
	if opt.Progress != nil && !*verbose {
		fmt.Fprintln(stderr)
	}
	if sum != nil && !*quiet {
		printSummary(stdout, sum, *out)
	}
	logRunEnd(log, sum, *out)
	return interrupted(sum, runErr, *out)
}

func parseIDs(s string, n int) ([]int, error) {
	var ids []int
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		id, err := strconv.Atoi(f)
		if err != nil {
			return nil, fmt.Errorf("%q is not a body id", f)
		}
		if id < 0 || id >= n {
			return nil, fmt.Errorf("body id %d out of range [0, %d)", id, n)
		}
		ids = append(ids, id)
	}
	return ids, nil
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

func printSummary(w io.Writer, s *run.Summary, dir string) {
	f := s.Final
	fmt.Fprintf(w, "scene       %s (%s)\n", s.Scene, s.Source)
	backend := s.Backend
	if s.CPUSIMD != "" {
		// The CPU path's loops (cpuref.SIMD: AVX-512 in a GOEXPERIMENT=simd
		// build, as make builds, on a processor with AVX-512).
		if s.CPUSIMD == "avx512" {
			backend += " (AVX-512 loops)"
		} else {
			backend += " (scalar loops)"
		}
	}
	fmt.Fprintf(w, "backend     %s, solver %s, tol %g, max-iter %d, h = %g s\n", backend, s.Settings.Solver, s.Settings.Tol, s.Settings.MaxIter, s.Settings.Dt)
	fmt.Fprintf(w, "bodies      %d, steps %d, simulated %.4g s\n", s.Bodies, s.Steps, s.SimTime)
	fmt.Fprintf(w, "wall        %.3g s, per step median %.3g ms, mean %.3g ms (collision %.3g s, solve %.3g s in all)\n",
		s.WallSeconds, 1e3*s.StepSecondsMedian, 1e3*s.StepSecondsMean, s.CollideSecondsSum, s.SolveSecondsSum)
	products := ""
	if s.ProductsTotal > 0 {
		products = fmt.Sprintf(" (%.1f products with N)", s.ProductsMean)
	}
	fmt.Fprintf(w, "solver      %.1f iterations per step%s, %d steps not converged\n", s.IterationsMean, products, s.NotConverged)
	fmt.Fprintf(w, "final       contacts %d, iterations %d, residual %.3g\n", f.Contacts, f.Iterations, f.Residual)
	fmt.Fprintf(w, "            force on fixed bodies (%.6g, %.6g, %.6g) N, weight %.6g N\n", f.FixedForce[0], f.FixedForce[1], f.FixedForce[2], f.Weight)
	fmt.Fprintf(w, "            mean height %.4g m, max penetration %.3g m, max speed %.3g m/s", f.MeanHeight, f.MaxPenetration, f.MaxSpeed)
	if f.Escaped != nil {
		fmt.Fprintf(w, ", escaped %d", *f.Escaped)
	}
	fmt.Fprintln(w)
	printReactions(w, s.Reactions)
	printMerit(w, s.Merit)
	files := "stats.csv,final.csv,summary.json"
	if len(s.Reactions) > 0 {
		files = "stats.csv,reactions.csv,final.csv,summary.json"
	}
	fmt.Fprintf(w, "outputs     %s/{%s}\n", dir, files)
}
