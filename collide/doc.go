// Package collide is gpusim's collision geometry, shared by both backends:
// cpuref runs it as its collision step, and the Vulkan backend (gpu) runs
// it on the host for the pairs and inputs its kernels hand back, and as
// the oracle its kernels are tested against. It imports only engine (the
// shapes, materials and contact layout) and never a backend.
//
// What it holds:
//
//   - broadphase (broad.go): ShapeAABB, each shape's exact world AABB, and
//     Grid, a uniform grid of hashed bins whose Pairs lists the candidate
//     pairs sorted by (i, j), each body's found in its own bins (in parts on
//     a Runner, SetRunner), with big boxes and planes tested directly and
//     an optional filter (SetFilter: Collide drops spheres out of reach);
//   - narrowphase (narrow*.go): Narrow, the contacts of two posed shapes,
//     dispatched through the shape-pair table below; closed forms for the
//     pairs with a sphere or a plane, separating axes with clipping for
//     box–box, Eberly's closest point for sphere–ellipsoid, and for
//     ellipsoid–ellipsoid and ellipsoid–box GJK/EPA (narrow_gjk.go) for a
//     first normal refined by Newton's method on the unit sphere;
//     capsules and cylinders (narrow_round.go) in closed form against
//     spheres, planes and capsules, convex hulls (narrow_hull.go) and mesh
//     triangles (narrow_mesh.go) by vertices against planes and closest
//     points against spheres, and every other pair of them through
//     convexPair (GJK apart, EPA overlapping) with face-clipping manifolds
//     where a flat feature rests on a face (polyManifold, polyRound);
//   - contact generation (collider.go, collide.go): Collider, which holds a
//     model's constant collision data, finds a step's contacts (Collide:
//     AABBs with speculative margins, Grid, Narrow per candidate pair,
//     materials combined; its loops in parts on a Runner, parallel.go),
//     builds the body → contact adjacency and keeps the contact keys that
//     warm-start the next step;
//   - compound bodies and meshes (parts.go): a body of several parts
//     (engine.Compound), or a mesh of triangles (engine.Mesh), is split into
//     its parts, each with its own AABB in the grid and its
//     world pose (the body's pose composed with the part's); the
//     narrowphase runs on pairs of parts of different bodies (parts of one
//     body never pair) and reports contacts between the bodies, with their
//     points in the body frames. A contact's warm-start key is (A, B, Sub)
//     with Sub = part of A<<18 | part of B<<8 | its index among the
//     contacts of that pair of parts (with a mesh: 1<<30 | triangle<<14 |
//     part<<4 | index), so contacts of different pairs of
//     parts never share a key; a body of one shape is its part 0, and a
//     model without compounds collides exactly as without this path.
//
// Units are SI: positions, sizes, gaps Φ, envelopes and bin sizes in m,
// velocities in m/s and rad/s, forces in N. Orientations are quaternions
// (w, x, y, z) from body to world. Normals are unit vectors in the world
// frame pointing from body A to body B, and Φ = (PB − PA)·Normal is
// negative when the shapes overlap. Everything is float64 and
// deterministic: the same input gives the same contacts, in the same
// order, bit for bit.
//
// The shape-pair table (narrow.go) holds one function per unordered pair
// of engine.ShapeKind, in the upper triangle: pairs[ka][kb] with ka ≤ kb.
// Narrow swaps the shapes so that the lower kind comes first (two shapes
// of one kind by pose, then size: orderedBefore), calls the entry, and
// mirrors the contacts back (Normal negated, PA and PB swapped), so every
// entry computes a single ordering and a swapped call gives the mirrored
// contacts exactly:
//
//	            sphere            ellipsoid           box          plane
//	sphere      sphereSphere      sphereEllipsoid     sphereBox    spherePlane
//	ellipsoid                     ellipsoidEllipsoid  ellipsoidBox ellipsoidPlane
//	box                                               boxBox       boxPlane
//	plane                                                          noContact (none)
//
// and, for the kinds appended after compound (compound and mesh have no
// row: their parts pair), capsule, cylinder, convex and triangle: a row
// each and a column in every row before them (sphereCapsule,
// boxCylinder, planeConvex, capsuleTriangle, …; see pairs in narrow.go).
//
// docs/adding-a-shape.md says how to add a shape or a pair.
package collide
