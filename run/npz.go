package run

import (
	"archive/zip"
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"codeberg.org/sbinet/npyio/npy"
	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/internal/atomicfile"
	"gonum.org/v1/gonum/mat"
)

// NPZDir is the folder, in a run's folder, of the NumPy frames that
// Options.NPZEvery asks for.
const NPZDir = "npz"

// NPZFile returns the NumPy frame of a step, relative to the run's folder.
func NPZFile(step int) string { return fmt.Sprintf("%s/step-%08d.npz", NPZDir, step) }

// A NumPy frame (NPZFile) is a .npz archive (a zip of NAME.npy files, as
// numpy.savez writes them, uncompressed) that numpy.load reads, holding
// the state after a step (step 0: the initial state) and the contacts and
// forces of that step, all little-endian, float64 or int64:
//
//	t               float64, shape ()     simulated time (s)
//	step            int64, shape ()       steps taken
//	id              int64 (n,)            body ids (0…n−1, scene order)
//	pos             float64 (n, 3)        centre of mass (m), world frame
//	quat            float64 (n, 4)        orientation w, x, y, z (final.csv's qw…qz)
//	vel             float64 (n, 3)        velocity (m/s), world frame
//	omega           float64 (n, 3)        angular velocity (rad/s), world frame (final.csv's wx…wz)
//	contact_bodies  int64 (nc, 2)         bodies A < B of each contact
//	contact_point   float64 (nc, 3)       the contact point on A, world frame (m)
//	contact_point_b float64 (nc, 3)       the contact point on B, world frame (m)
//	contact_normal  float64 (nc, 3)       unit normal from A to B, world frame
//	contact_gap     float64 (nc,)         signed gap Φ (m), negative when A and B overlap
//	contact_force   float64 (nc, 3)       force on B (N), world frame: (γ_n n + γ_u u + γ_w w)/h (A gets its opposite)
//	contact_force_nuw float64 (nc, 3)     the same force in the contact frame: normal, u, w components (N), u, w of engine.TangentBasis
//
// The body arrays hold exactly the numbers final.csv writes of the same
// state (its columns are these arrays formatted with strconv's 'g', -1);
// the contacts are those the step found at its start, with their points
// carried to the state at its end as the VTK contact frames do (and
// step 0 has none).
var npzArrays = []string{"t", "step", "id", "pos", "quat", "vel", "omega", "contact_bodies", "contact_point",
	"contact_point_b", "contact_normal", "contact_gap", "contact_force", "contact_force_nuw"}

// npzRecorder writes a run's NumPy frames: of step 0, every every-th step
// and the last step, as VTK frames are.
type npzRecorder struct {
	dir   string
	every int
	from  int
	con   engine.Contacts
	gamma []float64
	// Scratch kept from frame to frame: the float and int arrays, their
	// bytes, the world-frame spins and contact forces, and the buffer
	// each array is written through (npyio writes a matrix 8 bytes at a
	// time).
	f     []float64
	i     []int64
	b     []byte
	omega []mgl64.Vec3
	force []mgl64.Vec3
	bw    *bufio.Writer
}

// newNPZRecorder prepares dir/npz for frames every every steps (≥ 1) of a
// run that starts at step from (0, or a resumed run's checkpoint step).
// Frames of steps after from that an earlier run left there are removed;
// those of from and earlier stay (a resumed run keeps the frame of its
// checkpoint's step that the run it continues wrote, which holds that
// step's contacts).
func newNPZRecorder(dir string, every, from int) (*npzRecorder, error) {
	if every < 1 {
		return nil, fmt.Errorf("run: NumPy frames every %d steps: must be ≥ 1", every)
	}
	if err := os.MkdirAll(filepath.Join(dir, NPZDir), 0o755); err != nil {
		return nil, fmt.Errorf("run: %w", err)
	}
	if err := trimNPZ(dir, from); err != nil {
		return nil, err
	}
	return &npzRecorder{dir: dir, every: every, from: from}, nil
}

// trimNPZ removes the NumPy frames of steps after step from the run
// folder dir.
func trimNPZ(dir string, step int) error {
	old, _ := filepath.Glob(filepath.Join(dir, NPZDir, "step-*.npz"))
	for _, f := range old {
		var k int
		if _, err := fmt.Sscanf(filepath.Base(f), "step-%d.npz", &k); err == nil && k > step {
			if err := os.Remove(f); err != nil {
				return fmt.Errorf("run: %w", err)
			}
		}
	}
	return nil
}

// due reports whether frame writes the frame of step (of a run of last
// steps): step 0, a multiple of every, or the last.
func (r *npzRecorder) due(step, last int) bool {
	return step == 0 || step%r.every == 0 || step == last
}

// frame writes the frame of step (0 before the first step) at simulated
// time t (s) if it is due: step 0, a multiple of every, or last. st is
// the sim's state after the step (the run's guard has it); the
// contacts and the last step's impulses it reads from sim.

func (r *npzRecorder) frame(step int, t float64, last int, sim *engine.Sim, st *engine.State) error {
	if !r.due(step, last) {
		return nil
	}
	path := filepath.Join(r.dir, filepath.FromSlash(NPZFile(step)))
	if step == r.from && step > 0 {
		if _, err := os.Stat(path); err == nil {
			return nil // the resumed run's frame (see newNPZRecorder)
		}
	}
	r.con.Resize(0)
	r.gamma = r.gamma[:0]
	if sim.Steps() > 0 {
		if err := sim.Backend().ReadContacts(&r.con); err != nil {
			return fmt.Errorf("run: NumPy frame %d: %w", step, err)
		}
		r.gamma = sim.Impulses(r.gamma)
	}
	err := atomicfile.Write(path, func(w *bufio.Writer) error {
		return r.encode(w, step, t, st, &r.con, r.gamma, sim.Settings().Dt)
	})
	if err != nil {
		return fmt.Errorf("run: NumPy frame %d: %w", step, err)
	}
	return nil
}

// encode writes the frame's archive (see npzArrays) to w.
func (r *npzRecorder) encode(w io.Writer, step int, t float64, s *engine.State, c *engine.Contacts, gamma []float64, h float64) error {
	n, nc := s.Len(), c.Len()
	if len(gamma) < 3*nc {
		return fmt.Errorf("%d contacts but %d impulse components", nc, len(gamma))
	}
	if nc > 0 && !(h > 0) {
		return fmt.Errorf("step length %v must be positive", h)
	}
	for k := range nc {
		if a, b := int(c.A[k]), int(c.B[k]); a < 0 || a >= n || b < 0 || b >= n {
			return fmt.Errorf("contact %d: bodies %d, %d out of range [0, %d)", k, a, b, n)
		}
	}
	zw := zip.NewWriter(w)
	put := func(name string, write func(io.Writer) error) error {
		e, err := zw.CreateHeader(&zip.FileHeader{Name: name + ".npy", Method: zip.Store})
		if err != nil {
			return err
		}
		if r.bw == nil {
			r.bw = bufio.NewWriterSize(e, 1<<16)
		} else {
			r.bw.Reset(e)
		}
		if err := write(r.bw); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		return r.bw.Flush()
	}
	// floats writes the rows×cols array at(i, k) (cols 0: the vector
	// at(i, 0)).
	floats := func(name string, rows, cols int, at func(i, k int) float64) error {
		r.f = r.f[:0]
		for i := range rows {
			for k := range max(cols, 1) {
				r.f = append(r.f, at(i, k))
			}
		}
		return put(name, func(e io.Writer) error { return r.writeFloats(e, rows, cols) })
	}
	ints := func(name string, rows, cols int, at func(i, k int) int64) error {
		r.i = r.i[:0]
		for i := range rows {
			for k := range max(cols, 1) {
				r.i = append(r.i, at(i, k))
			}
		}
		return put(name, func(e io.Writer) error { return r.writeInts(e, rows, cols) })
	}
	// omega: final.csv's (writers.body).
	r.omega = r.omega[:0]
	for i := range n {
		r.omega = append(r.omega, worldOmega(s, i))
	}
	omega := r.omega
	world := func(b int32, local []float64) mgl64.Vec3 {
		i := int(b)
		return mgl64.Vec3{s.Pos[3*i], s.Pos[3*i+1], s.Pos[3*i+2]}.Add(bodyQuat(s, i).Rotate(mgl64.Vec3{local[0], local[1], local[2]}))
	}
	r.force = append(r.force[:0], make([]mgl64.Vec3, nc)...)
	force := r.force
	for k := range nc {
		nrm := mgl64.Vec3{c.Normal[3*k], c.Normal[3*k+1], c.Normal[3*k+2]}
		u, v := engine.TangentBasis(nrm)
		g := gamma[3*k : 3*k+3]
		for j := range 3 { // as engine.ContactReactions sums it
			force[k][j] = (g[0]*nrm[j] + g[1]*u[j] + g[2]*v[j]) / h
		}
	}
	for _, write := range []func() error{
		func() error { return put("t", func(e io.Writer) error { return npy.Write(e, t) }) },
		func() error { return put("step", func(e io.Writer) error { return npy.Write(e, int64(step)) }) },
		func() error { return ints("id", n, 0, func(i, _ int) int64 { return int64(i) }) },
		func() error { return floats("pos", n, 3, func(i, k int) float64 { return s.Pos[3*i+k] }) },
		func() error { return floats("quat", n, 4, func(i, k int) float64 { return s.Rot[4*i+k] }) },
		func() error { return floats("vel", n, 3, func(i, k int) float64 { return s.Vel[3*i+k] }) },
		func() error { return floats("omega", n, 3, func(i, k int) float64 { return omega[i][k] }) },
		func() error {
			return ints("contact_bodies", nc, 2, func(i, k int) int64 {
				if k == 0 {
					return int64(c.A[i])
				}
				return int64(c.B[i])
			})
		},
		func() error {
			return floats("contact_point", nc, 3, func(i, k int) float64 { return world(c.A[i], c.PA[3*i:3*i+3])[k] })
		},
		func() error {
			return floats("contact_point_b", nc, 3, func(i, k int) float64 { return world(c.B[i], c.PB[3*i:3*i+3])[k] })
		},
		func() error {
			return floats("contact_normal", nc, 3, func(i, k int) float64 { return c.Normal[3*i+k] })
		},
		func() error { return floats("contact_gap", nc, 0, func(i, _ int) float64 { return c.Phi[i] }) },
		func() error { return floats("contact_force", nc, 3, func(i, k int) float64 { return force[i][k] }) },
		func() error {
			return floats("contact_force_nuw", nc, 3, func(i, k int) float64 { return gamma[3*i+k] / h })
		},
	} {
		if err := write(); err != nil {
			return err
		}
	}
	return zw.Close()
}

// writeFloats writes the .npy of r.f as a rows×cols float64 array (cols
// 0: a vector of rows). A matrix of rows goes through npyio as a
// mat.Dense, which it writes with the matrix's shape and without looking
// at each element; an empty one or a vector is written by writeNPY, as
// npyio writes an empty slice as a scalar without data (shape (), which
// numpy cannot read) and finds the type of a slice element by element,
// seconds for a million.
func (r *npzRecorder) writeFloats(w io.Writer, rows, cols int) error {
	if rows > 0 && cols > 0 {
		return npy.Write(w, mat.NewDense(rows, cols, r.f))
	}
	r.b = r.b[:0]
	for _, v := range r.f {
		r.b = binary.LittleEndian.AppendUint64(r.b, math.Float64bits(v))
	}
	return writeNPY(w, "<f8", rows, cols, r.b)
}

// writeInts writes the .npy of r.i as a rows×cols int64 array (cols 0: a
// vector) with writeNPY (npyio takes seconds for a million ints: see
// writeFloats).
func (r *npzRecorder) writeInts(w io.Writer, rows, cols int) error {
	r.b = r.b[:0]
	for _, v := range r.i {
		r.b = binary.LittleEndian.AppendUint64(r.b, uint64(v))
	}
	return writeNPY(w, "<i8", rows, cols, r.b)
}

// writeNPY writes an .npy file (format 1.0, its header padded to 64
// bytes as numpy pads it) of a C-order array of shape (rows,), or
// (rows, cols) when cols > 0, of type descr, whose bytes are data.
func writeNPY(w io.Writer, descr string, rows, cols int, data []byte) error {
	shape := strconv.Itoa(rows) + ","
	if cols > 0 {
		shape = strconv.Itoa(rows) + ", " + strconv.Itoa(cols)
	}
	dict := "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (" + shape + "), }"
	total := 10 + len(dict) + 1
	pad := (64 - total%64) % 64
	hdr := make([]byte, 0, total+pad)
	hdr = append(hdr, "\x93NUMPY\x01\x00"...)
	hdr = binary.LittleEndian.AppendUint16(hdr, uint16(len(dict)+pad+1))
	hdr = append(hdr, dict...)
	hdr = append(hdr, strings.Repeat(" ", pad)...)
	hdr = append(hdr, '\n')
	if _, err := w.Write(hdr); err != nil {
		return err
	}
	_, err := w.Write(data)
	return err
}
