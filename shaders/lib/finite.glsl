// finite.glsl: finite, Go's !math.IsNaN(x) && !math.IsInf(x, 0), for
// collide_aabb, collide_narrow and spg_scalar. The includer defines
// nothing.
bool finite(double x) { return !isnan(x) && !isinf(x); }
