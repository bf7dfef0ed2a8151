package run

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gpusim/gpusim/gpu"
	"github.com/gpusim/gpusim/internal/inputfile"
)

// The memory model of a run, in bytes of the process's peak resident
// memory. Measured on the CPU path with
//
//	/usr/bin/time -v gpusim run settle --set n=N --backend cpu --steps 20 --quiet --out /tmp/s
//	/usr/bin/time -v gpusim run fill --set n=N --backend cpu --steps 2 --quiet --out /tmp/f
//
// (GOGC = 10, gpusim's default; "Maximum resident set size"), at
// `c9c29de` (2026-11-28):
//
//	settle N = 1000, 2197 contacts: 17.8 MiB      fill N = 16000, 6247 contacts: 36.1 MiB
//	settle N = 4000, 10377 contacts: 27.3 MiB     fill N = 64000, 25060 contacts: 105.2 MiB
//	settle N = 16000, 45611 contacts: 73.6 MiB
//	settle N = 64000, 184558 contacts: 245.5 MiB
//
// and a process that only lists the scenes, 11.6 MiB. The two scenes
// differ in contacts per body (2.9 and 0.4), which separates the two
// costs: between N = 16000 and 64000 settle grew by 171.9 MiB and fill by
// 69.1 MiB, so a contact costs 897 B (the Jacobian's 12 float64, APGD's
// seven work vectors, the contact data, with the growth headroom) and a
// body 1159 B (model, state, collider); the constants round them up to
// 900 and 1160. The model gives settle N = 64000 within 2 % (241.2 MiB)
// at its measured contacts; at contactsPerBody it asks for 23 % more
// than that run took. Before the solve in the world frame and APGD's
// seven vectors (`0f43f1f`: 27 float64 per contact, nine vectors) the
// same runs took 18.1, 31.1, 85.1 and 299.1 MiB (settle) and 37.1 and
// 106.1 MiB (fill): 1266 B per contact and 1010 B per body. The Vulkan
// path (fill on lavapipe, where device
// buffers are host memory: N = 16000, 225 MiB; N = 64000, 466 MiB) holds
// the same ~1 KB per body on the host besides its device buffers
// (gpu.EstimateBytes) and a fixed 140 MiB of driver and compiled kernels;
// the host estimate of the Vulkan path counts the device buffers too
// (unified memory), and CheckMemory takes them out for a discrete GPU.
const (
	hostBaseBytes       = 12 << 20 // the process before any body
	hostBytesPerBody    = 1160
	hostBytesPerContact = 900
	// contactsPerBody is the contacts a run is expected to reach per body:
	// a settled pile of spheres has 2.9–3.4 (settle, pressure in
	// docs/bench.md); 4 leaves a margin for walls and for non-spherical
	// shapes, whose pairs can touch at several points.
	contactsPerBody = 4
	// vulkanBaseBytes is the host memory of an open Vulkan device with the
	// kernels built (lavapipe: 140 MiB).
	vulkanBaseBytes = 140 << 20
)

// Estimate is the memory a run is expected to need.
type Estimate struct {
	Bodies, Contacts int
	// Host is the peak resident memory of the process (bytes); Device the
	// Vulkan device's buffers (0 on the CPU path).
	Host, Device int64
}

// EstimateMemory estimates the memory of a run of bodies bodies on the
// backend named ("cpu", "vulkan" or "auto"; auto is estimated as the CPU
// path, which it falls back to when the device is short).
func EstimateMemory(bodies int, backend string) Estimate {
	n := int64(bodies)
	e := Estimate{Bodies: bodies, Contacts: contactsPerBody * bodies}
	nc := int64(e.Contacts)
	switch backend {
	case "vulkan":
		// Host holds the device buffers too: on a CPU or integrated
		// device (lavapipe, unified memory) they are host memory
		// (CheckMemory leaves them out where the device that would open
		// is discrete).
		// As a float64 run of a model that holds every buffer
		// (gpu.MostFootprint; settings.precision "mixed", a model of
		// spheres, of one material or without loads take less: the
		// device's own check at Load counts what the model holds).
		e.Device = gpu.EstimateBytes(bodies, e.Contacts, gpu.MostFootprint)
		e.Host = hostBaseBytes + vulkanBaseBytes + hostBytesPerBody*n + e.Device
	default:
		e.Host = hostBaseBytes + hostBytesPerBody*n + hostBytesPerContact*nc
	}
	return e
}

// ErrOutOfMemory is matched (errors.Is) by a MemoryError: a run refused
// because it would not fit in memory. It is a run failure, not bad input.
var ErrOutOfMemory = errors.New("not enough memory")

// MemoryError is a run whose estimate exceeds the memory it may use.
type MemoryError struct {
	Estimate Estimate
	Backend  string
	// Need is the estimate compared, Limit what it was compared with and
	// LimitFrom where Limit came from.
	Need, Limit int64
	LimitFrom   string
	// Card names the discrete device whose memory holds the device
	// buffers, which Need then leaves out; empty where they may be host
	// memory (Need counts them).
	Card string
}

func (e *MemoryError) Error() string {
	return fmt.Sprintf("not enough memory: %d bodies on the %s backend need about %s of host memory (%s), more than the %s available (%s); use fewer bodies, or set the limit with --max-memory BYTES (Options.MaxMemory)",
		e.Estimate.Bodies, e.Backend, gib(e.Need), e.model(), gib(e.Limit), e.LimitFrom)
}

func (e *MemoryError) model() string {
	if e.Backend == "vulkan" && e.Card != "" {
		return fmt.Sprintf("%d B per body and the driver's %d MiB; the device buffers are on %s", hostBytesPerBody, vulkanBaseBytes>>20, e.Card)
	}
	if e.Backend == "vulkan" {
		return fmt.Sprintf("%d B per body, the driver's %d MiB and the device buffers, which may be host memory", hostBytesPerBody, vulkanBaseBytes>>20)
	}
	return fmt.Sprintf("%d B per body and %d B per contact at %d contacts per body", hostBytesPerBody, hostBytesPerContact, contactsPerBody)
}

func (e *MemoryError) Is(target error) bool { return target == ErrOutOfMemory }

// gib writes a byte count in GiB, MiB or KiB.
func gib(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.3g GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.3g MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.3g KiB", float64(n)/(1<<10))
}

// CheckMemory refuses a run of bodies bodies on the backend whose estimate
// (EstimateMemory) exceeds the memory it may use: maxMemory bytes if
// positive, no check if negative, else what the machine has (hostLimit:
// MemAvailable, or less under a cgroup limit) plus what this process
// already holds (the estimate is of the whole process). On the Vulkan
// backend it asks which device would open (gpu.Choose with device, as
// Options.Device): a discrete one holds the device buffers in its own
// memory, so the host's need leaves them out; otherwise (unified memory,
// a CPU implementation, or no device found) they count as host memory. A
// device's own size is checked when the backend loads the model (gpu
// reports running out of it then, exit 1; --backend auto falls back to the
// CPU path), as it is under Options.VulkanMemoryLimit.
func CheckMemory(bodies int, backend, device string, maxMemory int64) error {
	if maxMemory < 0 {
		return nil
	}
	e := EstimateMemory(bodies, backend)
	need, card := e.Host, ""
	if backend == "vulkan" {
		if d, err := chooseDevice(device); err == nil && !d.UnifiedMemory {
			need, card = e.Host-e.Device, d.Name
		}
	}
	limit, from := maxMemory, "--max-memory"
	if limit == 0 {
		var ok bool
		if limit, from, ok = hostLimit(); !ok {
			return nil
		}
		limit += selfRSS()
	}
	if need > limit {
		return &MemoryError{Estimate: e, Backend: backend, Need: need, Limit: limit, LimitFrom: from, Card: card}
	}
	return nil
}

// chooseDevice is gpu.Choose (a variable for the tests: a discrete
// device cannot be had on a machine without one).
var chooseDevice = gpu.Choose

// ParseBytes reads a byte count with an optional suffix K, M, G or T
// (powers of 1024; KiB, MB, GiB and the like are read the same), as
// --max-memory takes it.
func ParseBytes(s string) (int64, error) {
	t := strings.TrimSpace(s)
	u := strings.ToUpper(t)
	mult := int64(1)
	for _, suf := range []struct {
		s string
		m int64
	}{{"T", 1 << 40}, {"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}} {
		for _, form := range []string{suf.s + "IB", suf.s + "B", suf.s} {
			if strings.HasSuffix(u, form) {
				u, mult = strings.TrimSuffix(u, form), suf.m
				goto num
			}
		}
	}
	u = strings.TrimSuffix(u, "B")
num:
	f, err := strconv.ParseFloat(strings.TrimSpace(u), 64)
	if err != nil || !(f >= 0) || f*float64(mult) >= 1<<63 {
		return 0, fmt.Errorf("%q is not a number of bytes (want e.g. 512M, 8G or 1073741824)", s)
	}
	return int64(f * float64(mult)), nil
}

// hostLimit is the memory this process may still take: MemAvailable of
// /proc/meminfo, or the room left under the cgroup's limit (v2
// memory.max − memory.current, v1 memory.limit_in_bytes −
// memory.usage_in_bytes) when that is less. ok is false where neither can
// be read (not Linux).
func hostLimit() (limit int64, from string, ok bool) {
	if avail, ok2 := memAvailable(); ok2 {
		limit, from, ok = avail, "MemAvailable in /proc/meminfo", true
	}
	if room, where, ok2 := cgroupRoom(); ok2 && (!ok || room < limit) {
		limit, from, ok = room, where, true
	}
	return limit, from, ok
}

func memAvailable() (int64, bool) { return procKiB("/proc/meminfo", "MemAvailable:") }

// selfRSS is this process's resident memory (VmRSS), 0 if unknown.
func selfRSS() int64 {
	n, _ := procKiB("/proc/self/status", "VmRSS:")
	return n
}

// procKiB reads the line "key N kB" of a /proc file such as /proc/meminfo
// or /proc/self/status and returns N KiB in bytes; ok is false where the
// file, the line or its number is missing.
func procKiB(path, key string) (int64, bool) {
	data, err := inputfile.ReadFile(path, 1<<20)
	if err != nil {
		return 0, false
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) >= 2 && f[0] == key {
			kb, err := strconv.ParseInt(f[1], 10, 64)
			return kb << 10, err == nil
		}
	}
	return 0, false
}

// cgroupRoom is the room left under this process's cgroup memory limit.
func cgroupRoom() (room int64, where string, ok bool) {
	data, err := inputfile.ReadFile("/proc/self/cgroup", 1<<20)
	if err != nil {
		return 0, "", false
	}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		switch {
		case parts[0] == "0" && parts[1] == "": // v2
			for _, dir := range []string{filepath.Join("/sys/fs/cgroup", parts[2]), "/sys/fs/cgroup"} {
				if r, ok := limitRoom(dir, "memory.max", "memory.current"); ok {
					return r, "cgroup v2 " + filepath.Join(dir, "memory.max"), true
				}
			}
		case strings.Contains(","+parts[1]+",", ",memory,"): // v1
			for _, dir := range []string{filepath.Join("/sys/fs/cgroup/memory", parts[2]), "/sys/fs/cgroup/memory"} {
				if r, ok := limitRoom(dir, "memory.limit_in_bytes", "memory.usage_in_bytes"); ok {
					return r, "cgroup v1 " + filepath.Join(dir, "memory.limit_in_bytes"), true
				}
			}
		}
	}
	return 0, "", false
}

// limitRoom reads a cgroup's limit and usage files: limit − usage, ok
// false when there is no limit ("max", or v1's near-2⁶³ "unlimited").
func limitRoom(dir, limitFile, usageFile string) (int64, bool) {
	read := func(name string) (int64, bool) {
		data, err := inputfile.ReadFile(filepath.Join(dir, name), 1<<10)
		if err != nil {
			return 0, false
		}
		v, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
		return v, err == nil
	}
	lim, ok := read(limitFile)
	if !ok || lim >= 1<<62 {
		return 0, false
	}
	use, _ := read(usageFile)
	return max(lim-use, 0), true
}
