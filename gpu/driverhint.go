//go:build linux && cgo && (amd64 || arm64)

package gpu

/*
#include <dlfcn.h>
#include <stdlib.h>

// gs_probe dlopens path as the Vulkan loader would load a driver and
// closes it again: NULL when it loads, else dlerror's message.
static const char *gs_probe(const char *path) {
	void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (lib == NULL) {
		return dlerror();
	}
	dlclose(lib);
	return NULL;
}
*/
import "C"

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unsafe"
)

// driverHint says why vkCreateInstance found no driver, for the error of
// VK_ERROR_INCOMPATIBLE_DRIVER: the driver manifests (ICDs) the Vulkan
// loader reads, and for each the library it names and why that library
// does not load (a GPU machine with the kernel driver but without the
// libraries its Vulkan driver needs — NVIDIA's needs libglvnd — reports
// exactly that error; docs/docker/Dockerfile installs them). env reads the environment and probe loads a
// library (nil: it loads).
func driverHint(env func(string) string, probe func(lib string) error) string {
	var b strings.Builder
	if v := nvidiaKernelDriver(); v != "" {
		fmt.Fprintf(&b, "an NVIDIA kernel driver is loaded (%s) but ", v)
	}
	dirs, files := icdSearch(env)
	if len(files) == 0 {
		fmt.Fprintf(&b, "no Vulkan driver manifest (ICD) is installed in %s: install the GPU's Vulkan driver "+
			"(NVIDIA's driver package with its Vulkan ICD, or Mesa's mesa-vulkan-drivers)", strings.Join(dirs, ", "))
		return b.String()
	}
	var broken, loads []string
	glvnd := false
	for _, f := range files {
		lib, err := icdLibrary(f)
		if err != nil {
			broken = append(broken, fmt.Sprintf("%s: %v", f, err))
			continue
		}
		if err := probe(lib); err != nil {
			broken = append(broken, fmt.Sprintf("%s names %s, which does not load (%v)", f, lib, err))
			for _, l := range []string{"libGLdispatch", "libGLX.so", "libEGL.so", "libOpenGL.so", "libXext.so", "libX11.so"} {
				glvnd = glvnd || strings.Contains(err.Error(), l)
			}
			continue
		}
		loads = append(loads, f)
	}
	if len(broken) > 0 {
		b.WriteString("no Vulkan driver could be loaded: " + strings.Join(broken, "; "))
		if glvnd {
			b.WriteString("; NVIDIA's Vulkan driver needs libglvnd and libXext (Debian and Ubuntu: apt-get install " +
				"libglvnd0 libglx0 libegl1 libxext6)")
		}
	}
	if len(loads) > 0 {
		if len(broken) > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "the driver of %s loads, but the Vulkan loader took no device from it "+
			"(VK_LOADER_DEBUG=error,warn shows why)", strings.Join(loads, ", "))
	}
	return b.String()
}

// icdSearch returns the folders the Vulkan loader searches for driver
// manifests and the manifests it finds there, in its order: the files or
// folders of VK_DRIVER_FILES (or the older VK_ICD_FILENAMES) when set,
// else vulkan/icd.d under XDG_CONFIG_DIRS, /etc, XDG_DATA_HOME and
// XDG_DATA_DIRS.
func icdSearch(env func(string) string) (dirs, files []string) {
	list := env("VK_DRIVER_FILES")
	if list == "" {
		list = env("VK_ICD_FILENAMES")
	}
	if list != "" {
		for _, p := range filepath.SplitList(list) {
			if st, err := os.Stat(p); err == nil && st.IsDir() {
				dirs = append(dirs, p)
				files = append(files, jsonFiles(p)...)
			} else if p != "" {
				dirs = append(dirs, p)
				if err == nil {
					files = append(files, p)
				}
			}
		}
		return dirs, files
	}
	split := func(v, def string) []string {
		if v == "" {
			v = def
		}
		return filepath.SplitList(v)
	}
	var roots []string
	roots = append(roots, split(env("XDG_CONFIG_DIRS"), "/etc/xdg")...)
	roots = append(roots, "/etc")
	if h := env("XDG_DATA_HOME"); h != "" {
		roots = append(roots, h)
	} else if h := env("HOME"); h != "" {
		roots = append(roots, filepath.Join(h, ".local/share"))
	}
	roots = append(roots, split(env("XDG_DATA_DIRS"), "/usr/local/share:/usr/share")...)
	for _, r := range roots {
		d := filepath.Join(r, "vulkan", "icd.d")
		dirs = append(dirs, d)
		files = append(files, jsonFiles(d)...)
	}
	return dirs, files
}

// jsonFiles lists the .json files of dir, sorted (none if it cannot be read).
func jsonFiles(dir string) []string {
	es, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var fs []string
	for _, e := range es {
		if strings.HasSuffix(e.Name(), ".json") {
			fs = append(fs, filepath.Join(dir, e.Name()))
		}
	}
	sort.Strings(fs)
	return fs
}

// icdLibrary returns the library a driver manifest names (ICD.library_path),
// made absolute against the manifest's folder when it is a relative path
// with a slash, as the loader does.
func icdLibrary(manifest string) (string, error) {
	data, err := os.ReadFile(manifest)
	if err != nil {
		return "", err
	}
	var m struct {
		ICD struct {
			LibraryPath string `json:"library_path"`
		} `json:"ICD"`
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return "", fmt.Errorf("not a driver manifest: %v", err)
	}
	lib := m.ICD.LibraryPath
	if lib == "" {
		return "", errors.New("names no ICD.library_path")
	}
	if !filepath.IsAbs(lib) && strings.Contains(lib, "/") {
		lib = filepath.Join(filepath.Dir(manifest), lib)
	}
	return lib, nil
}

// nvidiaKernelDriver returns the NVIDIA kernel driver's version line
// (/proc/driver/nvidia/version, shortened), or "" without one.
func nvidiaKernelDriver() string {
	data, err := os.ReadFile("/proc/driver/nvidia/version")
	if err != nil {
		return ""
	}
	line, _, _ := strings.Cut(string(data), "\n")
	for _, f := range strings.Fields(line) {
		if strings.Count(f, ".") >= 1 && f[0] >= '0' && f[0] <= '9' {
			return "version " + f
		}
	}
	return "/proc/driver/nvidia"
}

// probeLibrary loads lib with dlopen and closes it: nil when it loads.
func probeLibrary(lib string) error {
	p := C.CString(lib)
	defer C.free(unsafe.Pointer(p))
	if msg := C.gs_probe(p); msg != nil {
		return errors.New(C.GoString(msg))
	}
	return nil
}
