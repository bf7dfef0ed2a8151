// broadphase.glsl: the pair tests of collision's broadphase, shared by
// collide_pairs (each body's partners) and collide_big (the partners of
// big bodies and planes, a workgroup each): overlap, reach, excluded and
// specialHit, with the buffers they read at bindings 0–4 of set 0 (0 box:
// 8 float64 per body, min, max, margin, 0, and for a plane its outward
// normal in place of min; 1 pos: 3 per body; 2 cell: 4 int32 per body,
// the class in the last one's top byte: 0 binned, 1 big, 2 plane; 3
// fixedBody; 4 special: the big bodies and planes) and at
// BROADPHASE_EXCL_BINDING and the next (exclOff: n+1 uint32, excl: body
// i's excluded partners j > i, bodies jointed without "collide"), which
// the includer defines. Every operation is `precise`.
layout(std430, set = 0, binding = 0) readonly buffer Box { double box[]; };
layout(std430, set = 0, binding = 1) readonly buffer Pos { double pos[]; };
layout(std430, set = 0, binding = 2) readonly buffer Cell { int cell[]; };
layout(std430, set = 0, binding = 3) readonly buffer FixedBody { uint fixedBody[]; };
layout(std430, set = 0, binding = 4) readonly buffer Special { uint special[]; };
layout(std430, set = 0, binding = BROADPHASE_EXCL_BINDING) readonly buffer ExclOff { uint exclOff[]; };
layout(std430, set = 0, binding = BROADPHASE_EXCL_BINDING + 1) readonly buffer Excl { uint excl[]; };

bool overlap(uint a, uint b) {
	return box[8u * a] <= box[8u * b + 3u] && box[8u * b] <= box[8u * a + 3u] &&
		box[8u * a + 1u] <= box[8u * b + 4u] && box[8u * b + 1u] <= box[8u * a + 4u] &&
		box[8u * a + 2u] <= box[8u * b + 5u] && box[8u * b + 2u] <= box[8u * a + 5u];
}

// reach reports whether box b reaches the half-space of plane pl.
bool reach(uint b, uint pl) {
	precise double d = 0.0lf;
	for (uint k = 0u; k < 3u; k++) {
		double nk = box[8u * pl + k];
		double c = nk > 0.0lf ? box[8u * b + k] : box[8u * b + 3u + k];
		d = d + nk * (c - pos[3u * pl + k]);
	}
	return d <= 0.0lf;
}

// excluded reports a pair (i < j) that never collides: bodies joined by
// a joint without "collide" (collide.Collider's ExcludedPairs).
bool excluded(uint i, uint j) {
	uint end = exclOff[i + 1u];
	for (uint e = exclOff[i]; e < end; e++) {
		if (excl[e] == j) {
			return true;
		}
	}
	return false;
}

// specialHit reports whether special body i (class cls: 1 big, 2 plane)
// pairs with body j > i: not both fixed, and a plane reached by j's box,
// or j a plane reached by i's box, or the boxes overlapping; and not
// excluded.
bool specialHit(uint i, int cls, uint j) {
	if (fixedBody[i] != 0u && fixedBody[j] != 0u) {
		return false;
	}
	int cj = cell[4u * j + 3u] >> 24;
	bool hit;
	if (cls == 2) {
		hit = cj != 2 && reach(j, i);
	} else {
		hit = cj == 2 ? reach(i, j) : overlap(i, j);
	}
	return hit && !excluded(i, j);
}
