package enginetest

import (
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/engine"
)

// Advanced returns a copy of m whose movable bodies are where steps steps
// of set on the backend b (loaded here) left them: positions,
// orientations and velocities. Tests use it to compare a step with a
// developed contact network (at t = 0 a scene's bodies barely touch).
func Advanced(tb testing.TB, m *engine.Model, set engine.Settings, b engine.Backend, steps int) *engine.Model {
	tb.Helper()
	sim, err := engine.NewSim(m, set, b)
	if err != nil {
		tb.Fatal(err)
	}
	for range steps {
		if _, err := sim.Step(); err != nil {
			tb.Fatal(err)
		}
	}
	var st engine.State
	if err := b.ReadState(&st); err != nil {
		tb.Fatal(err)
	}
	out := *m
	out.Bodies = append([]engine.Body(nil), m.Bodies...)
	for i := range out.Bodies {
		bd := &out.Bodies[i]
		if bd.Fixed || bd.Shape.Kind == engine.Plane {
			continue
		}
		bd.Pos, bd.Vel, bd.Omega = mgl64.Vec3(st.Pos[3*i:3*i+3]), mgl64.Vec3(st.Vel[3*i:3*i+3]), mgl64.Vec3(st.Omega[3*i:3*i+3])
		bd.Rot = mgl64.Quat{W: st.Rot[4*i], V: mgl64.Vec3(st.Rot[4*i+1 : 4*i+4])}
	}
	return &out
}
