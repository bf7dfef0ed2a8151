package geom

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"
)

// Rotate returns v turned by the unit quaternion q: mgl64's q.Rotate(v),
// v + 2q_w(q_v × v) + 2q_v × (q_v × v), operation for operation, so the
// same bits (the device's lib/quat.glsl computes the same). mgl64's method
// builds it from Vec3 methods, each a call that passes its vectors
// through memory; written out in one function it took half the time
// (development machine: BenchmarkBuild/n=1000 of cpuref, two Rotates per
// contact, 800 → 535 µs). For the per-contact and per-body loops of the
// CPU path and the collider.
func Rotate(q mgl64.Quat, v mgl64.Vec3) mgl64.Vec3 { return rotate(q.W, q.V[0], q.V[1], q.V[2], v) }

// RotateInverse returns v turned by q's inverse: mgl64's
// q.Conjugate().Rotate(v), the same bits (Conjugate multiplies q_v by −1,
// which is its negation but for the sign of a NaN).
func RotateInverse(q mgl64.Quat, v mgl64.Vec3) mgl64.Vec3 {
	return rotate(q.W, -q.V[0], -q.V[1], -q.V[2], v)
}

// rotate is Rotate of the quaternion (w, qx, qy, qz).
func rotate(w, qx, qy, qz float64, v mgl64.Vec3) mgl64.Vec3 {
	x, y, z := Rotate3(w, qx, qy, qz, v[0], v[1], v[2])
	return mgl64.Vec3{x, y, z}
}

// Rotate3 is Rotate of the vector (vx, vy, vz) by the quaternion (w, qx,
// qy, qz), in scalars: for loops that hold their vectors as components,
// where even Rotate's one Vec3 in and out goes through memory.
func Rotate3(w, qx, qy, qz, vx, vy, vz float64) (x, y, z float64) {
	cx := qy*vz - qz*vy
	cy := qz*vx - qx*vz
	cz := qx*vy - qy*vx
	w2 := 2 * w
	ax, ay, az := vx+cx*w2, vy+cy*w2, vz+cz*w2
	tx, ty, tz := qx*2, qy*2, qz*2
	return ax + (ty*cz - tz*cy), ay + (tz*cx - tx*cz), az + (tx*cy - ty*cx)
}

// QuatMul returns the product (aw, a)(bw, b) of two quaternions in
// components: mgl64's Quat.Mul, w = aw·bw − a·b and v = (a × b + b·aw) +
// a·bw, operation for operation, so the same bits (TestQuatMulIsMgl64).
func QuatMul(aw, ax, ay, az, bw, bx, by, bz float64) (w, x, y, z float64) {
	w = aw*bw - (ax*bx + ay*by + az*bz)
	x = ay*bz - az*by + bx*aw + ax*bw
	y = az*bx - ax*bz + by*aw + ay*bw
	z = ax*by - ay*bx + bz*aw + az*bw
	return w, x, y, z
}

// QuatNormalize is mgl64's Quat.Normalize in components: the quaternion
// itself when its length is within mgl64.Epsilon (relative) of 1, the
// identity when it is 0, else each component times 1/length (the largest
// float64 for an infinite length), the same bits.
func QuatNormalize(w, x, y, z float64) (float64, float64, float64, float64) {
	l := math.Sqrt(w*w + x*x + y*y + z*z)
	switch {
	case mgl64.FloatEqual(1, l):
		return w, x, y, z
	case l == 0:
		return 1, 0, 0, 0
	case math.IsInf(l, 1):
		l = math.MaxFloat64
	}
	return w * 1 / l, x * (1 / l), y * (1 / l), z * (1 / l)
}
