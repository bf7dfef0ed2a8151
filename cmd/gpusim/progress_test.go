package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/gpusim/gpusim/run"
)

// TestProgressBar checks the status line: it names the step, the
// simulated time, the rate over this process's steps and the ETA, redraws
// at most ten times a second but always at the last step, and says "?" for
// an ETA it cannot know yet.
func TestProgressBar(t *testing.T) {
	var buf bytes.Buffer
	bar := progressBar(&buf)
	// A resumed run from step 100 of 400, 50 steps in 2 s: 25 steps/s,
	// 250 steps left, ETA 10 s.
	bar(run.Progress{Step: 150, Steps: 400, Time: 1.5, Contacts: 3000, Iterations: 100, Residual: 2e-6, Elapsed: 2 * time.Second, Start: 100})
	got := buf.String()
	for _, want := range []string{"\r\x1b[K", "step 150/400", "t = 1.5 s", "contacts 3000", "iterations 100", "residual 2e-06", "25.0 steps/s", "ETA 10s"} {
		if !strings.Contains(got, want) {
			t.Errorf("status line %q lacks %q", got, want)
		}
	}
	// Within 100 ms of the last redraw: nothing, unless it is the last step.
	buf.Reset()
	bar(run.Progress{Step: 151, Steps: 400, Elapsed: 2 * time.Second, Start: 100})
	if buf.Len() != 0 {
		t.Errorf("redrawn within 100 ms: %q", buf.String())
	}
	bar(run.Progress{Step: 400, Steps: 400, Elapsed: 12 * time.Second, Start: 100})
	if !strings.Contains(buf.String(), "step 400/400") || !strings.Contains(buf.String(), "ETA 0s") {
		t.Errorf("last step not drawn: %q", buf.String())
	}
	// No time elapsed yet: no rate to extrapolate.
	buf.Reset()
	progressBar(&buf)(run.Progress{Step: 0, Steps: 10})
	if !strings.Contains(buf.String(), "ETA ?") {
		t.Errorf("status line %q: want ETA ? before any step", buf.String())
	}
}
