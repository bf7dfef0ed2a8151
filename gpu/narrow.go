//go:build linux && cgo && (amd64 || arm64)

package gpu

import (
	"fmt"
	"math/bits"
	"slices"
	"strings"

	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/shaders"
)

// The rows of collide_narrow's narrowphase table (its PAIR_* constants): a
// pair of kinds, after the swap into kind order, falls in one row.
const (
	pairSphereSphere = iota
	pairSphereBox
	pairSpherePlane
	pairEllipsoidPlane
	pairBoxPlane
	pairSphereEllipsoid
	pairBoxBox          // separating axes, clipping, GJK
	pairEllipsoidConvex // ellipsoid–ellipsoid, ellipsoid–box: GJK/EPA, Newton
	pairSphereCapsule
	pairPlaneCapsule
	pairCapsuleCapsule
	pairSphereCylinder
	pairPlaneCylinder
	pairHostRound // a capsule or a cylinder with an ellipsoid or a box, capsule–cylinder, cylinder–cylinder: GJK/EPA on the host
	pairNone      // plane–plane: no contact
	pairRows
)

// pairRowNames names the rows for messages.
var pairRowNames = [pairRows]string{"sphere–sphere", "sphere–box", "sphere–plane", "ellipsoid–plane",
	"box–plane", "sphere–ellipsoid", "box–box", "ellipsoid–ellipsoid and ellipsoid–box",
	"sphere–capsule", "plane–capsule", "capsule–capsule", "sphere–cylinder", "plane–cylinder",
	"ellipsoid–capsule, ellipsoid–cylinder, box–capsule, box–cylinder, capsule–cylinder and cylinder–cylinder",
	"plane–plane"}

// rowKinds is the number of kinds the table's rows cover: every kind up
// to engine.Cylinder (engine.Compound's row and column stay empty: a
// model with a compound collides on the host).
const rowKinds = int(engine.Cylinder) + 1

// pairRows' rows by kinds ka <= kb (engine's order: sphere, ellipsoid,
// box, plane, compound, capsule, cylinder): collide_narrow's pairClass.
var pairRowOf = [rowKinds][rowKinds]int{
	engine.Sphere: {engine.Sphere: pairSphereSphere, engine.Ellipsoid: pairSphereEllipsoid, engine.Box: pairSphereBox, engine.Plane: pairSpherePlane,
		engine.Capsule: pairSphereCapsule, engine.Cylinder: pairSphereCylinder},
	engine.Ellipsoid: {engine.Ellipsoid: pairEllipsoidConvex, engine.Box: pairEllipsoidConvex, engine.Plane: pairEllipsoidPlane,
		engine.Capsule: pairHostRound, engine.Cylinder: pairHostRound},
	engine.Box:      {engine.Box: pairBoxBox, engine.Plane: pairBoxPlane, engine.Capsule: pairHostRound, engine.Cylinder: pairHostRound},
	engine.Plane:    {engine.Plane: pairNone, engine.Capsule: pairPlaneCapsule, engine.Cylinder: pairPlaneCylinder},
	engine.Capsule:  {engine.Capsule: pairCapsuleCapsule, engine.Cylinder: pairHostRound},
	engine.Cylinder: {engine.Cylinder: pairHostRound},
}

// pairRow is the row of kinds ka <= kb.
func pairRow(ka, kb engine.ShapeKind) int { return pairRowOf[ka][kb] }

// narrowRows returns the rows (bit r for row r) that the pairs of a
// model's shape kinds can fall in, the plane–plane row always.
func narrowRows(kinds []engine.ShapeKind) uint32 {
	seen := kindsSeen(kinds)
	rows := uint32(1) << pairNone
	for a := range seen {
		for b := a; b < len(seen); b++ {
			if seen[a] && seen[b] {
				rows |= 1 << pairRow(engine.ShapeKind(a), engine.ShapeKind(b))
			}
		}
	}
	return rows
}

// kindsSeen reports which of the table's kinds occur in kinds.
func kindsSeen(kinds []engine.ShapeKind) [rowKinds]bool {
	var seen [rowKinds]bool
	for _, k := range kinds {
		if int(k) < len(seen) && k != engine.Compound {
			seen[k] = true
		}
	}
	return seen
}

// hostRoundNote is the note of a model whose pairs fall in the
// pairHostRound row: which pairs of its kinds the host computes (collide's
// GJK/EPA), "" when none.
func hostRoundNote(kinds []engine.ShapeKind) string {
	seen := kindsSeen(kinds)
	var names []string
	for a := range seen {
		for b := a; b < len(seen); b++ {
			if seen[a] && seen[b] && pairRow(engine.ShapeKind(a), engine.ShapeKind(b)) == pairHostRound {
				names = append(names, engine.ShapeKind(a).String()+"–"+engine.ShapeKind(b).String())
			}
		}
	}
	if len(names) == 0 {
		return ""
	}
	return fmt.Sprintf("gpu: %s pairs go through the host: the device lists them and collide.Narrow (GJK/EPA) computes their contacts each step; every other pair collides on the device",
		strings.Join(names, ", "))
}

// narrowPipelines are the collide_narrow pipelines of a model: the
// closed-form rows in one pipeline, box–box in another and the ellipsoid
// GJK/EPA row in a third (the pairHostRound row is in none: it is always
// listed for the host), each
// built with only its rows (the specialization constant CLASSES), so a
// driver compiles what the model needs. A group that does not build is
// tried row by row; a row that does not build alone is listed for the
// host (host, bit r for row r), whose narrowphase computes its pairs as it
// does a pair whose EPA outgrew the device's polytope, and notes says so.
type narrowPipelines struct {
	k     []*Kernel
	rows  uint32 // the model's rows (narrowRows)
	host  uint32
	notes []string
}

// keepsNormals reports whether collide_narrow writes pairN, the normals
// that its mode 0 finds for the pairs of the ellipsoid GJK/EPA row and
// modes 3 and 1 read: only that row, where the device computes it.
func (np *narrowPipelines) keepsNormals() bool {
	return np.rows&^np.host&(1<<pairEllipsoidConvex) != 0
}

// listsPairs reports whether collide_narrow may list pairs for the host
// in fbList: the rows the host computes, and the ellipsoid GJK/EPA row,
// whose polytope may outgrow the device's.
func (np *narrowPipelines) listsPairs() bool {
	return np.host != 0 || np.rows&(1<<pairEllipsoidConvex) != 0
}

// modelPairExtras reports whether the narrowphase rows of m's shape kinds
// keep pair normals or may list pairs for the host (EstimateBytes'
// pairExtras; deviceCollider's pairN and fbList).
// Before the pipelines are built it cannot know which rows will fail to
// build and go to the host, so it answers for the rows that use them
// whatever the driver: the ellipsoid GJK/EPA row and the host's row.
func modelPairExtras(m *engine.Model) bool {
	return narrowRows(modelKinds(m))&(1<<pairEllipsoidConvex|1<<pairHostRound) != 0
}

// modelKinds returns the shape kind of each of m's bodies.
func modelKinds(m *engine.Model) []engine.ShapeKind {
	kinds := make([]engine.ShapeKind, len(m.Bodies))
	for i, bd := range m.Bodies {
		kinds[i] = bd.Shape.Kind
	}
	return kinds
}

// buildNarrow builds the pipelines of rows on d. It fails only when no
// row builds at all.
func buildNarrow(d *Device, rows uint32) (narrowPipelines, error) {
	var np narrowPipelines
	var firstErr error
	const boxBox, ellConvex, hostRound = 1 << pairBoxBox, 1 << pairEllipsoidConvex, 1 << pairHostRound
	np.rows, np.host = rows, rows&hostRound
	for _, g := range []uint32{rows &^ (boxBox | ellConvex | hostRound), rows & boxBox, rows & ellConvex} {
		if g == 0 {
			continue
		}
		k, err := d.KernelSpec(shaders.CollideNarrow, []uint32{g})
		if err == nil {
			np.k = append(np.k, k)
			continue
		}
		for r := range pairRows {
			bit := uint32(1) << r
			if g&bit == 0 {
				continue
			}
			if bits.OnesCount32(g) > 1 {
				if k, err = d.KernelSpec(shaders.CollideNarrow, []uint32{bit}); err == nil {
					np.k = append(np.k, k)
					continue
				}
			}
			if firstErr == nil {
				firstErr = err
			}
			np.host |= bit
			np.notes = append(np.notes, fmt.Sprintf("gpu: %s cannot build the narrowphase of %s pairs (%v): the host computes them",
				d.Info.Name, pairRowNames[r], err))
		}
	}
	if len(np.k) == 0 {
		return np, fmt.Errorf("gpu: %s builds no narrowphase pipeline: %w", d.Info.Name, firstErr)
	}
	return np, nil
}

// Notes says which rows of the narrowphase table the host computes for
// the loaded model because the device cannot build them, which pairs of
// its kinds always go through the host (pairHostRound: capsules and
// cylinders with ellipsoids and boxes, capsule–cylinder,
// cylinder–cylinder), and whether the host runs the whole collision
// (engine.Noter); and, for a model with rolling friction, that the
// solvers run their host-driven iterations (see rolling).
func (b *Backend) Notes() []string {
	notes := slices.Clone(b.dc.narrow.notes)
	if b.rl.on {
		notes = append(notes, rollingNote)
	}
	return notes
}
