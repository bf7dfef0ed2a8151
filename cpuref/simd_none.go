//go:build !goexperiment.simd || !amd64 || go1.27

package cpuref

// haveSIMD: this build has no vector loops (simd.go).
const haveSIMD = false

func projectCones8(_, _, _, _ []float64, lo, _ int) int { return lo }

func dot6Lanes(_ *[6][lanes]float64, _, _, _, _, _, _, _ []float64) int { return 0 }
func laneTree8(_ *[lanes]float64) int                                   { return lanes / 2 }

func (b *Backend) bodyImpulses4(_, _ []float64, _, _ int) {
	panic("cpuref: no vector loops in this build")
}

func trial8(_ *apgdWork, _, _ []float64, _ bool, lo, _ int) int { return lo }

func residual8(_ *apgdWork, _, _, _ []float64, k0, _ int) int { return k0 }
