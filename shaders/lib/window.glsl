// window.glsl: an array bound in windows, for a buffer that may be larger
// than the device's maxStorageBufferRange (the Jacobian's rows, 96 B per
// contact, pass lavapipe's 128 MiB at 1.4 million contacts). The buffer
// is bound four times, from bytes 0, W, 2W and 3W, each binding at most W
// bytes long, with W = 2^WINDOW_LOG2 bytes: the largest power of two
// within the device's range, at most 2^31 (gpu/window.go sets the
// specialization constant). Element i of an array of elements of 2^L
// bytes is element i mod 2^(WINDOW_LOG2−L) of window i >> (WINDOW_LOG2−L),
// so the array may take 4W bytes. Windows past the buffer's end are bound
// to its start and never read.
//
// A kernel is also specialised by the number of windows its buffers
// reach, WINDOWS_USED (1 to 4, gpu/window_bind.go): with one, NAME_at
// and NAME_set index window 0 directly and the driver drops the other
// branches, so a buffer within the device's range costs what a plain
// array does.
//
// Window w of binding B is at binding WINDOW_BINDING(B, w) (32 + 4B + w,
// shaders/internal/spirv's WindowBinding); window 0 is B itself. The
// includer declares an array NAME at binding B with
//
//	WINDOWED_READONLY(B, T, L, NAME)   reads:  T NAME_at(uint i)
//	WINDOWED_WRITEONLY(B, T, L, NAME)  writes: NAME_set(uint i, T v)
//	WINDOWED(B, T, L, NAME)            both
//
// (T the element type, 2^L its bytes), and the device binds the buffer's
// windows where the kernel's reflection lists them (shaders.Binding's
// Windows). A second #include adds nothing.
#ifndef WINDOW_GLSL
#define WINDOW_GLSL
layout(constant_id = 31) const uint WINDOW_LOG2 = 31u;
layout(constant_id = 30) const uint WINDOWS_USED = 4u;
#define WINDOW_BINDING(B, W) (32 + 4 * (B) + (W))
#define WINDOW_DECLARE(B, Q, T, NAME) \
	layout(std430, set = 0, binding = B) Q buffer NAME##_W0 { T NAME##_0[]; }; \
	layout(std430, set = 0, binding = WINDOW_BINDING(B, 1)) Q buffer NAME##_W1 { T NAME##_1[]; }; \
	layout(std430, set = 0, binding = WINDOW_BINDING(B, 2)) Q buffer NAME##_W2 { T NAME##_2[]; }; \
	layout(std430, set = 0, binding = WINDOW_BINDING(B, 3)) Q buffer NAME##_W3 { T NAME##_3[]; };
#define WINDOW_GET(T, L, NAME) \
	T NAME##_at(uint i) { \
		if (WINDOWS_USED == 1u) { return NAME##_0[i]; } \
		uint s = WINDOW_LOG2 - uint(L); \
		uint w = i >> s; \
		uint l = i & ((1u << s) - 1u); \
		if (w == 0u) { return NAME##_0[l]; } \
		if (w == 1u) { return NAME##_1[l]; } \
		if (w == 2u) { return NAME##_2[l]; } \
		return NAME##_3[l]; \
	}
#define WINDOW_SET(T, L, NAME) \
	void NAME##_set(uint i, T v) { \
		if (WINDOWS_USED == 1u) { NAME##_0[i] = v; return; } \
		uint s = WINDOW_LOG2 - uint(L); \
		uint w = i >> s; \
		uint l = i & ((1u << s) - 1u); \
		if (w == 0u) { NAME##_0[l] = v; } \
		else if (w == 1u) { NAME##_1[l] = v; } \
		else if (w == 2u) { NAME##_2[l] = v; } \
		else { NAME##_3[l] = v; } \
	}
#define WINDOWED_READONLY(B, T, L, NAME) WINDOW_DECLARE(B, readonly, T, NAME) WINDOW_GET(T, L, NAME)
#define WINDOWED_WRITEONLY(B, T, L, NAME) WINDOW_DECLARE(B, writeonly, T, NAME) WINDOW_SET(T, L, NAME)
#define WINDOWED(B, T, L, NAME) WINDOW_DECLARE(B, , T, NAME) WINDOW_GET(T, L, NAME) WINDOW_SET(T, L, NAME)
#endif
