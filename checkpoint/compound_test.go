package checkpoint

import (
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/engine"
)

// The hash covers a compound's parts: moving, resizing or turning one
// changes it; a model without compounds hashes as before they existed
// (TestModelHash's model is unaffected: the section is absent).
func TestModelHashCompound(t *testing.T) {
	id := mgl64.QuatIdent()
	model := func(edit func(p []engine.Part)) *engine.Model {
		parts := []engine.Part{
			{Shape: engine.SphereShape(0.1), Pos: mgl64.Vec3{-0.3, 0, 0}, Rot: id},
			{Shape: engine.BoxShape(0.1, 0.2, 0.3), Pos: mgl64.Vec3{0.3, 0, 0}, Rot: id},
		}
		edit(parts)
		b := engine.Body{Shape: engine.CompoundShape(parts), Rot: id, Mass: 1, Inertia: mgl64.Vec3{1, 1, 1}}
		return &engine.Model{Materials: []engine.Material{{Name: "a", Friction: 0.5}}, Bodies: []engine.Body{b}}
	}
	h := ModelHash(model(func([]engine.Part) {}))
	for name, edit := range map[string]func(p []engine.Part){
		"part position": func(p []engine.Part) { p[1].Pos[2] = 1e-9 },
		"part size":     func(p []engine.Part) { p[1].Shape.Size[1] = 0.25 },
		"part rotation": func(p []engine.Part) { p[0].Rot = mgl64.QuatRotate(0.1, mgl64.Vec3{0, 0, 1}) },
		"part kind":     func(p []engine.Part) { p[0].Shape = engine.EllipsoidShape(0.1, 0.1, 0.1) },
	} {
		if ModelHash(model(edit)) == h {
			t.Errorf("the hash ignores the %s", name)
		}
	}
}
