package scene

import (
	"bytes"
	"math"
	"strings"
	"testing"
)

// TestRollingFrictionMaterial: rolling_friction and spinning_friction
// reach engine.Material, default to 0, survive a dump, can be set with
// --set, and non-finite values built from Go are refused naming the
// field.
func TestRollingFrictionMaterial(t *testing.T) {
	src := []byte(`{"materials": [{"name": "a", "friction": 0.5, "rolling_friction": 0.01, "spinning_friction": 0.002}, {"name": "b", "friction": 0.3}],
		"bodies": [{"shape": {"type": "sphere", "radius": 0.1}, "mass": 1}]}`)
	sc, err := Parse(src, "test", nil)
	if err != nil {
		t.Fatal(err)
	}
	m := sc.Model.Materials
	if m[0].RollingFriction != 0.01 || m[0].SpinningFriction != 0.002 || m[1].RollingFriction != 0 || m[1].SpinningFriction != 0 {
		t.Fatalf("materials %+v", m)
	}
	data, err := Dump(sc.Doc)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte(`"rolling_friction": 0.01`)) || !bytes.Contains(data, []byte(`"spinning_friction": 0.002`)) {
		t.Errorf("dump lacks the rolling fields:\n%s", data)
	}
	if bytes.Count(data, []byte("rolling_friction")) != 1 {
		t.Errorf("dump writes a zero rolling_friction:\n%s", data)
	}
	sc, err = Parse(src, "test", []string{"materials.1.rolling_friction=0.03"})
	if err != nil {
		t.Fatal(err)
	}
	if got := sc.Model.Materials[1].RollingFriction; got != 0.03 {
		t.Errorf("--set materials.1.rolling_friction=0.03 gave %v", got)
	}
	ball := BodySpec{Shape: ShapeSpec{Type: "sphere", Radius: &Size{Value: 1}}, Mass: ptr(1.0)}
	for _, tc := range []struct {
		name string
		mat  MaterialSpec
		want string
	}{
		{"NaN rolling", MaterialSpec{Name: "m", Friction: ptr(0.1), RollingFriction: math.NaN()}, "materials[0].rolling_friction: NaN must be ≥ 0 and finite"},
		{"Inf rolling", MaterialSpec{Name: "m", Friction: ptr(0.1), RollingFriction: math.Inf(1)}, "materials[0].rolling_friction: +Inf must be ≥ 0 and finite"},
		{"negative spinning", MaterialSpec{Name: "m", Friction: ptr(0.1), SpinningFriction: -1}, "materials[0].spinning_friction: -1 must be ≥ 0 and finite"},
		{"Inf spinning", MaterialSpec{Name: "m", Friction: ptr(0.1), SpinningFriction: math.Inf(-1)}, "materials[0].spinning_friction: -Inf must be ≥ 0 and finite"},
	} {
		d := Doc{Materials: []MaterialSpec{tc.mat}, Bodies: []BodySpec{ball}}
		if _, err := d.Build("go"); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}
