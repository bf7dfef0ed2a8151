package vtk

import (
	_ "embed"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/go-gl/mathgl/mgl64"
)

// ViewFile is the ParaView script a Recorder writes beside run.pvd: with
// ParaView's Python, `pvpython view.py` shows the run's last frame (the
// bodies as their shapes coloured by speed, the fixed geometry, the
// contact network) and `pvpython --force-offscreen-rendering view.py
// --png FILE` saves it as a picture; `--help` lists its options.
const ViewFile = "view.py"

//go:embed view.py
var viewScript string

// ViewScript returns the script of ViewFile for a scene whose up
// direction (opposite to gravity) is up; a zero up is z.
func ViewScript(up mgl64.Vec3) string {
	if up.Len() == 0 {
		up = mgl64.Vec3{0, 0, 1}
	}
	up = up.Normalize()
	const line = "UP = (0.0, 0.0, 1.0)"
	return strings.Replace(viewScript, line, fmt.Sprintf("UP = (%g, %g, %g)", up[0], up[1], up[2]), 1)
}

// WriteView writes ViewFile into the run folder dir for a scene whose
// gravity is g.
func WriteView(dir string, g mgl64.Vec3) error {
	return writeAtomic(filepath.Join(dir, ViewFile), []byte(ViewScript(g.Mul(-1))))
}
