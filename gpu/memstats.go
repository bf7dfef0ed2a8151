//go:build linux && cgo && (amd64 || arm64)

package gpu

// MemoryBytes returns the bytes of device memory the device's live buffers
// hold: the sum of their capacities (sizes rounded up to 256 bytes), the
// staging buffer included. The driver may round each allocation up further
// to its own alignment, which this does not count.
func (d *Device) MemoryBytes() int64 {
	var n int64
	for b := range d.buffers {
		n += b.capacity
	}
	return n
}

// limitedBytes is MemoryBytes less the staging buffer: what
// Options.MemoryLimit caps. The staging buffer is host memory, at most
// stagingChunk bytes, which a discrete GPU needs for any transfer.
func (d *Device) limitedBytes() int64 {
	n := d.MemoryBytes()
	if d.staging != nil {
		n -= d.staging.capacity
	}
	return n
}

// DeviceMemoryBytes returns the bytes of device memory held by the
// backend's device (see Device.MemoryBytes): body, contact, collision and
// solver buffers. Reach it with an interface{ DeviceMemoryBytes() int64 }
// assertion on the engine.Backend that New returns.
func (b *Backend) DeviceMemoryBytes() int64 { return b.d.MemoryBytes() }

// EstimateDeviceMemoryBytes is EstimateBytes for the loaded model's
// bodies and Footprint (without a run's guard) at contacts contacts: what
// DeviceMemoryBytes should come to once a step has found them, so that a
// benchmark can print the estimate beside the measurement.
func (b *Backend) EstimateDeviceMemoryBytes(contacts int) int64 {
	return EstimateBytes(b.n, contacts, b.footprint)
}
