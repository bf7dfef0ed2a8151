//go:build linux && cgo && (amd64 || arm64)

package gpu

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"

	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/engine/enginetest"
	"github.com/gpusim/gpusim/shaders"
)

// TestEngineConformanceSmallLimits runs the conformance suite on a device
// that binds the Jacobian and the pair normals in small windows
// (window.go) and dispatches at most four workgroups along each axis (a kernel that needs more splits its work: dot products into chunks, grid-stride loops; apgd_sum, one workgroup per dot product, takes four): a
// model past a real device's maxStorageBufferRange and 65 535 workgroups,
// at the suite's size. The windows are 16 KiB for the kernels' models
// (27–41 KB of Jacobian rows: two or three windows) and 128 KiB for the
// solvers' (268 KB: three windows), so that rows straddle windows.
func TestEngineConformanceSmallLimits(t *testing.T) {
	d := openFresh(t, Options{})
	d.Info.MaxWorkgroupCount = [3]uint32{4, 4, 4}
	impl := conformanceImpl("vulkan-small-limits", func(t testing.TB) *Backend {
		t.Helper()
		return newTestBackendOn(t, d)
	})
	t.Run("Kernels", func(t *testing.T) {
		d.setWindowLog2(14)
		enginetest.Kernels(t, impl)
	})
	d.setWindowLog2(17)
	t.Run("Solvers", func(t *testing.T) { enginetest.Solvers(t, impl) })
	t.Run("Mixed", func(t *testing.T) { enginetest.Mixed(t, impl) })
}

// TestCollideDeviceWindows: with windows of 8 KiB, a layer of tilted
// ellipsoids apart but for their boxes (429 pairs, no contact) and a row
// of touching ellipsoids after them put the row's pair normals in the
// second window (pair slot 428: byte 13 696), and the contacts are still
// cpuref's bit for bit.
func TestCollideDeviceWindows(t *testing.T) {
	requireUnfusedGo(t)
	d := openFresh(t, Options{})
	const log2 = 13
	d.setWindowLog2(log2)
	m := &engine.Model{Materials: []engine.Material{{Name: "a", Friction: 0.3}}, Gravity: mgl64.Vec3{0, 0, -9.81}}
	add := func(s engine.Shape, pos mgl64.Vec3, rot mgl64.Quat) {
		b := engine.Body{Shape: s, Pos: pos, Rot: rot}
		b.SetMass(1)
		m.Bodies = append(m.Bodies, b)
	}
	tilt := mgl64.QuatRotate(math.Pi/4, mgl64.Vec3{1, 1, 0}.Normalize())
	for i := range 121 {
		add(engine.EllipsoidShape(0.02, 0.02, 0.1), mgl64.Vec3{0.1 * float64(i%11), 0.1 * float64(i/11), 1}, tilt)
	}
	for i := range 10 {
		add(engine.EllipsoidShape(0.05, 0.04, 0.03), mgl64.Vec3{0.07 * float64(i), 0, 0.5}, mgl64.QuatRotate(0.3*float64(i), mgl64.Vec3{0, 0, 1}))
	}
	tw := exactTwinOn(t, newTestBackendOn(t, d), m, engine.DefaultSettings())
	// The last pair slot that holds a normal (state 1, pairN[4q+3]).
	pn := make([]float64, tw.gpu.dc.pairN.Size()/8)
	if err := tw.gpu.dc.pairN.ReadFloat64(pn, 0); err != nil {
		t.Fatal(err)
	}
	last := -1
	for q := 0; 4*q+3 < len(pn); q++ {
		if pn[4*q+3] == 1 {
			last = q
		}
	}
	if tw.nc == 0 || 32*last < 1<<log2 {
		t.Fatalf("%d contacts, the last pair normal in slot %d: none past the first window", tw.nc, last)
	}
}

// A buffer bound in windows takes up to four windows and no more; a
// kernel that binds a buffer whole refuses one past the device's range
// with an error, not an invalid descriptor.
func TestWindowedBufferLimits(t *testing.T) {
	d := openFresh(t, Options{})
	const log2 = 12
	d.setWindowLog2(log2)
	b, err := d.newBuffer(3<<log2, Buffer{windowed: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Grow(4 << log2); err != nil {
		t.Fatalf("four windows: %v", err)
	}
	if err := b.Grow(4<<log2 + 8); !errors.Is(err, ErrOutOfMemory) || !strings.Contains(err.Error(), "exceeds its 4 windows of 4096 bytes") {
		t.Fatalf("past four windows: %v, want ErrOutOfMemory naming the windows", err)
	}
	if _, err := d.newBuffer(4<<log2+8, Buffer{windowed: true}); err == nil {
		t.Fatal("a new buffer past four windows was made")
	}
	// A device whose range is two windows: the windowed buffer of four
	// binds in windows, not whole.
	d.Info.MaxStorageBufferRange = 2 << log2
	fill := kernel(t, d, shaders.Fill)
	x := newBatch(t, d)
	if err := x.Begin(); err != nil {
		t.Fatal(err)
	}
	err = x.Dispatch(fill, [3]uint32{1, 1, 1}, shaders.FillArgs{V: 1, N: 8}, b)
	if err == nil || !strings.Contains(err.Error(), "the kernel binds it whole") {
		t.Fatalf("fill of a %d-byte buffer in a %d-byte range: %v, want an error", b.Size(), d.Info.MaxStorageBufferRange, err)
	}
	if err := x.Submit(); err != nil {
		t.Fatal(err)
	}
}

// A dispatch finds the kernel specialised for the windows its buffers
// reach, once built, without allocating (forBuffers runs at every
// dispatch of the solver's iterations).
func TestWindowVariantNoAllocs(t *testing.T) {
	d := openFresh(t, Options{})
	const log2 = 12
	d.setWindowLog2(log2)
	k := kernel(t, d, shaders.ContactVelocity)
	var bufs []*Buffer
	for _, b := range k.m.Bindings {
		size, kind := int64(64), Buffer{}
		if len(b.Windows) > 0 {
			size, kind = 3<<log2, Buffer{windowed: true}
		}
		buf, err := d.newBuffer(size, kind)
		if err != nil {
			t.Fatal(err)
		}
		bufs = append(bufs, buf)
	}
	v, err := k.forBuffers(bufs)
	if err != nil {
		t.Fatal(err)
	}
	if v.windowsUsed != 3 || k.windowsUsed != 1 {
		t.Fatalf("a buffer of three windows: kernel of %d windows (from one of %d), want 3", v.windowsUsed, k.windowsUsed)
	}
	if n := testing.AllocsPerRun(100, func() {
		if w, _ := k.forBuffers(bufs); w != v {
			t.Fatal("another kernel")
		}
	}); n != 0 {
		t.Errorf("%v allocations per dispatch's lookup, want 0", n)
	}
}
