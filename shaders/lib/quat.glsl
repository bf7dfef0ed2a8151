// quat.glsl: mgl64's Vec3.Cross and Quat.Rotate, term by term in their
// order and every operation `precise`, for free_velocity, jacobian,
// collide_narrow and the world-frame contact rows (contact_row.glsl). The
// includer defines nothing; a second #include adds nothing.
#ifndef QUAT_GLSL
#define QUAT_GLSL

// cross3 is mgl64's Vec3.Cross.
precise dvec3 cross3(dvec3 a, dvec3 b) {
	precise double x = a.y * b.z - a.z * b.y;
	precise double y = a.z * b.x - a.x * b.z;
	precise double z = a.x * b.y - a.y * b.x;
	return dvec3(x, y, z);
}

// rotate is mgl64's Quat.Rotate of v by the quaternion (w, q):
// v + c·(2w) + (2q) × c with c = q × v, added in that order.
precise dvec3 rotate(double w, dvec3 q, dvec3 v) {
	precise dvec3 c = cross3(q, v);
	precise double w2 = 2.0lf * w;
	precise dvec3 q2 = dvec3(q.x * 2.0lf, q.y * 2.0lf, q.z * 2.0lf);
	precise dvec3 a = dvec3(v.x + c.x * w2, v.y + c.y * w2, v.z + c.z * w2);
	precise dvec3 d = cross3(q2, c);
	return dvec3(a.x + d.x, a.y + d.y, a.z + d.z);
}
#endif
