//go:build linux && cgo && (amd64 || arm64)

package gpu

import (
	"testing"
	"time"

	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/shaders"
)

// TestNarrowRows: a model of spheres and planes needs the sphere–sphere,
// sphere–plane and plane–plane rows only; one of every kind needs them all.
func TestNarrowRows(t *testing.T) {
	if got, want := narrowRows([]engine.ShapeKind{engine.Sphere, engine.Plane}),
		uint32(1<<pairSphereSphere|1<<pairSpherePlane|1<<pairNone); got != want {
		t.Errorf("spheres and planes: rows %08b, want %08b", got, want)
	}
	all := []engine.ShapeKind{engine.Sphere, engine.Ellipsoid, engine.Box, engine.Plane, engine.Capsule, engine.Cylinder}
	if got, want := narrowRows(all), uint32(1<<pairRows-1); got != want {
		t.Errorf("every kind: rows %015b, want %015b", got, want)
	}
	// Capsules and cylinders with spheres and planes: their closed forms,
	// and the host's row for capsule–cylinder and cylinder–cylinder.
	if got, want := narrowRows([]engine.ShapeKind{engine.Sphere, engine.Plane, engine.Capsule, engine.Cylinder}),
		uint32(1<<pairSphereSphere|1<<pairSpherePlane|1<<pairNone|1<<pairSphereCapsule|1<<pairPlaneCapsule|
			1<<pairCapsuleCapsule|1<<pairSphereCylinder|1<<pairPlaneCylinder|1<<pairHostRound); got != want {
		t.Errorf("spheres, planes, capsules, cylinders: rows %015b, want %015b", got, want)
	}
	if got := narrowRows([]engine.ShapeKind{engine.Capsule, engine.Plane}); got&(1<<pairHostRound) != 0 {
		t.Errorf("capsules and planes: rows %015b list the host's row", got)
	}
}

// TestNarrowRowOnHost: when the device cannot build a row of the
// narrowphase table, its pairs are listed for the host, and the contacts
// are still cpuref's, key for key and bit for bit (checkContacts), for
// each row of the random scene of every shape in turn.
func TestNarrowRowOnHost(t *testing.T) {
	m := randomModel(6, 600)
	tw := newTwin(t, m, engine.DefaultSettings())
	kinds := make([]engine.ShapeKind, len(m.Bodies))
	for i, b := range m.Bodies {
		kinds[i] = b.Shape.Kind
	}
	rows := narrowRows(kinds)
	for r := range pairNone {
		bit := uint32(1) << r
		if rows&bit == 0 || r == pairHostRound {
			continue // a row the scene has no pair of; the host's row is always listed
		}
		np, err := buildNarrow(tw.gpu.d, rows&^bit)
		if err != nil {
			t.Fatal(err)
		}
		np.host |= bit
		tw.gpu.dc.narrow = np
		tw.collide(t)
		if tw.gpu.dc.counts[metaFallback] == 0 {
			t.Fatalf("row %s on the host: no pair listed", pairRowNames[r])
		}
		checkContacts(t, tw)
		t.Logf("row %s on the host: %d of %d pairs listed", pairRowNames[r], tw.gpu.dc.counts[metaFallback], tw.gpu.dc.counts[metaPairs])
	}
}

// TestNarrowRowsBuild: every row of the narrowphase table builds alone on
// the device (a row that does not would go to the host: buildNarrow), and
// how long each takes to build is logged: what a driver's compiler makes
// of each row.
func TestNarrowRowsBuild(t *testing.T) {
	d := newTestBackend(t).d
	for r := range pairRows {
		start := time.Now()
		_, err := d.KernelSpec(shaders.CollideNarrow, []uint32{1 << r})
		if err != nil {
			t.Errorf("row %s: %v (%.1f s)", pairRowNames[r], err, time.Since(start).Seconds())
			continue
		}
		t.Logf("row %s built in %.2f s", pairRowNames[r], time.Since(start).Seconds())
	}
}
