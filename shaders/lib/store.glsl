// store.glsl: the storage type of the device APGD solver's work vectors
// (γ_k, γ_{k+1}, y, g, N y, N γ_k, N γ_{k+1}, the best iterate; gpu/apgd.go),
// of the contacts' Jacobian blocks (jac, lib/contact_row.glsl) and of the
// warm start's kept impulses (prevGamma, collide_keys), for the kernels
// that read or write them. A kernel that includes this file is
// compiled twice by make shaders: NAME.spv as it is (STORE is double,
// ROUND(v) is v: settings.precision "double") and NAME_f32.spv with
// -DSTORE_F32 (STORE is float, ROUND(v) is v rounded to float and back:
// "mixed"). In the f32 build every value is computed in float64 from the
// float32 values read, and rounded once, to nearest, where it is stored
// (STORE(v)); a value used again after it is stored is used as stored
// (ROUND(v), ROUND3(v) for a dvec3), so each kernel computes what cpuref's
// emulation of the mixed precision (cpuref/precision.go, rounding with
// Go's float32(v)) computes. JAC_ELEM, the element type of jac in the lib
// files that declare it (double where this file is not included), is
// STORE. r, μ, the cohesion and the bodies' state stay float64. The
// includer defines nothing; a second #include adds nothing.
#ifndef STORE_GLSL
#define STORE_GLSL
#ifdef STORE_F32
#define STORE float
#define STORE_LOG2 2
#define ROUND(v) double(float(v))
#else
#define STORE double
#define STORE_LOG2 3
#define ROUND(v) (v)
#endif
#define ROUND3(v) dvec3(ROUND((v).x), ROUND((v).y), ROUND((v).z))
#define JAC_ELEM STORE
#define JAC_LOG2 STORE_LOG2
#endif
