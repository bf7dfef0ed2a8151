# view.py: the ParaView picture of a gpusim run, written by gpusim beside
# run.pvd. Run it with ParaView's Python (ParaView 5.10 or later):
#
#   pvpython view.py                    # a window (needs a display)
#   pvpython --force-offscreen-rendering view.py --png run.png
#                                       # a picture, no window
#   xvfb-run -a pvpython view.py --png run.png
#                                       # the same without a display where
#                                       # ParaView needs X (Debian's)
#   pvpython view.py --state view.pvsm  # a state for paraview --state
#
# It shows the last frame (--frame K for frame K of run.pvd, from 0;
# negative counts from the end): every moving body as its shape (spheres,
# ellipsoids, boxes, capsules and cylinders, with their sizes and
# orientations, from the arrays glyph and glyph_tensor; convex hulls as
# the box around them, other shapes as their bounding spheres) coloured by
# speed, the fixed bodies and planes (vtk/container.vtp) as translucent
# surfaces, and, when the run wrote contacts (contacts.pvd), the contact
# network: a tube between the centres of every two bodies in contact, its
# width and colour the normal force (the bodies are then drawn
# translucent; see --opacity). The camera frames the bodies.
import argparse
import math
import os
import sys

# Written by gpusim: the direction opposite to gravity (z when none).
UP = (0.0, 0.0, 1.0)


def tensor_glyph(src, kind, name=None, sides=24):
    """The Tensor Glyph filter that draws the points of src as the unit
    shape kind ("Sphere", "Box" or "Cylinder": vtk.GlyphSphere, GlyphBox,
    GlyphCylinder), the point x of the shape at centre + glyph_tensor·x,
    its round sides polygons of `sides` sides."""
    from paraview.simple import TensorGlyph
    kw = {"registrationName": name} if name else {}
    g = TensorGlyph(Input=src, GlyphType=kind, **kw)
    g.Tensors = ["POINTS", "glyph_tensor"]
    g.ExtractEigenvalues = 0
    g.ScaleFactor = 1.0
    if kind == "Sphere":
        g.GlyphType.Radius = 1.0
        g.GlyphType.ThetaResolution = sides
        g.GlyphType.PhiResolution = 2 * sides // 3
    elif kind == "Box":
        g.GlyphType.XLength = g.GlyphType.YLength = g.GlyphType.ZLength = 2.0
    else:
        g.GlyphType.Radius = 1.0
        g.GlyphType.Height = 2.0
        g.GlyphType.Resolution = sides
    return g


# Run as a script (not imported, as the tests do for tensor_glyph).
if __name__ == "__main__":
    ap = argparse.ArgumentParser(description="Show a gpusim run in ParaView.")
    ap.add_argument("--png", help="save the picture to this PNG file and exit")
    ap.add_argument("--state", help="save a ParaView state (.pvsm) to this file and exit")
    ap.add_argument("--frame", type=int, default=-1, help="frame of run.pvd to show (default: the last)")
    ap.add_argument("--size", default="1280x960", help="picture size WxH (default 1280x960)")
    ap.add_argument("--no-contacts", action="store_true", help="leave the contact network out")
    ap.add_argument("--opacity", type=float, default=None,
                    help="opacity of the bodies (default 1, 0.3 with the contact network)")
    args = ap.parse_args()

    here = os.path.dirname(os.path.abspath(globals().get("__file__") or sys.argv[0]))
    pvd = os.path.join(here, "run.pvd")
    if not os.path.exists(pvd):
        sys.exit("view.py: %s not found: run gpusim with --vtk N" % pvd)
    try:
        w, h = (int(v) for v in args.size.lower().split("x"))
    except ValueError:
        sys.exit("view.py: --size %r: want WxH, like 1280x960" % args.size)

    from paraview.simple import *  # noqa: E402

    view = CreateView("RenderView")
    view.ViewSize = [w, h]
    view.Background = [1, 1, 1]
    try:
        view.UseColorPaletteForBackground = 0
    except AttributeError:
        pass
    view.OrientationAxesVisibility = 0
    SetActiveView(view)

    frames = PVDReader(registrationName="run.pvd", FileName=pvd)
    times = list(frames.TimestepValues) if hasattr(frames.TimestepValues, "__len__") else [frames.TimestepValues]
    if not times:
        times = [0.0]
    try:
        t = times[args.frame]
    except IndexError:
        sys.exit("view.py: --frame %d: run.pvd has frames 0 to %d" % (args.frame, len(times) - 1))
    scene = GetAnimationScene()
    scene.UpdateAnimationUsingDataTimeSteps()
    scene.AnimationTime = t
    view.ViewTime = t

    contacts = os.path.join(here, "contacts.pvd")
    network = os.path.exists(contacts) and not args.no_contacts
    opacity = args.opacity if args.opacity is not None else (0.3 if network else 1.0)

    # The shown frame on this side: its glyph codes, and the bounds and radii
    # of its bodies (for the camera and the tubes).
    from paraview import servermanager  # noqa: E402

    frames.UpdatePipeline(t)
    data = servermanager.Fetch(frames)
    codes, radii, lo3, hi3 = set(), [], [math.inf] * 3, [-math.inf] * 3
    if data is not None and data.GetNumberOfPoints() > 0:
        pd = data.GetPointData()
        glyph, radius = pd.GetArray("glyph"), pd.GetArray("radius")
        if glyph is None or radius is None:
            sys.exit("view.py: %s has no arrays glyph and radius: a frame of an older gpusim? Run it again" % pvd)
        for i in range(data.GetNumberOfPoints()):
            codes.add(int(glyph.GetValue(i)))
            r = radius.GetValue(i)
            radii.append(r)
            x = data.GetPoint(i)
            for k in range(3):
                lo3[k] = min(lo3[k], x[k] - r)
                hi3[k] = max(hi3[k], x[k] + r)

    speed_lut = GetColorTransferFunction("speed")
    speed_lut.ApplyPreset("Viridis (matplotlib)", True)
    lo, hi = frames.PointData["speed"].GetRange() if "speed" in frames.PointData.keys() else (0.0, 1.0)
    speed_lut.RescaleTransferFunction(lo, hi if hi > lo else lo + 1e-9)

    # One Tensor Glyph per glyph code present (vtk.GlyphSphere, GlyphBox,
    # GlyphCylinder): the unit shape x drawn at centre + glyph_tensor·x.
    shown = []
    for code, kind in ((0, "Sphere"), (1, "Box"), (2, "Cylinder")):
        if code not in codes:
            continue
        part = Threshold(registrationName="glyph %d" % code, Input=frames)
        part.Scalars = ["POINTS", "glyph"]
        part.LowerThreshold = code - 0.5
        part.UpperThreshold = code + 0.5
        try:
            part.ThresholdMethod = "Between"
        except AttributeError:
            pass
        g = tensor_glyph(part, kind, name=kind.lower() + "s")
        g.ColorGlyphs = 1
        g.Colorby = "input scalars"
        g.Scalars = ["POINTS", "speed"]
        d = Show(g, view)
        ColorBy(d, ("POINTS", "speed"))
        d.LookupTable = speed_lut
        d.Opacity = opacity
        shown.append(d)
    if shown:
        shown[0].SetScalarBarVisibility(view, True)

    bar = GetScalarBar(speed_lut, view)
    bar.Title = "speed (m/s)"
    bar.ComponentTitle = ""
    bar.TitleColor = bar.LabelColor = [0.1, 0.1, 0.1]

    container = os.path.join(here, "vtk", "container.vtp")
    if os.path.exists(container):
        fixed = XMLPolyDataReader(registrationName="fixed bodies", FileName=[container])
        d = Show(fixed, view)
        d.ColorArrayName = ["POINTS", ""]
        d.SetRepresentationType("Surface With Edges")
        d.AmbientColor = d.DiffuseColor = [0.55, 0.55, 0.6]
        d.EdgeColor = [0.3, 0.3, 0.35]
        d.Opacity = 0.15

    if network:
        net = PVDReader(registrationName="contacts.pvd", FileName=contacts)
        net.UpdatePipeline(t)
        fr = net.CellData["normal_force"].GetRange() if "normal_force" in net.CellData.keys() else (0.0, 0.0)
        pts = CellDatatoPointData(registrationName="contact points", Input=net)
        # Tube radius: a fifth of the median body radius, up to 3 times that
        # for the largest normal force.
        radii.sort()
        r0 = 0.2 * radii[len(radii) // 2] if radii else 0.01
        tube = Tube(registrationName="contact network", Input=pts)
        tube.Scalars = ["POINTS", "normal_force"]
        tube.VaryRadius = "By Scalar"
        tube.Radius = r0
        tube.RadiusFactor = 3.0
        tube.NumberofSides = 8
        d = Show(tube, view)
        ColorBy(d, ("POINTS", "normal_force"))
        force_lut = GetColorTransferFunction("normal_force")
        force_lut.ApplyPreset("Inferno (matplotlib)", True)
        force_lut.RescaleTransferFunction(max(0.0, fr[0]), fr[1] if fr[1] > max(0.0, fr[0]) else max(0.0, fr[0]) + 1e-9)
        d.LookupTable = force_lut
        d.SetScalarBarVisibility(view, True)
        fbar = GetScalarBar(force_lut, view)
        fbar.Title = "normal force (N)"
        fbar.ComponentTitle = ""
        fbar.TitleColor = fbar.LabelColor = [0.1, 0.1, 0.1]
        fbar.WindowLocation = "Upper Right Corner"

    # Camera: from 30° above the horizon, turned 35° about the vertical, the
    # bodies (not the container) filling the view. The first Render of
    # paraview.simple resets the camera to the whole scene, so it comes first.
    Render(view)
    u = UP
    n = math.sqrt(sum(c * c for c in u)) or 1.0
    u = [c / n for c in u]
    e = min(range(3), key=lambda k: abs(u[k]))
    a = [0.0, 0.0, 0.0]
    a[e] = 1.0
    d = sum(a[k] * u[k] for k in range(3))
    x = [a[k] - d * u[k] for k in range(3)]  # a horizontal direction
    n = math.sqrt(sum(c * c for c in x))
    x = [c / n for c in x]
    y = [u[1] * x[2] - u[2] * x[1], u[2] * x[0] - u[0] * x[2], u[0] * x[1] - u[1] * x[0]]
    el, az = math.radians(30), math.radians(35)
    dirn = [math.cos(el) * (-math.sin(az) * x[k] - math.cos(az) * y[k]) + math.sin(el) * u[k] for k in range(3)]
    if radii:
        focal = [(lo3[k] + hi3[k]) / 2 for k in range(3)]
    else:
        view.ResetCamera(False)
        focal = list(view.CameraFocalPoint)
    view.CameraFocalPoint = focal
    view.CameraPosition = [focal[k] + dirn[k] for k in range(3)]
    view.CameraViewUp = u
    if radii:
        view.ResetCamera(lo3[0], hi3[0], lo3[1], hi3[1], lo3[2], hi3[2])
        GetActiveCamera().Dolly(0.85)  # a margin around them
    else:
        view.ResetCamera(False)
    Render(view)

    if args.state:
        SaveState(args.state)
    if args.png:
        SaveScreenshot(args.png, view, ImageResolution=[w, h])
    if not args.png and not args.state:
        Interact(view)
