// Package vtk writes a run's state as VTK XML PolyData files (.vtp) and
// ParaView collections (.pvd), and reads them back (for tests and for
// gpusim render).
//
// A run with frames (run.Options.VTKEvery, gpusim run --vtk N) holds:
//
//   - run.pvd: the collection of the body frames with their simulated
//     times; ParaView opens it as an animation;
//   - vtk/frame-SSSSSS.vtp (SSSSSS: the step, 0 for the initial state): one
//     point per body at its centre of mass, with a vertex cell each and the
//     point arrays id, shape (0 sphere, 1 ellipsoid, 2 box, 3 plane),
//     radius, semi_axes, orientation (quaternion w, x, y, z), velocity,
//     speed, angular_velocity (world frame) and fixed (see the Array*
//     constants); planes and container walls are points too, so point k is
//     body k of the scene; a run that reports reactions (reactions.csv)
//     adds reaction_force and reaction_torque (see ArrayReactionForce);
//   - vtk/container.vtp: the fixed boxes as six quadrilaterals each and
//     every plane as a square (edge: PlaneSide) around its point, written
//     once from the initial state, with cell array body;
//   - with contacts (--vtk-contacts), contacts.pvd and
//     vtk/contacts-SSSSSS.vtp: a line cell per contact from its point on
//     body A to its point on body B, with cell arrays body (A, B),
//     normal_force (γ_n/h, N), friction_force (N), normal and gap (m).
//
// Arrays are written inline in VTK's "binary" format (base64 of a UInt64
// byte count and the little-endian values), so every file is plain XML
// that encoding/xml reads. Files are written to a temporary name and
// renamed into place, and the collections are rewritten after every
// frame, so an interrupted run is still whole.
package vtk
