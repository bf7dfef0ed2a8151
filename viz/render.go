package viz

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/go-gl/mathgl/mgl64"
	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"

	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/geom"
	"github.com/gpusim/gpusim/scene"
	"github.com/gpusim/gpusim/vtk"
)

// RenderOptions set the picture.
type RenderOptions struct {
	// Width and Height in pixels (default 1024 × 768).
	Width, Height int
	// Caption is written in the top left corner.
	Caption string
	// Camera places the camera; nil frames Bounds (or, without Bounds,
	// the bodies) from the front right and above with a 30° field of view.
	Camera *Camera
	// Bounds is the box the automatic camera frames and whose size sets
	// the planes' squares (as vtk.PlaneSide does from the bodies); nil:
	// the box round this frame's bodies. A movie passes the box round
	// every frame (RunStats.Bounds), so the view does not jump.
	Bounds *Box
	// ColorBy is what the bodies are coloured by (default BySpeed).
	ColorBy Quantity
	// Range fixes the colour range [lo, hi] (lo < hi; values outside are
	// clamped to its ends); nil: the range of this frame's movable bodies
	// (ColorRange).
	Range *[2]float64
	// Force is the contact force of each body (N, Frame.Force), needed by
	// ByForce.
	Force []float64
}

// Camera is a camera set by hand: where it is, the point it looks at
// (the centre of the picture, z up on the picture unless it looks
// straight up or down, then y) and its field of view across the shorter
// side of the picture less the colour bar's margin.
type Camera struct {
	Pos, Target mgl64.Vec3 // m
	FOV         float64    // degrees, 0 < FOV < 180; 0 means 30
}

// Check reports what is wrong with the camera: a coordinate not finite,
// the position on the target, or a field of view out of (0°, 180°).
func (c *Camera) Check() error {
	if !finite(c.Pos) || !finite(c.Target) {
		return fmt.Errorf("camera position %v or target %v not finite", c.Pos, c.Target)
	}
	if c.Pos == c.Target {
		return fmt.Errorf("camera position and target are the same point (%g, %g, %g)", c.Pos[0], c.Pos[1], c.Pos[2])
	}
	if math.IsNaN(c.FOV) || c.FOV < 0 || c.FOV >= 180 {
		return fmt.Errorf("field of view %g°: want 0 < fov < 180", c.FOV)
	}
	return nil
}

// Box is an axis-aligned box, world frame (m).
type Box struct{ Min, Max mgl64.Vec3 }

// Frame is what a picture shows: the bodies, and where they came from.
type Frame struct {
	Bodies []vtk.Body
	// Source names the file(s) the bodies were read from.
	Source string
	// Time is the simulated time (s), NaN when unknown.
	Time float64
	// Index is the frame's index in run.pvd, −1 for a frame from
	// final.csv.
	Index int
	// Force is the contact force on each body (N, in the order of
	// Bodies): the sum of |f| over its contacts, f the normal and friction
	// force of a contact; nil until LoadForces.
	Force []float64
	file  string // the frame file, relative to the run's folder
}

// LoadFrame reads the bodies of a run for a picture: frame k (0-based, in
// the order of run.pvd; −1 for the last) of the run's ParaView frames when
// dir holds run.pvd; otherwise final.csv with the shapes of the scene in
// summary.json's scene_doc (k must then be −1).
func LoadFrame(dir string, k int) (*Frame, error) {
	pvd := filepath.Join(dir, vtk.PVD)
	sets, err := vtk.ReadPVD(pvd)
	switch {
	case err == nil:
		if len(sets) == 0 {
			return nil, fmt.Errorf("viz: %s lists no frames", pvd)
		}
		if k == -1 {
			k = len(sets) - 1
		}
		if k < 0 || k >= len(sets) {
			return nil, fmt.Errorf("viz: frame %d: %s has frames 0 to %d", k, pvd, len(sets)-1)
		}
		path := filepath.Join(dir, filepath.FromSlash(sets[k].File))
		p, err := vtk.ReadFile(path)
		if err != nil {
			return nil, err
		}
		bs, err := vtk.ReadBodies(p)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return &Frame{Bodies: bs, Source: path, Time: sets[k].Time, Index: k, file: sets[k].File}, nil
	case !errors.Is(err, os.ErrNotExist):
		return nil, err
	}
	if k != -1 {
		return nil, fmt.Errorf("viz: frame %d asked for, but %s has no ParaView frames (run with --vtk N)", k, dir)
	}
	return loadFinal(dir)
}

// loadFinal rebuilds the model from summary.json's scene_doc and takes the
// state from final.csv.
func loadFinal(dir string) (*Frame, error) {
	sumPath := filepath.Join(dir, "summary.json")
	data, err := os.ReadFile(sumPath)
	if err != nil {
		return nil, fmt.Errorf("viz: %s has neither run.pvd nor a readable summary.json: %w", dir, err)
	}
	var sum struct {
		Doc     json.RawMessage `json:"scene_doc"`
		SimTime *float64        `json:"sim_time_s"`
	}
	if err := json.Unmarshal(data, &sum); err != nil {
		return nil, fmt.Errorf("viz: %s: %w", sumPath, err)
	}
	if len(sum.Doc) == 0 || string(sum.Doc) == "null" {
		return nil, fmt.Errorf("viz: %s: no scene_doc to take the shapes from", sumPath)
	}
	sc, err := scene.Parse(sum.Doc, sumPath+" scene_doc", nil)
	if err != nil {
		return nil, fmt.Errorf("viz: %w", err)
	}
	finalPath := filepath.Join(dir, "final.csv")
	f, err := os.Open(finalPath)
	if err != nil {
		return nil, fmt.Errorf("viz: %w", err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("viz: %s: %w", finalPath, err)
	}
	want := []string{"id", "x", "y", "z", "qw", "qx", "qy", "qz", "vx", "vy", "vz", "wx", "wy", "wz"}
	if len(rows) == 0 || len(rows[0]) < len(want) {
		return nil, fmt.Errorf("viz: %s: want the header %v", finalPath, want)
	}
	for i, h := range want {
		if rows[0][i] != h {
			return nil, fmt.Errorf("viz: %s: column %d is %q, want %q", finalPath, i+1, rows[0][i], h)
		}
	}
	// A scene with a pour generator has len(Model.Bodies) bodies at t = 0
	// and up to TotalBodies by the end: final.csv holds those that entered.
	n := len(rows) - 1
	if n < len(sc.Model.Bodies) || n > sc.TotalBodies() {
		if sc.TotalBodies() == len(sc.Model.Bodies) {
			return nil, fmt.Errorf("viz: %s has %d bodies, the scene in %s has %d", finalPath, n, sumPath, len(sc.Model.Bodies))
		}
		return nil, fmt.Errorf("viz: %s has %d bodies, the scene in %s has %d to %d (bodies entering)", finalPath, n, sumPath, len(sc.Model.Bodies), sc.TotalBodies())
	}
	model := sc.ModelWith(n)
	var s engine.State
	s.Resize(n)
	omega := make([]mgl64.Vec3, n)
	for r, row := range rows[1:] {
		var v [14]float64
		for c := range v {
			x, err := strconv.ParseFloat(row[c], 64)
			if err != nil {
				return nil, fmt.Errorf("viz: %s: row %d, column %s: %q is not a number", finalPath, r+2, want[c], row[c])
			}
			v[c] = x
		}
		if v[0] != float64(r) {
			return nil, fmt.Errorf("viz: %s: row %d has id %v, want %d", finalPath, r+2, v[0], r)
		}
		copy(s.Pos[3*r:], v[1:4])
		copy(s.Rot[4*r:], v[4:8])
		copy(s.Vel[3*r:], v[8:11])
		omega[r] = mgl64.Vec3{v[11], v[12], v[13]}
	}
	bs, err := vtk.Bodies(model, &s)
	if err != nil {
		return nil, err
	}
	for i := range bs {
		bs[i].Omega = omega[i] // final.csv holds the world frame already
	}
	fr := &Frame{Bodies: bs, Source: finalPath + " with the shapes of " + sumPath, Time: math.NaN(), Index: -1}
	if sum.SimTime != nil {
		fr.Time = *sum.SimTime
	}
	return fr, nil
}

// viridis is the viridis colour map (van der Walt and Smith, Matplotlib)
// at 10 evenly spaced points, as R's viridisLite::viridis(10) gives it;
// colours between are interpolated linearly.
var viridis = [...][3]float64{
	{0x44, 0x01, 0x54}, {0x48, 0x28, 0x78}, {0x3E, 0x4A, 0x89}, {0x31, 0x68, 0x8E}, {0x26, 0x82, 0x8E},
	{0x1F, 0x9E, 0x89}, {0x35, 0xB7, 0x79}, {0x6D, 0xCD, 0x59}, {0xB4, 0xDE, 0x2C}, {0xFD, 0xE7, 0x25},
}

// colormap returns the viridis colour at u ∈ [0, 1] (clamped), 0…255 per
// channel.
func colormap(u float64) mgl64.Vec3 {
	u = math.Max(0, math.Min(1, u))
	x := u * float64(len(viridis)-1)
	i := min(int(x), len(viridis)-2)
	f := x - float64(i)
	a, b := viridis[i], viridis[i+1]
	return mgl64.Vec3{a[0] + f*(b[0]-a[0]), a[1] + f*(b[1]-a[1]), a[2] + f*(b[2]-a[2])}
}

// Colours of the picture.
var (
	background = color.RGBA{255, 255, 255, 255}
	wallFill   = mgl64.Vec3{120, 130, 150} // blended at wallAlpha
	wallEdge   = color.RGBA{70, 70, 80, 255}
	textColor  = color.RGBA{20, 20, 20, 255}
	plainColor = mgl64.Vec3{90, 140, 200} // the bodies' colour with ByNone
)

const (
	wallAlpha = 0.10
	barMargin = 110 // pixels on the right kept for the colour bar
)

// camera is a perspective camera: eye, orthonormal right, up and forward
// axes, focal length f in pixels and the image centre (cx, cy).
type camera struct {
	eye, right, up, fwd mgl64.Vec3
	f, cx, cy           float64
	near                float64
}

// viewDir is the default direction from the scene towards the camera:
// in front (−y), to the right (+x) and above (+z).
var viewDir = mgl64.Vec3{0.55, -1, 0.6}.Normalize()

// lookAt returns the camera at eye looking along fwd (unit), z up on
// the picture (y when fwd is along z), with a field of view of fov
// degrees across the shorter side of the picture less barMargin.
func lookAt(eye, fwd mgl64.Vec3, fov float64, w, h int) camera {
	usable := math.Min(float64(w-barMargin), float64(h))
	f := usable / 2 / math.Tan(fov*math.Pi/180/2)
	upHint := mgl64.Vec3{0, 0, 1}
	if fwd.Cross(upHint).Len() < 1e-6 {
		upHint = mgl64.Vec3{0, 1, 0}
	}
	right := fwd.Cross(upHint).Normalize()
	return camera{eye: eye, right: right, up: right.Cross(fwd), fwd: fwd,
		f: f, cx: float64(w-barMargin) / 2, cy: float64(h) / 2}
}

// userCamera is the camera of c in a w × h picture.
func userCamera(c *Camera, w, h int) camera {
	fov := c.FOV
	if fov == 0 {
		fov = 30
	}
	d := c.Target.Sub(c.Pos)
	cam := lookAt(c.Pos, d.Normalize(), fov, w, h)
	cam.near = 1e-4 * d.Len()
	return cam
}

// toCamera returns the camera coordinates (right, up, depth) of p.
func (c *camera) toCamera(p mgl64.Vec3) mgl64.Vec3 {
	d := p.Sub(c.eye)
	return mgl64.Vec3{d.Dot(c.right), d.Dot(c.up), d.Dot(c.fwd)}
}

// project returns the pixel coordinates of a point in camera coordinates
// (depth > 0).
func (c *camera) project(q mgl64.Vec3) (x, y float64) {
	return c.cx + c.f*q[0]/q[2], c.cy - c.f*q[1]/q[2]
}

// ray returns the direction through the centre of pixel (px, py), scaled
// so that its forward component is 1: the ray parameter is the depth.
func (c *camera) ray(px, py int) mgl64.Vec3 {
	sx := (float64(px) + 0.5 - c.cx) / c.f
	sy := (c.cy - float64(py) - 0.5) / c.f
	return c.fwd.Add(c.right.Mul(sx)).Add(c.up.Mul(sy))
}

// Bounds returns the box round the bodies that are not planes (boxes by
// their own axis-aligned bounds, the others by centre ± bounding radius:
// a container's thin walls have bounding spheres as wide as the walls
// are long, which would frame a picture several times too large), or,
// with planes only, round unit squares about the planes' points.
func Bounds(bs []vtk.Body) Box {
	lo := mgl64.Vec3{math.Inf(1), math.Inf(1), math.Inf(1)}
	hi := lo.Mul(-1)
	add := func(p, e mgl64.Vec3) {
		for k := range 3 {
			lo[k], hi[k] = math.Min(lo[k], p[k]-e[k]), math.Max(hi[k], p[k]+e[k])
		}
	}
	for i := range bs {
		b := &bs[i]
		switch b.Kind {
		case engine.Plane:
		case engine.Box:
			// Half-extents of the rotated box: Σ_j |R_kj| e_j.
			m := b.Rot.Normalize().Mat4()
			var e mgl64.Vec3
			for k := range 3 {
				for j := range 3 {
					e[k] += math.Abs(m.At(k, j)) * b.SemiAxes[j]
				}
			}
			add(b.Pos, e)
		default:
			r := b.Radius()
			add(b.Pos, mgl64.Vec3{r, r, r})
		}
	}
	if lo[0] > hi[0] {
		for i := range bs {
			add(bs[i].Pos, mgl64.Vec3{0.5, 0.5, 0.5})
		}
	}
	return Box{lo, hi}
}

// union returns the box round a and b.
func (a Box) union(b Box) Box {
	for k := range 3 {
		a.Min[k], a.Max[k] = math.Min(a.Min[k], b.Min[k]), math.Max(a.Max[k], b.Max[k])
	}
	return a
}

// AutoCamera returns the camera that Draw uses without RenderOptions.Camera
// to frame the box b (Bounds, RunStats.Bounds): from the front right and
// above, 30° field of view, the box's bounding sphere and an 8% margin in
// the picture.
func AutoCamera(b Box) Camera {
	c, d := autoView(b)
	return Camera{Pos: c.Add(viewDir.Mul(d)), Target: c, FOV: 30}
}

// autoView returns the centre of the box b and the distance from it of
// the automatic camera: its bounding sphere in a 30° field of view with
// an 8% margin.
func autoView(b Box) (c mgl64.Vec3, d float64) {
	c = b.Min.Add(b.Max).Mul(0.5)
	r := math.Max(b.Max.Sub(b.Min).Len()/2, 1e-9)
	return c, 1.08 * r / math.Sin(30*math.Pi/180/2)
}

// boxCamera frames the box b in a w × h picture with barMargin pixels on
// the right kept free (AutoCamera), z up.
func boxCamera(b Box, w, h int) camera {
	c, d := autoView(b)
	cam := lookAt(c.Add(viewDir.Mul(d)), viewDir.Mul(-1), 30, w, h)
	cam.near = 1e-3 * d
	return cam
}

// picture is the frame buffer: colour and depth per pixel.
type picture struct {
	w, h  int
	img   *image.RGBA
	depth []float64
}

// Draw renders the bodies: spheres, ellipsoids and movable boxes ray-cast
// per pixel with a depth buffer, lit by a light over the camera's left
// shoulder and coloured by opt.ColorBy on the viridis map, with a colour
// bar of the range (opt.Range, or this frame's: ColorRange); fixed boxes
// and planes (the container, planes as squares) as translucent faces with
// dark edges.
func Draw(bs []vtk.Body, opt RenderOptions) (*image.RGBA, error) {
	w, h := opt.Width, opt.Height
	if w == 0 && h == 0 {
		w, h = 1024, 768
	}
	if w < barMargin+100 || h < 100 || w > 16384 || h > 16384 {
		return nil, fmt.Errorf("viz: picture size %d × %d: want %d to 16384 by 100 to 16384 pixels", w, h, barMargin+100)
	}
	if len(bs) == 0 {
		return nil, errors.New("viz: no bodies to draw")
	}
	for i := range bs {
		b := &bs[i]
		if !finite(b.Pos) || !finite(b.Vel) || !finite(b.SemiAxes) || math.IsNaN(b.Rot.Len()) || math.IsInf(b.Rot.Len(), 0) || b.Rot.Len() == 0 {
			return nil, fmt.Errorf("viz: body %d: position, velocity, size or orientation not finite", b.ID)
		}
	}
	if opt.ColorBy < 0 || opt.ColorBy >= numQuantities {
		return nil, fmt.Errorf("viz: colour by %d: no such quantity", int(opt.ColorBy))
	}
	if opt.ColorBy == ByForce && len(opt.Force) != len(bs) {
		return nil, fmt.Errorf("viz: colour by force: %d contact forces for %d bodies (the run's contact frames are needed)", len(opt.Force), len(bs))
	}
	var lo, hi float64
	if opt.Range != nil {
		lo, hi = opt.Range[0], opt.Range[1]
		if !(lo < hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
			return nil, fmt.Errorf("viz: colour range [%g, %g]: want finite lo < hi", lo, hi)
		}
	} else {
		lo, hi = ColorRange(opt.ColorBy, bs, opt.Force)
	}
	var cam camera
	box := Bounds(bs)
	if opt.Bounds != nil {
		box = *opt.Bounds
	}
	switch {
	case opt.Camera != nil:
		if err := opt.Camera.Check(); err != nil {
			return nil, fmt.Errorf("viz: %w", err)
		}
		cam = userCamera(opt.Camera, w, h)
	default:
		cam = boxCamera(box, w, h)
	}
	pic := &picture{w: w, h: h, img: image.NewRGBA(image.Rect(0, 0, w, h)), depth: make([]float64, w*h)}
	for i := range pic.depth {
		pic.depth[i] = math.Inf(1)
		pic.img.Pix[4*i], pic.img.Pix[4*i+1], pic.img.Pix[4*i+2], pic.img.Pix[4*i+3] = background.R, background.G, background.B, 255
	}
	light := cam.fwd.Mul(-1).Add(cam.up.Mul(0.8)).Sub(cam.right.Mul(0.5)).Normalize()
	for i := range bs {
		b := &bs[i]
		if b.Kind == engine.Plane || b.Kind == engine.Mesh || (b.Kind == engine.Box && b.Fixed) {
			continue // walls and floors (a mesh is drawn by ParaView from its file)
		}
		c := plainColor
		if opt.ColorBy != ByNone {
			u := 0.0
			if hi > lo {
				u = (opt.ColorBy.value(bs, i, opt.Force) - lo) / (hi - lo)
			}
			c = colormap(u)
		}
		pic.body(&cam, b, c, light)
	}
	side := 1.0
	if box.Min[0] <= box.Max[0] {
		e := box.Max.Sub(box.Min)
		side = 2 * math.Max(e[0], math.Max(e[1], e[2]))
	}
	pic.container(&cam, vtk.ContainerPolyData(bs, side))
	if opt.ColorBy != ByNone {
		pic.colorBar(opt.ColorBy, lo, hi)
	}
	if opt.Caption != "" {
		// On a white band, readable over the walls.
		for y := 6; y < min(h, 25); y++ {
			for x := 7; x < min(w-barMargin, 13+7*len([]rune(opt.Caption))); x++ {
				pic.blend(x, y, mgl64.Vec3{255, 255, 255}, 0.8)
			}
		}
		pic.text(10, 20, opt.Caption)
	}
	return pic.img, nil
}

func finite(v mgl64.Vec3) bool {
	return !math.IsNaN(v.Dot(v)) && !math.IsInf(v.Dot(v), 0)
}

// Quantity is what the bodies are coloured by.
type Quantity int

const (
	BySpeed Quantity = iota // |v| (m/s)
	ByZ                     // height of the centre of mass (m)
	ByID                    // the body's index in the scene
	ByForce                 // contact force: Σ|f| over the body's contacts (N), Frame.Force
	ByNone                  // one colour, no colour bar
	numQuantities
)

var quantityNames = [numQuantities]string{"speed", "z", "id", "force", "none"}

// Quantities lists the names ParseQuantity takes.
func Quantities() []string { return quantityNames[:] }

func (q Quantity) String() string {
	if q < 0 || q >= numQuantities {
		return fmt.Sprintf("Quantity(%d)", int(q))
	}
	return quantityNames[q]
}

// ParseQuantity returns the quantity of a name of Quantities.
func ParseQuantity(s string) (Quantity, error) {
	for q, n := range quantityNames {
		if s == n {
			return Quantity(q), nil
		}
	}
	return 0, fmt.Errorf("%q: want one of %s", s, strings.Join(quantityNames[:], ", "))
}

// Label returns the quantity's name and unit (SI, "" for none) as the
// colour bar heads them.
func (q Quantity) Label() (name, unit string) {
	switch q {
	case BySpeed:
		return "speed", "m/s"
	case ByZ:
		return "height z", "m"
	case ByID:
		return "body id", ""
	case ByForce:
		return "contact force", "N"
	}
	return q.String(), ""
}

// value returns the quantity of body i.
func (q Quantity) value(bs []vtk.Body, i int, force []float64) float64 {
	switch q {
	case BySpeed:
		return bs[i].Vel.Len()
	case ByZ:
		return bs[i].Pos[2]
	case ByID:
		return float64(bs[i].ID)
	case ByForce:
		return force[i]
	}
	return 0
}

// ColorRange returns the smallest and largest value of q over the bodies
// that are neither fixed nor planes (over all bodies if every one is);
// force is Frame.Force for ByForce. ByNone gives 0, 0.
func ColorRange(q Quantity, bs []vtk.Body, force []float64) (lo, hi float64) {
	if q == ByNone {
		return 0, 0
	}
	lo, hi = math.Inf(1), math.Inf(-1)
	for pass := 0; pass < 2 && lo > hi; pass++ {
		for i := range bs {
			if pass == 0 && bs[i].Fixed {
				continue
			}
			s := q.value(bs, i, force)
			lo, hi = math.Min(lo, s), math.Max(hi, s)
		}
	}
	return lo, hi
}

// body ray-casts one body over the screen rectangle of its bounding
// sphere.
func (p *picture) body(cam *camera, b *vtk.Body, base, light mgl64.Vec3) {
	r := b.Radius()
	q := cam.toCamera(b.Pos)
	if q[2]+r <= cam.near {
		return // behind the camera (one set by hand)
	}
	x0, y0 := math.Inf(1), math.Inf(1)
	x1, y1 := math.Inf(-1), math.Inf(-1)
	if q[2]-r <= cam.near {
		// Across the camera's plane: the whole picture (the ray cast
		// keeps what is in front).
		x0, y0, x1, y1 = 0, 0, float64(p.w-1), float64(p.h-1)
	}
	for _, dx := range []float64{-r, r} {
		if q[2]-r <= cam.near {
			break
		}
		for _, dz := range []float64{-r, r} {
			sx := cam.cx + cam.f*(q[0]+dx)/(q[2]+dz)
			sy := cam.cy - cam.f*(q[1]-dx)/(q[2]+dz)
			sy2 := cam.cy - cam.f*(q[1]+dx)/(q[2]+dz)
			x0, x1 = math.Min(x0, sx), math.Max(x1, sx)
			y0, y1 = math.Min(y0, math.Min(sy, sy2)), math.Max(y1, math.Max(sy, sy2))
		}
	}
	inv := b.Rot.Normalize().Conjugate()
	rot := b.Rot.Normalize()
	o := inv.Rotate(cam.eye.Sub(b.Pos))
	for py := max(0, int(y0)); py <= min(p.h-1, int(y1)); py++ {
		for px := max(0, int(x0)); px <= min(p.w-1, int(x1)); px++ {
			d := inv.Rotate(cam.ray(px, py))
			t, n, ok := hit(b, o, d)
			if !ok || t >= p.depth[py*p.w+px] {
				continue
			}
			p.depth[py*p.w+px] = t
			nw := rot.Rotate(n).Normalize()
			shade := 0.3 + 0.7*math.Max(0, nw.Dot(light))
			p.set(px, py, base.Mul(shade))
		}
	}
}

// hit intersects the ray o + t·d (body frame) with the body's shape and
// returns the first t > 0 and the outward normal there (body frame).
func hit(b *vtk.Body, o, d mgl64.Vec3) (float64, mgl64.Vec3, bool) {
	a := b.SemiAxes
	if b.Kind == engine.Convex && b.Hull != nil {
		return hitHull(b.Hull, o, d)
	}
	if b.Kind == engine.Compound && b.Parts != nil {
		return hitParts(b.Parts.Parts, o, d)
	}
	switch b.Kind {
	case engine.Capsule:
		return hitCapsule(a[0], a[1], o, d)
	case engine.Cylinder:
		return hitCylinder(a[0], a[1], o, d)
	case engine.Sphere, engine.Ellipsoid, engine.Compound, engine.Convex:
		os := mgl64.Vec3{o[0] / a[0], o[1] / a[1], o[2] / a[2]}
		ds := mgl64.Vec3{d[0] / a[0], d[1] / a[1], d[2] / a[2]}
		A, B, C := ds.Dot(ds), os.Dot(ds), os.Dot(os)-1
		disc := B*B - A*C
		if disc < 0 {
			return 0, mgl64.Vec3{}, false
		}
		t := (-B - math.Sqrt(disc)) / A
		if t <= 0 {
			return 0, mgl64.Vec3{}, false
		}
		x := o.Add(d.Mul(t))
		return t, mgl64.Vec3{x[0] / (a[0] * a[0]), x[1] / (a[1] * a[1]), x[2] / (a[2] * a[2])}, true
	case engine.Box:
		tin, tout := math.Inf(-1), math.Inf(1)
		var n mgl64.Vec3
		for k := range 3 {
			if d[k] == 0 {
				if math.Abs(o[k]) > a[k] {
					return 0, mgl64.Vec3{}, false
				}
				continue
			}
			t0, t1 := (-a[k]-o[k])/d[k], (a[k]-o[k])/d[k]
			s := -1.0
			if t0 > t1 {
				t0, t1, s = t1, t0, 1
			}
			if t0 > tin {
				tin = t0
				n = mgl64.Vec3{}
				n[k] = s
			}
			tout = math.Min(tout, t1)
		}
		if tin > tout || tin <= 0 {
			return 0, mgl64.Vec3{}, false
		}
		return tin, n, true
	}
	return 0, mgl64.Vec3{}, false
}

func (p *picture) set(x, y int, c mgl64.Vec3) {
	i := 4 * (y*p.w + x)
	p.img.Pix[i] = uint8(math.Round(math.Max(0, math.Min(255, c[0]))))
	p.img.Pix[i+1] = uint8(math.Round(math.Max(0, math.Min(255, c[1]))))
	p.img.Pix[i+2] = uint8(math.Round(math.Max(0, math.Min(255, c[2]))))
	p.img.Pix[i+3] = 255
}

func (p *picture) blend(x, y int, c mgl64.Vec3, alpha float64) {
	i := 4 * (y*p.w + x)
	old := mgl64.Vec3{float64(p.img.Pix[i]), float64(p.img.Pix[i+1]), float64(p.img.Pix[i+2])}
	p.set(x, y, old.Mul(1-alpha).Add(c.Mul(alpha)))
}

// container draws the polygons translucent where nothing opaque is in
// front of them, then their edges where they are visible.
func (p *picture) container(cam *camera, pd *vtk.PolyData) {
	pt := func(id int64) mgl64.Vec3 {
		return mgl64.Vec3{pd.Points[3*id], pd.Points[3*id+1], pd.Points[3*id+2]}
	}
	for c := range pd.Polys.Len() {
		ids := pd.Polys.Cell(c)
		var poly []mgl64.Vec3 // camera coordinates
		for _, id := range ids {
			poly = append(poly, cam.toCamera(pt(id)))
		}
		poly = clipNear(poly, cam.near)
		if len(poly) < 3 {
			continue
		}
		p.fill(cam, poly)
		for k := range poly {
			p.edge(cam, poly[k], poly[(k+1)%len(poly)])
		}
	}
}

// clipNear cuts a convex polygon (camera coordinates) to depth ≥ near.
func clipNear(poly []mgl64.Vec3, near float64) []mgl64.Vec3 {
	var out []mgl64.Vec3
	for k := range poly {
		a, b := poly[k], poly[(k+1)%len(poly)]
		if a[2] >= near {
			out = append(out, a)
		}
		if (a[2] >= near) != (b[2] >= near) {
			t := (near - a[2]) / (b[2] - a[2])
			out = append(out, a.Add(b.Sub(a).Mul(t)))
		}
	}
	return out
}

// fill blends a convex polygon (camera coordinates, in front of the
// camera) into the pixels where it is nearer than the depth buffer.
func (p *picture) fill(cam *camera, poly []mgl64.Vec3) {
	xs := make([][2]float64, len(poly))
	x0, y0 := math.Inf(1), math.Inf(1)
	x1, y1 := math.Inf(-1), math.Inf(-1)
	for k, q := range poly {
		x, y := cam.project(q)
		xs[k] = [2]float64{x, y}
		x0, x1 = math.Min(x0, x), math.Max(x1, x)
		y0, y1 = math.Min(y0, y), math.Max(y1, y)
	}
	n := poly[1].Sub(poly[0]).Cross(poly[2].Sub(poly[0]))
	for k := 3; n.Len() == 0 && k < len(poly); k++ {
		n = poly[1].Sub(poly[0]).Cross(poly[k].Sub(poly[0]))
	}
	// Camera-frame ray through pixel (x, y): (sx, sy, 1)·t, t the depth.
	for py := max(0, int(y0)); py <= min(p.h-1, int(y1)); py++ {
		for px := max(0, int(x0)); px <= min(p.w-1, int(x1)); px++ {
			fx, fy := float64(px)+0.5, float64(py)+0.5
			if !insideConvex(xs, fx, fy) {
				continue
			}
			ray := mgl64.Vec3{(fx - cam.cx) / cam.f, (cam.cy - fy) / cam.f, 1}
			den := n.Dot(ray)
			if den == 0 {
				continue
			}
			if t := n.Dot(poly[0]) / den; t > 0 && t < p.depth[py*p.w+px] {
				p.blend(px, py, wallFill, wallAlpha)
			}
		}
	}
}

// insideConvex reports whether (x, y) is inside the convex polygon of
// either winding.
func insideConvex(xs [][2]float64, x, y float64) bool {
	pos, neg := false, false
	for k := range xs {
		a, b := xs[k], xs[(k+1)%len(xs)]
		c := (b[0]-a[0])*(y-a[1]) - (b[1]-a[1])*(x-a[0])
		pos, neg = pos || c > 0, neg || c < 0
	}
	return !(pos && neg)
}

// edge draws the segment ab (camera coordinates, in front of the camera)
// where it is not behind a body.
func (p *picture) edge(cam *camera, a, b mgl64.Vec3) {
	ax, ay := cam.project(a)
	bx, by := cam.project(b)
	n := int(math.Min(2*math.Hypot(bx-ax, by-ay)+1, 4*float64(p.w+p.h)))
	for i := 0; i <= n; i++ {
		q := a.Add(b.Sub(a).Mul(float64(i) / float64(max(n, 1))))
		x, y := cam.project(q)
		px, py := int(math.Floor(x)), int(math.Floor(y))
		if px < 0 || py < 0 || px >= p.w || py >= p.h {
			continue
		}
		// The depth buffer holds the ray parameter, which is the depth.
		if q[2] <= p.depth[py*p.w+px]*(1+1e-9) {
			p.set(px, py, mgl64.Vec3{float64(wallEdge.R), float64(wallEdge.G), float64(wallEdge.B)})
		}
	}
}

// colorBar draws the viridis bar in the right margin, headed by the
// quantity and its unit, with lo, hi and the middle value beside it.
func (p *picture) colorBar(q Quantity, lo, hi float64) {
	x0 := p.w - barMargin + 20
	top, bottom := p.h/6, p.h-p.h/6
	for y := top; y <= bottom; y++ {
		c := colormap(float64(bottom-y) / float64(bottom-top))
		for x := x0; x < x0+20; x++ {
			p.set(x, y, c)
		}
	}
	name, unit := q.Label()
	p.text(x0-10, top-22, name)
	if unit != "" {
		p.text(x0-10, top-8, "("+unit+")")
	}
	p.text(x0+24, top+5, barLabel(q, hi))
	if hi > lo {
		p.text(x0+24, (top+bottom)/2+5, barLabel(q, (lo+hi)/2))
	}
	p.text(x0+24, bottom+5, barLabel(q, lo))
}

// barLabel formats a value of the colour bar: body ids as integers,
// the rest to 3 significant digits.
func barLabel(q Quantity, v float64) string {
	if q == ByID && v == math.Trunc(v) && math.Abs(v) < 1e9 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

// text writes s with its baseline at (x, y) in a 7 × 13 pixel font.
func (p *picture) text(x, y int, s string) {
	d := font.Drawer{Dst: p.img, Src: image.NewUniform(textColor), Face: basicfont.Face7x13, Dot: fixed.P(x, y)}
	d.DrawString(s)
}

// hitCylinder intersects the ray o + t·d with the cylinder of radius r
// about the z axis between z = ±h: the side (hitSide) or a cap (z = ±h
// within the rim), whichever is hit first.
func hitCylinder(r, h float64, o, d mgl64.Vec3) (float64, mgl64.Vec3, bool) {
	best, n := hitSide(r, h, o, d)
	if d[2] != 0 {
		for _, zc := range []float64{-h, h} {
			t := (zc - o[2]) / d[2]
			x, y := o[0]+t*d[0], o[1]+t*d[1]
			if t > 0 && t < best && x*x+y*y <= r*r {
				best, n = t, mgl64.Vec3{0, 0, math.Copysign(1, zc)}
			}
		}
	}
	return best, n, !math.IsInf(best, 1)
}

// hitCapsule intersects the ray o + t·d with the capsule of radius r about
// the segment z in [−h, h]: its side (hitSide) or an end ball, whichever
// is hit first.
func hitCapsule(r, h float64, o, d mgl64.Vec3) (float64, mgl64.Vec3, bool) {
	best, n := hitSide(r, h, o, d)
	for _, zc := range []float64{-h, h} {
		oc := o.Sub(mgl64.Vec3{0, 0, zc})
		A, B, C := d.Dot(d), oc.Dot(d), oc.Dot(oc)-r*r
		if disc := B*B - A*C; disc >= 0 {
			if t := (-B - math.Sqrt(disc)) / A; t > 0 && t < best {
				best, n = t, oc.Add(d.Mul(t))
			}
		}
	}
	return best, n, !math.IsInf(best, 1)
}

// hitSide returns the first t > 0 where the ray o + t·d meets the side
// |(x, y)| = r between z = ±h, and the outward normal there; +Inf when it
// does not.
func hitSide(r, h float64, o, d mgl64.Vec3) (float64, mgl64.Vec3) {
	if A := d[0]*d[0] + d[1]*d[1]; A > 0 {
		B, C := o[0]*d[0]+o[1]*d[1], o[0]*o[0]+o[1]*o[1]-r*r
		if disc := B*B - A*C; disc >= 0 {
			t := (-B - math.Sqrt(disc)) / A
			if z := o[2] + t*d[2]; t > 0 && math.Abs(z) <= h {
				return t, mgl64.Vec3{o[0] + t*d[0], o[1] + t*d[1], 0}
			}
		}
	}
	return math.Inf(1), mgl64.Vec3{}
}

// hitHull intersects the ray o + t·d with a convex hull (Cyrus–Beck: the
// ray enters at the latest entry through a face plane and leaves at the
// earliest exit; it hits when it enters before it leaves).
func hitHull(h *geom.Hull, o, d mgl64.Vec3) (float64, mgl64.Vec3, bool) {
	tin, tout := math.Inf(-1), math.Inf(1)
	var n mgl64.Vec3
	for _, f := range h.Faces {
		num, den := f.Offset-f.Normal.Dot(o), f.Normal.Dot(d)
		switch {
		case den == 0:
			if num < 0 {
				return 0, mgl64.Vec3{}, false
			}
		case den < 0: // entering
			if t := num / den; t > tin {
				tin, n = t, f.Normal
			}
		default:
			tout = math.Min(tout, num/den)
		}
	}
	if tin > tout || tin <= 0 {
		return 0, mgl64.Vec3{}, false
	}
	return tin, n, true
}

// hitParts intersects the ray o + t·d (body frame) with a compound's
// parts, each in its own frame, and returns the nearest hit with its
// normal in the body frame.
func hitParts(parts []engine.Part, o, d mgl64.Vec3) (float64, mgl64.Vec3, bool) {
	best, n, ok := math.Inf(1), mgl64.Vec3{}, false
	for _, p := range parts {
		inv := p.Rot.Conjugate()
		pb := vtk.Body{Kind: p.Shape.Kind, SemiAxes: p.Shape.Size, Hull: p.Shape.Hull}
		if p.Shape.Kind == engine.Sphere {
			r := p.Shape.Size[0]
			pb.SemiAxes = mgl64.Vec3{r, r, r}
		}
		if t, m, hit := hit(&pb, inv.Rotate(o.Sub(p.Pos)), inv.Rotate(d)); hit && t < best {
			best, n, ok = t, p.Rot.Rotate(m), true
		}
	}
	return best, n, ok
}
