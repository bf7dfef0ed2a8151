//go:build linux && cgo && (amd64 || arm64)

package gpu

import "testing"

// TestMemoryBytes: a new buffer adds its capacity (its size rounded up to
// bufferAlign), growing it adds the difference, releasing it takes it back.
func TestMemoryBytes(t *testing.T) {
	d := requireDevice(t)
	before := d.MemoryBytes()
	b, err := d.NewBuffer(1000)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := d.MemoryBytes()-before, int64(1024); got != want {
		t.Errorf("a buffer of 1000 bytes adds %d bytes, want %d (1000 rounded up to %d)", got, want, bufferAlign)
	}
	if err := b.Grow(5000); err != nil {
		t.Fatal(err)
	}
	if got := d.MemoryBytes() - before; got < 5000 {
		t.Errorf("after growing to 5000 bytes the buffer counts %d bytes", got)
	}
	b.Release()
	if got := d.MemoryBytes(); got != before {
		t.Errorf("after Release: %d bytes, want %d as before", got, before)
	}
}
