package run

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/gpusim/gpusim/checkpoint"
	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/scene"
)

// Resume reads the checkpoint at path and rebuilds the scene of its run:
// the model from the checkpoint's scene document (which must rebuild to
// the model the run started from, by checkpoint.ModelHash; with a pour,
// the state holds the bodies that had entered, and Run continues with
// the scene's first that many, scene.Scene.ModelWith), and the settings,
// length (Steps, Duration: counted from the start of the original run)
// and traced bodies the run had. Run the scene with Options.Resume set to
// the checkpoint to continue the run after the checkpoint's step.
func Resume(path string) (*scene.Scene, *checkpoint.Checkpoint, error) {
	ck, err := checkpoint.Read(path)
	if err != nil {
		return nil, nil, err
	}
	sc, err := scene.Parse(ck.Scene, ck.Source, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("checkpoint %s: its scene document: %w", path, err)
	}
	// Without a pour, TotalBodies is n and the state must hold n bodies.
	if n, k := len(sc.Model.Bodies), ck.State.Len(); k < n || k > sc.TotalBodies() {
		if len(sc.Entering) > 0 {
			return nil, nil, fmt.Errorf("checkpoint %s: the scene document builds %d bodies at the start and %d in all (a pour), the state holds %d", path, n, sc.TotalBodies(), k)
		}
		return nil, nil, fmt.Errorf("checkpoint %s: the scene document builds %d bodies, the state holds %d", path, n, k)
	}
	if checkpoint.ModelHash(&sc.Model) != ck.Model {
		return nil, nil, fmt.Errorf("checkpoint %s: the scene document builds a model (shapes, masses, materials, forces) other than the one the run stepped; was the checkpoint written by another version of gpusim?", path)
	}
	sc.Settings = ck.Settings
	sc.Steps, sc.Duration = ck.Steps, ck.Duration
	if len(sc.Entering) == 0 {
		sc.Trace = append([]int{}, ck.Trace...)
	} // else the document's run.trace is the run's (header)
	sc.Params = ck.Params
	return sc, ck, nil
}

// checkpointer writes the checkpoints of a run into OutDir/checkpoints.
type checkpointer struct {
	sc     *scene.Scene
	dir    string
	ck     checkpoint.Checkpoint
	warm   engine.WarmStartData
	notice func(string)
	warned bool
	// first is the step the run starts from (Options.Resume's, else 0).
	first int
}

func newCheckpointer(sc *scene.Scene, opt Options) *checkpointer {
	c := &checkpointer{sc: sc, dir: filepath.Join(opt.OutDir, "checkpoints"), notice: opt.Notice}
	if opt.Resume != nil {
		c.first = opt.Resume.Step
	}
	return c
}

// write saves the run after the sim's last step and returns the file's
// path. A backend that cannot save its warm-start memory gets a checkpoint
// without it, announced once.
func (c *checkpointer) write(sim *engine.Sim) (string, error) {
	if err := c.header(); err != nil {
		return "", err
	}
	c.ck.Step = sim.Steps()
	c.ck.Settings = sim.Settings()
	ws, err := sim.Snapshot(&c.ck.State, &c.warm)
	c.ck.Trace = present(c.sc.Trace, c.ck.State.Len(), nil)
	if errors.Is(err, engine.ErrNoWarmStartData) {
		if !c.warned && c.notice != nil {
			c.notice(fmt.Sprintf("checkpoints hold no warm-start data (%v): a run resumed from them starts its first solve from zero impulses", err))
		}
		c.warned = true
	} else if err != nil {
		return "", fmt.Errorf("run: checkpoint at step %d: %w", c.ck.Step, err)
	}
	c.ck.Warm = ws
	return c.save()
}

// header fills in the parts of the checkpoint that stay the same through
// the run (the first time it is called).
func (c *checkpointer) header() error {
	if c.ck.Scene == nil {
		sc := c.sc
		if sc.Doc == nil {
			return fmt.Errorf("run: %s: the scene has no document to write into a checkpoint", sc.Source)
		}
		d := sc.Doc
		if len(sc.Entering) > 0 {
			// A checkpoint's trace ids must be bodies of its state: with a
			// pour, the document carries the run's trace, bodies still to
			// enter included, and Resume takes it from there.
			dc := *sc.Doc
			dc.Run.Trace = append([]int{}, sc.Trace...)
			d = &dc
		}
		doc, err := scene.Dump(d)
		if err != nil {
			return err
		}
		c.ck = checkpoint.Checkpoint{Steps: sc.Steps, Duration: sc.Duration, Trace: sc.Trace, Source: sc.Source,
			Params: sc.Params, Scene: doc, Model: checkpoint.ModelHash(&sc.Model)}
	}
	return nil
}

// save writes c.ck into the checkpoint folder and returns the file's path.
func (c *checkpointer) save() (string, error) {
	if err := os.MkdirAll(c.dir, 0o755); err != nil {
		return "", fmt.Errorf("run: checkpoint folder: %w", err)
	}
	path := filepath.Join(c.dir, checkpoint.FileName(c.ck.Step))
	if err := checkpoint.Write(path, &c.ck); err != nil {
		return "", fmt.Errorf("run: %w", err)
	}
	return path, nil
}

// restore puts sim where the checkpoint ck left its run; steps is where
// the run ends.
func restore(sim *engine.Sim, ck *checkpoint.Checkpoint, steps int, notice func(string)) error {
	if ck.Step > steps {
		return fmt.Errorf("run: the checkpoint is at step %d, past the run's end at step %d (--steps and --duration count from the start of the run)", ck.Step, steps)
	}
	err := sim.Restore(ck.Step, &ck.State, ck.Warm)
	if errors.Is(err, engine.ErrNoWarmStartData) {
		if notice != nil {
			notice(fmt.Sprintf("resuming without the checkpoint's warm-start data (%v): the first solve starts from zero impulses", err))
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("run: resume at step %d: %w", ck.Step, err)
	}
	if ck.Warm == nil && sim.Settings().WarmStart && ck.Step > 0 && notice != nil {
		notice("the checkpoint holds no warm-start data: the first solve after it starts from zero impulses")
	}
	return nil
}

// finish completes the summary of a run that ended with runErr: the step
// it resumed from and, if ctx stopped it, the step it stopped after and a
// checkpoint of that step (written unless the last periodic one is of it).
// It returns runErr with the checkpoint's error, if any, joined.
func (c *checkpointer) finish(ctx context.Context, sim *engine.Sim, sum *Summary, runErr error) error {
	sum.ResumedFrom = c.first
	if ctx.Err() == nil || !errors.Is(runErr, ctx.Err()) {
		return runErr
	}
	k := sim.Steps()
	sum.InterruptedAt = &k
	if sum.Checkpoint != "" && c.ck.Step == k {
		return runErr
	}
	path, err := c.write(sim)
	if err != nil {
		return errors.Join(runErr, err)
	}
	sum.Checkpoint = path
	return runErr
}
