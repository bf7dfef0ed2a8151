package scene

import "slices"

// MeritTypes are the figures of merit a scene can name (package run
// computes them; see the package documentation, section merit).
var MeritTypes = []string{"chain", "shaker", "shear", "mixer", "flow-gap"}

// checkMerit checks the merit field against a model of n bodies: a known
// type, body ids in range, an axis that is not zero where one is needed.
func checkMerit(m *MeritSpec, n int) error {
	if m == nil {
		return nil
	}
	if !slices.Contains(MeritTypes, m.Type) {
		return errAt("merit.type", "unknown figure of merit %q (want chain, shaker, shear, mixer or flow-gap)", m.Type)
	}
	for i, id := range m.Bodies {
		if id < 0 || id >= n {
			return errAt(index("merit.bodies", i), "body %d out of range: the scene has %d bodies (ids 0 to %d)", id, n, n-1)
		}
	}
	needBodies := map[string]bool{"shaker": true, "shear": true, "mixer": true}
	if needBodies[m.Type] && len(m.Bodies) == 0 {
		return errAt("merit.bodies", "a %s figure of merit needs the bodies it measures", m.Type)
	}
	if m.Point != nil {
		if err := checkVec("merit.point", *m.Point); err != nil {
			return err
		}
	}
	if m.Axis != nil {
		if err := checkVec("merit.axis", *m.Axis); err != nil {
			return err
		}
		a := *m.Axis
		if a[0] == 0 && a[1] == 0 && a[2] == 0 {
			return errAt("merit.axis", "zero vector")
		}
	}
	if (m.Type == "mixer" || m.Type == "shear") && m.Axis == nil {
		return errAt("merit.axis", "a %s figure of merit needs an axis", m.Type)
	}
	if (m.Type == "mixer" || m.Type == "flow-gap") && m.Point == nil {
		return errAt("merit.point", "a %s figure of merit needs a point", m.Type)
	}
	return nil
}
