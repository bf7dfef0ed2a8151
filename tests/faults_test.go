package tests

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gpusim/gpusim/checkpoint"
	"github.com/gpusim/gpusim/internal/outdir"
	"github.com/gpusim/gpusim/internal/testfile"
)

// The fault-injection suite runs the gpusim binary as a subprocess and
// hurts it the ways a cluster does: SIGKILL at a random step, a full
// disk, a second process on the same folder, a folder used before. Every
// output must then read, and a resume must end as the unsplit run.

var gpusimBin struct {
	once      sync.Once
	dir, path string
	err       error
}

// TestMain removes the binary built for the suite.
func TestMain(m *testing.M) {
	code := m.Run()
	if gpusimBin.dir != "" {
		os.RemoveAll(gpusimBin.dir)
	}
	os.Exit(code)
}

// gpusim returns the path of a gpusim binary built once for the suite.
func gpusim(t *testing.T) string {
	t.Helper()
	gpusimBin.once.Do(func() {
		if gpusimBin.dir, gpusimBin.err = os.MkdirTemp("", "gpusim-faults-"); gpusimBin.err != nil {
			return
		}
		gpusimBin.path = filepath.Join(gpusimBin.dir, "gpusim")
		out, err := exec.Command("go", "build", "-o", gpusimBin.path, "github.com/gpusim/gpusim/cmd/gpusim").CombinedOutput()
		if err != nil {
			gpusimBin.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if gpusimBin.err != nil {
		t.Fatal(gpusimBin.err)
	}
	return gpusimBin.path
}

// runArgs are those of every run of the suite: 50 spheres settling for
// steps steps on the CPU path, bodies 0 and 1 traced.
func runArgs(out string, steps int, more ...string) []string {
	return append([]string{"run", "settle", "--set", "n=50", "--steps", strconv.Itoa(steps), "--backend", "cpu",
		"--workers", "1", "--trace", "0,1", "--quiet", "--out", out}, more...)
}

// gpusimRun runs gpusim to its end and returns its exit code and stderr.
func gpusimRun(t *testing.T, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(gpusim(t), args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), stderr.String()
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0, stderr.String()
}

// completeRows returns the complete rows of a CSV file (its lines ending
// in a newline, header included) and whether a partial last line follows;
// each row must have the header's number of fields.
func completeRows(t *testing.T, path string) (rows []string, partial bool) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	data, partial = outdir.CompleteRows(data)
	rows = strings.Split(string(data), "\n")
	rows = rows[:len(rows)-1]
	for k, r := range rows {
		if n, want := strings.Count(r, ","), strings.Count(rows[0], ","); n != want {
			t.Errorf("%s:%d: %d fields, want %d: %q", path, k+1, n+1, want+1, r)
		}
	}
	return rows, partial
}

// deterministicStats returns stats.csv's columns that hold no wall time
// (step … submits).
func deterministicStats(t *testing.T, path string) string {
	t.Helper()
	rows, partial := completeRows(t, path)
	if partial {
		t.Errorf("%s ends in a partial row", path)
	}
	var b strings.Builder
	for _, r := range rows {
		f := strings.Split(r, ",")
		b.WriteString(strings.Join(f[:11], ",") + "\n")
	}
	return b.String()
}

// sameAsUnsplit checks that the folder got ends as the unsplit run in
// want: stats.csv but for wall times, trace.csv and final.csv.
func sameAsUnsplit(t *testing.T, got, want string) {
	t.Helper()
	if a, b := deterministicStats(t, filepath.Join(got, "stats.csv")), deterministicStats(t, filepath.Join(want, "stats.csv")); a != b {
		t.Errorf("%s/stats.csv (%d rows) differs from the unsplit run's (%d rows)", got, strings.Count(a, "\n"), strings.Count(b, "\n"))
	}
	for _, f := range []string{"trace.csv", "final.csv"} {
		a, _ := os.ReadFile(filepath.Join(got, f))
		b, _ := os.ReadFile(filepath.Join(want, f))
		if len(b) == 0 || !bytes.Equal(a, b) {
			t.Errorf("%s/%s differs from the unsplit run's", got, f)
		}
	}
}

// lastCheckpoint returns the path and step of the newest checkpoint in
// dir/checkpoints, after checking that every checkpoint there reads. A
// temporary file that a kill cut in the middle of its write (".tmp-*",
// never renamed to step-*.ckpt) is not a checkpoint.
func lastCheckpoint(t *testing.T, dir string) (string, int) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "checkpoints", "step-*.ckpt"))
	path, step := "", -1
	for _, f := range files {
		ck, err := checkpoint.Read(f)
		if err != nil {
			t.Errorf("checkpoint %s: %v", f, err)
			continue
		}
		if ck.Step > step {
			path, step = f, ck.Step
		}
	}
	return path, step
}

// TestFaultKill kills runs with SIGKILL at seeded random steps, then checks
// that stats.csv, trace.csv and reactions.csv (--reactions: the container's
// walls) hold complete rows (a cut last line is
// allowed: every reader leaves it out), that every checkpoint reads, that
// gpusim plot reads the folder, also with a cut last line, and that a
// resume from the last checkpoint into the same folder ends exactly as the
// unsplit run. Before, the resume truncated stats.csv to the steps after
// the checkpoint and gpusim plot failed on a cut line.
func TestFaultKill(t *testing.T) {
	const steps, every = 120, 10
	dir := t.TempDir()
	ref := filepath.Join(dir, "ref")
	if code, stderr := gpusimRun(t, runArgs(ref, steps, "--reactions")...); code != 0 {
		t.Fatalf("unsplit run: exit %d: %s", code, stderr)
	}
	rng := rand.New(rand.NewPCG(15, 3))
	killed := 0 // subtests whose run the kill ended
	for k := range 3 {
		killAt := every + 1 + rng.IntN(steps-2*every)
		t.Run(fmt.Sprintf("step%d", killAt), func(t *testing.T) {
			out := filepath.Join(dir, fmt.Sprintf("k%d", k))
			cmd := exec.Command(gpusim(t), runArgs(out, steps, "--checkpoint", strconv.Itoa(every), "--reactions")...)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			stats := filepath.Join(out, "stats.csv")
			for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(200 * time.Microsecond) {
				data, _ := os.ReadFile(stats)
				if bytes.Count(data, []byte("\n")) > killAt || time.Now().After(deadline) {
					break
				}
			}
			cmd.Process.Signal(syscall.SIGKILL)
			if err := cmd.Wait(); err == nil {
				t.Skip("the run ended before the kill (a loaded machine): nothing to check")
			}
			killed++
			rows, _ := completeRows(t, stats)
			completeRows(t, filepath.Join(out, "trace.csv"))
			completeRows(t, filepath.Join(out, "reactions.csv"))
			ck, ckStep := lastCheckpoint(t, out)
			if ckStep < every || ckStep > len(rows)-1 {
				t.Fatalf("killed after %d rows: last checkpoint of step %d", len(rows)-1, ckStep)
			}
			// A write cut by the kill (as one of more than a page can be).
			for _, f := range []string{"stats.csv", "trace.csv", "reactions.csv"} {
				fh, err := os.OpenFile(filepath.Join(out, f), os.O_WRONLY|os.O_APPEND, 0)
				if err != nil {
					t.Fatal(err)
				}
				fh.WriteString(fmt.Sprintf("%d,0.5,5", len(rows)))
				fh.Close()
			}
			code, stderr := gpusimRun(t, "plot", out)
			if code != 0 || !strings.Contains(stderr, "the last line is incomplete") {
				t.Errorf("gpusim plot on the killed run: exit %d, stderr %q; want success with a warning", code, stderr)
			}
			code, stderr = gpusimRun(t, "run", "--resume", ck, "--out", out, "--quiet", "--reactions")
			if code != 0 {
				t.Fatalf("resume into the killed run's folder: exit %d: %s", code, stderr)
			}
			if !strings.Contains(stderr, "taking over the lock") {
				t.Errorf("resume: stderr %q; want a notice that the killed run's lock was taken over", stderr)
			}
			sameAsUnsplit(t, out, ref)
			if tmps, _ := filepath.Glob(filepath.Join(out, "checkpoints", ".tmp-*")); len(tmps) > 0 {
				t.Errorf("the resume left the killed run's temporary files: %v", tmps)
			}
			a, _ := os.ReadFile(filepath.Join(out, "reactions.csv"))
			b, _ := os.ReadFile(filepath.Join(ref, "reactions.csv"))
			if len(b) == 0 || !bytes.Equal(a, b) {
				t.Errorf("%s/reactions.csv differs from the unsplit run's", out)
			}
			if _, err := os.Stat(filepath.Join(out, "plots")); err == nil {
				if names, _ := os.ReadDir(filepath.Join(out, "plots")); len(names) > 0 {
					t.Errorf("plots of the killed run left beside the resumed one's outputs")
				}
			}
		})
	}
	// One skipped subtest is a loaded machine; all three would be a test
	// that checked nothing.
	if killed == 0 {
		t.Fatal("every run ended before its kill: nothing was checked")
	}
}

// namespaceCmd returns the command that runs a shell script in a private
// mount namespace, where it may mount a tmpfs: unshare -m as root, else
// unshare -rm (a user namespace) where the kernel allows it. Without
// either the test is skipped, except where CI is set: there it fails.
func namespaceCmd(t *testing.T) []string {
	t.Helper()
	var tries [][]string
	if os.Geteuid() == 0 {
		tries = append(tries, []string{"unshare", "-m"})
	}
	tries = append(tries, []string{"unshare", "-rm"})
	var why []string
	for _, c := range tries {
		probe := exec.Command(c[0], append(c[1:], "sh", "-c", "d=$(mktemp -d) && mount -t tmpfs -o size=64k tmpfs $d && umount $d && rmdir $d")...)
		out, err := probe.CombinedOutput()
		if err == nil {
			return append(c, "sh", "-c")
		}
		why = append(why, fmt.Sprintf("%s: %v %s", strings.Join(c, " "), err, bytes.TrimSpace(out)))
	}
	msg := "cannot mount a small tmpfs in a private mount namespace (" + strings.Join(why, "; ") + ")"
	testfile.Missing(t, msg+"; run as root or allow user namespaces")
	return nil
}

// TestFaultFullDisk runs gpusim on a 64 KiB tmpfs, which fills after some
// hundred steps: the run must fail (exit 1) with one line naming the file
// it could not write, stats.csv and trace.csv must end at a complete row,
// no temporary file may be left, and gpusim plot must read the folder.
// Before, the last row of stats.csv or trace.csv was half written.
func TestFaultFullDisk(t *testing.T) {
	ns := namespaceCmd(t)
	bin := gpusim(t)
	host := t.TempDir()
	mnt := filepath.Join(host, "mnt")
	if err := os.Mkdir(mnt, 0o755); err != nil {
		t.Fatal(err)
	}
	run := filepath.Join(mnt, "run")
	script := fmt.Sprintf(`mount -t tmpfs -o size=64k tmpfs %[1]q || exit 99
%[2]q %[3]s 2> %[4]q/stderr; echo $? > %[4]q/rc
ls -A %[5]q > %[4]q/ls
cp -a %[5]q %[4]q/copy`, mnt, bin, strings.Join(quoteAll(runArgs(run, 3000)), " "), host, run)
	out, err := exec.Command(ns[0], append(ns[1:], script)...).CombinedOutput()
	if err != nil {
		t.Fatalf("namespace script: %v\n%s", err, out)
	}
	rc, _ := os.ReadFile(filepath.Join(host, "rc"))
	stderr, _ := os.ReadFile(filepath.Join(host, "stderr"))
	msg := strings.TrimSpace(string(stderr))
	if strings.TrimSpace(string(rc)) != "1" || strings.Count(msg, "\n") != 0 || !strings.Contains(msg, "no space left on device") ||
		!(strings.Contains(msg, run+"/stats.csv") || strings.Contains(msg, run+"/trace.csv")) {
		t.Errorf("run on a full disk: exit %s, stderr %q; want exit 1 and one line naming stats.csv or trace.csv", bytes.TrimSpace(rc), msg)
	}
	ls, _ := os.ReadFile(filepath.Join(host, "ls"))
	if strings.Contains(string(ls), ".tmp-") {
		t.Errorf("temporary files left in the run folder: %q", ls)
	}
	copied := filepath.Join(host, "copy")
	for _, f := range []string{"stats.csv", "trace.csv"} {
		rows, partial := completeRows(t, filepath.Join(copied, f))
		if partial || len(rows) < 2 {
			t.Errorf("%s after the full disk: %d complete rows, partial last row %v; want complete rows only", f, len(rows)-1, partial)
		}
	}
	if code, stderr := gpusimRun(t, "plot", copied); code != 0 {
		t.Errorf("gpusim plot after the full disk: exit %d: %s", code, stderr)
	}
}

func quoteAll(args []string) []string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = strconv.Quote(a)
	}
	return q
}

// TestFaultConcurrentRuns starts a second run, and a second sweep, on the
// folder of one running: the second is refused at once (exit 2, naming
// the first's pid) and the first ends unharmed. Before, both wrote the
// same files, tearing rows.
func TestFaultConcurrentRuns(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "run")
	first := exec.Command(gpusim(t), runArgs(out, 300)...)
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if data, _ := os.ReadFile(filepath.Join(out, "stats.csv")); bytes.Count(data, []byte("\n")) > 2 {
			break
		}
	}
	code, stderr := gpusimRun(t, runArgs(out, 20, "--overwrite")...)
	pid := fmt.Sprintf("pid %d on host", first.Process.Pid)
	if code != 2 || !strings.Contains(stderr, out+" is in use by another gpusim process ("+pid) {
		t.Errorf("second run on the folder: exit %d, stderr %q; want exit 2 naming %s", code, stderr, pid)
	}
	if err := first.Wait(); err != nil {
		t.Fatalf("first run: %v", err)
	}
	rows, partial := completeRows(t, filepath.Join(out, "stats.csv"))
	if len(rows) != 301 || partial {
		t.Errorf("first run's stats.csv: %d rows, partial %v; want 300", len(rows)-1, partial)
	}
	for i, r := range rows[1:] {
		if !strings.HasPrefix(r, strconv.Itoa(i+1)+",") {
			t.Fatalf("stats.csv row %d is %q, want step %d", i+1, r, i+1)
		}
	}

	spec := filepath.Join(dir, "spec.json")
	os.WriteFile(spec, []byte(`{"name": "f", "scene": "settle", "base": ["n=30", "run.steps=100", "settings.workers=1"],
 "vary": {"generators.0.seed": {"range": [1, 3]}}, "backend": "cpu"}`), 0o644)
	sw := filepath.Join(dir, "sweep")
	a := exec.Command(gpusim(t), "sweep", spec, "--out", sw, "--jobs", "1", "--quiet")
	if err := a.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if _, err := os.Stat(filepath.Join(sw, "runs", "0000", "stats.csv")); err == nil {
			break
		}
	}
	code, stderr = gpusimRun(t, "sweep", spec, "--out", sw, "--quiet")
	pid = fmt.Sprintf("pid %d on host", a.Process.Pid)
	if code != 2 || !strings.Contains(stderr, sw+" is in use by another gpusim process ("+pid) {
		t.Errorf("second sweep on the folder: exit %d, stderr %q; want exit 2 naming %s", code, stderr, pid)
	}
	if err := a.Wait(); err != nil {
		t.Fatalf("first sweep: %v", err)
	}
	for i := range 3 {
		if _, err := os.Stat(filepath.Join(sw, "runs", fmt.Sprintf("%04d", i), "DONE")); err != nil {
			t.Errorf("run %d of the first sweep: %v", i, err)
		}
	}
}

// TestFaultReusedFolder: a run into the folder of an older, longer run
// with frames and checkpoints is refused and changes nothing; --overwrite
// leaves none of the older run's files but the user's own; a resume from
// the older run's checkpoint into its folder continues it exactly. Before,
// the frames and checkpoints of the older run stayed beside the new one's.
func TestFaultReusedFolder(t *testing.T) {
	dir := t.TempDir()
	out, ref := filepath.Join(dir, "run"), filepath.Join(dir, "ref")
	if code, stderr := gpusimRun(t, runArgs(ref, 60)...); code != 0 {
		t.Fatalf("reference: exit %d: %s", code, stderr)
	}
	if code, stderr := gpusimRun(t, runArgs(out, 60, "--vtk", "10", "--checkpoint", "20")...); code != 0 {
		t.Fatalf("older run: exit %d: %s", code, stderr)
	}
	os.WriteFile(filepath.Join(out, "notes.txt"), []byte("mine"), 0o644)
	before, _ := os.ReadFile(filepath.Join(out, "stats.csv"))
	code, stderr := gpusimRun(t, runArgs(out, 30)...)
	if code != 2 || !strings.Contains(stderr, "holds the outputs of another run") || !strings.Contains(stderr, "--overwrite") {
		t.Errorf("run into a used folder: exit %d, stderr %q; want exit 2 suggesting --overwrite", code, stderr)
	}
	if after, _ := os.ReadFile(filepath.Join(out, "stats.csv")); !bytes.Equal(before, after) {
		t.Error("the refused run changed stats.csv")
	}
	// Resume from step 20 into the folder that holds steps to 60.
	ck := filepath.Join(out, "checkpoints", "step-000020.ckpt")
	if code, stderr := gpusimRun(t, "run", "--resume", ck, "--out", out, "--vtk", "10", "--quiet"); code != 0 {
		t.Fatalf("resume into the folder: exit %d: %s", code, stderr)
	}
	sameAsUnsplit(t, out, ref)
	if ckps, _ := filepath.Glob(filepath.Join(out, "checkpoints", "*")); len(ckps) != 1 {
		t.Errorf("checkpoints after the resume from step 20: %q; want step 20's only (40 and 60 were the older run's)", ckps)
	}
	if code, stderr := gpusimRun(t, runArgs(out, 30, "--overwrite")...); code != 0 {
		t.Fatalf("--overwrite: exit %d: %s", code, stderr)
	}
	var names []string
	entries, _ := os.ReadDir(out)
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if want := []string{"final.csv", "notes.txt", "stats.csv", "summary.json", "trace.csv"}; !slices.Equal(names, want) {
		t.Errorf("after --overwrite: %q, want %q", names, want)
	}
}
