package viz

import (
	"fmt"
	"os"
	"strings"
)

// meritPanels returns the panels of merit.csv (package run: a scene's
// figure of merit, step, time and its columns): a panel per column
// against simulated time, or, when the file has a displacement_m column
// (a shear test), the other columns against the displacement. nil when
// the file does not exist.
func meritPanels(path string, warn func(string)) ([]panel, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("viz: %w", err)
	}
	head, _, _ := strings.Cut(string(data), "\n")
	t, err := readTable(path, warn)
	if err != nil {
		return nil, err
	}
	if t.rows == 0 {
		return nil, nil
	}
	names := strings.Split(head, ",")
	xName, xLabel := "time", "simulated time (s)"
	if _, ok := t.cols["displacement_m"]; ok {
		xName, xLabel = "displacement_m", "displacement (m)"
	}
	x, err := t.col(xName)
	if err != nil {
		return nil, err
	}
	var ps []panel
	for _, n := range names {
		if n == "step" || n == "time" || n == xName {
			continue
		}
		y, err := t.col(n)
		if err != nil {
			return nil, err
		}
		ps = append(ps, panel{yLabel: n, lines: []series{{n, x, y}}})
	}
	if len(ps) == 0 {
		return nil, nil
	}
	ps[0].title = "Figure of merit (merit.csv)"
	ps[len(ps)-1].xLabel = xLabel
	return ps, nil
}
