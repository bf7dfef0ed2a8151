//go:build linux && cgo && (amd64 || arm64)

package gpu

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/gpusim/gpusim/shaders"
)

// TestPipelineCache: a device that builds kernels writes its pipeline
// cache to GPUSIM_PIPELINE_CACHE's folder at Close; the next Open starts
// from it (bytes loaded, the same kernels build and run); a damaged file
// is ignored (nothing loaded, rewritten at Close) and "off" writes none.
func TestPipelineCache(t *testing.T) {
	requireDevice(t) // a Vulkan device is there
	dir := t.TempDir()
	t.Setenv(pipelineCacheEnv, dir)
	open := func() *Device {
		t.Helper()
		d, err := Open(Options{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := d.Kernel(shaders.Axpby); err != nil {
			t.Fatal(err)
		}
		if _, err := d.Kernel(shaders.JointRows); err != nil {
			t.Fatal(err)
		}
		return d
	}
	d := open()
	path, loaded := d.PipelineCache()
	if path == "" || filepath.Dir(path) != dir || loaded != 0 {
		t.Fatalf("first open: cache file %q, %d bytes loaded; want a file in %s and nothing loaded", path, loaded, dir)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil || st.Size() <= pipelineCacheHeader {
		t.Fatalf("after Close: %v, size %v: want the cache written", err, st)
	}
	d = open()
	if _, loaded := d.PipelineCache(); loaded != int(st.Size())-pipelineCacheHeader {
		t.Errorf("second open loaded %d bytes, want the file's %d", loaded, st.Size()-pipelineCacheHeader)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	// A damaged file: one byte of the driver's data flipped.
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)-1] ^= 0xff
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	d = open()
	if _, loaded := d.PipelineCache(); loaded != 0 {
		t.Errorf("a damaged file: %d bytes loaded, want none", loaded)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if readPipelineCache(path) == nil {
		t.Error("the damaged file was not rewritten at Close")
	}
	// Off: no file.
	t.Setenv(pipelineCacheEnv, "off")
	d = open()
	if p, _ := d.PipelineCache(); p != "" {
		t.Errorf("GPUSIM_PIPELINE_CACHE=off: cache file %q", p)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
}
