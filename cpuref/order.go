package cpuref

// The order of the CPU path's sums (Dot, and APGD's six fused dot
// products) is the Vulkan backend's (gpu's dot.comp, apgd_dot.comp,
// sum.comp and apgd_sum.comp, lib/reduce.glsl's tree), so that the two
// paths reach the same bits over whole runs, not only kernel by kernel:
//
//	within chunk c of 2048 elements (the fixed chunk), lane l of 256 adds
//	its terms lo+l, lo+l+256, … to 0 in that order; a tree adds the lanes'
//	sums: for h := 128; h > 0; h /= 2 { s[l] = s[l] + s[l+h] for l < h };
//	then lane l adds the chunk sums l, l+256, … to 0, and the same tree
//	adds those.
//
// The partition never depends on the number of workers, so every sum is
// the same bits on any worker count.
const lanes = 256

// laneTree adds the lanes' sums in the device's tree order.
func laneTree(s *[lanes]float64) float64 {
	h := lanes / 2
	if useSIMD {
		h = laneTree8(s)
	}
	for ; h > 0; h /= 2 {
		for l := 0; l < h; l++ {
			s[l] = s[l] + s[l+h]
		}
	}
	return s[0]
}

// sumChunks adds the chunks' sums part as the device's second pass does.
func sumChunks(part []float64) float64 {
	var s [lanes]float64
	for l := range min(lanes, len(part)) {
		a := 0.0
		for i := l; i < len(part); i += lanes {
			a += part[i]
		}
		s[l] = a
	}
	return laneTree(&s)
}
