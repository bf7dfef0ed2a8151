package geom

import "github.com/go-gl/mathgl/mgl64"

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
