package run

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"

	"github.com/gpusim/gpusim/checkpoint"
)

// TestRestartJointsBitIdentical: a swinging chain of 4 links (spherical
// joints) run 30 steps in one go, and 12 steps with a checkpoint plus a
// resume to 30, ends with the same final.csv and reactions.csv byte for
// byte, with warm start off and on: the checkpoint carries the joint
// rows' impulses (format version 2). With warm start on, a resume that
// drops them (a version 1 checkpoint) does not end the same, so the test
// sees a lost joint warm start.
func TestRestartJointsBitIdentical(t *testing.T) {
	const n, k = 30, 12
	for _, warm := range []bool{false, true} {
		dir := t.TempDir()
		full, split, resumed := filepath.Join(dir, "full"), filepath.Join(dir, "split"), filepath.Join(dir, "resumed")
		if _, err := Run(context.Background(), swingingChain(t, 4, warm, 0.5), Options{Backend: "cpu", OutDir: full}); err != nil {
			t.Fatal(err)
		}
		sc := swingingChain(t, 4, warm, 0.5)
		sc.Steps = k
		if _, err := Run(context.Background(), sc, Options{Backend: "cpu", OutDir: split, CheckpointEvery: k}); err != nil {
			t.Fatal(err)
		}
		ckPath := filepath.Join(split, "checkpoints", checkpoint.FileName(k))
		resume := func(out string, dropJoints bool) []byte {
			rsc, ck, err := Resume(ckPath)
			if err != nil {
				t.Fatal(err)
			}
			if warm && (ck.Warm == nil || len(ck.Warm.Joints) != 4*3) {
				t.Fatalf("checkpoint's warm-start data %+v: want the 12 joint rows' impulses", ck.Warm)
			}
			if dropJoints {
				ck.Warm.Joints = nil
			}
			rsc.Steps = n
			if _, err := Run(context.Background(), rsc, Options{Backend: "cpu", OutDir: out, Resume: ck}); err != nil {
				t.Fatal(err)
			}
			return readFile(t, filepath.Join(out, "final.csv"))
		}
		want := readFile(t, filepath.Join(full, "final.csv"))
		if got := resume(resumed, false); !bytes.Equal(got, want) {
			t.Errorf("warm %v: final.csv of the resumed run differs from the unsplit run's:\n%s\nwant\n%s", warm, got, want)
		}
		fullRx := readFile(t, filepath.Join(full, "reactions.csv"))
		resRx := readFile(t, filepath.Join(resumed, "reactions.csv"))
		if i := bytes.Index(fullRx, []byte("\n13,")); i < 0 || !bytes.Equal(resRx[bytes.IndexByte(resRx, '\n'):], fullRx[i:]) {
			t.Errorf("warm %v: reactions.csv of the resumed run differs from the unsplit run's steps after %d", warm, k)
		}
		if warm {
			if got := resume(filepath.Join(dir, "cold"), true); bytes.Equal(got, want) {
				t.Error("a resume without the joint impulses ends bit-identical too: the test cannot see a lost joint warm start")
			}
		}
	}
}
