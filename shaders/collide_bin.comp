#version 450
// collide_bin: the count and scatter stages of the broadphase's counting
// sort of (body, bin) entries by hash slot (cpuref's Grid.count and
// Grid.scatter), and the list of big bodies and planes.
//
// Loop, for each body i with bin range (l, n) from collide_aabb:
//
//	mode 0: if class_i != binned { special[specialOff[i]] = i; continue }
//	        for each bin c of the range: atomicAdd(slots[slot(c)], 1)
//	mode 1: at := 0
//	        for each bin c of the range, z then y then x slowest first, x fastest:
//	                s := slot(c); e := slots[s] + atomicAdd(slots[S+1+s], 1)
//	                if e < cap { entries[e] = i<<6 | at }; at++
//
// slot(c) = brick<<6 | c_x&3 | (c_y&3)<<2 | (c_z&3)<<4 with brick =
// ((c_x>>2)·73856093 ⊕ (c_y>>2)·19349663 ⊕ (c_z>>2)·83492791)·0x9e3779b9 >>
// (32 − brickBits), all uint32: cpuref's bricks of 4×4×4 bins with a 32-bit
// version of its hash. Which bins share a slot only changes the time the
// pair stage takes, never its result, which compares bin coordinates. The
// order of entries within a slot depends on the atomics; the pair stage
// does not depend on it.
// Bindings (set 0): 0 cell (4 int32 per body: l, n_0 | n_1<<8 | n_2<<16 |
// class<<24), 1 specialOff (uint32, scanned), both read; 2 special (uint32
// body indices, written in mode 0), 3 slots (uint32: S+1 counts, scanned
// to starts between the modes, then S cursors), 4 entries (uint32, cap,
// written in mode 1).
// Arguments: uint n, uint S (slots), uint brickBits, uint mode, uint
// cap (20 bytes).
// Dispatch: (min(⌈n/64⌉, max group count), 1, 1) workgroups of 64; a
// grid-stride loop covers any n.
layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) readonly buffer Cell { int cell[]; };
layout(std430, set = 0, binding = 1) readonly buffer SpecialOff { uint specialOff[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Special { uint special[]; };
layout(std430, set = 0, binding = 3) buffer Slots { uint slots[]; };
layout(std430, set = 0, binding = 4) writeonly buffer Entries { uint entries[]; };

layout(std430, binding = 31) restrict readonly buffer Push {
	uint n;
	uint S;
	uint brickBits;
	uint mode;
	uint cap;
} p;

uint slotOf(int x, int y, int z) {
	uint h = uint(x >> 2) * 73856093u ^ uint(y >> 2) * 19349663u ^ uint(z >> 2) * 83492791u;
	uint brick = (h * 0x9e3779b9u) >> (32u - p.brickBits);
	return brick << 6 | uint(x & 3) | uint(y & 3) << 2 | uint(z & 3) << 4;
}

void main() {
	uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
	for (uint i = gl_GlobalInvocationID.x; i < p.n; i += stride) {
		int c = cell[4u * i + 3u];
		if ((c >> 24) != 0) {
			if (p.mode == 0u) {
				special[specialOff[i]] = i;
			}
			continue;
		}
		int l0 = cell[4u * i], l1 = cell[4u * i + 1u], l2 = cell[4u * i + 2u];
		int n0 = c & 255, n1 = (c >> 8) & 255, n2 = (c >> 16) & 255;
		uint at = 0u;
		for (int z = 0; z < n2; z++) {
			for (int y = 0; y < n1; y++) {
				for (int x = 0; x < n0; x++) {
					uint s = slotOf(l0 + x, l1 + y, l2 + z);
					if (p.mode == 0u) {
						atomicAdd(slots[s], 1u);
					} else {
						uint e = slots[s] + atomicAdd(slots[p.S + 1u + s], 1u);
						if (e < p.cap) {
							entries[e] = i << 6 | at;
						}
					}
					at++;
				}
			}
		}
	}
}
