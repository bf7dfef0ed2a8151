package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/gpusim/gpusim/sweep"
)

// cmdCollect gathers a sweep folder's summaries into DIR/collect.csv and,
// with --x and --y, plots one result against one parameter.
func cmdCollect(args []string, stdout, stderr io.Writer) error {
	fset := newFlagSet("gpusim collect", stderr, `Usage: gpusim collect SWEEP_DIR [--x PARAM --y RESULT [--over KEYS] [--log x|y|xy]]

Writes SWEEP_DIR/collect.csv: a row per run of the sweep's manifest with its
index, varied parameters, status (done, failed, interrupted, incomplete,
missing), backend, steps and results from its summary.json (empty for runs
not done). With --x and --y, also SWEEP_DIR/collect-Y-vs-X.png: one line per
value of the other parameters through the mean of the runs at each x, with
± one sample standard deviation bars where several runs (seeds) share a point.

Flags:
`)
	var (
		x    = fset.String("x", "", "plot against this varied parameter (with --y)")
		y    = fset.String("y", "", "plot this result column (with --x): "+strings.Join(sweep.ResultNames(), ", "))
		over = fset.String("over", "", "comma-separated varied parameters to average over in the plot (default: the keys ending in seed; \"none\" for none)")
		logs = fset.String("log", "", "logarithmic plot axes: x, y or xy")
	)
	dir, err := parseOne(fset, args, "collect takes one sweep folder")
	if err != nil {
		return err
	}
	if (*x == "") != (*y == "") {
		return usageError{errors.New("--x and --y go together")}
	}
	var popt sweep.PlotOptions
	switch *logs {
	case "":
	case "x":
		popt.LogX = true
	case "y":
		popt.LogY = true
	case "xy", "yx":
		popt.LogX, popt.LogY = true, true
	default:
		return usageError{fmt.Errorf("--log %q: want x, y or xy", *logs)}
	}
	if *logs != "" && *x == "" {
		return usageError{errors.New("--log goes with --x and --y")}
	}
	c, err := sweep.Collect(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return usageError{err}
		}
		return err
	}
	path := filepath.Join(dir, "collect.csv")
	if err := c.WriteCSV(path); err != nil {
		return err
	}
	n := c.Counts()
	fmt.Fprintf(stdout, "%s: %d runs (%d done", path, len(c.Rows), n[sweep.StatusDone])
	for _, s := range []string{sweep.StatusFailed, sweep.StatusInterrupted, sweep.StatusIncomplete, sweep.StatusMissing} {
		if n[s] > 0 {
			fmt.Fprintf(stdout, ", %d %s", n[s], s)
		}
	}
	fmt.Fprintln(stdout, ")")
	if *x == "" {
		return nil
	}
	var keys []string
	switch *over {
	case "":
		keys = sweep.DefaultOver(c.Manifest.Keys, *x)
	case "none":
	default:
		keys = strings.Split(*over, ",")
	}
	png, err := c.Plot(*x, *y, keys, popt)
	if err != nil {
		return usageError{err}
	}
	fmt.Fprintln(stdout, png)
	return nil
}
