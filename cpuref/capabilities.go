package cpuref

import "github.com/gpusim/gpusim/engine"

// The engine's interfaces the backend implements: a capability dropped by a
// change of signature fails here instead of silently at run time.
var (
	_ engine.Backend        = (*Backend)(nil)
	_ engine.StateSetter    = (*Backend)(nil)
	_ engine.WarmStartSaver = (*Backend)(nil)
	_ engine.Enveloper      = (*Backend)(nil)
	_ engine.Clock          = (*Backend)(nil)
	_ engine.JointReactor   = (*Backend)(nil)
	_ engine.BodyReactor    = (*Backend)(nil)

	_ engine.VecReuser   = linalg{}
	_ engine.DeviceAPGD  = (*problem)(nil)
	_ engine.JointRows   = (*problem)(nil)
	_ engine.RollingRows = (*problem)(nil)
	_ Assembler          = (*problem)(nil)
	_ Assembler          = (*MatrixProblem)(nil)
)
