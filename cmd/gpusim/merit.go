package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/gpusim/gpusim/run"
)

// printMerit ends the run's summary with the scene's figure of merit, if
// it has one (run.Merit).
func printMerit(w io.Writer, m *run.Merit) {
	if m == nil {
		return
	}
	fmt.Fprintf(w, "merit       %s (series in %s)\n", m.Type, m.Series)
	for _, line := range strings.Split(m.String(), "\n") {
		if line != "" {
			fmt.Fprintf(w, "            %s\n", line)
		}
	}
}
