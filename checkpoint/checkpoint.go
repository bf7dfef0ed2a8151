package checkpoint

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"os"
	"slices"

	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/geom"
	"github.com/gpusim/gpusim/internal/atomicfile"
)

// Version is the newest format version. Write writes the oldest version
// that holds the checkpoint: 4 when settings.precision is "mixed" (it
// adds the precision after workers, and a flag before the warm section's
// rolling impulses, which it may go without), else 3 when the warm-start data has
// rolling impulses (engine.WarmStartData.Rolling), else 2, so that a run
// without rolling friction or mixed precision writes the files it wrote
// before versions 3 and 4 existed. Read reads versions 1 to 4: version 1
// has no joint impulses in its warm section (a run resumed from one starts
// its joint rows from zero, as that version's runs did), versions 1 and 2
// no rolling impulses (the rolling rows start from zero), versions 1 to 3
// no precision (it is "double").
const Version = 4

const magic = "GPUSIMCK"

// headerLen is magic, version and length; trailerLen the CRC.
const (
	headerLen  = 8 + 4 + 8
	trailerLen = 4
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Checkpoint is a run after a step: what the step counter, the settings,
// the scene and the body state were, and the warm-start memory.
type Checkpoint struct {
	// Step is the number of steps taken.
	Step int
	// Settings are the settings the run stepped with (after command-line
	// overrides, which the scene document does not hold).
	Settings engine.Settings
	// Steps and Duration (s) are the run's length from its start: Steps >
	// 0 overrides Duration.
	Steps    int
	Duration float64
	// Trace lists the traced body ids.
	Trace []int
	// Source is the scene's file or builtin:NAME; Params the resolved
	// parameters of a built-in scene.
	Source string
	Params map[string]float64
	// Scene is the resolved scene document as JSON (scene.Dump): building
	// it gives the run's shapes, materials, masses and containers.
	Scene []byte
	// Model is ModelHash of the model the run stepped, to check that the
	// scene rebuilds to the same one.
	Model [32]byte
	// State is the body state after step Step.
	State engine.State
	// Warm is the backend's warm-start memory, nil when warm start is off
	// or the backend could not save it.
	Warm *engine.WarmStartData
}

// FileName is the name of the checkpoint of step k: step-000100.ckpt.
func FileName(step int) string { return fmt.Sprintf("step-%06d.ckpt", step) }

// ModelHash is a SHA-256 of everything in m that a restore takes from the
// rebuilt scene rather than from the checkpoint: gravity, materials (their
// rolling and spinning friction too, when some material has them) and,
// per body, shape, mass, inertia, fixed flag, material, force and torque,
// kinematic bodies' motions, the joints, compound bodies' parts and convex
// bodies' hulls (not the state: the checkpoint carries it).
func ModelHash(m *engine.Model) [32]byte {
	var e encoder
	e.f64(m.Gravity[:]...)
	e.u64(uint64(len(m.Materials)))
	for _, mt := range m.Materials {
		e.str(mt.Name)
		e.f64(mt.Friction, mt.Cohesion)
	}
	// Rolling and spinning friction likewise, only when a material has
	// some.
	if m.HasRolling() {
		e.str("rolling")
		for _, mt := range m.Materials {
			e.f64(mt.RollingFriction, mt.SpinningFriction)
		}
	}
	e.u64(uint64(len(m.Bodies)))
	for i := range m.Bodies {
		b := &m.Bodies[i]
		e.u8(uint8(b.Shape.Kind))
		e.f64(b.Shape.Size[:]...)
		e.f64(b.Mass)
		e.f64(b.Inertia[:]...)
		e.bool(b.Fixed)
		e.u64(uint64(b.Material))
		e.f64(b.Force[:]...)
		e.f64(b.Torque[:]...)
	}
	// Motions and joints are hashed only when the model has them, so that
	// the hash of a model without them is what it was before they existed
	// (checkpoints written then still restore).
	for i := range m.Bodies {
		if mo := m.Bodies[i].Motion; mo != nil {
			e.str("motion")
			e.u64(uint64(i))
			e.f64(mo.Vel[:]...)
			e.f64(mo.Omega[:]...)
			e.f64(mo.Amplitude[:]...)
			e.f64(mo.Frequency)
		}
	}
	if len(m.Joints) > 0 {
		e.str("joints")
		e.u64(uint64(len(m.Joints)))
		for _, j := range m.Joints {
			e.u8(uint8(j.Kind))
			e.u64(uint64(int64(j.Body1)))
			e.u64(uint64(int64(j.Body2)))
			e.f64(j.Point[:]...)
			e.f64(j.Point2[:]...)
			e.f64(j.Axis[:]...)
			e.bool(j.Collide)
			e.bool(j.Motor != nil)
			if j.Motor != nil {
				e.f64(j.Motor.Speed, j.Motor.MaxForce)
			}
		}
	}
	// Compound bodies' parts, likewise only where there are some.
	for i := range m.Bodies {
		if c := m.Bodies[i].Shape.Compound; c != nil {
			e.str("compound")
			e.u64(uint64(i))
			e.u64(uint64(len(c.Parts)))
			for _, p := range c.Parts {
				e.u8(uint8(p.Shape.Kind))
				e.f64(p.Shape.Size[:]...)
				e.f64(p.Pos[:]...)
				e.f64(p.Rot.W, p.Rot.V[0], p.Rot.V[1], p.Rot.V[2])
				e.hull(p.Shape.Hull)
			}
		}
	}
	// Convex bodies' hulls, likewise.
	for i := range m.Bodies {
		if h := m.Bodies[i].Shape.Hull; h != nil {
			e.str("convex")
			e.u64(uint64(i))
			e.hull(h)
		}
	}
	return sha256.Sum256(e.buf)
}

// hull encodes a convex hull's vertices (nothing for nil: the shapes
// without one hash as before hulls existed).
func (e *encoder) hull(h *geom.Hull) {
	if h == nil {
		return
	}
	e.u64(uint64(len(h.Verts)))
	for _, v := range h.Verts {
		e.f64(v[:]...)
	}
}

// Encode returns the file contents of c (see the package documentation).
func Encode(c *Checkpoint) ([]byte, error) {
	n := c.State.Len()
	if len(c.State.Rot) != 4*n || len(c.State.Vel) != 3*n || len(c.State.Omega) != 3*n || len(c.State.Pos) != 3*n {
		return nil, fmt.Errorf("checkpoint: state arrays of %d, %d, %d and %d values do not describe the same bodies",
			len(c.State.Pos), len(c.State.Rot), len(c.State.Vel), len(c.State.Omega))
	}
	var e encoder
	e.buf = make([]byte, 0, headerLen+1024+len(c.Scene)+8*13*n)
	e.buf = append(e.buf, magic...)
	version := uint32(2)
	if c.Warm != nil && len(c.Warm.Rolling) > 0 {
		version = 3
	}
	if c.Settings.Mixed() {
		version = 4
	}
	e.u32(version)
	e.u64(0) // length, set below
	e.u64(uint64(c.Step))
	s := &c.Settings
	e.f64(s.Dt)
	e.str(s.Solver)
	e.f64(s.Tol)
	e.u64(uint64(s.MaxIter))
	e.f64(s.Gd)
	e.bool(s.WarmStart)
	e.f64(s.Envelope, s.BinSize, s.MaxRecoverySpeed)
	e.u64(uint64(s.Workers))
	if version >= 4 {
		e.str(s.Precision)
	}
	e.u64(uint64(c.Steps))
	e.f64(c.Duration)
	e.u64(uint64(len(c.Trace)))
	for _, id := range c.Trace {
		e.u64(uint64(id))
	}
	e.str(c.Source)
	names := make([]string, 0, len(c.Params))
	for k := range c.Params {
		names = append(names, k)
	}
	slices.Sort(names)
	e.u64(uint64(len(names)))
	for _, k := range names {
		e.str(k)
		e.f64(c.Params[k])
	}
	e.str(string(c.Scene))
	e.buf = append(e.buf, c.Model[:]...)
	e.u64(uint64(n))
	e.f64(c.State.Pos...)
	e.f64(c.State.Rot...)
	e.f64(c.State.Vel...)
	e.f64(c.State.Omega...)
	if w := c.Warm; w == nil {
		e.u8(0)
	} else {
		m := w.Len()
		if len(w.B) != m || len(w.Sub) != m || len(w.Gamma) != 3*m {
			return nil, fmt.Errorf("checkpoint: warm-start data of %d, %d, %d keys and %d impulses", len(w.A), len(w.B), len(w.Sub), len(w.Gamma))
		}
		e.u8(1)
		e.u64(uint64(m))
		for _, k := range [][]int32{w.A, w.B, w.Sub} {
			for _, v := range k {
				e.u32(uint32(v))
			}
		}
		e.f64(w.Gamma...)
		e.u64(uint64(len(w.Joints)))
		e.f64(w.Joints...)
		if version >= 4 {
			// Version 4 may have no rolling impulses: a flag says.
			e.bool(len(w.Rolling) > 0)
		}
		if version >= 3 && (version == 3 || len(w.Rolling) > 0) {
			if len(w.Rolling) != 3*m {
				return nil, fmt.Errorf("checkpoint: warm-start data of %d keys and %d rolling impulses (want 3 per key)", m, len(w.Rolling))
			}
			e.f64(w.Rolling...)
		}
	}
	binary.LittleEndian.PutUint64(e.buf[12:], uint64(len(e.buf)-headerLen))
	e.u32(crc32.Checksum(e.buf, castagnoli))
	return e.buf, nil
}

// Write writes c to path atomically: a temporary file in the same folder,
// synced, renamed over path, and the folder synced, so that path holds
// either the old file or the whole new one.
func Write(path string, c *Checkpoint) error {
	data, err := Encode(c)
	if err != nil {
		return err
	}
	if err := atomicfile.WriteBytes(path, data); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	return nil
}

// Read reads and checks the checkpoint at path.
func Read(path string) (*Checkpoint, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	c, err := Decode(data)
	if err != nil {
		return nil, fmt.Errorf("checkpoint %s: %w", path, err)
	}
	return c, nil
}

// Decode parses and checks checkpoint file contents. Errors say what is
// wrong: not a checkpoint, another format version, truncated, corrupted
// (checksum), or a field out of range.
func Decode(data []byte) (*Checkpoint, error) {
	if len(data) < len(magic) && string(data) == magic[:len(data)] {
		return nil, fmt.Errorf("truncated: %d bytes, shorter than the %d-byte header", len(data), headerLen)
	}
	if len(data) < len(magic) || string(data[:len(magic)]) != magic {
		return nil, errors.New("not a gpusim checkpoint (the file does not start with GPUSIMCK)")
	}
	if len(data) < headerLen {
		return nil, fmt.Errorf("truncated: %d bytes, shorter than the %d-byte header", len(data), headerLen)
	}
	version := binary.LittleEndian.Uint32(data[8:])
	if version < 1 || version > Version {
		return nil, fmt.Errorf("format version %d; this gpusim reads versions 1 to %d", version, Version)
	}
	body := binary.LittleEndian.Uint64(data[12:])
	if have := uint64(len(data) - headerLen); body > have || have-body < trailerLen {
		return nil, fmt.Errorf("truncated: %d bytes, the header announces %d", len(data), uint64(headerLen)+body+trailerLen)
	} else if have-body > trailerLen {
		return nil, fmt.Errorf("%d bytes after the end of the checkpoint", have-body-trailerLen)
	}
	end := headerLen + int(body)
	if want, got := binary.LittleEndian.Uint32(data[end:]), crc32.Checksum(data[:end], castagnoli); want != got {
		return nil, fmt.Errorf("corrupted: CRC-32C %08x of the content does not match the stored %08x", got, want)
	}
	d := decoder{buf: data[headerLen:end]}
	c := &Checkpoint{}
	c.Step = d.count("step", math.MaxInt32)
	s := &c.Settings
	s.Dt = d.f64()
	s.Solver = d.str("settings.solver", 64)
	s.Tol = d.f64()
	s.MaxIter = d.count("settings.max_iter", math.MaxInt32)
	s.Gd = d.f64()
	s.WarmStart = d.bool("settings.warm_start")
	s.Envelope, s.BinSize, s.MaxRecoverySpeed = d.f64(), d.f64(), d.f64()
	s.Workers = d.count("settings.workers", math.MaxInt32)
	s.Precision = engine.PrecisionDouble
	if version >= 4 {
		s.Precision = d.str("settings.precision", 16)
		if d.err == nil && s.Precision != engine.PrecisionDouble && s.Precision != engine.PrecisionMixed {
			d.err = fmt.Errorf("settings.precision %q is not %q or %q", s.Precision, engine.PrecisionDouble, engine.PrecisionMixed)
		}
	}
	c.Steps = d.count("run.steps", math.MaxInt32)
	c.Duration = d.f64()
	if nt := d.count("run.trace", d.left()/8); nt > 0 {
		c.Trace = make([]int, nt)
		for i := range c.Trace {
			c.Trace[i] = d.count("run.trace id", math.MaxInt32)
		}
	}
	c.Source = d.str("source", d.left())
	if np := d.count("params", d.left()/16); np > 0 {
		c.Params = make(map[string]float64, np)
		prev := ""
		for i := range np {
			k := d.str("params name", d.left())
			v := d.f64()
			if d.err == nil && (i > 0 && k <= prev || math.IsNaN(v) || math.IsInf(v, 0)) {
				d.err = fmt.Errorf("params: %q = %v is out of order or not finite", k, v)
			}
			prev, c.Params[k] = k, v
		}
	}
	c.Scene = []byte(d.str("scene", d.left()))
	copy(c.Model[:], d.bytes("model hash", 32))
	n := d.count("state bodies", d.left()/(13*8))
	st := &c.State
	st.Resize(n)
	for _, a := range [][]float64{st.Pos, st.Rot, st.Vel, st.Omega} {
		for i := range a {
			a[i] = d.f64()
		}
	}
	if d.bool("warm") {
		m := d.count("warm contacts", d.left()/(3*4+3*8))
		w := &engine.WarmStartData{A: make([]int32, m), B: make([]int32, m), Sub: make([]int32, m), Gamma: make([]float64, 3*m)}
		for _, k := range [][]int32{w.A, w.B, w.Sub} {
			for i := range k {
				k[i] = int32(d.u32())
			}
		}
		for i := range w.Gamma {
			w.Gamma[i] = d.f64()
		}
		if version >= 2 {
			if nj := d.count("warm joint rows", d.left()/8); nj > 0 {
				w.Joints = make([]float64, nj)
				for i := range w.Joints {
					w.Joints[i] = d.f64()
				}
			}
		}
		rolling := version == 3
		if version >= 4 {
			rolling = d.bool("warm rolling flag")
		}
		if rolling {
			// 3 rolling impulses per key (Encode writes version 3 only
			// with them, version 4 with its flag set).
			if d.err == nil && d.left() < 3*8*m {
				d.err = fmt.Errorf("warm rolling impulses: need %d bytes, %d left in the content", 3*8*m, d.left())
			}
			if d.err == nil {
				w.Rolling = make([]float64, 3*m)
				for i := range w.Rolling {
					w.Rolling[i] = d.f64()
				}
			}
		}
		c.Warm = w
	}
	if d.err != nil {
		return nil, d.err
	}
	if d.left() != 0 {
		return nil, fmt.Errorf("%d bytes left over after the last section", d.left())
	}
	if err := c.check(); err != nil {
		return nil, err
	}
	return c, nil
}

// check reports the first field of a decoded checkpoint that is out of
// range.
func (c *Checkpoint) check() error {
	if err := c.Settings.Validate(); err != nil {
		return err
	}
	if !(c.Duration >= 0) || math.IsInf(c.Duration, 0) {
		return fmt.Errorf("run: duration %v must be ≥ 0 and finite", c.Duration)
	}
	n := c.State.Len()
	if n == 0 {
		return errors.New("state: no bodies")
	}
	for _, id := range c.Trace {
		if id >= n {
			return fmt.Errorf("run: trace id %d out of range [0, %d)", id, n)
		}
	}
	for _, a := range []struct {
		name string
		v    []float64
	}{{"position", c.State.Pos}, {"rotation", c.State.Rot}, {"velocity", c.State.Vel}, {"angular velocity", c.State.Omega}} {
		for i, x := range a.v {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				per := len(a.v) / n
				return fmt.Errorf("state: body %d: %s component %d is %v", i/per, a.name, i%per, x)
			}
		}
	}
	if c.Warm != nil {
		if err := c.Warm.Check(n); err != nil {
			return err
		}
	}
	return nil
}

type encoder struct{ buf []byte }

func (e *encoder) u8(v uint8)   { e.buf = append(e.buf, v) }
func (e *encoder) u32(v uint32) { e.buf = binary.LittleEndian.AppendUint32(e.buf, v) }
func (e *encoder) u64(v uint64) { e.buf = binary.LittleEndian.AppendUint64(e.buf, v) }
func (e *encoder) bool(v bool) {
	if v {
		e.u8(1)
	} else {
		e.u8(0)
	}
}
func (e *encoder) f64(vs ...float64) {
	for _, v := range vs {
		e.u64(math.Float64bits(v))
	}
}
func (e *encoder) str(s string) {
	e.u64(uint64(len(s)))
	e.buf = append(e.buf, s...)
}

// decoder reads the body; the first error sticks and later reads return
// zero values.
type decoder struct {
	buf []byte
	off int
	err error
}

func (d *decoder) left() int { return len(d.buf) - d.off }

func (d *decoder) bytes(what string, n int) []byte {
	if d.err != nil {
		return nil
	}
	if n > d.left() {
		d.err = fmt.Errorf("%s: needs %d bytes, %d left in the content", what, n, d.left())
		return nil
	}
	b := d.buf[d.off : d.off+n]
	d.off += n
	return b
}

func (d *decoder) u32() uint32 {
	if b := d.bytes("value", 4); b != nil {
		return binary.LittleEndian.Uint32(b)
	}
	return 0
}

func (d *decoder) u64() uint64 {
	if b := d.bytes("value", 8); b != nil {
		return binary.LittleEndian.Uint64(b)
	}
	return 0
}

func (d *decoder) f64() float64 { return math.Float64frombits(d.u64()) }

// count reads a non-negative integer no larger than limit.
func (d *decoder) count(what string, limit int) int {
	v := d.u64()
	if d.err == nil && v > uint64(limit) {
		d.err = fmt.Errorf("%s: %d is out of range [0, %d]", what, int64(v), limit)
		return 0
	}
	return int(v)
}

func (d *decoder) bool(what string) bool {
	b := d.bytes(what, 1)
	if b == nil {
		return false
	}
	if b[0] > 1 {
		d.err = fmt.Errorf("%s: flag byte %d is neither 0 nor 1", what, b[0])
		return false
	}
	return b[0] == 1
}

func (d *decoder) str(what string, limit int) string {
	n := d.count(what+" length", limit)
	return string(d.bytes(what, n))
}
