//go:build linux && cgo && (amd64 || arm64)

package gpu

import (
	"fmt"

	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/shaders"
)

// diagCheck is the block diagonal's check on the device (diag_check.comp):
// its kernel and the 4-byte buffer of the first bad row, made on first
// use (a backend whose solver never checks the diagonal builds neither).
type diagCheck struct {
	k     *Kernel
	first *Buffer
}

// release frees the check's buffer.
func (c *diagCheck) release() {
	if c.first != nil {
		c.first.Release()
		c.first = nil
	}
}

// CheckBlockDiag implements engine.DeviceBlockDiag: BlockDiag into diag,
// then diag_check, which finds the first row that is not positive and
// finite and, unless inv is nil, sets inv = 1/diag; it reads back that
// row's index (4 bytes), and its value only when there is one.
func (p *problem) CheckBlockDiag(diag, inv engine.Vec) (int, float64, error) {
	p.BlockDiag(diag)
	return p.checkDiag(diag, inv)
}

// checkDiag is CheckBlockDiag after BlockDiag: the check of diag as it is.
func (p *problem) checkDiag(diag, inv engine.Vec) (int, float64, error) {
	b := p.b
	d := p.contactVec("CheckBlockDiag", diag)
	invBuf, withInv := d.buf, uint32(0)
	if inv != nil {
		iv := p.contactVec("CheckBlockDiag", inv)
		if iv.n != d.n {
			panic(fmt.Sprintf("gpu: CheckBlockDiag: inv has length %d, diag %d", iv.n, d.n))
		}
		invBuf, withInv = iv.buf, 1
	}
	if d.n == 0 {
		return -1, 0, p.Err()
	}
	c := &b.dchk
	if c.k == nil {
		if err := kernels(b.d, kernelSpec{&c.k, shaders.DiagCheck}); err != nil {
			return -1, 0, fmt.Errorf("gpu: check of the block diagonal: %w", err)
		}
	}
	if c.first == nil {
		var err error
		if c.first, err = b.d.NewBuffer(4); err != nil {
			return -1, 0, fmt.Errorf("gpu: check of the block diagonal: %w", err)
		}
	}
	n := uint32(d.n)
	p.record(c.k, [3]uint32{1, 1, 1}, shaders.DiagCheckArgs{N: n, Mode: 0, WithInv: withInv}, c.first, d.buf, invBuf)
	p.record(c.k, p.groups(c.k, d.n), shaders.DiagCheckArgs{N: n, Mode: 1, WithInv: withInv}, c.first, d.buf, invBuf)
	if err := b.sync(); err != nil {
		return -1, 0, err
	}
	var first [1]uint32
	if err := c.first.ReadUint32(first[:], 0); err != nil {
		return -1, 0, err
	}
	if first[0] == ^uint32(0) {
		return -1, 0, nil
	}
	var v [1]float64
	if err := d.buf.ReadFloat64(v[:], int(first[0])); err != nil {
		return -1, 0, err
	}
	return int(first[0]), v[0], nil
}

var _ engine.DeviceBlockDiag = (*problem)(nil)
