package main

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gpusim/gpusim/internal/testfile"
)

func TestRunCheckpointResume(t *testing.T) {
	dir := t.TempDir()
	full, split, resumed := filepath.Join(dir, "full"), filepath.Join(dir, "split"), filepath.Join(dir, "resumed")
	base := []string{"run", "rolling-ball", "--backend", "cpu", "--warm-start", "--trace", "1"}
	if code, _, errOut := runCLI(t, append(base, "--steps", "20", "--out", full)...); code != exitOK {
		t.Fatalf("full run: exit %d: %s", code, errOut)
	}
	if code, _, errOut := runCLI(t, append(base, "--steps", "8", "--checkpoint", "4", "--out", split)...); code != exitOK {
		t.Fatalf("split run: exit %d: %s", code, errOut)
	}
	for _, k := range []string{"000004", "000008"} {
		if _, err := os.Stat(filepath.Join(split, "checkpoints", "step-"+k+".ckpt")); err != nil {
			t.Errorf("checkpoint of step %s: %v", k, err)
		}
	}
	ck := filepath.Join(split, "checkpoints", "step-000008.ckpt")
	code, out, errOut := runCLI(t, "run", "--resume", ck, "--steps", "20", "--out", resumed)
	if code != exitOK {
		t.Fatalf("resumed run: exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "steps 20") {
		t.Errorf("the resumed run's summary does not say steps 20:\n%s", out)
	}
	if !bytes.Equal(readFileT(t, filepath.Join(resumed, "final.csv")), readFileT(t, filepath.Join(full, "final.csv"))) {
		t.Error("final.csv of the resumed run differs from the unsplit run's")
	}
	if rows := testfile.CSV(t, filepath.Join(resumed, "stats.csv")); len(rows) != 13 || rows[1][0] != "9" {
		t.Errorf("resumed stats.csv: %d rows from step %v, want 12 from step 9", len(rows)-1, rows[1][0])
	}

	bad := filepath.Join(dir, "bad.ckpt")
	data := readFileT(t, ck)
	data[len(data)/3] ^= 4
	if err := os.WriteFile(bad, data, 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--resume", ck, "--dt", "0.001"}, "--dt cannot change"},
		{[]string{"--resume", ck, "--set", "mu=0.1", "--warm-start=false"}, "--warm-start, --set cannot change"},
		{[]string{"rolling-ball", "--resume", ck}, "drop the scene argument"},
		{[]string{"--resume", ck, "--steps", "5"}, "past the run's end"},
		{[]string{"--resume", bad}, "corrupted"},
		{[]string{"--resume", filepath.Join(dir, "none.ckpt")}, "none.ckpt"},
		{[]string{"rolling-ball", "--checkpoint", "-1"}, "--checkpoint -1"},
	}
	for _, c := range cases {
		code, _, errOut := runCLI(t, append(append([]string{"run"}, c.args...), "--backend", "cpu", "--out", filepath.Join(dir, "x"))...)
		if code == exitOK || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want a failure mentioning %q", c.args, code, errOut, c.want)
		}
	}
}

func readFileT(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestRunLogJSON checks that --log-json --verbose writes only JSON lines:
// one debug line per step and the end-of-run line.
func TestRunLogJSON(t *testing.T) {
	code, _, errOut := runCLI(t, "run", "rolling-ball", "--steps", "3", "--backend", "cpu", "--log-json", "--verbose", "--quiet=false", "--out", t.TempDir())
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	steps, ended := 0, 0
	for _, line := range strings.Split(strings.TrimSpace(errOut), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("stderr line %q is not JSON: %v", line, err)
		}
		switch {
		case rec["msg"] == "step" && rec["level"] == "DEBUG":
			steps++
		case rec["msg"] == "run ended" && rec["level"] == "INFO" && rec["steps"] == 3.0:
			ended++
		}
	}
	if steps != 3 || ended != 1 {
		t.Errorf("%d step lines and %d end lines, want 3 and 1:\n%s", steps, ended, errOut)
	}
	code, _, errOut = runCLI(t, "run", "rolling-ball", "--steps", "3", "--backend", "cpu", "--quiet", "--out", t.TempDir())
	if code != exitOK || errOut != "" {
		t.Errorf("--quiet: exit %d, stderr %q; want 0 and nothing", code, errOut)
	}
}

// TestRunInterrupt sends the test process SIGINT while gpusim run is
// stepping: the run stops, exits 1 with a line naming the checkpoint, and
// resuming from that checkpoint ends bit-identical to an unsplit run.
func TestRunInterrupt(t *testing.T) {
	dir := t.TempDir()
	stopped, resumed, full := filepath.Join(dir, "stopped"), filepath.Join(dir, "resumed"), filepath.Join(dir, "full")
	type result struct {
		code   int
		errOut string
	}
	done := make(chan result, 1)
	go func() {
		code, _, errOut := runCLI(t, "run", "rolling-ball", "--steps", "10000000", "--backend", "cpu", "--warm-start", "--out", stopped)
		done <- result{code, errOut}
	}()
	// Signal once stats.csv has rows: the handler is installed by then.
	deadline := time.Now().Add(time.Minute)
	for {
		if b, err := os.ReadFile(filepath.Join(stopped, "stats.csv")); err == nil && bytes.Count(b, []byte("\n")) > 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the run wrote no steps within a minute")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	var r result
	select {
	case r = <-done:
	case <-time.After(time.Minute):
		t.Fatal("the run did not stop within a minute of SIGINT")
	}
	if r.code != exitFailure || !strings.Contains(r.errOut, "resume with: gpusim run --resume ") {
		t.Fatalf("exit %d, stderr %q; want %d and the resume line", r.code, r.errOut, exitFailure)
	}
	var sum struct {
		Interrupted int    `json:"interrupted_at_step"`
		Checkpoint  string `json:"checkpoint"`
	}
	if err := json.Unmarshal(readFileT(t, filepath.Join(stopped, "summary.json")), &sum); err != nil {
		t.Fatal(err)
	}
	if sum.Interrupted < 2 || !strings.HasSuffix(r.errOut, sum.Checkpoint+"\n") {
		t.Fatalf("summary.json: interrupted at %d, checkpoint %q; stderr %q", sum.Interrupted, sum.Checkpoint, r.errOut)
	}
	end := strconv.Itoa(sum.Interrupted + 5)
	if code, _, errOut := runCLI(t, "run", "--resume", sum.Checkpoint, "--steps", end, "--out", resumed, "--backend", "cpu"); code != exitOK {
		t.Fatalf("resume: exit %d: %s", code, errOut)
	}
	if code, _, errOut := runCLI(t, "run", "rolling-ball", "--steps", end, "--backend", "cpu", "--warm-start", "--out", full); code != exitOK {
		t.Fatalf("unsplit run: exit %d: %s", code, errOut)
	}
	if !bytes.Equal(readFileT(t, filepath.Join(resumed, "final.csv")), readFileT(t, filepath.Join(full, "final.csv"))) {
		t.Error("the run resumed after SIGINT does not end bit-identical to the unsplit run")
	}
}

// TestSecondInterruptExits checks that a second signal calls exit at once.
func TestSecondInterruptExits(t *testing.T) {
	exited := make(chan int, 1)
	ctx, stop := interruptContext(slog.New(slog.DiscardHandler), func(code int) { exited <- code })
	defer stop()
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ctx.Done():
	case <-time.After(time.Minute):
		t.Fatal("SIGTERM did not cancel the context")
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case code := <-exited:
		if code != exitFailure {
			t.Errorf("exit code %d, want %d", code, exitFailure)
		}
	case <-time.After(time.Minute):
		t.Fatal("the second signal did not exit")
	}
}

// TestRunOutputFolderReuse: a second run into a run's folder is refused
// (exit 2, naming the folder, what it holds and the way out) and leaves it
// as it was; --overwrite replaces it; a resume into it continues its files
// (stats.csv from step 1, as the unsplit run's); --overwrite may not remove
// the checkpoint it resumes from. Before, the second run overwrote the
// folder and the resume truncated stats.csv to the steps after the
// checkpoint.
func TestRunOutputFolderReuse(t *testing.T) {
	out := filepath.Join(t.TempDir(), "o")
	base := []string{"run", "rolling-ball", "--backend", "cpu", "--quiet", "--out", out}
	if code, _, errOut := runCLI(t, append(base, "--steps", "12", "--checkpoint", "4")...); code != exitOK {
		t.Fatalf("first run: exit %d: %s", code, errOut)
	}
	before := readFileT(t, filepath.Join(out, "stats.csv"))
	code, _, errOut := runCLI(t, append(base, "--steps", "6")...)
	if code != exitUsage || !strings.Contains(errOut, out+" holds the outputs of another run (checkpoints/, final.csv, stats.csv, summary.json, trace.csv)") ||
		!strings.Contains(errOut, "--overwrite") || !strings.Contains(errOut, "--resume") || strings.Count(errOut, "\n") != 1 {
		t.Errorf("second run: exit %d, stderr %q; want exit 2 naming the folder and its outputs", code, errOut)
	}
	if !bytes.Equal(before, readFileT(t, filepath.Join(out, "stats.csv"))) {
		t.Error("the refused run changed stats.csv")
	}
	ck := filepath.Join(out, "checkpoints", "step-000004.ckpt")
	if code, _, errOut := runCLI(t, "run", "--resume", ck, "--out", out, "--overwrite"); code != exitUsage || !strings.Contains(errOut, "--overwrite would remove the checkpoint") {
		t.Errorf("--overwrite --resume from the folder: exit %d, stderr %q", code, errOut)
	}
	if code, _, errOut := runCLI(t, "run", "--resume", ck, "--out", out, "--quiet"); code != exitOK {
		t.Fatalf("resume into the folder: exit %d: %s", code, errOut)
	}
	if rows := testfile.CSV(t, filepath.Join(out, "stats.csv")); len(rows) != 13 || rows[1][0] != "1" || rows[12][0] != "12" {
		t.Errorf("stats.csv after the resume into its folder: %d rows from step %v; want steps 1 to 12", len(rows)-1, rows[1][0])
	}
	if _, err := os.Stat(filepath.Join(out, "checkpoints", "step-000008.ckpt")); !os.IsNotExist(err) {
		t.Errorf("checkpoint of step 8, after the resumed one: %v; want it removed", err)
	}
	if code, _, errOut := runCLI(t, append(base, "--steps", "6", "--overwrite")...); code != exitOK {
		t.Fatalf("--overwrite: exit %d: %s", code, errOut)
	}
	if rows := testfile.CSV(t, filepath.Join(out, "stats.csv")); len(rows) != 7 {
		t.Errorf("stats.csv after --overwrite: %d rows, want 6", len(rows)-1)
	}
	if _, err := os.Stat(filepath.Join(out, "checkpoints")); !os.IsNotExist(err) {
		t.Errorf("checkpoints/ of the run before --overwrite: %v; want it removed", err)
	}
}
