package viz

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/gpusim/gpusim/vtk"
)

// NumFrames returns the number of frames listed in dir's run.pvd, or 0
// when dir has no run.pvd (LoadFrame then draws final.csv).
func NumFrames(dir string) (int, error) {
	sets, err := vtk.ReadPVD(filepath.Join(dir, vtk.PVD))
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return len(sets), nil
}

// ErrNoContacts is returned by LoadForces for a run without contact
// frames.
var ErrNoContacts = errors.New("no contact frames (contacts.pvd, written by gpusim run --vtk N --vtk-contacts)")

// LoadForces fills fr.Force from the contacts file of the frame's step
// in dir (listed in contacts.pvd): each contact adds
// |f| = √(normal_force² + friction_force²) to both its bodies. The
// contact files carry the friction force's magnitude, not its direction,
// so this is the load a body carries, not the resultant force on it. A
// frame from final.csv, or a run without contacts.pvd, gives an error
// wrapping ErrNoContacts; a step whose contacts file is not listed, an
// error naming it.
func LoadForces(dir string, fr *Frame) error {
	if fr.file == "" {
		return fmt.Errorf("viz: %s: %w", dir, ErrNoContacts)
	}
	pvd := filepath.Join(dir, vtk.ContactsPVD)
	sets, err := vtk.ReadPVD(pvd)
	if errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("viz: %s: %w", dir, ErrNoContacts)
	}
	if err != nil {
		return err
	}
	// frame-NNNNNN.vtp ↔ contacts-NNNNNN.vtp (vtk.FrameFile, ContactsFile).
	base := path.Base(filepath.ToSlash(fr.file))
	want := ""
	if step, ok := strings.CutPrefix(base, "frame-"); ok {
		want = "contacts-" + step
	}
	file := ""
	for _, s := range sets {
		if want != "" && path.Base(filepath.ToSlash(s.File)) == want {
			file = s.File
		}
	}
	if file == "" {
		return fmt.Errorf("viz: %s lists no contacts for the frame %s", pvd, fr.file)
	}
	full := filepath.Join(dir, filepath.FromSlash(file))
	p, err := vtk.ReadFile(full)
	if err != nil {
		return err
	}
	nc := p.Lines.Len()
	get := func(name string, comps int) ([]float64, error) {
		a := p.CellArray(name)
		if a == nil || a.Components != comps || a.Tuples() != nc {
			return nil, fmt.Errorf("viz: %s: want the cell array %q of %d components per contact", full, name, comps)
		}
		return a.Data, nil
	}
	body, err := get(vtk.ArrayBodyID, 2)
	if err != nil {
		return err
	}
	fn, err := get(vtk.ArrayNormalForce, 1)
	if err != nil {
		return err
	}
	ft, err := get(vtk.ArrayFrictionForce, 1)
	if err != nil {
		return err
	}
	index := make(map[int]int, len(fr.Bodies))
	for i := range fr.Bodies {
		index[fr.Bodies[i].ID] = i
	}
	force := make([]float64, len(fr.Bodies))
	for c := range nc {
		f := math.Hypot(fn[c], ft[c])
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return fmt.Errorf("viz: %s: contact %d: force not finite", full, c)
		}
		for _, id := range body[2*c : 2*c+2] {
			i, ok := index[int(id)]
			if !ok {
				return fmt.Errorf("viz: %s: contact %d: body %v is not in the frame %s", full, c, id, fr.file)
			}
			force[i] += f
		}
	}
	fr.Force = force
	return nil
}

// RunStats is what a movie of a run keeps fixed over its frames.
type RunStats struct {
	Frames int // frames in run.pvd (1 for a run drawn from final.csv)
	// Lo and Hi are the colour range: the smallest and largest value of
	// the quantity (ColorRange) over every frame.
	Lo, Hi float64
	// Bounds is the box round the bodies of every frame (Bounds).
	Bounds Box
}

// ScanRun reads every frame of the run in dir (LoadFrame; with ByForce
// also LoadForces) and returns the range of q and the box round the
// bodies over all of them.
func ScanRun(dir string, q Quantity) (*RunStats, error) {
	n, err := NumFrames(dir)
	if err != nil {
		return nil, err
	}
	st := &RunStats{Frames: max(n, 1), Lo: math.Inf(1), Hi: math.Inf(-1)}
	for k := range st.Frames {
		idx := k
		if n == 0 {
			idx = -1
		}
		fr, err := LoadFrame(dir, idx)
		if err != nil {
			return nil, err
		}
		if q == ByForce {
			if err := LoadForces(dir, fr); err != nil {
				return nil, err
			}
		}
		lo, hi := ColorRange(q, fr.Bodies, fr.Force)
		st.Lo, st.Hi = math.Min(st.Lo, lo), math.Max(st.Hi, hi)
		b := Bounds(fr.Bodies)
		if k == 0 {
			st.Bounds = b
		} else {
			st.Bounds = st.Bounds.union(b)
		}
	}
	return st, nil
}
