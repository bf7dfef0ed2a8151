package geom

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"
)

// PolyhedronMass returns the mass properties of the solid bounded by a
// closed, consistently oriented triangle surface (verts in m, tris
// counter-clockwise seen from outside): its volume (m³), centroid (m), and
// its inertia tensor per unit density about the centroid (kg·m² per kg/m³,
// i.e. m⁵; multiply by the density for kg·m²), with the products of
// inertia negated off the diagonal (I_xy = −∫xy dV).
//
// The integrals of 1, x, y, z, x², y², z², xy, yz, zx over the solid are
// exact: the divergence theorem turns each into a sum of polynomial
// integrals over the triangles (Mirtich 1996, "Fast and accurate
// computation of polyhedral mass properties", in the form of Eberly,
// "Polyhedral Mass Properties (Revisited)", 2002). They are taken about the
// mean of the referenced vertices, near the centroid, so that the second
// moments do not cancel against a large offset; the centroid and the
// parallel-axis shift are added back at the end.
//
// It returns an error for an index out of range, a non-finite vertex, a
// surface that is not closed (a directed edge a→b used a different number
// of times than b→a: the divergence theorem needs a closed surface), and a
// volume that is not positive (a surface oriented inward, or flat).
func PolyhedronMass(verts []mgl64.Vec3, tris [][3]int32) (volume float64, centroid mgl64.Vec3, inertia mgl64.Mat3, err error) {
	if len(tris) == 0 {
		return 0, centroid, inertia, fmt.Errorf("geom: mass properties: no triangles")
	}
	used := make([]bool, len(verts))
	edges := make(map[uint64]int)
	for ti, t := range tris {
		for k, v := range t {
			if v < 0 || int(v) >= len(verts) {
				return 0, centroid, inertia, fmt.Errorf("geom: mass properties: triangle %d: vertex index %d out of range (%d vertices)", ti, v, len(verts))
			}
			used[v] = true
			edges[edgeKey(v, t[(k+1)%3])]++
		}
	}
	for k, n := range edges {
		if r := edges[k<<32|k>>32]; r != n {
			return 0, centroid, inertia, fmt.Errorf("geom: mass properties: surface not closed: edge %d→%d used %d time(s), %d→%d %d time(s)",
				k>>32, uint32(k), n, uint32(k), k>>32, r)
		}
	}
	var ref mgl64.Vec3
	nused := 0
	for i, v := range verts {
		if !used[i] {
			continue
		}
		for k, x := range v {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return 0, centroid, inertia, fmt.Errorf("geom: mass properties: vertex %d: %c coordinate is %v (not finite)", i, axisName[k], x)
			}
		}
		ref = ref.Add(v)
		nused++
	}
	ref = ref.Mul(1 / float64(nused))

	var intg [10]float64
	for _, t := range tris {
		p0, p1, p2 := verts[t[0]].Sub(ref), verts[t[1]].Sub(ref), verts[t[2]].Sub(ref)
		d := p1.Sub(p0).Cross(p2.Sub(p0))
		f1x, f2x, f3x, g0x, g1x, g2x := subexpressions(p0[0], p1[0], p2[0])
		_, f2y, f3y, g0y, g1y, g2y := subexpressions(p0[1], p1[1], p2[1])
		_, f2z, f3z, g0z, g1z, g2z := subexpressions(p0[2], p1[2], p2[2])
		intg[0] += d[0] * f1x
		intg[1] += d[0] * f2x
		intg[2] += d[1] * f2y
		intg[3] += d[2] * f2z
		intg[4] += d[0] * f3x
		intg[5] += d[1] * f3y
		intg[6] += d[2] * f3z
		intg[7] += d[0] * (p0[1]*g0x + p1[1]*g1x + p2[1]*g2x)
		intg[8] += d[1] * (p0[2]*g0y + p1[2]*g1y + p2[2]*g2y)
		intg[9] += d[2] * (p0[0]*g0z + p1[0]*g1z + p2[0]*g2z)
	}
	mult := [10]float64{1.0 / 6, 1.0 / 24, 1.0 / 24, 1.0 / 24, 1.0 / 60, 1.0 / 60, 1.0 / 60, 1.0 / 120, 1.0 / 120, 1.0 / 120}
	for i := range intg {
		intg[i] *= mult[i]
	}
	volume = intg[0]
	if !(volume > 0) || math.IsInf(volume, 0) {
		return volume, centroid, inertia, fmt.Errorf("geom: mass properties: volume %g m³ is not positive (surface oriented inward, or flat)", volume)
	}
	c := mgl64.Vec3{intg[1], intg[2], intg[3]}.Mul(1 / volume) // relative to ref
	m := volume
	ixx := intg[5] + intg[6] - m*(c[1]*c[1]+c[2]*c[2])
	iyy := intg[4] + intg[6] - m*(c[2]*c[2]+c[0]*c[0])
	izz := intg[4] + intg[5] - m*(c[0]*c[0]+c[1]*c[1])
	ixy := -(intg[7] - m*c[0]*c[1])
	iyz := -(intg[8] - m*c[1]*c[2])
	ixz := -(intg[9] - m*c[2]*c[0])
	inertia = mgl64.Mat3{ixx, ixy, ixz, ixy, iyy, iyz, ixz, iyz, izz}
	return volume, ref.Add(c), inertia, nil
}

// subexpressions are Eberly's per-triangle terms for one coordinate w of
// the three vertices: f1 = Σw, f2 = Σ_{i≤j} w_i w_j, f3 = Σ_{i≤j≤k} w_i w_j
// w_k, and g_i = f2 + w_i(f1 + w_i).
func subexpressions(w0, w1, w2 float64) (f1, f2, f3, g0, g1, g2 float64) {
	t0 := w0 + w1
	f1 = t0 + w2
	t1 := w0 * w0
	t2 := t1 + w1*t0
	f2 = t2 + w2*f1
	f3 = w0*t1 + w1*t2 + w2*f2
	g0 = f2 + w0*(f1+w0)
	g1 = f2 + w1*(f1+w1)
	g2 = f2 + w2*(f1+w2)
	return
}

// MassProperties returns the hull's volume (m³), centroid (m) and inertia
// tensor per unit density about the centroid (m⁵), by PolyhedronMass on
// its faces fan-triangulated from their first vertex. A hull from NewHull
// is closed, outward and has volume, so there is no error to report; a
// hull edited into an invalid one gives zeros.
func (h *Hull) MassProperties() (volume float64, centroid mgl64.Vec3, inertia mgl64.Mat3) {
	var tris [][3]int32
	for _, f := range h.Faces {
		for j := 1; j+1 < len(f.Verts); j++ {
			tris = append(tris, [3]int32{f.Verts[0], f.Verts[j], f.Verts[j+1]})
		}
	}
	v, c, in, err := PolyhedronMass(h.Verts, tris)
	if err != nil {
		return 0, mgl64.Vec3{}, mgl64.Mat3{}
	}
	return v, c, in
}
