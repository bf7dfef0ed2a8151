package run

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/checkpoint"
	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/scene"
)

// EndState returns the scene and the body state a run left: from a
// checkpoint file (the exact state after its step), or from a run's output
// folder (summary.json's scene document and final.csv, whose numbers are
// written in the shortest form that reads back exactly; its angular
// velocities are in the world frame and are turned back into the body
// frame, which may change their last bits).
func EndState(path string) (*scene.Scene, *engine.State, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, nil, fmt.Errorf("run: %w", err)
	}
	if !fi.IsDir() {
		ck, err := checkpoint.Read(path)
		if err != nil {
			return nil, nil, err
		}
		sc, err := scene.Parse(ck.Scene, path, nil)
		if err != nil {
			return nil, nil, fmt.Errorf("run: the scene in %s: %w", path, err)
		}
		if ck.State.Len() != len(sc.Model.Bodies) {
			return nil, nil, fmt.Errorf("run: %s: the state has %d bodies, its scene %d", path, ck.State.Len(), len(sc.Model.Bodies))
		}
		return sc, &ck.State, nil
	}
	sumPath := filepath.Join(path, "summary.json")
	data, err := os.ReadFile(sumPath)
	if err != nil {
		return nil, nil, fmt.Errorf("run: %w", err)
	}
	var sum struct {
		Doc json.RawMessage `json:"scene_doc"`
	}
	if err := json.Unmarshal(data, &sum); err != nil {
		return nil, nil, fmt.Errorf("run: %s: %w", sumPath, err)
	}
	if len(sum.Doc) == 0 || string(sum.Doc) == "null" {
		return nil, nil, fmt.Errorf("run: %s has no scene_doc", sumPath)
	}
	sc, err := scene.Parse(sum.Doc, sumPath+": scene_doc", nil)
	if err != nil {
		return nil, nil, err
	}
	st, err := readFinal(filepath.Join(path, "final.csv"), len(sc.Model.Bodies))
	if err != nil {
		return nil, nil, err
	}
	return sc, st, nil
}

// readFinal reads final.csv (bodyHeader columns, one row per body in id
// order) into a state of n bodies.
func readFinal(path string, n int) (*engine.State, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("run: %w", err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	head, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("run: %s: %w", path, err)
	}
	if strings.Join(head, ",") != bodyHeader {
		return nil, fmt.Errorf("run: %s: header %q, want %q", path, strings.Join(head, ","), bodyHeader)
	}
	st := &engine.State{}
	st.Resize(n)
	for i := 0; ; i++ {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			if i != n {
				return nil, fmt.Errorf("run: %s: %d bodies, the scene has %d", path, i, n)
			}
			return st, nil
		}
		if err != nil {
			return nil, fmt.Errorf("run: %s: %w", path, err)
		}
		if i >= n {
			return nil, fmt.Errorf("run: %s: more than the scene's %d bodies", path, n)
		}
		var v [14]float64
		for k := range v {
			v[k], err = strconv.ParseFloat(rec[k], 64)
			if err != nil {
				return nil, fmt.Errorf("run: %s: row %d, column %s: %w", path, i+2, head[k], err)
			}
		}
		if int(v[0]) != i {
			return nil, fmt.Errorf("run: %s: row %d holds body %v, want %d", path, i+2, v[0], i)
		}
		copy(st.Pos[3*i:], v[1:4])
		copy(st.Rot[4*i:], v[4:8])
		copy(st.Vel[3*i:], v[8:11])
		q := mgl64.Quat{W: v[4], V: mgl64.Vec3{v[5], v[6], v[7]}}
		om := q.Conjugate().Rotate(mgl64.Vec3{v[11], v[12], v[13]})
		copy(st.Omega[3*i:], om[:])
	}
}
