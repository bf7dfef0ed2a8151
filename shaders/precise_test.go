package shaders

import (
	"encoding/binary"
	"testing"
)

// SPIR-V opcodes and enumerants checked by TestPrecise (SPIR-V
// specification, section 3; GLSL.std.450 extended instructions).
const (
	opExtInst           = 12
	opDecorate          = 71
	opFAdd              = 129
	opFSub              = 131
	opFMul              = 133
	opFDiv              = 136
	opVectorTimesScalar = 142
	opMatrixTimesScalar = 143
	opVectorTimesMatrix = 144
	opMatrixTimesVector = 145
	opMatrixTimesMatrix = 146
	opDot               = 148
	decNoContraction    = 42
	glslFma             = 50
)

// TestPrecise checks what the kernels' headers promise: every
// floating-point addition, subtraction, multiplication and division (and
// every vector or matrix product) carries the NoContraction decoration that
// GLSL's `precise` gives, so no driver may fuse a product into a
// multiply-add, and no kernel calls fma. This is what lets the kernels
// match cpuref bit for bit (Go never fuses on amd64).
func TestPrecise(t *testing.T) {
	for _, m := range All() {
		code := []byte(m.SPIRV)
		words := make([]uint32, len(code)/4)
		for i := range words {
			words[i] = binary.LittleEndian.Uint32(code[4*i:])
		}
		noContraction := map[uint32]bool{}
		var ops []uint32 // result ids of arithmetic instructions
		opName := map[uint32]uint16{}
		for pc := 5; pc < len(words); {
			wc := int(words[pc] >> 16)
			op := uint16(words[pc])
			if wc == 0 || pc+wc > len(words) {
				t.Fatalf("%s: bad instruction length at word %d", m.Name, pc)
			}
			args := words[pc+1 : pc+wc]
			pc += wc
			switch op {
			case opDecorate:
				if len(args) >= 2 && args[1] == decNoContraction {
					noContraction[args[0]] = true
				}
			case opFAdd, opFSub, opFMul, opFDiv, opVectorTimesScalar, opMatrixTimesScalar,
				opVectorTimesMatrix, opMatrixTimesVector, opMatrixTimesMatrix, opDot:
				ops = append(ops, args[1])
				opName[args[1]] = op
			case opExtInst:
				if len(args) >= 4 && args[3] == glslFma {
					t.Errorf("%s: %%%d is an fma", m.Name, args[1])
				}
			}
		}
		for _, id := range ops {
			if !noContraction[id] {
				t.Errorf("%s: %%%d (opcode %d) is not NoContraction: mark it precise", m.Name, id, opName[id])
			}
		}
	}
}
