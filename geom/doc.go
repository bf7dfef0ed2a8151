// Package geom is gpusim's polyhedral geometry: convex hulls and triangle
// meshes — their construction, validation and exact mass properties — and
// the OBJ and STL readers. The engine uses it for the convex shape
// ({"type": "convex", "points": [...]}, the convex hull of points: bricks,
// rocks, track shoes) and the mesh shape ({"type": "mesh", "file":
// "blade.obj", "scale": 1}, triangle meshes for fixed and kinematic
// bodies). It is a leaf: it imports only the standard library and mgl64.
//
// What it holds:
//
//   - convex hulls (hull.go): NewHull, Quickhull on exact
//     orientation predicates (predicate.go: Shewchuk's filter, rational
//     fallback), with coplanar triangles merged into convex polygonal
//     faces within a relative tolerance; Support and Transformed;
//   - mass properties (mass.go): PolyhedronMass, the volume, centroid and
//     inertia tensor per unit density of a closed triangle surface by the
//     divergence theorem (Mirtich 1996, in Eberly's form), and
//     Hull.MassProperties;
//   - meshes (mesh.go, obj.go, stl.go): Mesh, its validation, scaling and
//     bounds; ReadOBJ, ReadSTL (ASCII or binary, detected) and LoadMesh;
//   - rotations (rotate.go): Rotate and RotateInverse, a vector turned by a
//     quaternion or its inverse, mgl64's Quat.Rotate bit for bit, for the
//     CPU path's and the collider's loops over bodies and contacts.
//
// Units are SI: lengths in m, volumes in m³, inertia per unit density in m⁵
// (kg·m² per kg/m³). Triangles and faces are counter-clockwise seen from
// outside, so their right-hand normals point outward. Nothing panics on bad
// input: every constructor and reader returns an error naming what is
// wrong and where (the point index, the file and line, the triangle).
package geom
