// Package engine holds gpusim's model (bodies, shapes, materials, contacts),
// the time stepper and the cone-complementarity solvers.
//
// The method is the DVI / cone-complementarity time step of Anitescu and
// Tasora as described in Mazhar et al., "Using Nesterov's method to
// accelerate multibody dynamics with friction and contact" (ACM TOG 2015),
// referred to below as "the APGD paper":
//
//  1. collision detection gives contacts with normals n (from body A to
//     body B), contact points and signed gaps Φ (m, negative = penetration);
//  2. each contact i contributes a Jacobian block D_i (eq. 4);
//  3. the impulses γ (N·s) solve min ½γᵀNγ + rᵀγ with γ_i in its friction
//     cone, N = Dᵀ M⁻¹ D never assembled (products are Dᵀ(M⁻¹(Dγ)));
//  4. velocities v = M⁻¹(k + Dγ), k = Mv + hf, then positions (eqs. 5–8).
//
// The engine is written once against the Backend interface (collision,
// Jacobian, matrix-free products, integration) and the LinAlg interface
// (vector algebra on backend-resident vectors). Package cpuref implements
// both in pure Go; package gpu implements them with Vulkan compute shaders.
// engine imports neither.
//
// Units are SI throughout: m, kg, s, N, N·s for impulses, rad/s.
package engine
