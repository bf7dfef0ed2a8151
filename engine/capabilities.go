package engine

// Optional capabilities. A backend implements Backend and may implement any
// of the small interfaces below; callers find them with a type assertion on
// the Backend (be.(engine.Enveloper)) and do without when it fails. Each
// says which backends implement it; cpuref and gpu check theirs at compile
// time. The capabilities of the parts of a step live beside what they
// extend: VecReuser (a LinAlg; backend.go), JointRows, Clock and
// JointReactor (joint.go), BodyReactor (reaction.go), DeviceAPGD, DeviceJacobi and DeviceSPG (a
// Problem; solver.go).

// StateSetter is implemented by backends that can overwrite the body state
// after Load, bit for bit (Load normalises quaternions and zeroes the
// velocities of fixed bodies; a restored run must continue from the exact
// state it was saved in). Sim.Restore needs it. Implemented by cpuref and
// gpu.
type StateSetter interface {
	SetState(s *State) error
}

// WarmStartSaver is implemented by backends whose warm-start memory can be
// saved and restored (Sim.Snapshot and Sim.Restore with warm start on).
// Implemented by cpuref and gpu.
type WarmStartSaver interface {
	// WarmStartData copies the backend's warm-start memory into w.
	WarmStartData(w *WarmStartData) error
	// SetWarmStartData replaces it with w.
	SetWarmStartData(w *WarmStartData) error
}

// StateGuard is implemented by backends that hold the body state on a
// device and can check it there and keep a copy of it, so that a run's
// guard (package run), which checks the state after every step and keeps
// the last state that passed, reads the state back only when an output
// needs it. Implemented by gpu; on cpuref the state is in host memory and
// the guard checks it there with GuardOffenders.
type StateGuard interface {
	// SetGuardLimits sets what CheckState checks against: the device
	// keeps a copy (Skip for len(l.Skip) bodies, as many as the model
	// may grow to), made once.
	SetGuardLimits(l *GuardLimits) error
	// CheckState checks the body state after the last step against the
	// limits on the device and fills r as GuardReportOf(GuardOffenders)
	// would. When no body failed, that state, and with warm the
	// warm-start memory (WarmStartSaver), becomes the kept copy: a copy on
	// the device, made in the same submit as the check; else the kept
	// copy stays. It reads back the counts (and the ids when a body
	// failed), not the state. After an error the kept copy is lost.
	CheckState(r *GuardReport, warm bool) error
	// KeepState makes the current body state, and with warm the
	// warm-start memory, the kept copy, whatever the limits (the start of
	// a run, after bodies entered: Sim.Grow).
	KeepState(warm bool) error
	// ReadKept copies the kept body state into s and, when w is not nil,
	// the kept warm-start memory into w as WarmStartData would have read
	// it when it was kept (it must have been kept with warm). It reads
	// the copy as it is, without the pending work: after an error of a
	// later step, unless the device is lost.
	ReadKept(s *State, w *WarmStartData) error
}

// Submitter is implemented by backends that talk to a device: Submits is
// the number of submit-and-wait round trips so far, from which Sim fills
// StepStats.Submits (0 for other backends). Implemented by gpu.
type Submitter interface {
	Submits() int
}

// Recorder is implemented by backends that record command buffers for a
// device and submit again those they recorded before:
// CommandBuffersRecorded is the number recorded so far, from which Sim
// fills StepStats.Recorded. Implemented by gpu.
type Recorder interface {
	CommandBuffersRecorded() int
}

// Enveloper is implemented by backends that keep contacts while the gap Φ
// is below an envelope: Envelope is that envelope (m) as Load resolved
// Settings.Envelope (0 there: automatic; run's summary.json reports it). Implemented by cpuref and
// gpu.
type Enveloper interface {
	Envelope() float64
}

// DeviceIdentity names the device a backend runs on, as a user or a
// scheduler names it.
type DeviceIdentity struct {
	// Index is the device's position in the driver's list
	// (vkEnumeratePhysicalDevices for gpu), as --device takes it.
	Index int
	// Name is the driver's name of the device.
	Name string
	// UUID is "GPU-…" as nvidia-smi -L prints it, "" when unknown.
	UUID string
	// PCI is the device's PCI address, "0000:3b:00.0", "" when unknown.
	PCI string
}

// DeviceIdentifier is implemented by backends that run on a device:
// DeviceIdentity says which (run's summary.json reports it). Implemented
// by gpu.
type DeviceIdentifier interface {
	DeviceIdentity() DeviceIdentity
}

// DeviceMemory is implemented by backends that hold device memory:
// DeviceMemoryBytes is what their buffers hold now (bytes, capacities
// summed; gpusim bench reports the largest). Implemented by gpu.
type DeviceMemory interface {
	DeviceMemoryBytes() int64
}

// Noter is implemented by backends that run a loaded model in a way a user
// should hear of: Notes says how, one line each (gpu: a row of the
// narrowphase table that the device cannot build, computed on the host).
// run prints them as notices. Implemented by gpu.
type Noter interface {
	Notes() []string
}
