package run

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/checkpoint"
	"github.com/gpusim/gpusim/cpuref"
	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/fclib"
	"github.com/gpusim/gpusim/gpu"
	"github.com/gpusim/gpusim/internal/atomicfile"
	"github.com/gpusim/gpusim/scene"
	"github.com/gpusim/gpusim/vtk"
)

// Options control a run.
type Options struct {
	// Backend is "auto" (Vulkan when available, else the CPU path with a
	// notice), "cpu" or "vulkan".
	Backend string
	// Device picks the Vulkan device (index or name substring).
	Device string
	// Validation turns on the Vulkan validation layers.
	Validation bool
	// VulkanMemoryLimit, if positive, caps the Vulkan device's memory
	// (gpu.Options.MemoryLimit), to test what running out of it does.
	VulkanMemoryLimit int64
	// OutDir receives the outputs; it is created if needed. The run holds
	// an exclusive lock on it (package internal/outdir) while it runs: a
	// folder another run holds is an error wrapping ErrBusy. A folder that
	// holds another run's outputs is an error wrapping ErrHasOutputs,
	// unless Overwrite is set or the run resumes into it (see Resume).
	OutDir string
	// Overwrite clears OutDir of the files gpusim writes (stats.csv,
	// trace.csv, final.csv, summary.json, run.pvd, contacts.pvd, vtk/,
	// npz/, checkpoints/, plots/, renders, a sweep's markers) before the run; any
	// other file is left, with a notice.
	Overwrite bool
	// DirLocked says that the caller holds OutDir's lock (a sweep), so the
	// run does not take it.
	DirLocked bool
	// Progress, if set, is called after every step.
	Progress func(Progress)
	// Notice, if set, receives one-line notices (such as a fallback).
	Notice func(string)
	// CheckpointEvery, if positive, writes a checkpoint (package
	// checkpoint) into OutDir/checkpoints after every that many steps; a
	// cancelled run writes one there in any case.
	CheckpointEvery int
	// Resume, if set, continues the run saved in this checkpoint (see
	// Resume) instead of starting one. If OutDir holds outputs it
	// continues them as they were at the checkpoint's step: stats.csv and
	// trace.csv keep their rows up to that step and get the later ones
	// appended, and frames, run.pvd entries and checkpoints of later steps
	// and the end-of-run files are removed first, so that the folder ends
	// as the unsplit run's would. Outputs of another run there (another
	// scene, or rows that end before the checkpoint) are an error.
	Resume *checkpoint.Checkpoint
	// DumpStep, if positive, writes the cone-complementarity problem of
	// that step (1-based) into the folder DumpDir in the format of package
	// fclib: N assembled from the Jacobian (the backend's problem must
	// implement cpuref.Assembler, so the CPU backend), r, μ and the
	// cohesion impulses. It is taken from sim.Problem() after Step
	// returns, which is the problem the solver saw: Build makes N and r,
	// and neither the solve nor Integrate changes them (the next Collide
	// does). An error there ends the run.
	DumpStep int
	DumpDir  string
	// AtEnd, if set, is called at the end of a run that took all its
	// steps without error, once its outputs are written and before the
	// backend is closed, with the simulation: sim.Problem() is the last
	// step's problem, unchanged by the solve and by Integrate (see
	// DumpStep), and the backend's state is that at the end of the step.
	// gpusim compare solves a problem with joint rows there, in memory.
	// Its error is the run's.
	AtEnd func(sim *engine.Sim) error
	// VTKEvery, if positive, writes ParaView frames (package vtk) of step
	// 0, every VTKEvery-th step and the last step, listed in run.pvd;
	// VTKContacts adds the contacts as line cells with their forces.
	VTKEvery    int
	VTKContacts bool
	// NPZEvery, if positive, writes NumPy frames (OUT/npz/step-NNNNNNNN.npz,
	// see NPZFile) of step 0, every NPZEvery-th step and the last step.
	NPZEvery int
	// Reactions writes reactions.csv (a row per joint and per fixed,
	// plane or kinematic body and step: the force and torque a joint
	// applies to its body1, the total contact force and torque on a
	// body), the reactions in summary.json and, with frames, the arrays
	// reaction_force and reaction_torque; a scene with joints or kinematic
	// bodies reports them without it (see wantReactions).
	Reactions bool
	// MaxMemory is the memory in bytes the run may take (CheckMemory):
	// 0 means what the machine has (MemAvailable, or a cgroup's limit), a
	// negative value turns the check off.
	MaxMemory int64

	// wrapBackend, if set, wraps the backend the run opens (tests: a
	// backend that fails the way a device can).
	wrapBackend func(engine.Backend) engine.Backend
}

// Progress describes a run in progress.
type Progress struct {
	Step, Steps int
	Time        float64 // simulated time (s)
	Contacts    int
	Iterations  int
	Residual    float64
	Elapsed     time.Duration
	// Start is the step this run started from: a resumed run's checkpoint
	// step, else 0.
	Start int
}

// Summary is what summary.json holds.
type Summary struct {
	Scene       string             `json:"scene"`
	Source      string             `json:"source"`
	Description string             `json:"description,omitempty"`
	Params      map[string]float64 `json:"params,omitempty"`
	Backend     string             `json:"backend"`
	// Host is the machine's name (os.Hostname) and Device the Vulkan
	// device the run used (none on the CPU path): so that a run of a
	// sweep on a cluster can be traced to its node and GPU.
	Host   string         `json:"host,omitempty"`
	Device *DeviceSummary `json:"device,omitempty"`
	// CPUSIMD, on the CPU path, names its vector loops: "avx512", or
	// "none" for the scalar loops (cpuref.SIMD).
	CPUSIMD  string          `json:"cpu_simd,omitempty"`
	Settings engine.Settings `json:"settings"`
	Envelope float64         `json:"envelope_m"`
	Bodies   int             `json:"bodies"`
	// BodiesTotal, for a scene with a pour, is the number of bodies once
	// all have entered; Bodies is then the number that had at the end.
	BodiesTotal int     `json:"bodies_total,omitempty"`
	Steps       int     `json:"steps"`
	SimTime     float64 `json:"sim_time_s"`
	// Wall-clock figures (s).
	WallSeconds       float64 `json:"wall_s"`
	StepSecondsMedian float64 `json:"step_s_median"`
	StepSecondsMean   float64 `json:"step_s_mean"`
	CollideSecondsSum float64 `json:"collide_s_total"`
	SolveSecondsSum   float64 `json:"solve_s_total"`
	// Build (Jacobian and r) and update (FixedForce and Integrate) totals.
	BuildSecondsSum     float64 `json:"build_s_total"`
	IntegrateSecondsSum float64 `json:"integrate_s_total"`
	// Solver totals.
	IterationsTotal int     `json:"iterations_total"`
	IterationsMean  float64 `json:"iterations_mean"`
	// ProductsTotal and ProductsMean count the solver's products with N
	// (engine.SolveStats.Products: apgd and apgd-ar; absent for the
	// solvers that do not count them).
	ProductsTotal int     `json:"products_total,omitempty"`
	ProductsMean  float64 `json:"products_mean,omitempty"`
	NotConverged  int     `json:"steps_not_converged"`
	// ResumedFrom is the checkpoint step a resumed run started from: its
	// wall-clock figures and solver totals cover the steps after it.
	ResumedFrom int `json:"resumed_from_step,omitempty"`
	// InterruptedAt is the step after which a cancelled run stopped.
	InterruptedAt *int `json:"interrupted_at_step,omitempty"`
	// Checkpoint is the last checkpoint the run wrote.
	Checkpoint string `json:"checkpoint,omitempty"`
	// StepReadBackBytes is, on a device backend, the bytes read back from
	// the device over the steps (gpu.Backend.ReadBackBytes): by the steps
	// themselves (collision counts, solver scalars), the guard and the
	// outputs written after each step; not the reads at the start and end
	// of the run.
	StepReadBackBytes int64 `json:"step_read_back_bytes,omitempty"`
	// End-of-run figures.
	Final Final `json:"final"`
	// Merit is the scene's figure of merit (merit.go), if it names one.
	Merit *Merit `json:"merit,omitempty"`
	// Reactions, for a run that reports them (Options.Reactions): per
	// joint, then per fixed, plane or kinematic body.
	Reactions []ReactionSummary `json:"reactions,omitempty"`
	// Doc is the resolved scene document.
	Doc *scene.Doc `json:"scene_doc,omitempty"`
}

// DeviceSummary identifies a Vulkan device in summary.json.
type DeviceSummary struct {
	Index int    `json:"index"` // in vkEnumeratePhysicalDevices' order
	Name  string `json:"name"`
	UUID  string `json:"uuid,omitempty"` // "GPU-…", as nvidia-smi -L prints it
	PCI   string `json:"pci,omitempty"`  // "0000:3b:00.0"
}

// Final holds the end-of-run observables.
type Final struct {
	Contacts       int        `json:"contacts"`
	Iterations     int        `json:"iterations"`
	Residual       float64    `json:"residual"`
	Objective      float64    `json:"objective"`
	FixedForce     [3]float64 `json:"fixed_force_N"`
	Weight         float64    `json:"weight_N"`
	MaxPenetration float64    `json:"max_penetration_m"`
	MeanHeight     float64    `json:"mean_height_m"`
	Escaped        *int       `json:"escaped,omitempty"`
	MaxSpeed       float64    `json:"max_speed_m_s"`
}

// NewBackend returns the backend named by kind ("auto", "cpu", "vulkan").
// With "auto" it uses Vulkan on a hardware device (discrete, integrated or
// virtual GPU) with float64 support; with none (no driver, or only a CPU
// implementation such as lavapipe, which runs the kernels several times
// slower than the Go path) it returns the CPU backend and a notice saying
// why. "vulkan" uses any Vulkan device, CPU ones included, or fails.
// Without a device named, the choice is among the devices that a
// scheduler's CUDA_VISIBLE_DEVICES leaves visible (gpu.Visible); the
// notice then also says which those are.
func NewBackend(kind, device string, validation bool, workers int) (b engine.Backend, notice string, err error) {
	return newBackend(kind, gpu.Options{Device: device, Validation: validation}, workers)
}

// newBackend is NewBackend with all of the Vulkan device's options.
func newBackend(kind string, gopt gpu.Options, workers int) (b engine.Backend, notice string, err error) {
	// visNote says how CUDA_VISIBLE_DEVICES (a scheduler's assignment)
	// restricted the automatic choice of device.
	var visNote string
	withNote := func(s string) string {
		if visNote == "" {
			return s
		}
		if s == "" {
			return visNote
		}
		return visNote + "; " + s
	}
	switch kind {
	case "cpu":
		return cpuref.New(workers), "", nil
	case "auto", "vulkan":
		if gopt.Device != "" {
			break
		}
		if _, set := os.LookupEnv("CUDA_VISIBLE_DEVICES"); kind == "vulkan" && !set {
			break // nothing to check before gpu.New
		}
		devs, note, err := Devices(kind)
		if err != nil {
			if !errors.Is(err, engine.ErrUnavailable) {
				return nil, "", err
			}
			if kind == "auto" {
				return cpuref.New(workers), fmt.Sprintf("no Vulkan backend (%v); running on the CPU path", err), nil
			}
			break // gpu.New says it again
		}
		visNote = note
		if kind == "auto" && len(devs) == 0 {
			return cpuref.New(workers), withNote("no GPU with float64 among the Vulkan devices (only CPU implementations); running on the CPU path (--backend vulkan forces Vulkan)"), nil
		}
	default:
		return nil, "", fmt.Errorf("unknown backend %q (want auto, cpu or vulkan)", kind)
	}
	vb, err := gpu.New(gopt)
	if err == nil {
		return vb, withNote(""), nil
	}
	if kind == "vulkan" || !errors.Is(err, engine.ErrUnavailable) {
		return nil, "", err
	}
	return cpuref.New(workers), withNote(fmt.Sprintf("no Vulkan backend (%v); running on the CPU path", err)), nil
}

// Steps returns how many steps a scene runs (scene.StepCount; 0 when
// that is an error, which CheckLength reports).
func Steps(sc *scene.Scene) int {
	n, _ := scene.StepCount(sc.Duration, sc.Steps, sc.Settings.Dt)
	return n
}

// CheckLength reports a run length that scene.StepCount rejects: fewer
// than one step or more than scene.MaxSteps (a scene's own length is
// checked when it is built; flags and resumed runs change it).
func CheckLength(sc *scene.Scene) error {
	_, err := scene.StepCount(sc.Duration, sc.Steps, sc.Settings.Dt)
	return err
}

// Run runs the scene to its end, writing the outputs into opt.OutDir as
// it goes. A cancelled ctx stops the run after the current step; the files
// then hold every completed step and summary.json the run so far.
func Run(ctx context.Context, sc *scene.Scene, opt Options) (*Summary, error) {
	if opt.Backend == "" {
		opt.Backend = "auto"
	}
	if err := CheckLength(sc); err != nil {
		return nil, fmt.Errorf("%s: %w", sc.Source, err)
	}
	for _, id := range sc.Trace {
		if id < 0 || id >= sc.TotalBodies() {
			return nil, fmt.Errorf("trace: body id %d out of range [0, %d)", id, sc.TotalBodies())
		}
	}
	if err := CheckMemory(sc.TotalBodies(), opt.Backend, opt.Device, opt.MaxMemory); err != nil {
		return nil, fmt.Errorf("%s: %w", sc.Source, err) // before any output folder is made
	}
	// cur is the scene with the bodies in the run: those of sc.Model, and
	// those of a pour that have entered (a resumed run's, its
	// checkpoint's), whose Model the pourer grows.
	cur := *sc
	if opt.Resume != nil {
		n := opt.Resume.State.Len()
		if n < len(sc.Model.Bodies) || n > sc.TotalBodies() {
			return nil, fmt.Errorf("%s: the checkpoint's state holds %d bodies, the scene %d at the start and %d in all", sc.Source, n, len(sc.Model.Bodies), sc.TotalBodies())
		}
		cur.Model = *sc.ModelWith(n)
	}
	pour := newPourer(sc, &cur.Model, opt.Notice)
	sim, be, notice, err := OpenBackend(opt.Backend, opt, &cur.Model, sc.Settings)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", sc.Source, err)
	}
	defer be.Close()
	if notice != "" && opt.Notice != nil {
		opt.Notice(notice)
	}
	if n, ok := be.(engine.Noter); ok && opt.Notice != nil {
		for _, line := range n.Notes() {
			opt.Notice(line)
		}
	}
	if line := redundantJoints(&sc.Model, sc.Settings); line != "" && opt.Notice != nil {
		opt.Notice(line)
	}
	if opt.Notice != nil {
		for _, line := range engine.MixedNotes(&sc.Model, &sc.Settings) {
			opt.Notice(line)
		}
	}
	ckp := newCheckpointer(sc, opt)
	if opt.Resume != nil {
		if err := restore(sim, opt.Resume, Steps(sc), opt.Notice); err != nil {
			return nil, err
		}
	} else if err := checkStartOverlap(&cur.Model, be); err != nil {
		return nil, fmt.Errorf("%s: %w", sc.Source, err)
	}
	grd, err := newGuard(sc, sim)
	if err != nil {
		return nil, err
	}
	of, err := openOutDir(sc, opt)
	if err != nil {
		return nil, err
	}
	defer of.release()
	w, err := newWriters(opt.OutDir, len(sc.Trace) > 0, of.statsEnd, of.traceEnd)
	if err != nil {
		return nil, err
	}
	defer w.close()
	var rx *reactions
	if wantReactions(sc, opt) {
		rx = newReactions(&cur.Model)
		if err := w.openReactions(of.reactionsEnd); err != nil {
			return nil, err
		}
	}
	resumeStep := -1
	if opt.Resume != nil {
		resumeStep = opt.Resume.Step
	}
	mt, err := newMeter(&cur, opt.OutDir, resumeStep)
	if err != nil {
		return nil, err
	}
	defer mt.close()

	steps := Steps(sc)
	if opt.DumpStep < 0 || opt.DumpStep > steps {
		return nil, fmt.Errorf("run: dump step %d is not one of the run's steps 1…%d", opt.DumpStep, steps)
	}
	if opt.DumpStep > 0 && opt.DumpDir == "" {
		return nil, errors.New("run: dump step without a folder")
	}
	sum := &Summary{Scene: sc.Name, Source: sc.Source, Description: sc.Description, Params: sc.Params,
		Backend: be.Name(), Settings: sc.Settings, Bodies: len(cur.Model.Bodies), Doc: sc.Doc}
	if len(sc.Entering) > 0 {
		sum.BodiesTotal = sc.TotalBodies()
	}
	if sum.Backend == "cpu" {
		sum.CPUSIMD = cpuref.SIMD()
	}
	if cb, ok := be.(engine.Enveloper); ok {
		sum.Envelope = cb.Envelope()
	}
	sum.Host, _ = os.Hostname()
	if db, ok := be.(engine.DeviceIdentifier); ok {
		d := db.DeviceIdentity()
		sum.Device = &DeviceSummary{Index: d.Index, Name: d.Name, UUID: d.UUID, PCI: d.PCI}
	}
	var state engine.State
	var frames *vtk.Recorder
	if opt.VTKEvery > 0 {
		if frames, err = vtk.NewRecorder(opt.OutDir, &cur.Model, opt.VTKEvery, opt.VTKContacts, sim.Steps()); err != nil {
			return nil, err
		}
		if rx != nil {
			frames.SetReactions(rx.force, rx.torque)
		}
		if err := frames.Frame(sim.Steps(), sim.Time(), steps, sim); err != nil {
			return nil, err
		}
	}
	var npzFrames *npzRecorder
	if opt.NPZEvery > 0 {
		if npzFrames, err = newNPZRecorder(opt.OutDir, opt.NPZEvery, sim.Steps()); err != nil {
			return nil, err
		}
		gs, err := grd.state()
		if err != nil {
			return nil, err
		}
		if err := npzFrames.frame(sim.Steps(), sim.Time(), steps, sim, gs); err != nil {
			return nil, err
		}
	}
	traced := present(sc.Trace, len(cur.Model.Bodies), nil) // the traced bodies present
	var stepTimes stepTimer
	rb, _ := be.(interface{ ReadBackBytes() int64 })
	var readBack0 int64
	if rb != nil {
		readBack0 = rb.ReadBackBytes()
	}
	start := time.Now()
	var last engine.StepStats
	var runErr error
	stepFailed := false // by an error of Sim.Step or of the guard
	for k := sim.Steps(); k < steps; k++ {
		if err := ctx.Err(); err != nil {
			runErr = fmt.Errorf("stopped at step %d of %d: %w", k, steps, err)
			break
		}
		st, err := sim.Step()
		if err == nil {
			err = grd.check(sim)
		}
		if err != nil {
			runErr, stepFailed = err, true
			break
		}
		last = st
		if st.Step == opt.DumpStep {
			if err := dumpProblem(sim, sc, be, st, opt); err != nil {
				runErr = err
				break
			}
		}
		stepTimes.add(st.StepSeconds)
		sum.CollideSecondsSum += st.CollideSeconds
		sum.SolveSecondsSum += st.SolveSeconds
		sum.BuildSecondsSum += st.BuildSeconds
		sum.IntegrateSecondsSum += st.IntegrateSeconds
		sum.IterationsTotal += st.Solve.Iterations
		sum.ProductsTotal += st.Solve.Products
		if st.Contacts > 0 && sc.Settings.Tol > 0 && !st.Solve.Converged {
			sum.NotConverged++
		}
		if err := w.stats(st, len(cur.Model.Bodies)); err != nil {
			runErr = err
			break
		}
		if rx != nil {
			if err := rx.update(sim, st.Step); err != nil {
				runErr = err
				break
			}
			if err := w.reactions(st.Step, st.Time, rx); err != nil {
				runErr = err
				break
			}
		}
		if err := mt.step(sim, be, st); err != nil {
			runErr = err
			break
		}
		if len(sc.Trace) > 0 {
			gs, err := grd.state()
			if err != nil {
				runErr = err
				break
			}
			if err := w.trace(st.Step, st.Time, traced, gs); err != nil {
				runErr = err
				break
			}
		}
		if frames != nil {
			if err := frames.Frame(st.Step, st.Time, steps, sim); err != nil {
				runErr = err
				break
			}
		}
		if npzFrames != nil && npzFrames.due(st.Step, steps) {
			gs, err := grd.state()
			if err != nil {
				runErr = err
				break
			}
			if err := npzFrames.frame(st.Step, st.Time, steps, sim, gs); err != nil {
				runErr = err
				break
			}
		}
		// Only a pour with bodies still to enter is checked. AtEnd reads
		// the last step's problem, which Grow drops: no body enters after
		// the last step of such a run.
		if len(cur.Model.Bodies) < sc.TotalBodies() && (opt.AtEnd == nil || st.Step < steps) {
			grew, err := enter(pour, sim, grd, rx, frames)
			if err != nil {
				runErr = err
				break
			}
			if grew {
				traced = present(sc.Trace, len(cur.Model.Bodies), traced)
			}
		}
		if opt.Progress != nil {
			opt.Progress(Progress{Step: st.Step, Steps: steps, Time: st.Time, Contacts: st.Contacts,
				Iterations: st.Solve.Iterations, Residual: st.Solve.Residual, Elapsed: time.Since(start), Start: ckp.first})
		}
		if opt.CheckpointEvery > 0 && st.Step%opt.CheckpointEvery == 0 {
			path, err := ckp.write(sim)
			if err != nil {
				runErr = err
				break
			}
			sum.Checkpoint = path
		}
	}
	if rb != nil {
		sum.StepReadBackBytes = rb.ReadBackBytes() - readBack0
	}
	runErr = ckp.finish(ctx, sim, sum, runErr)
	sum.WallSeconds = time.Since(start).Seconds()
	sum.Steps = sim.Steps()
	sum.SimTime = sim.Time()
	if stepFailed {
		runErr = grd.stop(sim, ckp, sum, runErr)
	}
	if n := stepTimes.n; n > 0 {
		sum.IterationsMean = float64(sum.IterationsTotal) / float64(n)
		sum.ProductsMean = float64(sum.ProductsTotal) / float64(n)
		sum.StepSecondsMean = stepTimes.mean()
		sum.StepSecondsMedian = stepTimes.median()
	}
	if stepFailed {
		gs, err := grd.state()
		if err != nil {
			return nil, errors.Join(runErr, err)
		}
		state.CopyFrom(gs)
	} else if err := be.ReadState(&state); err != nil {
		return nil, errors.Join(runErr, err)
	}
	var con engine.Contacts
	if err := be.ReadContacts(&con); err != nil {
		return nil, errors.Join(runErr, err)
	}
	sum.Bodies = state.Len()
	sum.Final = finalFigures(&cur, &state, &con, last)
	if !stepFailed {
		if sum.Merit, err = mt.finish(sim); err != nil {
			return nil, errors.Join(runErr, err)
		}
	}
	sum.Reactions = rx.summary()
	if err := w.final(&state); err != nil {
		return nil, errors.Join(runErr, err)
	}
	if err := writeJSONAtomic(filepath.Join(opt.OutDir, "summary.json"), sum); err != nil {
		return nil, errors.Join(runErr, err)
	}
	if err := w.close(); err != nil {
		return nil, errors.Join(runErr, err)
	}
	if runErr == nil && opt.AtEnd != nil {
		runErr = opt.AtEnd(sim)
	}
	return sum, runErr
}

// enter lets a pour's due bodies in after a step (pourer) and brings the
// guard's last good state, the reactions and the frames' model up to
// them; it returns whether any entered.
func enter(pour *pourer, sim *engine.Sim, grd *guard, rx *reactions, frames *vtk.Recorder) (bool, error) {
	grew, err := pour.enter(sim, grd.state)
	if err != nil || !grew {
		return false, err
	}
	if err := grd.retake(sim); err != nil {
		return false, err
	}
	if rx != nil {
		rx.grow()
	}
	if frames != nil {
		frames.SetModel(pour.model)
		if rx != nil {
			frames.SetReactions(rx.force, rx.torque)
		}
	}
	return true, nil
}

// dumpProblem writes the problem of the step just taken (see
// Options.DumpStep).
func dumpProblem(sim *engine.Sim, sc *scene.Scene, be engine.Backend, st engine.StepStats, opt Options) error {
	if st.Contacts == 0 {
		return fmt.Errorf("run: step %d has no contacts: no problem to dump", st.Step)
	}
	name := fmt.Sprintf("%s-step%d", sc.Name, st.Step)
	p, err := fclib.FromEngine(sim.Problem(), name)
	if err != nil {
		return fmt.Errorf("run: dump step %d on backend %s: %w", st.Step, be.Name(), err)
	}
	s := sim.Settings()
	p.Description = fmt.Sprintf("scene %s (%s), step %d, t = %g s, h = %g s, %d contacts, backend %s; solved in the run by %s in %d iterations to residual %g (eq. 25, g_d = %g)",
		sc.Name, sc.Source, st.Step, st.Time, s.Dt, st.Contacts, be.Name(), s.Solver, st.Solve.Iterations, st.Solve.Residual, s.Gd)
	if err := fclib.Write(opt.DumpDir, p); err != nil {
		return fmt.Errorf("run: dump step %d: %w", st.Step, err)
	}
	if opt.Notice != nil {
		opt.Notice(fmt.Sprintf("wrote the problem of step %d (%d contacts, %d entries of N) to %s", st.Step, p.NC, len(p.Entries), opt.DumpDir))
	}
	return nil
}

// FinalFigures returns the end-of-run observables that summary.json
// reports, from the scene, the body state, the contacts and the last step's
// statistics (package bench reports them for runs it steps itself).
func FinalFigures(sc *scene.Scene, s *engine.State, c *engine.Contacts, last engine.StepStats) Final {
	return finalFigures(sc, s, c, last)
}

func finalFigures(sc *scene.Scene, s *engine.State, c *engine.Contacts, last engine.StepStats) Final {
	f := Final{Contacts: c.Len(), Iterations: last.Solve.Iterations, Residual: last.Solve.Residual,
		Objective: last.Solve.Objective, FixedForce: last.FixedForce}
	for _, phi := range c.Phi {
		f.MaxPenetration = math.Max(f.MaxPenetration, -phi)
	}
	movable := 0
	escaped := 0
	g := sc.Model.Gravity.Len()
	for i, b := range sc.Model.Bodies {
		if b.Fixed || b.Shape.Kind == engine.Plane {
			continue
		}
		movable++
		f.Weight += b.Mass * g
		p := mgl64.Vec3{s.Pos[3*i], s.Pos[3*i+1], s.Pos[3*i+2]}
		f.MeanHeight += p[2]
		f.MaxSpeed = math.Max(f.MaxSpeed, mgl64.Vec3{s.Vel[3*i], s.Vel[3*i+1], s.Vel[3*i+2]}.Len())
		if d := sc.Domain; d != nil {
			for k := 0; k < 3; k++ {
				if p[k] < d.Min[k] || (k < 2 && p[k] > d.Max[k]) {
					escaped++
					break
				}
			}
		}
	}
	if movable > 0 {
		f.MeanHeight /= float64(movable)
	}
	if sc.Domain != nil {
		f.Escaped = &escaped
	}
	return f
}

// writeJSONAtomic writes v as indented JSON to a temporary file, syncs it
// and renames it over path, so a reader never sees a partial file.
func writeJSONAtomic(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("run: encode %s: %w", filepath.Base(path), err)
	}
	if err := atomicfile.WriteBytes(path, append(data, '\n')); err != nil {
		return fmt.Errorf("run: %w", err)
	}
	return nil
}
