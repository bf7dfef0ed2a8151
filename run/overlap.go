package run

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/gpusim/gpusim/engine"
)

// MaxStartOverlap is the deepest interpenetration allowed between two
// bodies at the start of a run, as a fraction of the smaller body's
// smallest size (sphere radius, smallest semi-axis or half-extent; a plane
// has none). Deeper overlaps are an error: the first step would push the
// bodies apart at up to Φ/h (or max_recovery_speed), an explosion that no
// physical scene intends. Settled piles overlap by well under 1 %.
const MaxStartOverlap = 0.05

// shapeSize is the smallest length of a shape (m); +Inf for a plane.
func shapeSize(s engine.Shape) float64 {
	switch s.Kind {
	case engine.Sphere:
		return s.Size[0]
	case engine.Ellipsoid, engine.Box:
		return math.Min(s.Size[0], math.Min(s.Size[1], s.Size[2]))
	case engine.Capsule, engine.Cylinder:
		return math.Min(s.Size[0], s.Size[0]+s.Size[1])
	}
	return math.Inf(1)
}

// checkStartOverlap finds the contacts of the loaded model and returns an
// error naming the worst pairs that overlap by more than MaxStartOverlap.
// Pairs of fixed bodies (container walls meeting at corners) are not
// checked: they never move.
func checkStartOverlap(m *engine.Model, be engine.Backend) error {
	if _, err := be.Collide(); err != nil {
		return err
	}
	var c engine.Contacts
	if err := be.ReadContacts(&c); err != nil {
		return err
	}
	type bad struct {
		a, b        int32
		depth, size float64
	}
	var found []bad
	for k := 0; k < c.Len(); k++ {
		a, b := c.A[k], c.B[k]
		ba, bb := &m.Bodies[a], &m.Bodies[b]
		if (ba.Fixed || ba.Shape.Kind == engine.Plane) && (bb.Fixed || bb.Shape.Kind == engine.Plane) {
			continue
		}
		size := math.Min(shapeSize(ba.Shape), shapeSize(bb.Shape))
		if depth := -c.Phi[k]; depth > MaxStartOverlap*size {
			found = append(found, bad{a, b, depth, size})
		}
	}
	if len(found) == 0 {
		return nil
	}
	sort.SliceStable(found, func(i, j int) bool { return found[i].depth/found[i].size > found[j].depth/found[j].size })
	var sb strings.Builder
	pairs, verb := "pairs of bodies overlap", "the worst:"
	if len(found) == 1 {
		pairs, verb = "pair of bodies overlaps", ""
	}
	fmt.Fprintf(&sb, "%d %s at the start by more than %g %% of the smaller body's size;%s", len(found), pairs, 100*MaxStartOverlap, strings.TrimSuffix(" "+verb, " "))
	for i, f := range found {
		if i == 5 {
			fmt.Fprintf(&sb, " …")
			break
		}
		fmt.Fprintf(&sb, " bodies %d (%s) and %d (%s) by %.3g m (size %.3g m);", f.a, m.Bodies[f.a].Shape.Kind,
			f.b, m.Bodies[f.b].Shape.Kind, f.depth, f.size)
	}
	return &InputError{fmt.Errorf("%s move them apart or make them smaller", strings.TrimSuffix(sb.String(), ";")+";")}
}
