package vtk

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/engine"
)

// Names of a run's ParaView files, relative to the run's folder.
const (
	// PVD is the collection of the body frames.
	PVD = "run.pvd"
	// ContactsPVD is the collection of the contact frames.
	ContactsPVD = "contacts.pvd"
	// Dir holds the frame files.
	Dir = "vtk"
	// ContainerFile holds the fixed bodies and the planes as surfaces
	// (FixedPolyData), written once from the initial state (they do not
	// move).
	ContainerFile = "vtk/container.vtp"
)

// FrameFile returns the frame file of a step, relative to the run's folder.
func FrameFile(step int) string { return fmt.Sprintf("vtk/frame-%06d.vtp", step) }

// ContactsFile returns the contacts file of a step, relative to the run's
// folder.
func ContactsFile(step int) string { return fmt.Sprintf("vtk/contacts-%06d.vtp", step) }

// Recorder writes the ParaView files of a run into its folder: the frame of
// step 0 (the initial state), of every Every-th step and of the last step,
// each as FrameFile(step), listed with its time in run.pvd; with Contacts
// also ContactsFile(step) and contacts.pvd; and ContainerFile with the
// first frame. The collections are rewritten atomically after each frame,
// so an interrupted run still opens in ParaView.
type Recorder struct {
	dir             string
	model           *engine.Model
	every           int
	contacts        bool
	frames, cframes []DataSet
	container       bool // written
	state           engine.State
	con             engine.Contacts
	gamma           []float64
	rForce, rTorque []mgl64.Vec3 // per body, nil without reactions (SetReactions)
	static          []bool       // per body: fixed, plane or kinematic
}

// NewRecorder prepares dir/vtk for the model's frames, written every
// every steps (≥ 1), with the contacts when contacts is set, for a run
// that starts at step from (0, or the step of the checkpoint a resumed run
// starts from). Frame and contacts files of steps after from left there by
// an earlier run are removed, so the folder holds this run's frames only;
// those of steps before from stay, listed in the collections again when
// the earlier collections list them.
func NewRecorder(dir string, m *engine.Model, every int, contacts bool, from int) (*Recorder, error) {
	if every < 1 {
		return nil, fmt.Errorf("vtk: frames every %d steps: must be ≥ 1", every)
	}
	if err := os.MkdirAll(filepath.Join(dir, Dir), 0o755); err != nil {
		return nil, fmt.Errorf("vtk: %w", err)
	}
	for _, pat := range []string{"frame-*.vtp", "contacts-*.vtp"} {
		old, _ := filepath.Glob(filepath.Join(dir, Dir, pat))
		for _, f := range old {
			if step, ok := fileStep(f); ok && step < from {
				continue
			}
			if err := os.Remove(f); err != nil {
				return nil, fmt.Errorf("vtk: %w", err)
			}
		}
	}
	r := &Recorder{dir: dir, model: m, every: every, contacts: contacts, static: make([]bool, len(m.Bodies))}
	for i := range m.Bodies {
		r.static[i] = m.Bodies[i].Static()
	}
	if err := WriteView(dir, m.Gravity); err != nil {
		return nil, err
	}
	if from > 0 {
		// The collections list only files that exist at every moment.
		r.frames = earlier(filepath.Join(dir, PVD), from)
		if err := WritePVD(filepath.Join(dir, PVD), r.frames); err != nil {
			return nil, err
		}
		if contacts {
			r.cframes = earlier(filepath.Join(dir, ContactsPVD), from)
			if err := WritePVD(filepath.Join(dir, ContactsPVD), r.cframes); err != nil {
				return nil, err
			}
		}
	}
	if !contacts {
		os.Remove(filepath.Join(dir, ContactsPVD))
	}
	return r, nil
}

// SetModel replaces the model the frames draw by m, the model with bodies
// appended (a pour: engine.Sim.Grow), from the next frame on.
func (r *Recorder) SetModel(m *engine.Model) {
	r.model = m
	r.static = r.static[:0]
	for i := range m.Bodies {
		r.static = append(r.static, m.Bodies[i].Static())
	}
}

// Trim removes from the run folder dir the frame and contacts files of
// steps after step and their entries in run.pvd and contacts.pvd (which
// are rewritten if they exist): a run resumed from a checkpoint of step
// into the folder of the run that wrote it then leaves no frame of the
// older run's later steps, with or without frames of its own.
func Trim(dir string, step int) error {
	for _, pat := range []string{"frame-*.vtp", "contacts-*.vtp"} {
		old, _ := filepath.Glob(filepath.Join(dir, Dir, pat))
		for _, f := range old {
			if k, ok := fileStep(f); ok && k > step {
				if err := os.Remove(f); err != nil {
					return fmt.Errorf("vtk: %w", err)
				}
			}
		}
	}
	for _, name := range []string{PVD, ContactsPVD} {
		path := filepath.Join(dir, name)
		if _, err := os.Stat(path); err != nil {
			continue
		}
		if err := WritePVD(path, earlier(path, step+1)); err != nil {
			return err
		}
	}
	return nil
}

// fileStep returns the step in the name of a frame or contacts file.
func fileStep(path string) (int, bool) {
	base := filepath.Base(path)
	for _, pat := range []string{"frame-%d.vtp", "contacts-%d.vtp"} {
		var step int
		if _, err := fmt.Sscanf(base, pat, &step); err == nil {
			return step, true
		}
	}
	return 0, false
}

// earlier returns the entries of the collection at path (if it reads)
// whose files are of steps before from and still exist.
func earlier(path string, from int) []DataSet {
	sets, err := ReadPVD(path)
	if err != nil {
		return nil
	}
	var keep []DataSet
	for _, s := range sets {
		step, ok := fileStep(s.File)
		if _, err := os.Stat(filepath.Join(filepath.Dir(path), filepath.FromSlash(s.File))); ok && step < from && err == nil {
			keep = append(keep, s)
		}
	}
	return keep
}

// Frame writes the frame of step (0 before the first step) at simulated
// time t (s) if it is due: step 0, a multiple of Every, or last. The
// first frame a Recorder writes comes with ContainerFile. It reads
// the state, and with contacts the contacts and the last step's impulses,
// from sim.
func (r *Recorder) Frame(step int, t float64, last int, sim *engine.Sim) error {
	if step != 0 && step%r.every != 0 && step != last {
		return nil
	}
	be := sim.Backend()
	if err := be.ReadState(&r.state); err != nil {
		return fmt.Errorf("vtk: frame %d: %w", step, err)
	}
	bs, err := Bodies(r.model, &r.state)
	if err != nil {
		return err
	}
	if !r.container {
		if err := WriteFile(filepath.Join(r.dir, ContainerFile), FixedPolyData(bs, PlaneSide(bs))); err != nil {
			return err
		}
		r.container = true
	}
	fp := BodiesPolyData(bs)
	if r.rForce != nil {
		if err := AddReactions(fp, r.rForce, r.rTorque); err != nil {
			return err
		}
	}
	if err := WriteFile(filepath.Join(r.dir, FrameFile(step)), fp); err != nil {
		return err
	}
	r.frames = append(r.frames, DataSet{Time: t, File: FrameFile(step)})
	if err := WritePVD(filepath.Join(r.dir, PVD), r.frames); err != nil {
		return err
	}
	if !r.contacts {
		return nil
	}
	r.con.Resize(0)
	r.gamma = r.gamma[:0]
	if sim.Steps() > 0 {
		if err := be.ReadContacts(&r.con); err != nil {
			return fmt.Errorf("vtk: frame %d: %w", step, err)
		}
		r.gamma = sim.Impulses(r.gamma)
	}
	cp, err := ContactNetworkPolyData(&r.state, &r.con, r.gamma, sim.Settings().Dt, r.static)
	if err != nil {
		return fmt.Errorf("vtk: frame %d: %w", step, err)
	}
	if err := WriteFile(filepath.Join(r.dir, ContactsFile(step)), cp); err != nil {
		return err
	}
	r.cframes = append(r.cframes, DataSet{Time: t, File: ContactsFile(step)})
	return WritePVD(filepath.Join(r.dir, ContactsPVD), r.cframes)
}
