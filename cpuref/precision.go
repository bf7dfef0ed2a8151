package cpuref

// settings.precision "mixed" (engine.PrecisionMixed) on the CPU path: the
// device stores the contacts' Jacobian blocks and APGD's work vectors as
// float32 and computes in float64 (shaders/lib/store.glsl); this backend
// keeps them in float64 but rounds each value to float32 where the device
// stores it (Build's Jacobian, before r is formed from it; SolveAPGD's
// vectors), and uses it as rounded from then on. Every operation is
// otherwise the same, so the CPU path computes the device's
// mixed-precision values bit for bit (gpu's TestDeviceAPGDMixed,
// TestSceneStepMixed): it is their oracle, and saves no memory or time
// itself.

// f32 is v rounded to float32, to nearest (Go's conversion), as the
// device stores it.
func f32(v float64) float64 { return float64(float32(v)) }

// roundF32 rounds every element of v to float32.
func roundF32(v []float64) {
	for i, x := range v {
		v[i] = f32(x)
	}
}
