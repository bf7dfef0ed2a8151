package run

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gpusim/gpusim/internal/outdir"
	"github.com/gpusim/gpusim/scene"
	"github.com/gpusim/gpusim/vtk"
)

// ErrHasOutputs is wrapped by the error of Run when the output folder holds
// another run's outputs and the run neither overwrites nor continues them.
var ErrHasOutputs = errors.New("holds the outputs of another run")

// ErrBusy is wrapped by the error of Run when another process holds the
// output folder's lock.
var ErrBusy = outdir.ErrBusy

// statsHeader is the first line of stats.csv.
const statsHeader = "step,time,bodies,contacts,iterations,residual,objective,fixed_fx,fixed_fy,fixed_fz,submits,collide_s,solve_s,step_s,build_s,integrate_s"

// outFolder is a run's output folder while the run writes it: the lock,
// and for a run that continues the folder's files where they end.
type outFolder struct {
	lock *outdir.Lock
	// statsEnd, traceEnd and reactionsEnd are the lengths to cut
	// stats.csv, trace.csv and reactions.csv to before appending; -1
	// starts the file afresh.
	statsEnd, traceEnd, reactionsEnd int64
}

func (o *outFolder) release() {
	if o.lock != nil {
		o.lock.Release()
	}
}

// openOutDir takes opt.OutDir for a run (see Options.Overwrite and
// Options.Resume): it locks the folder (unless the caller holds its lock),
// refuses a folder that holds another run's outputs, clears it with
// Overwrite, and for a resumed run cuts the folder's files back to the
// checkpoint's step. Every check comes before anything is changed.
func openOutDir(sc *scene.Scene, opt Options) (*outFolder, error) {
	dir := opt.OutDir
	o := &outFolder{statsEnd: -1, traceEnd: -1, reactionsEnd: -1}
	if !opt.DirLocked {
		l, err := outdir.Acquire(dir, false, opt.Notice)
		if err != nil {
			if errors.Is(err, outdir.ErrBusy) {
				return nil, &InputError{fmt.Errorf("run: %w", err)}
			}
			return nil, fmt.Errorf("run: %w", err)
		}
		o.lock = l
	}
	fail := func(err error) (*outFolder, error) {
		o.release()
		return nil, err
	}
	ours, _, err := outdir.Contents(dir)
	if err != nil {
		return fail(fmt.Errorf("run: output folder: %w", err))
	}
	switch {
	case opt.Overwrite:
		kept, err := outdir.Clear(dir)
		if err != nil {
			return fail(fmt.Errorf("run: overwrite %s: %w", dir, err))
		}
		if len(kept) > 0 && opt.Notice != nil {
			opt.Notice(fmt.Sprintf("overwrite %s: removed the outputs of the run before, kept what gpusim did not write: %s", dir, strings.Join(kept, ", ")))
		}
	case opt.Resume != nil:
		if err := o.cutBack(sc, opt); err != nil {
			return fail(err)
		}
	case len(ours) > 0:
		return fail(&InputError{fmt.Errorf("run: %s %w (%s): --overwrite replaces them, --resume CHECKPOINT continues that run in it, or choose another --out",
			dir, ErrHasOutputs, strings.Join(ours, ", "))})
	}
	return o, nil
}

// cutBack prepares the folder of a resumed run to continue the files
// there as they were when the checkpoint was taken: stats.csv, trace.csv
// and reactions.csv keep their rows up to the checkpoint's step (the resumed run
// appends the later ones), frames and run.pvd entries of later steps go,
// and so do later checkpoints and the end-of-run files (final.csv,
// summary.json, plots, renders, a sweep's markers), which the run writes
// anew. The folder must hold the run's steps up to the checkpoint if it
// holds any: rows of another run, or that end before the checkpoint, are
// an error.
func (o *outFolder) cutBack(sc *scene.Scene, opt Options) error {
	dir, step := opt.OutDir, opt.Resume.Step
	// With a pour the body count grows during the run: from the scene's
	// t = 0 model (bodies) to all of them (total).
	bodies, total := len(sc.Model.Bodies), sc.TotalBodies()
	conflict := func(format string, a ...any) error {
		return &InputError{fmt.Errorf("run: --resume into %s: %s: %w; --overwrite replaces them, or choose another --out",
			dir, fmt.Sprintf(format, a...), ErrHasOutputs)}
	}
	if data, err := os.ReadFile(filepath.Join(dir, "summary.json")); err == nil {
		var s struct {
			Scene       string `json:"scene"`
			Bodies      int    `json:"bodies"`
			BodiesTotal int    `json:"bodies_total"`
		}
		if json.Unmarshal(data, &s) == nil {
			switch {
			case total == bodies && (s.Scene != sc.Name || s.Bodies != bodies):
				return conflict("summary.json is of a run of %s with %d bodies, the checkpoint of %s with %d", s.Scene, s.Bodies, sc.Name, bodies)
			case total > bodies && (s.Scene != sc.Name || s.BodiesTotal != total):
				return conflict("summary.json is of a run of %s with %d bodies in all, the checkpoint of %s with %d", s.Scene, max(s.Bodies, s.BodiesTotal), sc.Name, total)
			}
		}
	}
	statsPath := filepath.Join(dir, "stats.csv")
	end, last, err := rowsUpTo(statsPath, statsHeader, step, func(f []string) error {
		if n, err := strconv.Atoi(f[2]); err != nil || n < bodies || n > total {
			if total > bodies {
				return fmt.Errorf("a row of %s bodies, the checkpoint's scene has %d to %d", f[2], bodies, total)
			}
			return fmt.Errorf("a row of %s bodies, the checkpoint has %d", f[2], bodies)
		}
		return nil
	})
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return conflict("%v", err)
	case last >= 0 && last < step:
		return conflict("stats.csv ends at step %d, before the checkpoint's step %d", last, step)
	default:
		o.statsEnd = end
	}
	if len(sc.Trace) > 0 {
		tracePath := filepath.Join(dir, "trace.csv")
		end, last, err := rowsUpTo(tracePath, "step,time,"+bodyHeader, step, nil)
		switch {
		case errors.Is(err, os.ErrNotExist):
		case err != nil:
			return conflict("%v", err)
		case last >= 0 && last < step:
			return conflict("trace.csv ends at step %d, before the checkpoint's step %d", last, step)
		default:
			o.traceEnd = end
		}
	}
	// reactions.csv is cut back whether or not this run writes it (as
	// frames are: --reactions, like --vtk, is not in the checkpoint).
	rxnPath, rxnEnd := filepath.Join(dir, "reactions.csv"), int64(-1)
	if end, last, err := rowsUpTo(rxnPath, reactionsHeader, step, nil); err == nil {
		if last >= 0 && last < step {
			return conflict("reactions.csv ends at step %d, before the checkpoint's step %d", last, step)
		}
		rxnEnd = end
	} else if !errors.Is(err, os.ErrNotExist) {
		return conflict("%v", err)
	}
	if wantReactions(sc, opt) {
		o.reactionsEnd = rxnEnd
	} else if rxnEnd >= 0 {
		if err := os.Truncate(rxnPath, rxnEnd); err != nil {
			return fmt.Errorf("run: --resume into %s: %w", dir, err)
		}
	}
	for _, name := range []string{"final.csv", "summary.json", "render.png", "DONE", "FAILED"} {
		if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("run: --resume into %s: %w", dir, err)
		}
	}
	renders, _ := filepath.Glob(filepath.Join(dir, "render-frame-*.png"))
	plots, _ := filepath.Glob(filepath.Join(dir, "plots", "*"))
	for _, f := range append(renders, plots...) {
		rel, _ := filepath.Rel(dir, f)
		if !outdir.Ours(filepath.ToSlash(rel)) {
			continue // a user's own picture in plots/
		}
		if err := os.Remove(f); err != nil {
			return fmt.Errorf("run: --resume into %s: %w", dir, err)
		}
	}
	cks, _ := filepath.Glob(filepath.Join(dir, "checkpoints", "step-*.ckpt"))
	for _, f := range cks {
		var k int
		if _, err := fmt.Sscanf(filepath.Base(f), "step-%d.ckpt", &k); err == nil && k > step {
			if err := os.Remove(f); err != nil {
				return fmt.Errorf("run: --resume into %s: %w", dir, err)
			}
		}
	}
	if err := vtk.Trim(dir, step); err != nil {
		return fmt.Errorf("run: --resume into %s: %w", dir, err)
	}
	if err := trimNPZ(dir, step); err != nil {
		return fmt.Errorf("run: --resume into %s: %w", dir, err)
	}
	return nil
}

// rowsUpTo reads the CSV file at path, whose first line must be header and
// whose rows start with their step, and returns the length of its part up
// to the last row of step ≤ step (the header at least) and the step of its
// last complete row (-1 without rows). A last line without a newline (cut
// by a full disk or a kill) is not a row. check, if set, checks each
// row's fields.
func rowsUpTo(path, header string, step int, check func([]string) error) (end int64, last int, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, 0, err
	}
	data, _ = outdir.CompleteRows(data)
	name := filepath.Base(path)
	nl := bytes.IndexByte(data, '\n')
	if nl < 0 || string(data[:nl]) != header {
		return 0, 0, fmt.Errorf("%s is not the %s of a run of this version of gpusim (another header)", name, name)
	}
	end, last = int64(nl+1), -1
	ncol := strings.Count(header, ",") + 1
	for off, line := nl+1, 1; off < len(data); line++ {
		n := bytes.IndexByte(data[off:], '\n')
		f := strings.Split(string(data[off:off+n]), ",")
		k, err := strconv.Atoi(f[0])
		if len(f) != ncol || err != nil {
			return 0, 0, fmt.Errorf("%s:%d: not a row of %d fields starting with a step", name, line+1, ncol)
		}
		if check != nil {
			if err := check(f); err != nil {
				return 0, 0, fmt.Errorf("%s:%d: %w", name, line+1, err)
			}
		}
		last = k
		off += n + 1
		if k <= step {
			end = int64(off)
		}
	}
	return end, last, nil
}
