package main

import (
	"fmt"
	"io"

	"github.com/gpusim/gpusim/run"
)

// printReactions prints, for a run that reports reactions, a line per kind
// (joints, bodies): how many, and the one of the largest force over the
// run with its step and last force; the rest is in summary.json and
// reactions.csv.
func printReactions(w io.Writer, rs []run.ReactionSummary) {
	for _, kind := range []string{"joint", "body"} {
		n, top := 0, -1
		for i, r := range rs {
			if r.Kind != kind {
				continue
			}
			n++
			if top < 0 || r.MaxForce > rs[top].MaxForce {
				top = i
			}
		}
		if n == 0 {
			continue
		}
		label, what := "joints", "joint"
		if kind == "body" {
			label, what = "static bodies", "body"
		}
		r := rs[top]
		fmt.Fprintf(w, "reactions   %d %s: largest |force| %.6g N (%s %d, step %d), its last force (%.6g, %.6g, %.6g) N\n",
			n, label, r.MaxForce, what, r.ID, r.MaxForceStep, r.Force[0], r.Force[1], r.Force[2])
	}
}
