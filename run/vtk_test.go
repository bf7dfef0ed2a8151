package run

import (
	"context"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/gpusim/gpusim/internal/testfile"
	"github.com/gpusim/gpusim/scene"
	"github.com/gpusim/gpusim/vtk"
)

// TestRunWritesFrames runs the rolling ball for 10 steps with frames every
// 4 and checks run.pvd (steps 0, 4, 8, 10 at their times) and that the
// last frame holds exactly the state final.csv holds.
func TestRunWritesFrames(t *testing.T) {
	sc, err := scene.LoadBuiltin("rolling-ball", []string{"run.steps=10"})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := Run(context.Background(), sc, Options{Backend: "cpu", OutDir: dir, VTKEvery: 4, VTKContacts: true}); err != nil {
		t.Fatal(err)
	}
	sets, err := vtk.ReadPVD(filepath.Join(dir, vtk.PVD))
	if err != nil {
		t.Fatal(err)
	}
	steps := []int{0, 4, 8, 10}
	if len(sets) != len(steps) {
		t.Fatalf("%d frames, want %d", len(sets), len(steps))
	}
	for i, k := range steps {
		if sets[i].File != vtk.FrameFile(k) || sets[i].Time != float64(k)*sc.Settings.Dt {
			t.Errorf("frame %d: %+v, want %s at %v s", i, sets[i], vtk.FrameFile(k), float64(k)*sc.Settings.Dt)
		}
	}
	p, err := vtk.ReadFile(filepath.Join(dir, sets[len(sets)-1].File))
	if err != nil {
		t.Fatal(err)
	}
	bs, err := vtk.ReadBodies(p)
	if err != nil {
		t.Fatal(err)
	}
	rows := testfile.CSV(t, filepath.Join(dir, "final.csv"))
	if len(rows)-1 != len(bs) {
		t.Fatalf("final.csv has %d bodies, the frame %d", len(rows)-1, len(bs))
	}
	for i, row := range rows[1:] {
		b := bs[i]
		// final.csv: id,x,y,z,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz, written
		// with the shortest exact decimal form, so equality is exact.
		want := []float64{b.Pos[0], b.Pos[1], b.Pos[2], b.Rot.W, b.Rot.V[0], b.Rot.V[1], b.Rot.V[2],
			b.Vel[0], b.Vel[1], b.Vel[2], b.Omega[0], b.Omega[1], b.Omega[2]}
		for k, w := range want {
			v, err := strconv.ParseFloat(row[k+1], 64)
			if err != nil || v != w {
				t.Errorf("body %d column %d: final.csv %s, frame %v", i, k+1, row[k+1], w)
			}
		}
	}
	if _, err := vtk.ReadFile(filepath.Join(dir, vtk.ContactsFile(10))); err != nil {
		t.Error(err)
	}
}
