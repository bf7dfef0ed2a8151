//go:build linux && cgo && (amd64 || arm64)

package gpu

import "github.com/gpusim/gpusim/engine"

// The engine's interfaces the backend implements: a capability dropped by a
// change of signature fails here instead of silently at run time.
var (
	_ engine.Backend          = (*Backend)(nil)
	_ engine.StateSetter      = (*Backend)(nil)
	_ engine.WarmStartSaver   = (*Backend)(nil)
	_ engine.Submitter        = (*Backend)(nil)
	_ engine.Enveloper        = (*Backend)(nil)
	_ engine.Noter            = (*Backend)(nil)
	_ engine.DeviceIdentifier = (*Backend)(nil)
	_ engine.DeviceMemory     = (*Backend)(nil)

	_ engine.VecReuser    = (*LinAlg)(nil)
	_ engine.DeviceAPGD   = (*problem)(nil)
	_ engine.DeviceJacobi = (*problem)(nil)
	_ engine.DeviceSPG    = (*problem)(nil)
	_ engine.RollingRows  = (*problem)(nil)
)

// DeviceIdentity names the backend's device: the index, name, UUID and
// PCI address of DeviceInfo.
func (b *Backend) DeviceIdentity() engine.DeviceIdentity {
	d := b.d.Info
	return engine.DeviceIdentity{Index: d.Index, Name: d.Name, UUID: d.UUIDString(), PCI: d.PCI}
}
