package scene

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestBadFiles loads every file in testdata/bad and checks that the error
// names the file, the field and the problem.
func TestBadFiles(t *testing.T) {
	want := map[string][]string{
		"syntax.json":                     {"syntax.json:4:3: invalid character"},
		"truncated.json":                  {"truncated.json:4:1: unexpected end of JSON input"},
		"top_level_array.json":            {"expected a JSON object at top level, got an array"},
		"unknown_field.json":              {"bodies[0].shape.radus: unknown field", "radius, scale, semi_axes"},
		"wrong_type.json":                 {`bodies[0].mass: expected a number, got the string "1"`},
		"short_vector.json":               {"bodies[0].pos: expected an array of 3 values, got 2"},
		"number_range.json":               {"bodies[0].mass: number 1e999 is out of range"},
		"negative_radius.json":            {"bodies[1].shape.radius: -1 must be positive"},
		"zero_mass.json":                  {"bodies[0].mass: 0 must be positive"},
		"missing_mass.json":               {"bodies[0]: missing mass or density"},
		"mass_and_density.json":           {"bodies[0]: give mass or density, not both"},
		"generator_density.json":          {"generators[0].density: -5 must be positive"},
		"unknown_material.json":           {`bodies[0].material: unknown material "steel" (materials: default)`},
		"negative_friction.json":          {"materials[0].friction: -0.1 must be ≥ 0"},
		"missing_friction.json":           {"materials[0].friction: missing"},
		"duplicate_material.json":         {`materials[1].name: "default" is already the name of materials[0]`},
		"empty.json":                      {"no bodies and no generators"},
		"trace_range.json":                {"run.trace[1]: body 5 out of range: the scene has 2 bodies"},
		"rot_not_unit.json":               {"bodies[0].rot: [1 1 0 0] is not a unit quaternion"},
		"unknown_shape.json":              {`bodies[0].shape.type: unknown shape "cube"`},
		"plane_not_fixed.json":            {"bodies[0].fixed: a plane must be fixed"},
		"zero_normal.json":                {"containers[0].normal: [0 0 0] has no direction"},
		"unknown_distribution.json":       {`generators[0].shape.radius.dist: unknown distribution "gamma"`},
		"distribution_in_body.json":       {"bodies[0].shape.radius: a uniform distribution is only allowed in generators"},
		"lattice_overlap.json":            {"generators[0].spacing: 0.15 is less than 0.2"},
		"negative_seed.json":              {"generators[0].seed: -1 is not an integer"},
		"cylinder_and_region.json":        {"generators[0].cylinder: give region or cylinder, not both"},
		"cylinder_too_thin.json":          {"generators[0].cylinder.radius: 0.05 is too small: bodies of bounding radius 0.1 need 0.2"},
		"cylinder_in_lattice.json":        {"generators[0].cylinder: applies to random and pour generators only"},
		"random_full.json":                {"generators[0]: placed", "of 500 bodies", "enlarge the region or reduce count"},
		"unknown_solver.json":             {`unknown solver "gauss-seidel"`},
		"unknown_container.json":          {`containers[0].type: unknown container "cone"`},
		"joint_unknown_type.json":         {`joints[0].type: unknown joint type "hinge"`},
		"joint_body_range.json":           {"joints[0].body2: body id 7 out of range [0, 3)"},
		"joint_same_body.json":            {"joints[0].body2: the same body as body1 (1)"},
		"joint_zero_axis.json":            {"joints[2].axis: zero vector"},
		"joint_fixed_world.json":          {"joints[0]: joins body 2 (fixed) to the world: neither can move"},
		"joint_two_fixed.json":            {"joints[0]: joins body 2 (fixed) and body 3 (kinematic): neither can move"},
		"motion_with_mass.json":           {"bodies[1]: a body with a motion is kinematic (infinite mass): it takes no mass"},
		"compound_no_parts.json":          {"bodies[0].shape.parts: missing (a compound needs at least one part)"},
		"compound_plane_part.json":        {"bodies[0].shape.parts[1].shape.type: a plane cannot be a part of a compound"},
		"compound_nested.json":            {"bodies[0].shape.parts[0].shape.type: compounds do not nest"},
		"compound_zero_size.json":         {"bodies[0].shape.parts[1].shape.half_extents[2]: 0 must be positive"},
		"compound_bad_rot.json":           {"bodies[0].shape.parts[1].rot: [1 1 0 0] is not a unit quaternion"},
		"compound_pos_range.json":         {"bodies[0].shape.parts[0].pos[0]: number 1e999 is out of range"},
		"compound_in_generator.json":      {"generators[0].shape.type: a generator cannot make compounds"},
		"compound_radius.json":            {"bodies[0].shape.parts: does not apply to a sphere"},
		"negative_rolling_friction.json":  {"materials[0].rolling_friction: -0.01 must be ≥ 0 and finite"},
		"negative_spinning_friction.json": {"materials[0].spinning_friction: -0.002 must be ≥ 0 and finite"},
		"rolling_friction_range.json":     {"materials[0].rolling_friction", "1e999 is out of range"},
		"scale_negative.json":             {"generators[0].scale: -1 must be positive and finite"},
		"scale_min_max.json":              {"generators[0].scale.max: 1 is less than min 2"},
		"scale_zero_min.json":             {"generators[0].scale.min: 0 must be positive and finite"},
		"scale_unknown_distribution.json": {`generators[0].scale.dist: unknown distribution "gamma" (want uniform or normal)`},
		"scale_range.json":                {"generators[0].scale: number 1e999 is out of range"},
		"scale_overflow.json":             {"generators[0].scale: makes a shape out of range", "+Inf"},
		"scale_lattice_overlap.json":      {"generators[0].spacing: 0.3 is less than 0.4, twice the largest half-size"},
		"pour_rate.json":                  {"generators[0].rate: 0 must be positive and finite (bodies per second)"},
		"pour_start.json":                 {"generators[0].start: -1 must be ≥ 0"},
		"pour_region_small.json":          {"generators[0].region", "is too small: bodies of bounding radius 0.1 need 0.2"},
		"pour_no_region.json":             {"generators[0].region: missing (or give cylinder)"},
		"pour_crowded.json":               {"generators[0]: body", "found no free spot in 100 attempts", "enlarge the region or lower rate"},
		"pour_rate_in_random.json":        {"generators[0].rate: applies to pour generators only"},
		"pour_velocity.json":              {"generators[0].velocity: expected an array of 3 values, got 2"},
	}
	files, err := filepath.Glob("testdata/bad/*.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != len(want) {
		t.Errorf("%d files in testdata/bad, %d expectations", len(files), len(want))
	}
	for _, f := range files {
		subs, ok := want[filepath.Base(f)]
		if !ok {
			t.Errorf("%s: no expected error", f)
			continue
		}
		_, err := LoadFile(f, nil)
		if err == nil {
			t.Errorf("%s: loaded without error", f)
			continue
		}
		if !strings.HasPrefix(err.Error(), f+":") {
			t.Errorf("%s: error %q does not start with the file name", f, err)
		}
		for _, s := range subs {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("%s: error %q does not contain %q", f, err, s)
			}
		}
	}
}
