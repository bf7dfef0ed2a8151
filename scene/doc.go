// Package scene builds simulations from scene documents: a model (bodies,
// materials, gravity), solver settings, how long to run and which bodies to
// trace.
//
// A scene is either built in (see Builtins: bulldozer, chain, fill,
// flow-gap, mixer, pressure, rolling-ball, settle, shaker, shear,
// wrecking-ball, each a Go function of a few parameters) or a JSON file.
// Load takes either; overrides ("--set key=value") apply to both. For a built-in a key
// that names one of its parameters sets the parameter (n, mu, slab_mass,
// v0); any other key is a dotted path into the document:
//
//	settings.dt=0.005          run.duration=1          settings.solver=apgd-ar
//	materials.0.friction=0.3   gravity=[0,0,-1.62]     generators.0.count=500
//	bodies.0.vel=[1,0,0]       run.trace=[0,1,2]
//
// The value is read as JSON (number, boolean, array, object, "string") and,
// if it is not JSON, as a plain string. A key must name a field of the
// format below (given in the document or not) or an existing array element;
// an object that is not given is created, an array is not (set it whole).
// Parameters are applied first, then paths in order. Path overrides of a
// built-in apply to its document after the parameters have shaped it: the
// pressure slab's height follows n, but not generators.0.spacing.
//
// Errors name the source (the file path or builtin:NAME), the field as a
// path (bodies[3].shape.radius) and the problem; JSON syntax errors give
// source:line:column. No input makes the package panic.
//
// # Units and frames
//
// SI units throughout: m, kg, s, N, rad/s. The world's z axis is up for the
// built-in scenes (gravity (0, 0, −9.81)), but nothing in the package
// depends on it.
//
// # Document format
//
// A scene file is one JSON object. Unknown fields are errors. Fields marked
// optional take the default given.
// examples/scene.schema.json is a JSON Schema of it, kept in sync with the
// types of spec.go by schema_test.go; examples/ holds example scenes.
//
//	{
//	  "$schema": "scene.schema.json", optional: for editors (completion, checks); not read
//	  "name": "settle",            optional; default: the file name without extension
//	  "description": "…",          optional
//	  "gravity": [0, 0, -9.81],    optional (m/s²); default [0, 0, -9.81]
//	  "materials": [...],          required, at least one
//	  "settings": {...},           optional
//	  "run": {...},                optional
//	  "bodies": [...],             bodies, generators: at least one of the two
//	  "generators": [...],
//	  "containers": [...]          optional
//	}
//
// Body ids (used by run.trace and in every output) number the bodies of the
// model from 0 in this order: the "bodies" in order, then each generator's
// bodies in order (a lattice fills i fastest, then j, then k), then each
// container's bodies (a box container: floor, wall at −x, +x, −y, +y, then
// the lid if any).
//
// # materials
//
//	{"name": "default", "friction": 0.25, "cohesion": 0}
//
// name (required, unique) is what bodies, generators and containers refer
// to; an entity that names no material gets the first one. friction
// (required) is the Coulomb coefficient μ ≥ 0; cohesion (optional, default
// 0) is the largest pulling normal force a contact carries, in N, ≥ 0.
// rolling_friction and spinning_friction (optional, default 0, in m, ≥ 0
// and finite) are the rolling and spinning friction coefficients μ_r and
// μ_s: a contact resists rolling with a torque of at most μ_r and spinning
// about its normal with one of at most μ_s times its normal force (Project
// Chrono's rolling contacts; both backends, every solver but pdip, which
// refuses them; on Vulkan the solvers then run their host-driven
// iterations). A contact between two materials takes the smaller
// friction, the smaller cohesion, the smaller rolling and the smaller
// spinning friction of the two (engine.CombineMaterials,
// engine.CombineRolling).
//
// # settings
//
// Every field is optional and overrides engine.DefaultSettings (see
// engine.Settings):
//
//	dt                 time step h (s), > 0; default 0.01
//	solver             "apgd" or "apgd-ar" (engine.Solvers); default "apgd"
//	tol                residual tolerance τ ≥ 0 (0: always max_iter); default 1e-6
//	max_iter           iterations per step, ≥ 1; default 500
//	gd                 g_d of the residual, > 0; default 1e-6
//	warm_start         start from the previous step's impulses; default true
//	envelope           collision envelope δ (m), 0 = automatic; default 0
//	bin_size           broadphase bin edge (m), 0 = automatic; default 0
//	max_recovery_speed cap on the penetration recovery speed (m/s), 0 = none
//	workers            goroutines of the CPU path, 0 = GOMAXPROCS
//	precision          "double" or "mixed" (apgd, apgd-ar: float32 storage of
//	                   the Jacobian and the solver's vectors, float64
//	                   arithmetic); default "double"
//
// # run
//
//	{"duration": 2, "steps": 0, "trace": [0]}
//
// duration (s, optional, default 1) is the simulated time; steps (optional,
// default 0), if > 0, is the number of steps and wins over duration. trace
// (optional, default none) lists body ids to record each step; each must
// exist and appear once.
//
// # bodies
//
//	{"shape": {"type": "sphere", "radius": 1}, "pos": [0, 0, 1], "rot": [1, 0, 0, 0],
//	 "vel": [2, 0, 0], "omega": [0, 0, 0], "mass": 1, "fixed": false,
//	 "material": "default", "force": [0, 0, 0], "torque": [0, 0, 0]}
//
//	shape     required, see shapes
//	pos       centre of mass in the world frame (m); default [0, 0, 0]
//	          (for a compound, the origin of its parts' frame: see
//	          compound bodies)
//	rot       orientation, a unit quaternion [w, x, y, z] taking the body
//	          frame to the world frame; default [1, 0, 0, 0]; a norm within
//	          1e-6 of 1 is normalised, anything else is an error
//	vel       linear velocity (m/s, world frame); default zero
//	omega     angular velocity (rad/s, body frame); default zero
//	mass      kg, > 0 } a movable body needs exactly one of the two; a fixed
//	density   kg/m³   } body needs neither (and may not have both)
//	inertia   [Ixx, Iyy, Izz] principal moments (kg·m², > 0), optional:
//	          replaces the inertia computed from the shape and mass
//	fixed     true: the body never moves; default false
//	material  a material name; default the first material
//	force     constant external force at the centre of mass (N, world frame)
//	torque    constant external torque (N·m, world frame)
//	motion    makes the body kinematic, see below
//
// A plane body (shape type "plane") must be fixed or kinematic and has no
// mass, density or inertia; it is the half-space below its body-frame xy
// plane, its outward normal the body +z axis (turned by rot), through pos.
//
// A kinematic body moves as prescribed, whatever pushes it: it has
// infinite mass in the solve (like a fixed body), contacts and joints see
// its velocity, and its pose is set exactly from the motion at each step
// (a conveyor, a shaker, a mixer's rotor):
//
//	"motion": {"vel": [vx, vy, vz], "omega": [wx, wy, wz],
//	           "amplitude": [ax, ay, az], "frequency": f}
//
//	vel        m/s, world frame; default zero
//	omega      rad/s, world frame (a constant axis); default zero
//	amplitude  m, world frame; default zero; needs frequency > 0
//	frequency  Hz, ≥ 0
//
// The centre follows pos + vel·t + amplitude·sin(2π·f·t) and the
// orientation exp(omega·t)·rot. A kinematic body takes no mass, density,
// inertia, vel, omega, force or torque and is not "fixed" (each an
// error). It does not collide with fixed or other kinematic bodies.
// Kinematic bodies run on both the CPU path and the Vulkan backend.
//
// # shapes
//
//	{"type": "sphere", "radius": r}
//	{"type": "ellipsoid", "semi_axes": [a, b, c]}      along the body axes
//	{"type": "box", "half_extents": [hx, hy, hz]}      along the body axes
//	{"type": "plane"}                                  bodies only, fixed
//	{"type": "compound", "parts": [...]}               bodies only, see compound bodies
//	{"type": "capsule", "radius": r, "half_height": h} the points within r of the segment z in [−h, h]
//	{"type": "cylinder", "radius": r, "half_height": h} axis along the body z, caps at z = ±h
//	{"type": "convex", "points": [[x, y, z], ...]}     the convex hull of the points, see convex shapes
//	{"type": "mesh", "file": "blade.obj", "scale": 1}   fixed or kinematic bodies only, see meshes
//
// Sizes are in m, > 0 and finite (a capsule's half_height may be 0: a
// ball). Capsules and cylinders are exact: their mass properties, their
// AABBs and their contacts with spheres, planes and capsules in closed
// form; a cylinder resting on a plane or a box face, flat or on its side,
// rests on four points of its rim or on the two ends of its line of
// contact. In a generator each size may instead be
// a distribution, drawn per body:
//
//	{"dist": "uniform", "min": 0.05, "max": 0.1}
//	{"dist": "normal", "mean": 0.08, "std": 0.01, "min": 0.05, "max": 0.1}
//
// The normal distribution is truncated to [min, max] by drawing again (at
// most 1000 times per size, then an error); min > 0 and max ≥ min are
// required for both. A generator's scale (see generators) multiplies every
// length of the shape on top of that, convex hulls included.
//
// # convex shapes
//
//	{"type": "convex", "points": [[0, 0, 0], [0.2, 0, 0], [0, 0.1, 0], [0, 0, 0.05], ...]}
//
// The shape is the convex hull of at least 4 points (m) given in the
// frame F of the body's pos and rot; points inside the hull are dropped.
// Coincident, collinear or coplanar points (a hull with no volume), a
// non-finite point and fewer than 4 points are errors naming the point.
// Like a compound, the body is placed at the hull's centre of mass in its
// principal frame (exact polyhedral mass properties): position pos + rot·c,
// orientation rot ⊗ q, omega q⁻¹·omega, and "inertia" is refused. A
// generator may make convex bodies: every body has the same hull, placed
// at its centre of mass, times the generator's scale (the points scaled
// about their frame's origin: the centre of mass scales with them, the
// principal frame is the same, the volume is s³ and the inertia s⁵ times
// the unscaled hull's at a fixed density). A hull resting on a plane rests
// on its vertices there; on a box or another hull on the corners of the
// two faces' overlap.
//
// # meshes
//
//	{"type": "mesh", "file": "blade.obj", "scale": 0.001}
//
// A triangle mesh read from an OBJ file (v and f lines; polygons are fanned
// into triangles) or an STL file (binary or ASCII), relative to the scene
// file's folder, scaled by scale (default 1) into m, in the frame of the
// body's pos and rot. A mesh has no volume to weigh: its body must be
// fixed or have a motion (kinematic), and takes no mass, density or
// inertia; it cannot be a part of a compound or made by a generator. Each
// triangle collides on both sides with every other shape, as a small body
// of the broadphase: a sphere on a mesh floor touches its nearest point, a
// box or a hull the corners of its face over each triangle. At most 65 536
// triangles. A missing or unreadable file, a NaN vertex and a zero-area
// triangle are errors naming the field and the file (and its line).
//
// # compound bodies
//
// One rigid body made of several shapes (a dumbbell, an L, a T, a hammer):
//
//	{"type": "compound", "parts": [
//	  {"shape": {"type": "sphere", "radius": 0.1}, "pos": [-0.3, 0, 0]},
//	  {"shape": {"type": "box", "half_extents": [0.3, 0.02, 0.02]}, "rot": [1, 0, 0, 0]}]}
//
//	parts  required, 1 to 1024: each a sphere, an ellipsoid, a box, a
//	       capsule, a cylinder or a convex hull (no plane: it is unbounded;
//	       no mesh: it has no volume; no compound: list the inner
//	       compound's parts in the outer one, nested compounds are refused)
//	pos    the part's centre (m) in the body's frame F; default [0, 0, 0]
//	rot    unit quaternion [w, x, y, z] from the part's frame to F;
//	       default [1, 0, 0, 0]
//
// F is the frame the body's pos and rot place: a part's centre is at
// pos + rot·part.pos in the world. The body's density applies to every
// part (mass gives the total, spread over the parts by volume); parts that
// overlap count their common volume twice. gpusim computes the centre of
// mass c of the parts and their inertia tensor about it (each part's
// inertia turned into F and moved to c by the parallel-axis theorem,
// summed), and turns F into the principal frame P of that tensor (rotation
// q, P to F; the identity, exactly, where F is already principal, as for a
// body symmetric about its axes). The body then is, for the engine and in
// every output (final.csv, trace.csv, frames, reactions, checkpoints):
//
//	position     pos + rot·c, the centre of mass
//	orientation  rot ⊗ q, the principal frame P
//	omega        q⁻¹·omega: the document's omega is in F
//	vel          as given: the velocity of the centre of mass
//
// so a part at F-position p sits at q⁻¹(p − c) in the body frame of the
// outputs. "inertia" is refused (it comes from the parts), and so is a
// compound in a generator (list the bodies). Parts of one body never
// collide with each other; each part collides with other bodies through
// the shape-pair table. Compound bodies run on both backends; on Vulkan
// the host finds their contacts each step (the run says so).
//
// # generators
//
// A generator makes count (≥ 1) bodies of one shape and material, with no
// velocity (a pour's: its velocity). Common fields:
//
//	type                "lattice", "random" or "pour", required
//	count               number of bodies, required, ≥ 1
//	shape               required; sizes may be distributions; no planes
//	mass, density       exactly one, per body (density makes mass follow size)
//	material            default the first material
//	random_orientation  uniformly random orientation per body (ignored for
//	                    spheres); default false
//	seed                seed of the generator's SplitMix64 stream: an
//	                    integer or a string such as "0x5EED5EED"; default 0
//	scale               factor on every length of each body's shape: a
//	                    number > 0 or a distribution (as a size's, min > 0),
//	                    drawn per body; default 1
//
// scale multiplies the whole shape: a sphere's radius, an ellipsoid's
// semi-axes, a box's half-extents, a capsule's or a cylinder's radius and
// half_height (each after its own draw, if it is a distribution), and a
// convex hull's points about the origin of the frame they are given in
// (see convex shapes). With density the mass follows the volume (s³);
// with mass every body keeps the given mass and its inertia scales with
// s². Compounds are not made by generators.
//
// All the generator's random numbers come, in a fixed order, from its own
// SplitMix64 stream (bench/settle.md), so a document always builds the same
// bodies. lattice: per body the jitter of x, y, z, then the distributed
// sizes (radius, half_height, or semi_axes / half_extents in order), then
// the scale if it is a distribution (one draw, or pairs for a normal one as
// for a size), then the orientation (three draws). random: per body the
// sizes, the scale, the orientation, then x, y, z of each placement
// attempt; pour: as random. A size or a scale given as a number takes no draw, so adding
// "scale": 1 (or any number) to a document leaves its draws as they were.
//
// Lattice fields (exactly the rule of bench/settle.md):
//
//	spacing      lattice spacing (m); default 2.1 × the largest half-size
//	             (the bounding radius with random_orientation; a convex
//	             hull's largest vertex coordinate about its centre of mass
//	             without), of the largest body: each size's max times the
//	             scale's max; an error if less than twice that
//	max_per_row  cap on the bodies per row nx (0: none); default 0
//	origin       centre of the bottom layer (m); default [0, 0, 0]
//	jitter       amplitude of the uniform jitter per coordinate (m); default 0
//
// nx is the smallest integer with nx³ ≥ count, capped at max_per_row. Body n
// is in column i = n mod nx, row j = (n div nx) mod nx, layer
// k = n div nx², at x = origin.x + (i − (nx−1)/2)·spacing + (2u − 1)·jitter,
// y likewise with j, z = origin.z + k·spacing + (2u − 1)·jitter, with a new
// u per coordinate. Layers stack up until count bodies are placed.
//
// Random fields:
//
//	region        {"min": [x, y, z], "max": [x, y, z]} (m): a box
//	cylinder      {"centre": [x, y, z], "radius": R, "height": H} (m): a solid
//	              cylinder about the vertical through centre, the centre of its
//	              bottom face (fills a cylinder container); one of region and
//	              cylinder is required
//	max_attempts  placement attempts per body, 1 to 1048576; default 1000
//
// Each body is placed uniformly at random with its bounding sphere (of its
// own drawn sizes and scale) inside the region, retried until its bounding
// sphere overlaps none of the bodies placed before it (from "bodies",
// earlier generators and this one; planes excepted); the region must hold
// the largest body (each size's max times the scale's max). A body that
// finds no place in max_attempts is an error saying how many were placed.
//
// Pour fields (a stream of bodies entering over time, as Chrono's and
// LIGGGHTS' pour and insertion generators): region or cylinder and
// max_attempts as for random, and
//
//	rate      bodies per second, required, > 0
//	start     entry time of the first body (s), ≥ 0; default 0
//	velocity  [x, y, z], every body's velocity as it enters (m/s); default 0
//
// Body k (0-based) is due at start + k/rate. Pour bodies come after all
// the other bodies of the scene, containers included, in entry order (by
// time; several pours interleave, a tie in generator order), so the ids of
// the others do not depend on any pour. Their spots are drawn when the
// scene is built (per body: sizes, scale, orientation, then the placement
// attempts, as random's), each uniform in the region and retried until
// its bounding sphere overlaps none of the W − 1 bodies of the same pour
// before it, W = ⌈rate·t⌉ + 1 (at most count) the bodies due while one
// moves clear of its spot: t solves ½|g|t² + v_g·t = 2·rmax (v_g the
// velocity along gravity, rmax the largest bounding radius; t =
// 2·rmax/|velocity| without gravity, and W = count if nothing moves the
// bodies). A body that finds no such spot in max_attempts is an error.
// Pours are placed each on its own: give two pours disjoint regions.
//
// Scene.Model holds the bodies present at t = 0 (a pour body due at t ≤ 0
// last); Scene.Entering and Scene.EntryTimes hold the others, and package
// run adds them as they fall due: after the step that reaches a body's
// time, it enters unless its bounding sphere overlaps that of a movable
// body present, in which case it and the ones after it wait (first in,
// first out). Fixed, plane and kinematic bodies are not checked: keep the
// region clear of the walls, as a random generator's. A region little
// taller than the bodies (a layer, as LIGGGHTS' insertion volumes) lets
// each body leave it as it falls; in a deeper one a spot low in the region
// may be held by a body falling through it, and the pour waits. run.trace
// may name a pour body (its rows start at its entry); merit.bodies must be
// present at t = 0. A scene made from a run's state (scenes --from) cannot
// keep a pour yet.
//
// # containers
//
// Fixed walls, added after all other bodies but a pour's.
//
//	{"type": "box", "inner_min": [-2, -2, 0], "inner_max": [2, 2, 4],
//	 "thickness": 0.2, "lid": false, "material": "default"}
//
// An open box of fixed box bodies around the inner space [inner_min,
// inner_max] (both required, max > min) with walls thickness thick (m,
// required): the floor under the inner space and the x-walls' footprint,
// walls at −x and +x spanning the outer y width, walls at −y and +y spanning
// the inner x width, all walls from inner_min.z to inner_max.z, and a lid
// like the floor on top if lid is true. For the example above the floor has
// centre (0, 0, −0.1) and half-extents (2.2, 2.2, 0.1), the x-walls centres
// (±2.1, 0, 2) and half-extents (0.1, 2.2, 2), the y-walls centres
// (0, ±2.1, 2) and half-extents (2, 0.1, 2): the box of bench/settle.md.
// The inner space of the first box container is Scene.Domain, the region
// outside which package run counts bodies as escaped.
//
//	{"type": "plane", "point": [0, 0, 0], "normal": [0, 0, 1], "material": "default"}
//
// A fixed plane body through point (default the origin) whose outward
// normal is normal (default [0, 0, 1], normalised, not zero): its rotation
// is the shortest one taking +z to normal.
//
//	{"type": "cylinder", "centre": [0, 0, 0], "radius": 1, "height": 0.8,
//	 "thickness": 0.05, "sides": 32, "lid": false, "material": "default"}
//
// A drum about the vertical axis through centre (the centre of its floor's
// top face): a floor slab (half-extents radius + thickness, radius +
// thickness, thickness/2) under centre, sides (3 to 1024, default 32) wall
// boxes of the given thickness whose inner faces are the sides of the
// regular polygon circumscribing the circle of radius (within
// radius·(1/cos(π/sides) − 1) of it: 0.5 % for 32 sides), height high above
// the floor, and a lid like the floor on top if lid is true: sides + 1
// bodies, or sides + 2.
//
// # joints
//
// Joints join two bodies, or a body and the world, by bilateral
// constraints (rows of the contact problem whose impulses are free):
//
//	{"type": "revolute", "body1": 3, "body2": 7, "point": [x, y, z],
//	 "axis": [x, y, z], "motor": {"speed": 1.5708, "max_torque": 1e4},
//	 "collide": false}
//
//	type     spherical  body1 and body2 share point (3 rows)
//	         revolute   they share point and axis: body2 turns about it
//	                    relative to body1 (5 rows)
//	         prismatic  no relative rotation; body2's point stays on the
//	                    line through point along axis, attached to body1
//	                    (5 rows)
//	         fixed      no relative motion (6 rows)
//	         distance   point1 on body1 and point2 on body2 keep their
//	                    distance at t = 0, which must be positive (1 row)
//	body1    a body id, required
//	body2    a body id other than body1; omitted: the world
//	point    m, world frame at t = 0: all types but distance
//	point1   } distance only (m, world frame at t = 0)
//	point2   }
//	axis     revolute and prismatic: any length but zero, world frame at
//	         t = 0, attached to body1
//	motor    revolute and prismatic, optional: one more row driving the
//	         relative speed of body1 with respect to body2 about (rad/s)
//	         or along (m/s) the axis to speed, with the torque limited to
//	         max_torque (N·m, revolute) or the force to max_force (N,
//	         prismatic); without a limit the speed is held whatever it
//	         takes
//	collide  true lets the two bodies collide; by default jointed bodies
//	         do not
//
// A joint needs a body that can move: a joint between two fixed (or
// kinematic, or plane) bodies, or one of them and the world, is an
// error. A joint's position error C is corrected at the speed C/h, capped
// by settings.max_recovery_speed when that is set (in rad/s for angle
// errors). Joints run on both backends, and every solver takes joint
// rows.
//
// # merit
//
// A scene may name its figure of merit, which package run computes: a row
// per step in the run folder's merit.csv (step, time, then the columns
// below), end-of-run figures in summary.json's "merit" and the printed
// summary, and a plot (plots/merit.png) from gpusim plot:
//
//	"merit": {"type": "shear", "bodies": [0, 1, 2, 3, 4], "axis": [1, 0, 0]}
//
//	type    chain     joint_error (the largest joint position error, m
//	                  or rad) and the world joints' force on their bodies
//	                  (N); at the end, the iterations each solver but
//	                  pdip takes on the last step's problem from zero
//	        shaker    bodies[0] is the plate: its z offset, the motion's
//	                  A·sin(2πft), the mean height of the movable bodies
//	        shear     bodies[0] is the lid, the others the moving half:
//	                  displacement along axis, the force of everything
//	                  else on the moving half along axis (contacts and
//	                  joints, N), the contact force on the lid against
//	                  gravity (N)
//	        mixer     bodies are the blades: their angle and the torque
//	                  of their contacts about the line through point
//	                  along axis (N·m)
//	        flow-gap  the mass (kg) of movable bodies beyond the plane
//	                  through point normal to axis (on the side it points
//	                  to), and its rate over the last 0.01 s (kg/s)
//	bodies  body ids (shaker, shear, mixer)
//	point   m (mixer, flow-gap)
//	axis    any length but zero (shear, mixer, flow-gap)
//
// # Limits
//
// A scene holds at most 16 777 216 bodies.
//
// # Built-in scenes
//
// rolling-ball (APGD paper §2.3, anti-relaxation paper §3.1): body 0 is a
// sphere, r = 1 m, 1 kg, at (0, 0, 1) with velocity (v0, 0, 0) on a plane
// container z = 0 (body 1); μ = mu on both materials; dt 0.0025 s, 0.8 s,
// solver apgd-ar, tol 1e-10, max_iter 1000; traces body 0.
//
// fill (anti-relaxation paper §3.2): n spheres, r = 1 m, 1 kg, μ = mu, from
// a lattice (spacing 2.1 m, 9 per row, origin (0, 0, 1.1), jitter 0.05 m,
// seed 1) into a box container [−10, 10]² × [0, 30], walls 1 m; dt 0.01 s,
// 5 s, apgd, tol 1e-6, max_iter 500.
//
// pressure (APGD paper §4.1.1): body 0 is the slab, a box with half-extents
// (1.49, 1.49, 0.1) and mass slab_mass, its underside 0.05 m above the top
// lattice layer's sphere tops; then n spheres, r = 0.15 m, 1 kg (lattice
// spacing 0.32 m, 9 per row, origin (0, 0, 0.16), jitter 0.01 m, seed 2);
// then a box container [−1.5, 1.5]² × [0, 20], walls 0.2 m; μ = mu
// everywhere; dt 0.01 s, 4 s, apgd, tol 1e-6, max_iter 500; traces the
// slab.
//
// chain, shaker, shear, mixer and flow-gap (issue 17, scene/builtin_mech.go,
// chain and shear on the CPU path: joints) are the papers' mechanisms: the
// SPG paper's benchmark B1 as a rope ladder of n links (3.5·n rows), the
// GS paper's shaker, the PDIP paper's direct shear test, the APGD paper's
// mixer (§4.1.2) and granular flow through a gap (§4.2.4); each function's
// comment gives its bodies, sizes and settings, and each names its figure
// of merit (see merit).
//
// bulldozer (APGD paper §4.2.2, Fig. 9; scene/builtin_shapes.go): a
// tracked vehicle pushing a curved blade into a pile of n cohesive
// ellipsoids (default 2000, the paper's 160 000 with --set n=160000), as
// close as gpusim allows; the paper gives masses, counts, speeds and
// materials, the sizes are chosen here. Body 0 is the chassis, a 5000 kg
// box 1.6 m wide; body 1 the blade, a compound of 6 convex hulls on an arc
// of radius 0.8 m (concave forwards, 2.8 m wide, 400 kg, frictionless)
// held to the chassis by a fixed joint, joint 0 (body1 the blade: its
// reaction in reactions.csv is the chassis's force on the blade). Each
// track (bodies 2 to 33 at y = −1.1 m, 34 to 65 at +1.1 m) is a sprocket,
// an idler and five rollers (cylinders, 250 kg each, on revolute joints to
// the chassis) and a closed loop of 25 shoes (boxes 0.3 × 0.5 × 0.05 m,
// 20 kg) joined end to end by revolute joints: 9 on the ground, 3 round
// the front (half a regular octagon whose inscribed circle is the
// sprocket, r = 0.362 m), 9 on top, 4 round the rear and the idler. The
// sprockets, at the front (driven from the rear they pushed the rigid top
// run, which buckled and whipped), are driven at speed rad/s (default 4,
// the paper's) by revolute motors limited to torque N·m (default 20 000;
// 0 lifts the limit, but then the first step's jump to full speed throws
// the vehicle off the ground), and drive by friction (a cylinder has no
// teeth); the idler is not in the paper's count. Materials, taken by the
// pair's smaller μ and cohesion: ground and shoe μ = 1, wheel 1, chassis
// 0.5, blade 0, soil (the ellipsoids: semi-axes 0.025, 0.02, 0.016 m,
// 2000 kg/m³, 0.067 kg, random orientations) μ = 0.2 and cohesion 500 N.
// The pile falls from a lattice 0.5 m ahead of the blade. h = dt (default
// 1e-4 s, the paper's), solver spg (its diagonal preconditioner copes with
// the mass ratios: apgd stalls at max_iter once the pile's contacts join
// the vehicle's rows), tol 1e-5, max_iter 500, max_recovery_speed
// 0.5 m/s, 2 s; the figure of merit is chain's (joint_error: the tracks'
// closure; the solvers' iterations at the end). The closed loops make 3
// rows each redundant (the run warns). What to read: trace.csv, the
// chassis's (body 0) speed against time (n = 200: 0.36 m/s at 0.1 s, then
// 1.45 m/s, the sprockets' 4 rad/s × 0.362 m, from 0.45 s; 0.6 s take
// 145 s on two CPU cores); joint 0 in reactions.csv, the blade's load
// (its weight, and from about 0.5 s the pile's push, 225 N on average for
// n = 200); merit.csv's joint_error (4e-6 m at most over those 0.6 s).
//
// wrecking-ball (SPG paper, benchmark B4, Fig. 6 and 7; scene/builtin_shapes.go):
// a wall of n bricks (default 750, the paper's only figure; the sizes are
// chosen here) struck by a steel ball on a chain. Bricks are boxes
// 0.4 × 0.2 × 0.15 m (2000 kg/m³, 24 kg), 2 mm apart, in running bond
// with flush ends: rows of c = max(2, round(√(1.2·n))) bricks alternate
// with rows of c − 1 bricks between two half bricks, the last row holding
// the rest of n in its middle (n = 750: 24 rows and 18 bricks on top), on
// a ground plane. The ball (r = 0.5 m, 7800 kg/m³, 4084 kg, body 0) hangs
// 4 m below a fixed pivot above the wall's face, on links steel capsules
// (r = 0.04 m, bodies 1 to links) on spherical joints, or with links = 0
// on one distance joint (a massless rod); it starts at rest angle degrees
// back from the vertical and strikes the wall just before the bottom of
// its swing (at 6.2 m/s from 60°). Materials brick (μ = 0.6), steel (0.3),
// ground (0.8); dt 0.005 s, 3 s, apgd, tol 1e-6, max_iter 1000. What to
// look at: trace.csv, the ball's path and speed through the impact (about
// 1 s in); the chain figure of merit, joint_error (the chain's stretch,
// largest at the impact) and at the end the iterations each solver takes
// on the last step's problem; and the solvers on a problem of the impact,
// as the paper's Fig. 6 (step 200, one step after the ball reaches the
// wall: the swing does not depend on n):
//
//	gpusim compare wrecking-ball --set n=60 --step 200 --tol 1e-6 --solvers apgd,apgd-ar,gs,jacobi,spg
//
// At n = 60 one step after the impact (2787 rows) apgd and apgd-ar reach
// 1e-6 from zero in about 1140 and 1160 iterations, while gs, jacobi and
// spg stay above it after 3000 (tests/scenes_shapes_test.go). At n = 750,
// 1.6 s (320 steps, about 11 000 contacts before the impact) take 225 s on
// two CPU cores; on the last step's problem (25 497 rows) apgd and
// apgd-ar reach 1e-6 in 609 and 622 iterations, spg, gs and jacobi not in
// 1000.
//
// settle (bench/settle.md): n spheres, r = 0.1 m, 1 kg, μ = 0.25, lattice
// spacing 0.21 m, 19 per row, origin (0, 0, 0.11), jitter 0.005 m, seed
// 0x5EED5EED, into the 4 m box of the example above; dt 0.01 s, 2 s, apgd,
// tol 0, max_iter 100; spheres are bodies 0 to n−1.
package scene
