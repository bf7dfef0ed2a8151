// jac.glsl: the contacts' Jacobian blocks (lib/contact_row.glsl): contact
// k's n, u, s_A and s_B at jac[12k:12k+12], world frame, declared at the
// includer's JAC_BINDING of set 0 (defined before the #include) as an
// array bound in windows (lib/window.glsl), so that it may pass the
// device's maxStorageBufferRange. Its elements are JAC_ELEM (lib/store.glsl
// sets STORE; double where store.glsl is not included).
//
// With the specialization constant JAC_ARMS (constant_id 29,
// shaders.JacArmsSpecID) true, for a model whose contact points lie on
// the normals through the bodies' centres (engine.Model.ArmsAlongNormal:
// spheres, and bodies that never turn), contact k's block is n, u, ρ_A
// and ρ_B at jac[8k:8k+8], and each arm is s = ρ n, formed where it is
// read: jacArm(ρ, n), each component one product, as cpuref's Build
// forms the s it holds.
// Read with
//
//	jacVec(k, JAC_N | JAC_U | JAC_SA | JAC_SB)   a dvec3 of contact k
//
// and, with JAC_WRITE defined (jacobian, the one kernel that writes
// them), written with jacStore(k, n, u, s_A, s_B, ρ_A, ρ_B), each
// component stored as STORE(v): s_A and s_B with JAC_ARMS false, ρ_A and
// ρ_B (jacRho) with it true. A second #include adds nothing.
#ifndef JAC_GLSL
#define JAC_GLSL
#ifndef JAC_BINDING
#error define JAC_BINDING before including jac.glsl
#endif
#include "window.glsl"
#ifndef JAC_ELEM
#define JAC_ELEM double
#define JAC_LOG2 3
#endif
#define JAC_N 0u
#define JAC_U 3u
#define JAC_SA 6u
#define JAC_SB 9u
layout(constant_id = 29) const bool JAC_ARMS = false;

// jacArm returns the arm s = ρ n.
precise dvec3 jacArm(double rho, dvec3 n) {
	return dvec3(rho * n.x, rho * n.y, rho * n.z);
}

// jacRho returns ρ = s·n, summed left to right (cpuref's armAlong).
precise double jacRho(dvec3 s, dvec3 n) {
	return s.x * n.x + s.y * n.y + s.z * n.z;
}
#ifdef JAC_WRITE
WINDOWED_WRITEONLY(JAC_BINDING, JAC_ELEM, JAC_LOG2, jac)

void jacStore(uint k, dvec3 n, dvec3 u, dvec3 sa, dvec3 sb, double ra, double rb) {
	if (JAC_ARMS) {
		uint j = 8u * k;
		for (uint c = 0u; c < 3u; c++) {
			jac_set(j + c, JAC_ELEM(n[c]));
			jac_set(j + 3u + c, JAC_ELEM(u[c]));
		}
		jac_set(j + 6u, JAC_ELEM(ra));
		jac_set(j + 7u, JAC_ELEM(rb));
		return;
	}
	uint j = 12u * k;
	for (uint c = 0u; c < 3u; c++) {
		jac_set(j + c, JAC_ELEM(n[c]));
		jac_set(j + 3u + c, JAC_ELEM(u[c]));
		jac_set(j + 6u + c, JAC_ELEM(sa[c]));
		jac_set(j + 9u + c, JAC_ELEM(sb[c]));
	}
}
#else
WINDOWED_READONLY(JAC_BINDING, JAC_ELEM, JAC_LOG2, jac)

dvec3 jacVec(uint k, uint part) {
	if (JAC_ARMS) {
		uint j = 8u * k;
		if (part < JAC_SA) {
			return dvec3(jac_at(j + part), jac_at(j + part + 1u), jac_at(j + part + 2u));
		}
		double rho = jac_at(j + (part == JAC_SA ? 6u : 7u));
		return jacArm(rho, dvec3(jac_at(j), jac_at(j + 1u), jac_at(j + 2u)));
	}
	uint j = 12u * k + part;
	return dvec3(jac_at(j), jac_at(j + 1u), jac_at(j + 2u));
}
#endif
#endif
