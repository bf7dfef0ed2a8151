package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/gpusim/gpusim/internal/inputfile"
	"github.com/gpusim/gpusim/internal/outdir"
	"github.com/gpusim/gpusim/sweep"
)

// cmdSweep runs a parameter sweep (package sweep): all its runs locally,
// or one with --index / --index-from-env.
func cmdSweep(args []string, stdout, stderr io.Writer) error {
	return sweepCLI(args, stdout, stderr, os.Getenv)
}

func sweepCLI(args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	fs := newFlagSet("gpusim sweep", stderr, `Usage: gpusim sweep SPEC [flags]

Runs the runs of the sweep SPEC (a JSON file; see docs/sweeps.md) into
OUT/runs/NNNN after writing OUT/manifest.json. Runs complete already (DONE
marker) are skipped and incomplete ones run again, so a stopped sweep is
finished by the same command. With several runs at once on the CPU path each
run gets settings.workers = cores / jobs unless the spec sets it. Ctrl-C
starts no more runs and stops the running ones (they stay incomplete).
A whole sweep locks OUT alone; --index runs share it, each locking its run's
folder: a folder in use by another gpusim is refused (exit status 2).
Exit status 1 if any run failed or was stopped, 2 for a bad spec.

Flags:
`)
	var (
		out     = fs.String("out", "", "sweep folder (default out/sweep-NAME, NAME the spec's name)")
		jobs    = fs.Int("jobs", 0, "runs at once (default: one per GPU for Vulkan runs, the GPUs CUDA_VISIBLE_DEVICES leaves if set, else one per CPU core)")
		index   = fs.Int("index", -1, "run only run I (0-based; for scheduler arrays)")
		fromEnv = fs.Bool("index-from-env", false, "run only the run numbered by SLURM_ARRAY_TASK_ID or JOB_COMPLETION_INDEX")
		list    = fs.Bool("list", false, "write the manifest, print the runs (a line each) and run nothing")
		quiet   = fs.Bool("quiet", false, "warnings and errors only")
		verbose = fs.Bool("verbose", false, "debug logging")
		logJSON = fs.Bool("log-json", false, "log as JSON lines (log/slog)")
		maxIn   = fs.String("max-input-size", "", "largest spec file read, in bytes with an optional suffix (default 256M); off: no cap")
	)
	specPath, err := parseOne(fs, args, "sweep takes one spec file")
	if err != nil {
		return err
	}
	set := setFlags(fs)
	if set["index"] && *fromEnv {
		return usageError{errors.New("--index and --index-from-env: give one")}
	}
	if *jobs < 0 || (set["jobs"] && *jobs == 0) {
		return usageError{fmt.Errorf("--jobs %d: want a number of runs ≥ 1", *jobs)}
	}
	log := newLogger(stderr, *verbose, *quiet, *logJSON)
	inputCap, err := bytesFlag("max-input-size", *maxIn)
	if err != nil {
		return err
	}
	if inputCap == 0 {
		inputCap = inputfile.DefaultScene
	}
	spec, err := sweep.LoadWith(specPath, inputCap)
	if err != nil {
		return usageError{err}
	}
	if *out == "" {
		*out = filepath.Join("out", "sweep-"+fileName(spec.Name))
	}
	runs := spec.Expand()
	var only []int
	switch {
	case *fromEnv:
		i, err := sweep.IndexFromEnv(getenv)
		if err != nil {
			return usageError{err}
		}
		*index = i
		fallthrough
	case set["index"]:
		if *index < 0 || *index >= len(runs) {
			return usageError{fmt.Errorf("run index %d out of range: %s has runs 0 to %d", *index, specPath, len(runs)-1)}
		}
		only = []int{*index}
	}
	check := runs
	if only != nil {
		check = runs[*index : *index+1]
	}
	if err := spec.Validate(check); err != nil {
		return usageError{err}
	}
	if err := sweep.WriteManifest(*out, sweep.NewManifest(spec)); err != nil {
		if errors.Is(err, sweep.ErrSpecChanged) {
			return usageError{err}
		}
		return err
	}
	if *list {
		for _, r := range runs {
			fmt.Fprintf(stdout, "%d\t%s\t%s\n", r.Index, r.Folder, strings.Join(r.Sets, " "))
		}
		return nil
	}
	opt := sweep.Options{Dir: *out, Jobs: *jobs, Only: only, Log: log}
	if only != nil {
		opt.Jobs = 1
	}
	ctx, stop := interruptContext(log, os.Exit)
	defer stop()
	rep, err := sweep.Execute(ctx, spec, opt)
	if rep != nil {
		log.Info("sweep ended", "out", *out, "done", len(rep.Done), "skipped_complete", len(rep.Skipped),
			"failed", len(rep.Failed), "incomplete", len(rep.Incomplete))
		if only == nil && err == nil && !*quiet {
			fmt.Fprintf(stdout, "%d runs complete in %s; gpusim collect %s makes the table\n", len(runs), *out, *out)
		}
	}
	if errors.Is(err, outdir.ErrBusy) {
		// Another gpusim holds the folder (or the run's): nothing was run
		// there; the command line must wait or name another folder.
		return usageError{oneLine{err}}
	}
	if err != nil {
		return oneLine{err}
	}
	return nil
}
