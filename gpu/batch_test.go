//go:build linux && cgo && (amd64 || arm64)

package gpu

import (
	"encoding/binary"
	"math"
	"slices"
	"testing"

	"github.com/gpusim/gpusim/shaders"
)

func newBatch(t *testing.T, d *Device) *Batch {
	t.Helper()
	b, err := d.NewBatch()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Release)
	return b
}

func kernel(t *testing.T, d *Device, m shaders.Module) *Kernel {
	t.Helper()
	k, err := d.Kernel(m)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func floats(t *testing.T, d *Device, v []float64) *Buffer {
	t.Helper()
	b, err := d.NewFloat64(len(v))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Release)
	if err := b.WriteFloat64(0, v); err != nil {
		t.Fatal(err)
	}
	return b
}

func readAll(t *testing.T, b *Buffer) []float64 {
	t.Helper()
	v := make([]float64, b.Len())
	if err := b.ReadFloat64(v, 0); err != nil {
		t.Fatal(err)
	}
	return v
}

// Many dispatches, one submit; barriers only where a dispatch reads what an
// earlier one wrote.
func TestBatchOneSubmit(t *testing.T) {
	forEachDevice(t, func(t *testing.T, d *Device) {
		fill, axpby := kernel(t, d, shaders.Fill), kernel(t, d, shaders.Axpby)
		const n = 1000
		x, y, z := floats(t, d, make([]float64, n)), floats(t, d, make([]float64, n)), floats(t, d, make([]float64, n))
		b := newBatch(t, d)
		before := d.Submits()
		if err := b.Begin(); err != nil {
			t.Fatal(err)
		}
		g := [3]uint32{4, 1, 1}
		must := func(err error) {
			t.Helper()
			if err != nil {
				t.Fatal(err)
			}
		}
		must(b.Dispatch(fill, g, shaders.FillArgs{V: 1, N: n}, x))
		must(b.Dispatch(fill, g, shaders.FillArgs{V: 2, N: n}, y)) // independent: no barrier
		if b.Barriers() != 0 {
			t.Errorf("%d barriers between independent fills", b.Barriers())
		}
		must(b.Dispatch(axpby, g, shaders.AxpbyArgs{A: 3, B: 4, N: n}, z, x, y)) // reads x, y: barrier
		if b.Barriers() != 1 {
			t.Errorf("%d barriers before a dependent axpby, want 1", b.Barriers())
		}
		for range 100 {
			must(b.Dispatch(axpby, g, shaders.AxpbyArgs{A: 1, B: 0.5, N: n}, z, z, y)) // reads its own output
		}
		if b.Barriers() != 101 || b.Dispatches() != 103 {
			t.Errorf("%d barriers, %d dispatches; want 101, 103", b.Barriers(), b.Dispatches())
		}
		must(b.Dispatch(fill, [3]uint32{0, 1, 1}, shaders.FillArgs{V: 9, N: n}, x)) // empty: nothing
		must(b.Submit())
		if got := d.Submits() - before; got != 1 {
			t.Errorf("%d submits, want 1", got)
		}
		// z = 3·1 + 4·2 = 11, then 100 times z = z + 0.5·2 = z + 1.
		if got := readAll(t, z); slices.ContainsFunc(got, func(v float64) bool { return v != 111 }) {
			t.Errorf("z = %v…, want 111", got[:4])
		}
		if d.Info.Timestamps && b.GPUTime() <= 0 {
			t.Errorf("GPUTime = %v with timestamps", b.GPUTime())
		}
		// A batch is reusable, and the descriptor pools grow past one
		// pool's sets.
		must(b.Begin())
		for i := range 3 * poolSets {
			must(b.Dispatch(fill, g, shaders.FillArgs{V: float64(i), N: n}, x))
		}
		must(b.Submit())
		if got := readAll(t, x); got[0] != 3*poolSets-1 {
			t.Errorf("x[0] = %v after %d fills, want %d", got[0], 3*poolSets, 3*poolSets-1)
		}
	})
}

// shortArgs claims to be fill's arguments and appends too few bytes.
type shortArgs struct{}

func (shortArgs) Kernel() string             { return "fill" }
func (shortArgs) AppendPush(b []byte) []byte { return append(b, 1, 2, 3, 4) }

// TestBatchResubmit: a batch begun with BeginReusable runs again at each
// Resubmit, one submit each, reading what the last run wrote (z = z + 1
// per run); a plain batch, or one begun again since, is not resubmittable.
func TestBatchResubmit(t *testing.T) {
	forEachDevice(t, func(t *testing.T, d *Device) {
		fill, axpby := kernel(t, d, shaders.Fill), kernel(t, d, shaders.Axpby)
		const n = 1000
		y, z := floats(t, d, make([]float64, n)), floats(t, d, make([]float64, n))
		b := newBatch(t, d)
		must := func(err error) {
			t.Helper()
			if err != nil {
				t.Fatal(err)
			}
		}
		g := [3]uint32{4, 1, 1}
		must(b.Begin())
		must(b.Dispatch(fill, g, shaders.FillArgs{V: 2, N: n}, y))
		must(b.Submit())
		if b.Resubmittable() {
			t.Error("a batch begun with Begin is resubmittable")
		}
		must(b.BeginReusable())
		gen := b.Generation()
		must(b.Dispatch(axpby, g, shaders.AxpbyArgs{A: 1, B: 0.5, N: n}, z, z, y))
		must(b.Submit())
		before := d.Submits()
		for range 4 {
			must(b.Resubmit())
		}
		if got := d.Submits() - before; got != 4 || b.Generation() != gen {
			t.Errorf("%d submits, generation %d; want 4, %d", got, b.Generation(), gen)
		}
		if got := readAll(t, z); slices.ContainsFunc(got, func(v float64) bool { return v != 5 }) {
			t.Errorf("z = %v…, want 5 after 5 runs", got[:4])
		}
		must(b.Begin())
		must(b.Submit())
		if b.Resubmittable() {
			t.Error("resubmittable after a new Begin")
		}
	})
}

func TestDispatchMisuse(t *testing.T) {
	d := requireDevice(t)
	fill := kernel(t, d, shaders.Fill)
	x := floats(t, d, make([]float64, 4))
	b := newBatch(t, d)
	args := shaders.FillArgs{V: 1, N: 4}
	wantPanic(t, "not recording", "not recording", func() { b.Dispatch(fill, [3]uint32{1, 1, 1}, args, x) })
	if err := b.Begin(); err != nil {
		t.Fatal(err)
	}
	// The arguments of another kernel, of the same size or not.
	wantPanic(t, "args of copy", "arguments shaders.CopyArgs are kernel copy's", func() {
		b.Dispatch(fill, [3]uint32{1, 1, 1}, shaders.CopyArgs{N: 4}, x)
	})
	wantPanic(t, "args of mul_elem", "are kernel mul_elem's", func() {
		b.Dispatch(fill, [3]uint32{1, 1, 1}, shaders.MulElemArgs{N: 4}, x)
	})
	wantPanic(t, "no args", "0 bytes of arguments (<nil>), want 12", func() { b.Dispatch(fill, [3]uint32{1, 1, 1}, nil, x) })
	wantPanic(t, "short args", "4 bytes of arguments (gpu.shortArgs), want 12", func() {
		b.Dispatch(fill, [3]uint32{1, 1, 1}, shortArgs{}, x)
	})
	wantPanic(t, "buffers", "1 bindings", func() { b.Dispatch(fill, [3]uint32{1, 1, 1}, args, x, x) })
	wantPanic(t, "groups", "workgroups exceed", func() {
		b.Dispatch(fill, [3]uint32{d.Info.MaxWorkgroupCount[0] + 1, 1, 1}, args, x)
	})
	if err := b.Submit(); err != nil {
		t.Fatal(err)
	}
}

// TestCachedBatch: a cached batch submits the command buffer it recorded
// before for the same commands (z = z + a·y runs each time, and reads the
// y an earlier submit wrote), with the arguments and workgroup counts of
// the new recording (they are read from memory: args.go) and with a
// buffer grown within its capacity (bound whole), and records anew when a
// command differs: the bytes of an update, a buffer freed and made again
// (its Vulkan handle may be the old one's); beyond cacheEntries distinct
// recordings the one submitted longest ago is recorded again.
func TestCachedBatch(t *testing.T) {
	forEachDevice(t, func(t *testing.T, d *Device) {
		fill, axpby := kernel(t, d, shaders.Fill), kernel(t, d, shaders.Axpby)
		const n = 1000
		y, z := floats(t, d, make([]float64, n)), floats(t, d, make([]float64, n))
		b, err := d.newCachedBatch()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(b.Release)
		must := func(err error) {
			t.Helper()
			if err != nil {
				t.Fatal(err)
			}
		}
		g := [3]uint32{4, 1, 1}
		// run records y = v, z = z + a·y over g and an update of w[0] to
		// 1, and submits.
		w := floats(t, d, make([]float64, 4))
		run := func(v, a float64, y *Buffer, g [3]uint32) {
			t.Helper()
			must(b.Begin())
			must(b.Dispatch(fill, g, shaders.FillArgs{V: v, N: n}, y))
			must(b.Dispatch(axpby, g, shaders.AxpbyArgs{A: 1, B: a, N: n}, z, z, y))
			b.Update(w, 0, binary.LittleEndian.AppendUint64(nil, math.Float64bits(1)))
			must(b.Submit())
		}
		want := 0.0
		check := func(what string, recorded, reused int) {
			t.Helper()
			if r, u := b.CommandBuffers(); r != recorded || u != reused {
				t.Errorf("%s: %d command buffers recorded, %d reused; want %d, %d", what, r, u, recorded, reused)
			}
			if got := readAll(t, z); slices.ContainsFunc(got, func(v float64) bool { return v != want }) {
				t.Errorf("%s: z = %v…, want %v", what, got[:4], want)
			}
		}
		run(2, 1, y, g)
		want += 2
		check("first", 1, 0)
		for range 3 {
			run(2, 1, y, g)
			want += 2
		}
		check("same recording", 1, 3)
		run(3, 0.5, y, g)
		want += 1.5
		check("other arguments", 1, 4)
		run(2, 1, y, [3]uint32{1, 1, 1}) // the kernels loop over n
		want += 2
		check("other workgroup counts", 1, 5)
		// An update of other bytes.
		must(b.Begin())
		must(b.Dispatch(fill, g, shaders.FillArgs{V: 2, N: n}, y))
		must(b.Dispatch(axpby, g, shaders.AxpbyArgs{A: 1, B: 1, N: n}, z, z, y))
		b.Update(w, 0, binary.LittleEndian.AppendUint64(nil, math.Float64bits(3)))
		must(b.Submit())
		want += 2
		check("other update bytes", 2, 5)
		if got := readAll(t, w); got[0] != 3 {
			t.Errorf("other update bytes: w[0] = %v, want 3", got[0])
		}
		// y grown within its capacity: the same Vulkan buffer, bound whole
		// before and after.
		y2, err := d.NewBuffer(8 * n)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(y2.Release)
		run(2, 1, y2, g)
		must(y2.Grow(8*n + 8))
		run(2, 1, y2, g)
		want += 4
		check("grown within capacity", 3, 6)
		// y freed and made again: a new allocation, recorded anew.
		y2.Release()
		y3, err := d.NewBuffer(8 * n)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(y3.Release)
		run(2, 1, y3, g)
		want += 2
		check("a new buffer", 4, 6)
		// cacheEntries distinct recordings drop the oldest: y's was
		// submitted longest ago by now.
		for range cacheEntries {
			run(2, 1, floats(t, d, make([]float64, n)), g)
			want += 2
		}
		check("as many recordings as kept", 4+cacheEntries, 6)
		run(2, 1, y, g)
		want += 2
		check("after the cache turned over", 5+cacheEntries, 6)
		// Each kept command buffer holds one arguments buffer for these
		// short recordings, and the dropped ones' are reused.
		if a := len(d.buffers) - liveBuffers(d); a > cacheEntries {
			t.Errorf("%d arguments buffers for %d kept command buffers of two dispatches", a, cacheEntries)
		}
		// A cached batch resubmits its last recording.
		must(b.BeginReusable())
		must(b.Dispatch(axpby, g, shaders.AxpbyArgs{A: 1, B: 1, N: n}, z, z, y))
		must(b.Submit())
		must(b.Resubmit())
		want += 4
		check("resubmit", 6+cacheEntries, 6)
	})
}
