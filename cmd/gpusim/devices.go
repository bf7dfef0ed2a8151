package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/gpusim/gpusim/gpu"
)

// cmdDevices lists the Vulkan devices and what gpusim cares about.
func cmdDevices(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("gpusim devices", stderr, "Usage: gpusim devices\n\nLists the Vulkan devices; --device takes the index or a name substring.\n")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Errorf("devices takes no arguments, got %q", fs.Args())}
	}
	infos, err := gpu.Devices()
	if err != nil {
		return err
	}
	for i, d := range infos {
		if i > 0 {
			fmt.Fprintln(stdout)
		}
		writeDevice(stdout, d)
	}
	// A scheduler's GPU assignment restricts the automatic choice.
	vis, note, err := gpu.Visible(infos)
	if err != nil {
		return err
	}
	if note != "" {
		var idx []string
		for _, d := range vis {
			idx = append(idx, fmt.Sprint(d.Index))
		}
		fmt.Fprintf(stdout, "\n%s\n(devices the automatic choice may take: %s)\n", note, strings.Join(idx, ", "))
	}
	return nil
}

func writeDevice(w io.Writer, d gpu.DeviceInfo) {
	yes := func(b bool) string {
		if b {
			return "yes"
		}
		return "no"
	}
	fmt.Fprintf(w, "%d  %s\n", d.Index, d.Name)
	fmt.Fprintf(w, "   type              %s, Vulkan %s, vendor %#04x, device %#04x\n", d.Type, d.API, d.VendorID, d.DeviceID)
	if u := d.UUIDString(); u != "" || d.PCI != "" {
		pci := d.PCI
		if pci == "" {
			pci = "unknown"
		}
		fmt.Fprintf(w, "   uuid              %s; PCI %s\n", u, pci)
	}
	var heaps []string
	for i, h := range d.Heaps {
		var flags []string
		if h.DeviceLocal {
			flags = append(flags, "device-local")
		}
		if h.HostVisible {
			flags = append(flags, "host-visible")
		}
		s := fmt.Sprintf("heap %d: %s", i, bytesString(h.Size))
		if len(flags) > 0 {
			s += " (" + strings.Join(flags, ", ") + ")"
		}
		heaps = append(heaps, s)
	}
	mem := "separate (staging copies)"
	if d.UnifiedMemory {
		mem = "unified (buffers mapped)"
	}
	fmt.Fprintf(w, "   memory            %s; %s\n", strings.Join(heaps, "; "), mem)
	fmt.Fprintf(w, "   float64           %s (int64 %s, atomic add float32 %s, float64 %s)\n",
		yes(d.Float64), yes(d.Int64), yes(d.Float32AtomicAdd), yes(d.Float64AtomicAdd))
	sub := "unknown"
	if d.SubgroupSize > 0 {
		sub = fmt.Sprint(d.SubgroupSize)
	}
	fmt.Fprintf(w, "   subgroup size     %s\n", sub)
	fmt.Fprintf(w, "   workgroup         max size %d×%d×%d, %d invocations, %s shared\n",
		d.MaxWorkgroupSize[0], d.MaxWorkgroupSize[1], d.MaxWorkgroupSize[2], d.MaxWorkgroupInvocations, bytesString(uint64(d.MaxSharedMemory)))
	fmt.Fprintf(w, "   workgroup count   max %d×%d×%d\n", d.MaxWorkgroupCount[0], d.MaxWorkgroupCount[1], d.MaxWorkgroupCount[2])
	fmt.Fprintf(w, "   storage buffer    max range %s; push constants %d B\n", bytesString(uint64(d.MaxStorageBufferRange)), d.MaxPushConstants)
	byRange, byMemory := gpu.MostBodies(d)
	fmt.Fprintf(w, "   largest bed       %s spheres by the binding range, %s by memory (gpu.MostBodies)\n", count(byRange), count(byMemory))
	ts := "no"
	if d.Timestamps {
		ts = fmt.Sprintf("yes (tick %g ns)", d.TimestampPeriod)
	}
	fmt.Fprintf(w, "   timestamps        %s\n", ts)
}

// bytesString formats a size in binary units.
func bytesString(n uint64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	v, u := float64(n), 0
	for v >= unit && u < 4 {
		v /= unit
		u++
	}
	return fmt.Sprintf("%.4g %ciB", v, "KMGT"[u-1])
}

// count formats a body count, or "no limit" for −1 (a limit the device
// does not state).
func count(n int64) string {
	if n < 0 {
		return "no limit"
	}
	return fmt.Sprint(n)
}
