package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/gpusim/gpusim/bench"
	"github.com/gpusim/gpusim/cpuref"
	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/gpu"
	"github.com/gpusim/gpusim/traffic"
)

// cmdBench runs the benchmark matrix (or the scaling series) on the chosen
// backends, each case in a fresh process (gpusim bench-case), and writes
// OUT/bench.md and OUT/bench.json.
func cmdBench(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("gpusim bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		backends = fs.String("backends", "", "comma-separated backends: cpu, vulkan (default: cpu, and vulkan when a Vulkan device with float64 exists)")
		cases    = fs.String("cases", "", "comma-separated case names (default: the whole matrix, or series with --scaling)")
		steps    = fs.Int("steps", 0, "measured steps of every case (0: each case's)")
		warmup   = fs.Int("warmup", -1, "warm-up steps of every case (-1: each case's)")
		out      = fs.String("out", "out/bench", "output folder: bench.md and bench.json")
		quick    = fs.Bool("quick", false, "the CI-sized matrix: tiny N, 2 steps")
		scaling  = fs.Bool("scaling", false, "the scaling series instead of the matrix: settle from a settled-like state, N = 1000 … 64 000")
		workers  = fs.String("workers", "", "comma-separated worker counts: measure every case on the CPU path with each (settings.workers) and report the speed-up over the fewest")
		model    = fs.Bool("traffic", false, "print the traffic models of an APGD iteration (bytes per contact: the device's kernel by kernel, with the time per step it predicts for a bed of 1 000 000 spheres; the CPU path's loop by loop) and exit")
		device   = fs.String("device", "", "Vulkan device: index, UUID (GPU-…), PCI address or name substring; default: the best GPU among those CUDA_VISIBLE_DEVICES leaves visible")
		precs    = fs.String("precision", "", "comma-separated settings.precision values (double, mixed): measure every case with each, side by side (default: each scene's)")
	)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: gpusim bench [flags]\n\nCases of the matrix: %s\nQuick matrix: %s\nScaling series: %s\n\nFlags:\n",
			caseNames(bench.Matrix(false)), caseNames(bench.Matrix(true)), caseNames(bench.ScalingCases()))
		fs.PrintDefaults()
	}
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageError{fmt.Errorf("bench takes no arguments, got %q", pos)}
	}
	if *model {
		// The H200's bed-1000000 (docs/bench-gpu.md): 2 980 000 contacts.
		const bodies, contacts = 1_000_000, 2_980_000
		fmt.Fprintf(stdout, "Device APGD iteration, bodies per contact %d/%d:\n\n", bodies, contacts)
		if err := gpu.WriteTrafficModel(stdout, float64(bodies)/contacts, contacts, gpu.DatasheetBandwidths, gpu.APGDTraffic{Arms: true}); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "\nDevice APGD iteration with settings.precision \"mixed\" (float32 work vectors and Jacobian), bodies per contact %d/%d:\n\n", bodies, contacts)
		if err := gpu.WriteTrafficModel(stdout, float64(bodies)/contacts, contacts, gpu.DatasheetBandwidths, gpu.APGDTraffic{F32: true, Arms: true}); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "\nCPU path's APGD iteration, bodies per contact %d/%d (a model of spheres of one material with this many contacts: the Jacobian's 8 values, μ and cohesion held once):\n\n", bodies, contacts)
		_, err := traffic.WriteTable(stdout, "loop", cpuref.APGDTraffic{Compact: true}.Passes(), float64(bodies)/contacts)
		return err
	}
	if *steps < 0 {
		return usageError{fmt.Errorf("--steps %d must be ≥ 1 (0: each case's)", *steps)}
	}
	if *warmup < -1 {
		return usageError{fmt.Errorf("--warmup %d must be ≥ 0", *warmup)}
	}
	if *quick && *scaling {
		return usageError{errors.New("--quick and --scaling exclude each other")}
	}
	if *out == "" {
		return usageError{errors.New("--out: empty folder name")}
	}
	all := bench.Matrix(*quick)
	if *scaling {
		all = bench.ScalingCases()
	}
	chosen, err := pickCases(all, *cases, *quick)
	if err != nil {
		return usageError{err}
	}
	ws, err := parseWorkers(*workers)
	if err != nil {
		return usageError{err}
	}
	bes, err := pickBackends(*backends, stderr)
	if err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("bench: cannot find the gpusim executable to run each case in: %w", err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ps, err := parsePrecisions(*precs)
	if err != nil {
		return err
	}
	cfg := bench.Config{Backends: bes, Cases: chosen, Device: *device, Steps: *steps, Warmup: *warmup, Workers: ws, Precisions: ps,
		Exec: func(req bench.Request) (*bench.Result, error) { return execCase(ctx, self, req) },
		Progress: func(r *bench.Result) {
			if r.Error != "" {
				fmt.Fprintf(stderr, "%-14s %-28s failed: %s\n", r.Case, r.Backend, r.Error)
				return
			}
			fmt.Fprintf(stderr, "%-14s %-28s %6d bodies  %2d workers  %9.3g ms/step (median)  %.3g bytes/body\n",
				r.Case, r.Backend, r.Bodies, r.Workers, 1e3*r.Step.Median, r.BytesPerBody)
		}}
	rep, runErr := bench.Run(cfg)
	if rep == nil {
		return runErr
	}
	rep.Command = "gpusim bench " + strings.Join(args, " ")
	if err := writeReport(rep, *out); err != nil {
		return errors.Join(runErr, err)
	}
	fmt.Fprintf(stdout, "wrote %s and %s\n", filepath.Join(*out, "bench.md"), filepath.Join(*out, "bench.json"))
	return runErr
}

// parsePrecisions parses --precision: distinct values of
// settings.precision.
func parsePrecisions(list string) ([]string, error) {
	if list == "" {
		return nil, nil
	}
	var ps []string
	for _, p := range strings.Split(list, ",") {
		p = strings.TrimSpace(p)
		if p != engine.PrecisionDouble && p != engine.PrecisionMixed {
			return nil, usageError{fmt.Errorf("--precision: %q is not %s or %s", p, engine.PrecisionDouble, engine.PrecisionMixed)}
		}
		if slices.Contains(ps, p) {
			return nil, usageError{fmt.Errorf("--precision: %s given twice", p)}
		}
		ps = append(ps, p)
	}
	return ps, nil
}

// parseWorkers parses --workers: distinct whole numbers from 1 to 1024,
// in the order given; empty gives none (each scene's own count).
func parseWorkers(list string) ([]int, error) {
	if strings.TrimSpace(list) == "" {
		return nil, nil
	}
	var ws []int
	for _, f := range strings.Split(list, ",") {
		w, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || w < 1 || w > 1024 {
			return nil, fmt.Errorf("--workers: %q is not a worker count from 1 to 1024", strings.TrimSpace(f))
		}
		if slices.Contains(ws, w) {
			return nil, fmt.Errorf("--workers: %d given twice", w)
		}
		ws = append(ws, w)
	}
	return ws, nil
}

func caseNames(cs []bench.Case) string {
	names := make([]string, len(cs))
	for i, c := range cs {
		names[i] = c.Name
	}
	return strings.Join(names, ", ")
}

// pickCases returns the cases named in the comma-separated list, in the
// list's order: those of all, and unless quick any other case of the
// matrix or the scaling series, bed-N and the mechanism scenes' SCENE-N
// (bench.Lookup); an empty list gives all.
func pickCases(all []bench.Case, list string, quick bool) ([]bench.Case, error) {
	if strings.TrimSpace(list) == "" {
		return all, nil
	}
	var out []bench.Case
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		found := false
		for _, c := range all {
			if c.Name == name {
				out = append(out, c)
				found = true
				break
			}
		}
		if !found && !quick {
			// Any case of the matrix or the series, bed-N or SCENE-N.
			if c, err := bench.Lookup(name); err == nil {
				out, found = append(out, c), true
			} else if strings.HasPrefix(name, "bed-") || strings.HasPrefix(name, "file:") || isMechanism(name) {
				return nil, fmt.Errorf("--cases: %w", err)
			}
		}
		if !found {
			return nil, fmt.Errorf("--cases: no case %q here (have %s, or bed-N, file:PATH, or %s-N)", name, caseNames(all), strings.Join(bench.MechanismScenes, "-N, "))
		}
	}
	return out, nil
}

// pickBackends parses --backends; empty means cpu, and vulkan when a
// Vulkan device with float64 arithmetic exists (lavapipe included), which
// is announced on stderr when there is none.
func pickBackends(list string, stderr io.Writer) ([]string, error) {
	if strings.TrimSpace(list) == "" {
		devs, err := gpu.Devices()
		if err != nil {
			fmt.Fprintf(stderr, "gpusim: no Vulkan backend (%v); benchmarking the CPU path only\n", err)
			return []string{"cpu"}, nil
		}
		for _, d := range devs {
			if d.Float64 {
				return []string{"cpu", "vulkan"}, nil
			}
		}
		fmt.Fprintln(stderr, "gpusim: no Vulkan device with float64 arithmetic; benchmarking the CPU path only")
		return []string{"cpu"}, nil
	}
	var bes []string
	for _, b := range strings.Split(list, ",") {
		b = strings.TrimSpace(b)
		switch b {
		case "cpu", "vulkan":
		default:
			return nil, usageError{fmt.Errorf("--backends: unknown backend %q (want cpu or vulkan)", b)}
		}
		for _, have := range bes {
			if have == b {
				return nil, usageError{fmt.Errorf("--backends: %s given twice", b)}
			}
		}
		bes = append(bes, b)
	}
	return bes, nil
}

// execCase runs gpusim bench-case in a fresh process and decodes its
// result.
func execCase(ctx context.Context, self string, req bench.Request) (*bench.Result, error) {
	args := []string{"bench-case", "--backend", req.Backend, "--steps", strconv.Itoa(req.Steps), "--warmup", strconv.Itoa(req.Warmup)}
	if req.Workers > 0 {
		args = append(args, "--workers", strconv.Itoa(req.Workers))
	}
	if req.Precision != "" {
		args = append(args, "--precision", req.Precision)
	}
	if req.Baseline {
		args = append(args, "--baseline")
	} else {
		args = append(args, "--case", req.Case)
	}
	if req.Device != "" {
		args = append(args, "--device", req.Device)
	}
	cmd := exec.CommandContext(ctx, self, args...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(e.String()), "gpusim: "))
		if msg == "" {
			msg = err.Error()
		}
		return nil, errors.New(msg)
	}
	var r bench.Result
	if err := json.Unmarshal(o.Bytes(), &r); err != nil {
		return nil, fmt.Errorf("bench-case printed no result: %w", err)
	}
	return &r, nil
}

// cmdBenchCase is the hidden command that measures one case in this
// process and prints its result as JSON.
func cmdBenchCase(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("gpusim bench-case", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var req bench.Request
	fs.StringVar(&req.Case, "case", "", "case name")
	fs.StringVar(&req.Backend, "backend", "cpu", "cpu or vulkan")
	fs.StringVar(&req.Device, "device", "", "Vulkan device")
	fs.IntVar(&req.Steps, "steps", 0, "measured steps (0: the case's)")
	fs.IntVar(&req.Warmup, "warmup", -1, "warm-up steps (-1: the case's)")
	fs.IntVar(&req.Workers, "workers", 0, "settings.workers (0: the scene's)")
	fs.StringVar(&req.Precision, "precision", "", "settings.precision (empty: the scene's)")
	fs.BoolVar(&req.Baseline, "baseline", false, "only open the backend and report the peak memory")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Errorf("bench-case takes no arguments, got %q", fs.Args())}
	}
	if req.Case == "" && !req.Baseline {
		return usageError{errors.New("bench-case: --case NAME or --baseline")}
	}
	r, err := bench.Measure(req)
	if err != nil {
		return err
	}
	return json.NewEncoder(stdout).Encode(r)
}

// writeReport writes OUT/bench.md and OUT/bench.json.
func writeReport(rep *bench.Report, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	var md, js bytes.Buffer
	md.WriteString("# gpusim bench\n\n")
	if err := rep.WriteMarkdown(&md); err != nil {
		return err
	}
	if err := rep.WriteJSON(&js); err != nil {
		return err
	}
	for name, data := range map[string][]byte{"bench.md": md.Bytes(), "bench.json": js.Bytes()} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return fmt.Errorf("bench: %w", err)
		}
	}
	return nil
}

// isMechanism reports a case name of the form SCENE-… for a mechanism
// scene (bench.Mechanism).
func isMechanism(name string) bool {
	for _, sc := range bench.MechanismScenes {
		if strings.HasPrefix(name, sc+"-") {
			return true
		}
	}
	return false
}
