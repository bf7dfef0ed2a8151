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
	"github.com/gpusim/gpusim/internal/atomicfile"
)

// writers hold the CSV outputs of a run. The rows of a step go to
// stats.csv and trace.csv in one write(2) per file when the step is
// complete (nothing is buffered across steps), so a run killed at any
// moment leaves both files valid up to its last complete step: Linux does
// not cut short a write to a regular file of up to a page (4 KiB), and a
// step's rows are that size or less unless more than about 15 bodies are
// traced (a longer write can be cut at a page boundary by SIGKILL, leaving
// a partial last line). That is one system call per file and step, as a
// flush per step was before.
type writers struct {
	dir         string
	statsF, trF *os.File
	buf         []byte
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
	if _, err := w.statsF.WriteString("step,time,bodies,contacts,iterations,residual,objective,fixed_fx,fixed_fy,fixed_fz,submits,collide_s,solve_s,step_s,build_s,integrate_s\n"); err != nil {
		w.close()
		return nil, fmt.Errorf("run: write stats.csv: %w", err)
	}
	if trace {
		if w.trF, err = os.Create(filepath.Join(dir, "trace.csv")); err != nil {
			w.close()
			return nil, fmt.Errorf("run: %w", err)
		}
		if _, err := w.trF.WriteString("step,time," + bodyHeader + "\n"); err != nil {
			w.close()
			return nil, fmt.Errorf("run: write trace.csv: %w", err)
		}
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

// endRow ends the row at the end of buf (its last comma becomes a newline).
func (w *writers) endRow() {
	w.buf[len(w.buf)-1] = '\n'
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
	w.endRow()
	if _, err := w.statsF.Write(w.buf); err != nil {
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
	w.buf = w.buf[:0]
	for _, id := range ids {
		w.i(step)
		w.f(t)
		w.body(s, id)
		w.endRow()
	}
	if _, err := w.trF.Write(w.buf); err != nil {
		return fmt.Errorf("run: write trace.csv: %w", err)
	}
	return nil
}

// final writes final.csv for every body, through a temporary file renamed
// into place.
func (w *writers) final(s *engine.State) error {
	path := filepath.Join(w.dir, "final.csv")
	err := atomicfile.Write(path, func(bw *bufio.Writer) error {
		bw.WriteString(bodyHeader + "\n")
		for i := 0; i < s.Len(); i++ {
			w.buf = w.buf[:0]
			w.body(s, i)
			w.endRow()
			if _, err := bw.Write(w.buf); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("run: %w", err)
	}
	return nil
}

func (w *writers) close() error {
	var errs []error
	if w.statsF != nil {
		errs = append(errs, w.statsF.Close())
		w.statsF = nil
	}
	if w.trF != nil {
		errs = append(errs, w.trF.Close())
		w.trF = nil
	}
	return errors.Join(errs...)
}
