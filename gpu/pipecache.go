//go:build linux && cgo && (amd64 || arm64)

package gpu

/*
#include <stdlib.h>
#include "vkshim.h"
*/
import "C"

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"hash/fnv"
	"os"
	"path/filepath"

	"github.com/gpusim/gpusim/internal/atomicfile"
)

// The pipeline cache. A driver compiles each kernel's SPIR-V to its own
// code when the kernel is first built, which can take seconds (about 14 s
// for the ellipsoid rows of the narrowphase on an NVIDIA H200). The
// device keeps a Vulkan pipeline cache that every build goes through.
// Close writes the cache to a file per device and driver, and Open starts
// the next run's cache from that file, so that a run builds its kernels
// once per machine. The file is the driver's cache data behind a header of
// gpusim's own (pipelineCacheMagic, a CRC-32C of the data, and its
// length), so that a truncated or foreign file is not handed to the
// driver: it is ignored and replaced at Close. The driver checks its own
// header (vendor, device, its cache UUID) and ignores data of another
// driver version.
//
// GPUSIM_PIPELINE_CACHE names the folder of the files (default:
// os.UserCacheDir()/gpusim), or "off" for no file; without a cache folder
// (no HOME) there is none either. The cache never changes results: it
// holds compiled code of the same kernels.

// pipelineCacheEnv is the variable that moves or turns off the files.
const pipelineCacheEnv = "GPUSIM_PIPELINE_CACHE"

var pipelineCacheMagic = [8]byte{'g', 'p', 'u', 's', 'i', 'm', 'P', 'C'}

// pipelineCacheHeader is the magic, the CRC-32C and the length.
const pipelineCacheHeader = 8 + 4 + 8

// pipelineCachePath returns the cache file of the device described by
// info, or "" when there is none (GPUSIM_PIPELINE_CACHE=off, no cache
// folder). The name hashes what identifies the compiled code: the
// device's name, IDs, UUID and driver version.
func pipelineCachePath(info DeviceInfo) string {
	dir := os.Getenv(pipelineCacheEnv)
	switch dir {
	case "off":
		return ""
	case "":
		base, err := os.UserCacheDir()
		if err != nil {
			return ""
		}
		dir = filepath.Join(base, "gpusim")
	}
	h := fnv.New64a()
	fmt.Fprint(h, info.Name, info.VendorID, info.DeviceID, info.UUID, info.Driver)
	return filepath.Join(dir, fmt.Sprintf("pipelines-%016x.bin", h.Sum64()))
}

// readPipelineCache returns the driver's data of the cache file at path,
// or nil when it is missing or not a whole file of ours.
func readPipelineCache(path string) []byte {
	b, err := os.ReadFile(path)
	if err != nil || len(b) < pipelineCacheHeader || !bytes.Equal(b[:8], pipelineCacheMagic[:]) {
		return nil
	}
	sum := binary.LittleEndian.Uint32(b[8:])
	n := binary.LittleEndian.Uint64(b[12:])
	data := b[pipelineCacheHeader:]
	if uint64(len(data)) != n || crc32.Checksum(data, crc32.MakeTable(crc32.Castagnoli)) != sum {
		return nil
	}
	return data
}

// openPipelineCache gives the device its pipeline cache, from the file
// when it holds one (a driver that refuses the data gets an empty cache).
// Without a cache the kernels build as before.
func (d *Device) openPipelineCache() {
	d.cachePath = pipelineCachePath(d.Info)
	var data []byte
	if d.cachePath != "" {
		data = readPipelineCache(d.cachePath)
	}
	create := func(data []byte) C.int32_t {
		if len(data) == 0 {
			return C.gs_create_pipeline_cache(d.vk, nil, 0)
		}
		p := C.CBytes(data)
		defer C.free(p)
		return C.gs_create_pipeline_cache(d.vk, p, C.size_t(len(data)))
	}
	r := create(data)
	if r != 0 && len(data) > 0 {
		data = nil
		r = create(nil)
	}
	if r != 0 {
		d.cachePath = ""
		return
	}
	d.cacheLoaded = len(data)
}

// savePipelineCache writes the device's cache to its file when kernels
// were built since Open (before the device goes). A failure to write is
// not the run's: the next run builds again.
func (d *Device) savePipelineCache() {
	if d.cachePath == "" || d.kernelsBuilt == 0 {
		return
	}
	var n C.size_t
	if C.gs_pipeline_cache_data(d.vk, &n, nil) != 0 || n == 0 {
		return
	}
	buf := C.malloc(n)
	defer C.free(buf)
	if C.gs_pipeline_cache_data(d.vk, &n, buf) != 0 {
		return
	}
	data := C.GoBytes(buf, C.int(n))
	out := make([]byte, pipelineCacheHeader, pipelineCacheHeader+len(data))
	copy(out, pipelineCacheMagic[:])
	binary.LittleEndian.PutUint32(out[8:], crc32.Checksum(data, crc32.MakeTable(crc32.Castagnoli)))
	binary.LittleEndian.PutUint64(out[12:], uint64(len(data)))
	out = append(out, data...)
	if os.MkdirAll(filepath.Dir(d.cachePath), 0o755) != nil {
		return
	}
	_ = atomicfile.WriteBytes(d.cachePath, out)
}

// PipelineCache reports the device's cache file ("" when there is none)
// and how many bytes of compiled kernels Open started it from.
func (d *Device) PipelineCache() (path string, loaded int) { return d.cachePath, d.cacheLoaded }
