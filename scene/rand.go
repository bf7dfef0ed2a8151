package scene

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"
)

// SplitMix64 is the splitmix64 generator of bench/settle.md, the random
// stream of every generator. State is the seed before the first draw.
type SplitMix64 struct {
	State uint64
}

// Next advances the state and returns the next 64 random bits:
//
//	s += 0x9E3779B97F4A7C15; z = s
//	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
//	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
//	z ^= z >> 31
func (r *SplitMix64) Next() uint64 {
	r.State += 0x9E3779B97F4A7C15
	z := r.State
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

// Float64 returns u = (Next() >> 11)·2⁻⁵³, uniform on [0, 1).
func (r *SplitMix64) Float64() float64 {
	return float64(r.Next()>>11) * 0x1p-53
}

// normalTries bounds the resampling of a truncated normal distribution.
const normalTries = 1000

// sample draws a size: the fixed value without drawing, else from its
// distribution. A truncated normal draws pairs (u₁, u₂), z = √(−2 ln(1−u₁))
// cos(2πu₂) (Box–Muller, one value per pair), until mean + std·z lies in
// [Min, Max]; ok is false after normalTries pairs.
func (s Size) sample(r *SplitMix64) (v float64, ok bool) {
	switch s.Dist {
	case "":
		return s.Value, true
	case "uniform":
		return s.Min + r.Float64()*(s.Max-s.Min), true
	}
	for range normalTries {
		u1, u2 := r.Float64(), r.Float64()
		v := s.Mean + s.Std*math.Sqrt(-2*math.Log(1-u1))*math.Cos(2*math.Pi*u2)
		if v >= s.Min && v <= s.Max {
			return v, true
		}
	}
	return 0, false
}

// upper is the largest value the size can take.
func (s Size) upper() float64 {
	if s.Dist == "" {
		return s.Value
	}
	return s.Max
}

// randomRotation draws a uniformly distributed unit quaternion from three
// uniforms (Shoemake, Graphics Gems III):
// (x, y, z, w) = (√(1−u₁) sin 2πu₂, √(1−u₁) cos 2πu₂, √u₁ sin 2πu₃, √u₁ cos 2πu₃).
func randomRotation(r *SplitMix64) mgl64.Quat {
	u1, u2, u3 := r.Float64(), r.Float64(), r.Float64()
	a, b := math.Sqrt(1-u1), math.Sqrt(u1)
	q := mgl64.Quat{
		W: b * math.Cos(2*math.Pi*u3),
		V: mgl64.Vec3{a * math.Sin(2*math.Pi*u2), a * math.Cos(2*math.Pi*u2), b * math.Sin(2*math.Pi*u3)},
	}
	return scaleQuat(q, 1/q.Len())
}

func scaleQuat(q mgl64.Quat, s float64) mgl64.Quat {
	return mgl64.Quat{W: q.W * s, V: q.V.Mul(s)}
}

// lower is the smallest value the size can take.
func (s Size) lower() float64 {
	if s.Dist == "" {
		return s.Value
	}
	return s.Min
}
