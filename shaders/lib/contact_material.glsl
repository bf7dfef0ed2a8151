// contact_material.glsl: MU(k) and COH(k), contact k's friction coefficient
// μ and cohesion impulse bound c, read from the includer's buffers mu and
// coh (double mu[], coh[]), and ROOM(buf, k), whether buffer buf (such an
// array) has a place for contact k.
//
// Such a buffer holds one value per contact, or, where every material of
// the model has the same friction and the same cohesion (gpu.Backend's
// oneMaterial), a single value that every contact shares: the backend then
// binds 8 bytes, and the index is clamped to the array's length. The clamp
// changes nothing for a buffer of one value per contact (k < nc ≤ its
// length), and a buffer of one value serves contact 0 either way. A
// kernel that writes such a buffer writes contact k's value only where
// ROOM(buf, k): in a shared buffer only contact 0 writes, the value every
// contact has.
#define MU(k) mu[min((k), uint(mu.length()) - 1u)]
#define COH(k) coh[min((k), uint(coh.length()) - 1u)]
#define ROOM(buf, k) ((k) < uint(buf.length()))
