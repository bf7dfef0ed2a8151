package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/gpusim/gpusim/checkpoint"
	"github.com/gpusim/gpusim/run"
	"github.com/gpusim/gpusim/scene"
)

// newLogger returns the logger of gpusim run: log/slog to w, text (without
// time stamps) or JSON lines (with them); level Info, Debug with verbose,
// Warn with quiet.
func newLogger(w io.Writer, verbose, quiet, json bool) *slog.Logger {
	level := slog.LevelInfo
	switch {
	case quiet:
		level = slog.LevelWarn
	case verbose:
		level = slog.LevelDebug
	}
	opts := &slog.HandlerOptions{Level: level}
	if json {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	opts.ReplaceAttr = func(groups []string, a slog.Attr) slog.Attr {
		if len(groups) == 0 && a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

// physicsFlags change what a run computes; a resumed run takes all of
// them from its checkpoint.
var physicsFlags = []string{"solver", "dt", "tol", "max-iter", "warm-start", "set", "trace"}

// loadRunScene loads the scene of gpusim run: the one named by the single
// positional argument, or with --resume the checkpoint's (which takes no
// positional argument and none of physicsFlags).
func loadRunScene(pos []string, sets []string, resume string, set map[string]bool, dumpStep int, lopt scene.LoadOptions) (*scene.Scene, *checkpoint.Checkpoint, error) {
	if !set["resume"] {
		if len(pos) != 1 {
			return nil, nil, usageError{fmt.Errorf("run takes one scene name or file, got %d arguments (gpusim scenes lists the built-in ones)", len(pos))}
		}
		sc, err := scene.LoadWith(pos[0], sets, lopt)
		if err != nil {
			return nil, nil, usageError{err}
		}
		return sc, nil, nil
	}
	if len(pos) != 0 {
		return nil, nil, usageError{fmt.Errorf("--resume takes the scene from the checkpoint: drop the scene argument %q", pos[0])}
	}
	var bad []string
	for _, f := range physicsFlags {
		if set[f] {
			bad = append(bad, "--"+f)
		}
	}
	if dumpStep > 0 {
		bad = append(bad, "--dump-problem")
	}
	if len(bad) > 0 {
		return nil, nil, usageError{fmt.Errorf("--resume continues the run with the checkpoint's scene and settings: %s cannot change them", strings.Join(bad, ", "))}
	}
	sc, ck, err := run.Resume(resume)
	if err != nil {
		return nil, nil, usageError{fmt.Errorf("--resume: %w", err)}
	}
	return sc, ck, nil
}

// defaultOut is the output folder when --out is not given: out/SCENE, and
// out/SCENE-from-STEP for a resumed run (so that the original run's files
// stay as they are).
func defaultOut(sc *scene.Scene, ck *checkpoint.Checkpoint) string {
	if ck != nil {
		return fmt.Sprintf("out/%s-from-%d", fileName(sc.Name), ck.Step)
	}
	// scene checks names where it reads them; fileName is a second guard
	// that keeps the folder inside out/ whatever the name.
	return "out/" + fileName(sc.Name)
}

// interruptContext returns a context that the first SIGINT or SIGTERM
// cancels: the run stops after its current step and writes a checkpoint
// and its outputs. A second signal calls exit(exitFailure) at once. stop
// ends the signal handling.
func interruptContext(log *slog.Logger, exit func(int)) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-sig:
			log.Warn("stopping after the current step, then writing a checkpoint and the outputs (interrupt again to quit at once)", "signal", s.String())
			cancel()
		case <-done:
			return
		}
		select {
		case <-sig:
			log.Error("interrupted again: quitting without writing the outputs")
			exit(exitFailure)
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(sig)
		close(done)
		cancel()
	}
}

// runProgress returns the progress callback of gpusim run: a debug line per
// step when verbose, else a progress bar on a terminal (not with quiet or
// JSON logs), else none.
func runProgress(stderr io.Writer, log *slog.Logger, verbose, quiet, json bool) func(run.Progress) {
	switch {
	case verbose:
		return func(p run.Progress) {
			log.Debug("step", "step", p.Step, "of", p.Steps, "t_s", p.Time, "contacts", p.Contacts,
				"iterations", p.Iterations, "residual", p.Residual)
		}
	case !quiet && !json && isTerminal(stderr):
		return progressBar(stderr)
	}
	return nil
}

// progressBar redraws one status line (simulated time, steps per second
// over the steps this process took, ETA) at most ten times a second.
func progressBar(w io.Writer) func(run.Progress) {
	var last time.Time
	return func(p run.Progress) {
		if p.Step != p.Steps && time.Since(last) < 100*time.Millisecond {
			return
		}
		last = time.Now()
		rate := 0.0
		if p.Elapsed > 0 {
			rate = float64(p.Step-p.Start) / p.Elapsed.Seconds()
		}
		eta := "?"
		if rate > 0 && !math.IsInf(rate, 0) {
			eta = time.Duration(float64(p.Steps-p.Step) / rate * float64(time.Second)).Round(time.Second).String()
		}
		fmt.Fprintf(w, "\r\x1b[Kstep %d/%d  t = %.4g s  contacts %d  iterations %d  residual %.3g  %.1f steps/s  ETA %s",
			p.Step, p.Steps, p.Time, p.Contacts, p.Iterations, p.Residual, rate, eta)
	}
}

// interrupted turns the error of a run stopped by a signal into one line
// naming the checkpoint to resume from; other errors pass unchanged.
// Several errors (errors.Join) are said on one line.
func interrupted(sum *run.Summary, runErr error, out string) error {
	if runErr == nil {
		return nil
	}
	if sum == nil || sum.InterruptedAt == nil || sum.Checkpoint == "" || !errors.Is(runErr, context.Canceled) {
		return oneLine{runErr}
	}
	var inner interface{ Unwrap() []error }
	if errors.As(runErr, &inner) {
		return oneLine{runErr} // the checkpoint or the outputs failed too: say everything
	}
	return fmt.Errorf("interrupted after step %d; outputs so far in %s; resume with: gpusim run --resume %s", *sum.InterruptedAt, out, sum.Checkpoint)
}

// oneLine is an error said on one line: errors.Join puts a newline between
// the errors it joins (a run whose disk is full fails to write stats.csv,
// then final.csv and summary.json).
type oneLine struct{ error }

func (e oneLine) Error() string { return strings.ReplaceAll(e.error.Error(), "\n", "; ") }
func (e oneLine) Unwrap() error { return e.error }

// checkOverwrite refuses --overwrite with a --resume checkpoint inside the
// output folder: clearing the folder would remove the checkpoint and the
// rows it continues (a resume into its own folder continues the files
// there without --overwrite).
func checkOverwrite(overwrite bool, resume, out string) error {
	if !overwrite || resume == "" {
		return nil
	}
	rel, err := filepath.Rel(mustAbs(out), mustAbs(resume))
	if err == nil && filepath.IsLocal(rel) {
		return usageError{fmt.Errorf("--overwrite would remove the checkpoint --resume %s continues from (it is in --out %s): without --overwrite the resumed run continues the files of its folder", resume, out)}
	}
	return nil
}

func mustAbs(p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	return a
}

// logRunEnd logs the end of a run (Info): steps, simulated and wall time,
// the output folder and the last checkpoint, if any.
func logRunEnd(log *slog.Logger, sum *run.Summary, out string) {
	if sum == nil {
		return
	}
	attrs := []any{"steps", sum.Steps, "sim_time_s", sum.SimTime, "wall_s", sum.WallSeconds, "out", out}
	if sum.Checkpoint != "" {
		attrs = append(attrs, "checkpoint", sum.Checkpoint)
	}
	log.Info("run ended", attrs...)
}
