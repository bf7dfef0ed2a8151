// Package vtk writes a run's state as VTK XML PolyData files (.vtp) and
// ParaView collections (.pvd), and reads them back (for tests and for
// gpusim render).
//
// A run with frames (run.Options.VTKEvery, gpusim run --vtk N) holds:
//
//   - run.pvd: the collection of the body frames with their simulated
//     times; ParaView opens it as an animation;
//   - vtk/frame-SSSSSS.vtp (SSSSSS: the step, 0 for the initial state): one
//     point per moving body (neither fixed nor a plane) at its centre of
//     mass, with a vertex cell each and the point arrays id (the body's
//     index in the scene), shape, radius, semi_axes, orientation
//     (quaternion w, x, y, z), velocity, speed, angular_velocity (world
//     frame), and for glyphs glyph (the unit shape: 0 sphere, 1 box, 2
//     cylinder), scale (half-extents along the body axes) and
//     glyph_tensor (R·diag(scale), see Body.Glyph); the fixed bodies and
//     planes are its field data fixed_* (see ArrayFixedID), so that
//     ReadBodies gives every body back; a run that reports reactions
//     (reactions.csv) adds reaction_force and reaction_torque, and
//     fixed_reaction_force and fixed_reaction_torque for the fixed bodies
//     (see AddReactions);
//   - vtk/container.vtp: the fixed bodies and planes as polygons (boxes as
//     six quadrilaterals, every plane as a square of edge PlaneSide around
//     its point, the other shapes as their surfaces: FixedPolyData),
//     written once from the initial state, with cell array body;
//   - with contacts (--vtk-contacts), contacts.pvd and
//     vtk/contacts-SSSSSS.vtp: the contact network, a line cell per
//     contact from the centre of body A to the centre of body B (to the
//     contact point on a fixed, plane or kinematic body), with cell arrays
//     body (A, B), normal_force (γ_n/h, N), friction_force (N), force (N,
//     on B, world frame), normal, gap (m) and point (the contact point);
//   - view.py: a ParaView script that shows the run (ViewFile).
//
// Files are written with their arrays zlib-compressed in raw appended data
// (EncodeCompressed: ParaView's own default form); Decode reads that, and
// the inline ascii and base64 forms (Encode), which earlier versions
// wrote. Files are written to a temporary name and renamed into place, and
// the collections are rewritten after every frame, so an interrupted run
// is still whole.
package vtk
