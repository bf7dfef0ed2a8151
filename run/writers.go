package run

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/engine"
)

// writers hold the CSV outputs of a run. Each row is flushed when the step
// that made it is complete, so an interrupted run leaves valid files up to
// its last complete step.
type writers struct {
	dir            string
	statsF, trF    *os.File
	statsW, traceW *bufio.Writer
	buf            []byte
}

func newWriters(dir string, trace bool) (*writers, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("run: output folder: %w", err)
	}
	w := &writers{dir: dir}
	var err error
	if w.statsF, err = os.Create(filepath.Join(dir, "stats.csv")); err != nil {
		return nil, fmt.Errorf("run: %w", err)
	}
	w.statsW = bufio.NewWriter(w.statsF)
	w.statsW.WriteString("step,time,bodies,contacts,iterations,residual,objective,fixed_fx,fixed_fy,fixed_fz,submits,collide_s,solve_s,step_s,build_s,integrate_s\n")
	if trace {
		if w.trF, err = os.Create(filepath.Join(dir, "trace.csv")); err != nil {
			w.close()
			return nil, fmt.Errorf("run: %w", err)
		}
		w.traceW = bufio.NewWriter(w.trF)
		w.traceW.WriteString("step,time," + bodyHeader + "\n")
	} else {
		os.Remove(filepath.Join(dir, "trace.csv"))
	}
	return w, nil
}

const bodyHeader = "id,x,y,z,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz"

func (w *writers) f(v float64) {
	w.buf = strconv.AppendFloat(w.buf, v, 'g', -1, 64)
	w.buf = append(w.buf, ',')
}

func (w *writers) i(v int) {
	w.buf = strconv.AppendInt(w.buf, int64(v), 10)
	w.buf = append(w.buf, ',')
}

func (w *writers) endRow(out *bufio.Writer) error {
	w.buf[len(w.buf)-1] = '\n'
	if _, err := out.Write(w.buf); err != nil {
		return fmt.Errorf("run: write: %w", err)
	}
	w.buf = w.buf[:0]
	return nil
}

func (w *writers) stats(st engine.StepStats, bodies int) error {
	w.buf = w.buf[:0]
	w.i(st.Step)
	w.f(st.Time)
	w.i(bodies)
	w.i(st.Contacts)
	w.i(st.Solve.Iterations)
	w.f(st.Solve.Residual)
	w.f(st.Solve.Objective)
	w.f(st.FixedForce[0])
	w.f(st.FixedForce[1])
	w.f(st.FixedForce[2])
	w.i(st.Submits)
	w.f(st.CollideSeconds)
	w.f(st.SolveSeconds)
	w.f(st.StepSeconds)
	w.f(st.BuildSeconds)
	w.f(st.IntegrateSeconds)
	if err := w.endRow(w.statsW); err != nil {
		return err
	}
	if err := w.statsW.Flush(); err != nil {
		return fmt.Errorf("run: write stats.csv: %w", err)
	}
	return nil
}

// body appends id, position, quaternion, velocity and the world-frame
// angular velocity R·ω̄ of body i.
func (w *writers) body(s *engine.State, i int) {
	w.i(i)
	for k := 0; k < 3; k++ {
		w.f(s.Pos[3*i+k])
	}
	for k := 0; k < 4; k++ {
		w.f(s.Rot[4*i+k])
	}
	for k := 0; k < 3; k++ {
		w.f(s.Vel[3*i+k])
	}
	q := mgl64.Quat{W: s.Rot[4*i], V: mgl64.Vec3{s.Rot[4*i+1], s.Rot[4*i+2], s.Rot[4*i+3]}}
	om := q.Rotate(mgl64.Vec3{s.Omega[3*i], s.Omega[3*i+1], s.Omega[3*i+2]})
	for k := 0; k < 3; k++ {
		w.f(om[k])
	}
}

func (w *writers) trace(step int, t float64, ids []int, s *engine.State) error {
	for _, id := range ids {
		w.buf = w.buf[:0]
		w.i(step)
		w.f(t)
		w.body(s, id)
		if err := w.endRow(w.traceW); err != nil {
			return err
		}
	}
	if err := w.traceW.Flush(); err != nil {
		return fmt.Errorf("run: write trace.csv: %w", err)
	}
	return nil
}

// final writes final.csv for every body, through a temporary file renamed
// into place.
func (w *writers) final(s *engine.State) error {
	path := filepath.Join(w.dir, "final.csv")
	tmp, err := os.CreateTemp(w.dir, ".tmp-final.csv")
	if err != nil {
		return fmt.Errorf("run: %w", err)
	}
	bw := bufio.NewWriter(tmp)
	bw.WriteString(bodyHeader + "\n")
	var werr error
	for i := 0; i < s.Len() && werr == nil; i++ {
		w.buf = w.buf[:0]
		w.body(s, i)
		werr = w.endRow(bw)
	}
	if err := errors.Join(werr, bw.Flush(), tmp.Sync(), tmp.Close()); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("run: write final.csv: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("run: %w", err)
	}
	return nil
}

func (w *writers) close() error {
	var errs []error
	if w.statsF != nil {
		errs = append(errs, w.statsW.Flush(), w.statsF.Close())
		w.statsF = nil
	}
	if w.trF != nil {
		errs = append(errs, w.traceW.Flush(), w.trF.Close())
		w.trF = nil
	}
	return errors.Join(errs...)
}
