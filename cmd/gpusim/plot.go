package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/gpusim/gpusim/viz"
)

// cmdPlot writes the plots of a run folder (see viz.Plot).
func cmdPlot(args []string, stdout, stderr io.Writer) error {
	fset := newFlagSet("gpusim plot", stderr, `Usage: gpusim plot DIR

Writes PNG plots of the run in DIR (the output folder of gpusim run) into
DIR/plots: contacts.png, iterations.png, residual.png, wall-time.png and
fixed-force.png from stats.csv against simulated time, and, when the run
traced bodies, trace-position.png and trace-speed.png from trace.csv, and,
when the run reported reactions, reactions-joint.png and reactions-body.png
(|force| and |torque| of each joint and fixed or kinematic body) from
reactions.csv. Each plot is also written as SVG and PDF beside its PNG
(residual.svg, residual.pdf, ...).
`)
	dir, err := parseOne(fset, args, "plot takes one run folder")
	if err != nil {
		return err
	}
	files, err := viz.PlotWarn(dir, func(msg string) { fmt.Fprintf(stderr, "gpusim: warning: %s\n", msg) })
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return usageError{err}
		}
		return err
	}
	for _, f := range files {
		fmt.Fprintln(stdout, f)
	}
	return nil
}
