// contact_row.glsl: row, one row of a contact's Jacobian block transposed,
// D_k,dᵀ, applied to the velocities of its two bodies:
//
//	row(d, ρ_A, ρ_B, Δv, ω̄_A, ω̄_B) = d·Δv + ρ_A·ω̄_A + ρ_B·ω̄_B
//
// with Δv = v_B − v_A (linear, world frame) and ω̄ the angular velocities
// in the body frames: nine products summed left to right, every operation
// `precise` (cpuref's contactVelocity and Build). For jacobian (r = Dᵀ
// vfree + b), contact_velocity.glsl (Dᵀ dv) and sweep. The includer
// defines nothing.
precise double row(dvec3 d, dvec3 ra, dvec3 rb, dvec3 dl, dvec3 wa, dvec3 wb) {
	return d.x * dl.x + d.y * dl.y + d.z * dl.z +
		ra.x * wa.x + ra.y * wa.y + ra.z * wa.z +
		rb.x * wb.x + rb.y * wb.y + rb.z * wb.z;
}
