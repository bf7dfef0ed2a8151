//go:build linux && cgo && (amd64 || arm64)

package gpu

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDriverHint: what the error of VK_ERROR_INCOMPATIBLE_DRIVER says
// about the driver manifests, for the cases seen on GPU machines: none
// installed; NVIDIA's manifest present but its library missing, or
// present without libglvnd (the H100 machine of 2026-11-28); a manifest
// that is not one; a driver that loads but gives no device.
func TestDriverHint(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	nv := write("nvidia_icd.json", `{"file_format_version": "1.0.1", "ICD": {"library_path": "libGLX_nvidia.so.0", "api_version": "1.4.312"}}`)
	rel := write("rel.json", `{"ICD": {"library_path": "./lib/libvulkan_x.so"}}`)
	bad := write("bad.json", `{"ICD": `)
	empty := filepath.Join(dir, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	noLib := func(lib string) error {
		return errors.New(lib + ": cannot open shared object file: No such file or directory")
	}
	noGlvnd := func(string) error {
		return errors.New("libGLdispatch.so.0: cannot open shared object file: No such file or directory")
	}
	loads := func(string) error { return nil }
	for _, c := range []struct {
		name  string
		files string
		probe func(string) error
		want  []string
	}{
		{"none", empty, loads, []string{"no Vulkan driver manifest (ICD) is installed in " + empty, "mesa-vulkan-drivers"}},
		{"library missing", nv, noLib, []string{nv + " names libGLX_nvidia.so.0, which does not load (libGLX_nvidia.so.0: cannot open"}},
		{"no libglvnd", nv, noGlvnd, []string{"which does not load (libGLdispatch.so.0", "apt-get install libglvnd0 libglx0 libegl1 libxext6"}},
		{"relative path", rel, noLib, []string{filepath.Join(dir, "lib/libvulkan_x.so") + ", which does not load"}},
		{"not a manifest", bad, loads, []string{bad + ": not a driver manifest"}},
		{"loads", nv, loads, []string{"the driver of " + nv + " loads, but the Vulkan loader took no device", "VK_LOADER_DEBUG"}},
	} {
		env := func(k string) string {
			if k == "VK_DRIVER_FILES" {
				return c.files
			}
			return ""
		}
		got := driverHint(env, c.probe)
		// A machine with an NVIDIA kernel driver says so first.
		if _, rest, ok := strings.Cut(got, ") but "); ok && strings.HasPrefix(got, "an NVIDIA kernel driver") {
			got = rest
		}
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: %q lacks %q", c.name, got, w)
			}
		}
		if c.name != "no libglvnd" && strings.Contains(got, "libglvnd0") {
			t.Errorf("%s: %q suggests libglvnd", c.name, got)
		}
	}
	// The real probe: a library that does not exist does not load; libc does.
	if err := probeLibrary(filepath.Join(dir, "libnothing.so")); err == nil {
		t.Error("probeLibrary loaded a file that does not exist")
	}
	if err := probeLibrary("libc.so.6"); err != nil {
		t.Errorf("probeLibrary(libc.so.6): %v", err)
	}
	// The loader's default folders, from the XDG variables.
	env := map[string]string{"XDG_CONFIG_DIRS": "/a", "XDG_DATA_HOME": "/h", "XDG_DATA_DIRS": "/b:/c"}
	dirs, _ := icdSearch(func(k string) string { return env[k] })
	want := "/a/vulkan/icd.d /etc/vulkan/icd.d /h/vulkan/icd.d /b/vulkan/icd.d /c/vulkan/icd.d"
	if got := strings.Join(dirs, " "); got != want {
		t.Errorf("search folders %q, want %q", got, want)
	}
}
