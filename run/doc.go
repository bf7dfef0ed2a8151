// Package run runs a scene to the end on a chosen backend and writes the
// standard outputs of a run into a folder:
//
//   - stats.csv: a row per step: step, time, bodies, contacts, iterations,
//     residual, objective, fixed_fx, fixed_fy, fixed_fz (total contact
//     force on fixed bodies, N), submits (device round trips), collide_s, solve_s, step_s, build_s,
//     integrate_s (wall seconds: collision, solve, whole step, Jacobian and r, update);
//   - trace.csv: for the traced bodies, a row per body and step: step,
//     time, id, x, y, z, qw, qx, qy, qz, vx, vy, vz, wx, wy, wz (angular
//     velocity in the world frame);
//   - reactions.csv, for a scene with joints or kinematic bodies, or with
//     Options.Reactions: a row per joint and per fixed, plane or kinematic
//     body and step: step, time, kind (joint or body), id (the joint's
//     index in the scene's joints, the body's id), fx, fy, fz (N), tx, ty,
//     tz (N·m), world frame: the force a joint applies to its body1 and
//     the torque about body1's centre of mass; the total contact force on
//     a body and the torque about its centre of mass;
//   - final.csv: the columns of trace.csv without step and time, for every
//     body at the end;
//   - summary.json: the scene, every setting, totals and wall time, the
//     end-of-run observables and, with reactions.csv, per joint and body
//     the last step's reaction, the mean force and the largest |force|
//     (with its step) and |torque| (ReactionSummary);
//
// and, on request (Options.DumpStep), the cone-complementarity problem of
// one step as a problem folder of package fclib, for gpusim solve, gpusim
// compare and shared/fclib/check.py.
//
// A scene with a pour (scene.Scene.Entering) starts with the bodies present
// at t = 0 and adds the others after the steps at whose end they fall due
// (engine.Sim.Grow; pourer says in what order and when one waits):
// stats.csv's bodies column counts the bodies each step ran with,
// trace.csv has a traced body's rows from its entry on, final.csv and
// --vtk/--npz frames hold the bodies entered, summary.json's bodies of
// bodies_total says how many entered, and a checkpoint holds the bodies
// entered, from which a resumed run continues with the scene's first that
// many.
//
// The CLI is a thin user of this package.
package run
