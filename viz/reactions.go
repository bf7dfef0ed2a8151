package viz

import (
	"fmt"
	"math"
	"slices"
	"strconv"
)

// reactionFigures returns the figures of a run's reactions.csv (columns
// step,time,kind,id,fx,fy,fz,tx,ty,tz; see package run): one per kind
// present, reactions-joint.png and reactions-body.png, each with the
// panels |force| (N) and |torque| (N·m) against simulated time and a line
// per joint or body. A cut last line is left out (warn says so).
func reactionFigures(path string, warn func(string)) ([]figure, error) {
	type key struct {
		kind string
		id   int
	}
	lines := map[key]*[3][]float64{} // time, |force|, |torque|
	var keys []key
	err := readCSV(path, 10, warn, func(_, rec []string, row int) error {
		id, err := strconv.Atoi(rec[3])
		if err != nil || (rec[2] != "joint" && rec[2] != "body") {
			return fmt.Errorf("viz: %s: row %d: kind %q and id %q are not joint or body and an integer", path, row, rec[2], rec[3])
		}
		var v [7]float64
		for i, s := range append(rec[1:2:2], rec[4:]...) {
			if v[i], err = strconv.ParseFloat(s, 64); err != nil {
				return fmt.Errorf("viz: %s: row %d: %q is not a number", path, row, s)
			}
		}
		k := key{rec[2], id}
		l, ok := lines[k]
		if !ok {
			l = &[3][]float64{}
			lines[k] = l
			keys = append(keys, k)
		}
		l[0] = append(l[0], v[0])
		l[1] = append(l[1], math.Sqrt(v[1]*v[1]+v[2]*v[2]+v[3]*v[3]))
		l[2] = append(l[2], math.Sqrt(v[4]*v[4]+v[5]*v[5]+v[6]*v[6]))
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(keys, func(a, b key) int { return a.id - b.id })
	var figs []figure
	for _, kind := range []string{"joint", "body"} {
		title := "Joint reactions on body1"
		if kind == "body" {
			title = "Contact force and torque on fixed, plane and kinematic bodies"
		}
		ps := []panel{{title: title, yLabel: "|force| (N)"}, {xLabel: "simulated time (s)", yLabel: "|torque| (N·m)"}}
		for _, k := range keys {
			if k.kind != kind {
				continue
			}
			l := lines[k]
			name := fmt.Sprintf("%s %d", kind, k.id)
			ps[0].lines = append(ps[0].lines, series{name, l[0], l[1]})
			ps[1].lines = append(ps[1].lines, series{name, l[0], l[2]})
		}
		if len(ps[0].lines) > 0 {
			figs = append(figs, figure{"reactions-" + kind + ".png", ps})
		}
	}
	return figs, nil
}

// figure is a PNG file of stacked panels.
type figure struct {
	file string
	ps   []panel
}
