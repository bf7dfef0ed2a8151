package viz

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"

	"github.com/gpusim/gpusim/internal/outdir"
)

// reactionFigures returns the figures of a run's reactions.csv (columns
// step,time,kind,id,fx,fy,fz,tx,ty,tz; see package run): one per kind
// present, reactions-joint.png and reactions-body.png, each with the
// panels |force| (N) and |torque| (N·m) against simulated time and a line
// per joint or body. A cut last line is left out (warn says so).
func reactionFigures(path string, warn func(string)) ([]figure, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("viz: %w", err)
	}
	data, cut := outdir.CompleteRows(data)
	if cut && warn != nil {
		warn(fmt.Sprintf("%s: the last line is incomplete (a run killed while writing it, or a full disk): left out", path))
	}
	r := csv.NewReader(bytes.NewReader(data))
	r.FieldsPerRecord = 10
	if _, err := r.Read(); err != nil {
		return nil, fmt.Errorf("viz: %s: header: %w", path, err)
	}
	type key struct {
		kind string
		id   int
	}
	lines := map[key]*[3][]float64{} // time, |force|, |torque|
	var keys []key
	for row := 2; ; row++ {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("viz: %s: %w", path, err)
		}
		id, err := strconv.Atoi(rec[3])
		if err != nil || (rec[2] != "joint" && rec[2] != "body") {
			return nil, fmt.Errorf("viz: %s: row %d: kind %q and id %q are not joint or body and an integer", path, row, rec[2], rec[3])
		}
		var v [7]float64
		for i, s := range append(rec[1:2:2], rec[4:]...) {
			if v[i], err = strconv.ParseFloat(s, 64); err != nil {
				return nil, fmt.Errorf("viz: %s: row %d: %q is not a number", path, row, s)
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
