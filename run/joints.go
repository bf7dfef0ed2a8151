package run

import (
	"fmt"

	"github.com/gpusim/gpusim/cpuref"
	"github.com/gpusim/gpusim/engine"
)

// redundantJoints returns a line for the log when m's joints
// over-constrain its bodies at t = 0 (or could not be checked), else "".
// It builds the joint rows of the jointed bodies alone on the CPU path
// (jointSubModel: a few bodies, whatever the scene's size) and counts the
// redundant ones (engine.JointLayout.JointRank).
func redundantJoints(m *engine.Model, s engine.Settings) string {
	if len(m.Joints) == 0 {
		return ""
	}
	l, lin, rotA, rotB, static, err := cpuref.JointJacobian(jointSubModel(m), &s)
	if err != nil {
		return fmt.Sprintf("joints: the redundancy check failed: %v", err)
	}
	rank, ok := l.JointRank(lin, rotA, rotB, static)
	switch {
	case !ok:
		return fmt.Sprintf("joints: %d joint rows too entangled to check for redundancy (the elimination outgrew its budget)", l.Rows)
	case rank < l.Rows:
		return fmt.Sprintf("joints: %d of the %d joint rows are redundant at t = 0 (the joints over-constrain the bodies, rank %d); the solvers still solve them, with joint impulses that need not be unique",
			l.Rows-rank, l.Rows, rank)
	}
	return ""
}

// jointSubModel returns m's jointed bodies alone, renumbered, with its
// joints: the same joint rows as m's, without the rest of the scene.
func jointSubModel(m *engine.Model) *engine.Model {
	sub := &engine.Model{Materials: m.Materials, Gravity: m.Gravity}
	index := map[int]int{}
	add := func(i int) int {
		if i == engine.World {
			return i
		}
		k, ok := index[i]
		if !ok {
			k = len(sub.Bodies)
			index[i] = k
			sub.Bodies = append(sub.Bodies, m.Bodies[i])
		}
		return k
	}
	for _, j := range m.Joints {
		j.Body1, j.Body2 = add(j.Body1), add(j.Body2)
		sub.Joints = append(sub.Joints, j)
	}
	return sub
}
