package cpuref

import (
	"fmt"
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/engine"
)

// latticeBackend loads n spheres (r = 0.1 m, 1 kg) on a cubic lattice of
// spacing 0.199 m on a plane, so that each sphere overlaps its lattice
// neighbours by 1 mm: about 3 contacts per body, like a settled pile.
func latticeBackend(b *testing.B, n int) (*Backend, engine.Problem) {
	b.Helper()
	m := engine.Model{Materials: []engine.Material{{Name: "m", Friction: 0.25}}, Gravity: mgl64.Vec3{0, 0, -9.81}}
	side := int(math.Ceil(math.Cbrt(float64(n))))
	for i := 0; i < n; i++ {
		x, y, z := i%side, (i/side)%side, i/(side*side)
		bd := engine.Body{Shape: engine.SphereShape(0.1), Rot: mgl64.QuatIdent(),
			Pos: mgl64.Vec3{0.199 * float64(x), 0.199 * float64(y), 0.0995 + 0.199*float64(z)}}
		bd.SetMass(1)
		m.Bodies = append(m.Bodies, bd)
	}
	m.Bodies = append(m.Bodies, engine.Body{Shape: engine.PlaneShape(), Rot: mgl64.QuatIdent(), Fixed: true})
	s := engine.DefaultSettings()
	be := New(0)
	if err := be.Load(&m, &s); err != nil {
		b.Fatal(err)
	}
	if _, err := be.Collide(); err != nil {
		b.Fatal(err)
	}
	p, err := be.Build(s.Dt)
	if err != nil {
		b.Fatal(err)
	}
	return be, p
}

var benchSizes = []int{1000, 8000, 64000}

// BenchmarkSchur measures one matrix-free product Dᵀ(M⁻¹(Dx)).
func BenchmarkSchur(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			be, p := latticeBackend(b, n)
			nc := be.con.Len()
			x, y := make(Vec, 3*nc), make(Vec, 3*nc)
			for i := range x {
				x[i] = float64(i%7) - 3
			}
			b.ReportMetric(float64(nc), "contacts")
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				p.Schur(y, x)
			}
		})
	}
}

// BenchmarkProject measures one cone projection of every contact.
func BenchmarkProject(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			be, p := latticeBackend(b, n)
			nc := be.con.Len()
			x, y := make(Vec, 3*nc), make(Vec, 3*nc)
			for i := range x {
				x[i] = float64(i%7) - 3
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				p.Project(y, x)
			}
		})
	}
}

// BenchmarkCollide measures broadphase and narrowphase of a whole step.
func BenchmarkCollide(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			be, _ := latticeBackend(b, n)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := be.Collide(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
