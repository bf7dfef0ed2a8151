package run

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/internal/atomicfile"
)

// writers hold the CSV outputs of a run. The rows of a step go to
// stats.csv, trace.csv and reactions.csv in one write(2) per file when the
// step is complete (nothing is buffered across steps), so a run killed at any
// moment leaves both files valid up to its last complete step: Linux does
// not cut short a write to a regular file of up to a page (4 KiB), and a
// step's rows are that size or less unless more than about 15 bodies are
// traced (a longer write can be cut at a page boundary by SIGKILL, leaving
// a partial last line, which every reader ignores; reactions.csv's rows
// pass a page from about 27 joints and static bodies). That is one system
// call per file and step, as a flush per step was before. A write that
// fails (a full disk) or is cut short is undone: the file is cut back to
// its last complete row (see csvFile).
type writers struct {
	dir         string
	statF, trcF *csvFile
	rxnF        *csvFile // reactions.csv, nil unless openReactions
	buf         []byte
}

// rowFile is what csvFile needs of an *os.File (tests give it one that
// fails as a full disk does).
type rowFile interface {
	WriteAt(b []byte, off int64) (int, error)
	Truncate(size int64) error
	Close() error
}

// csvFile is a CSV output written a whole number of rows at a time at the
// end of its complete rows, off.
type csvFile struct {
	f    rowFile
	path string
	off  int64
}

// openCSV opens the CSV file at path: a new one holding header when end
// is negative, else the existing one cut to its first end bytes (a
// resumed run continues it).
func openCSV(path, header string, end int64) (*csvFile, error) {
	if end < 0 {
		f, err := os.Create(path)
		if err != nil {
			return nil, fmt.Errorf("run: %w", err)
		}
		c := &csvFile{f: f, path: path}
		if err := c.write([]byte(header + "\n")); err != nil {
			f.Close()
			return nil, err
		}
		return c, nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return nil, fmt.Errorf("run: %w", err)
	}
	if err := f.Truncate(end); err != nil {
		f.Close()
		return nil, fmt.Errorf("run: cut %s back to the checkpoint's step: %w", path, err)
	}
	return &csvFile{f: f, path: path, off: end}, nil
}

// write writes rows (whole lines) after the file's complete rows in one
// write(2). If that fails or is cut short (no space left on the device),
// the file is cut back to its complete rows, so that it never ends in a
// partial row, and the error names the file.
func (c *csvFile) write(rows []byte) error {
	n, err := c.f.WriteAt(rows, c.off)
	if err == nil && n == len(rows) {
		c.off += int64(n)
		return nil
	}
	if err == nil {
		err = io.ErrShortWrite
	}
	if terr := c.f.Truncate(c.off); terr != nil {
		return fmt.Errorf("run: write %s: %w (and cutting off the partial row: %v)", c.path, err, terr)
	}
	return fmt.Errorf("run: write %s: %w (the file ends at its last complete row)", c.path, err)
}

func (c *csvFile) close() error {
	if c == nil {
		return nil
	}
	return c.f.Close()
}

// newWriters opens stats.csv and, when trace is set, trace.csv in dir: new
// files, or with statsEnd and traceEnd ≥ 0 the files there cut to that
// many bytes (see openCSV). Without trace, a trace.csv there is removed.
func newWriters(dir string, trace bool, statsEnd, traceEnd int64) (*writers, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("run: output folder: %w", err)
	}
	w := &writers{dir: dir}
	var err error
	if w.statF, err = openCSV(filepath.Join(dir, "stats.csv"), statsHeader, statsEnd); err != nil {
		return nil, err
	}
	if trace {
		if w.trcF, err = openCSV(filepath.Join(dir, "trace.csv"), "step,time,"+bodyHeader, traceEnd); err != nil {
			w.close()
			return nil, err
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
	return w.statF.write(w.buf)
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
	om := worldOmega(s, i)
	for k := 0; k < 3; k++ {
		w.f(om[k])
	}
}

// bodyQuat returns body i's orientation in s.
func bodyQuat(s *engine.State, i int) mgl64.Quat {
	return mgl64.Quat{W: s.Rot[4*i], V: mgl64.Vec3{s.Rot[4*i+1], s.Rot[4*i+2], s.Rot[4*i+3]}}
}

// worldOmega returns body i's angular velocity in the world frame, R·ω̄,
// as final.csv, trace.csv and the NumPy frames hold it.
func worldOmega(s *engine.State, i int) mgl64.Vec3 {
	return bodyQuat(s, i).Rotate(mgl64.Vec3{s.Omega[3*i], s.Omega[3*i+1], s.Omega[3*i+2]})
}

func (w *writers) trace(step int, t float64, ids []int, s *engine.State) error {
	w.buf = w.buf[:0]
	for _, id := range ids {
		w.i(step)
		w.f(t)
		w.body(s, id)
		w.endRow()
	}
	return w.trcF.write(w.buf)
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
	err := errors.Join(w.statF.close(), w.trcF.close(), w.rxnF.close())
	w.statF, w.trcF, w.rxnF = nil, nil, nil
	return err
}
