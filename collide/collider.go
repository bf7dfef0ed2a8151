package collide

import (
	"fmt"
	"slices"
	"sort"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/engine"
)

// Collider is collision detection on the host, shared by Backend and the
// Vulkan backend's host path: the model's constant per-body data that
// collision needs, the grid and its buffers, the contacts of the last
// Collide with the body → contact adjacency, and the contact keys kept for
// the next warm start. It is not safe for concurrent use.
type Collider struct {
	n        int
	shapeOf  []uint32       // body → its shape in shapeTab (Shape)
	shapeTab []engine.Shape // the distinct shapes: 4 B per body instead of 56
	material []int32
	fixed    []bool   // infinite mass in the solve: fixed, planes and kinematic bodies
	moving   []bool   // kinematic bodies (fixed, yet they move)
	exclude  []uint64 // body pairs that do not collide (jointed), a<<32|b with a < b, sorted
	mats     []engine.Material
	gravity  mgl64.Vec3
	dt       float64  // the settings' step, for the speculative margins (s)
	envelope float64  // m
	binSize  float64  // m
	parts    *partSet // the bodies' shapes when some are compounds, else nil

	grid    Grid
	boxes   []AABB    // per part (per body without compounds), as bounded; a plane's: PlaneBox
	margin  []float64 // speculative margin per body (m), see Collide
	bounded []bool
	pairs   [][2]int32 // candidate pairs of parts
	cps     []ContactPoint

	con    engine.Contacts
	sub    []int32 // index of a contact among those of its body pair
	adjOff []int32 // body → contact list (CSR offsets), n+1
	adj    []int32 // contact index ·2 + side (0: A, 1: B)

	// Warm start: the keys of the last integrated step's contacts.
	prevA, prevB, prevSub []int32

	// Collide's loops on a Runner (parallel.go, bound).
	// rolling: some material has rolling or spinning friction; else the
	// contacts' Rolling and Spinning stay empty (engine.Contacts reads
	// missing coefficients as 0): 16 B per contact less.
	rolling bool

	runner   Runner
	bargs    boundArgs
	boundFn  func(part, lo, hi int)
	keepFn   func(a, b int32) bool // mayTouch, the grid's filter
	fpos     []float64             // the positions mayTouch reads, during Pairs
	narrowFn func(part, lo, hi int)
	wave     []narrowPart
	nargs    narrowArgs
}

// Load takes the model's constant collision data (shapes, materials,
// fixed flags, gravity) and the settings' step, envelope and bin size, the
// latter two given their automatic values when zero: the envelope 5 % of
// the least bounding radius of a movable body, the bin size two bounding
// diameters of the median movable body plus twice the envelope. Fixed
// bodies are those marked so, planes and kinematic bodies (engine.Body.Static:
// no contacts among them); two bodies joined by a joint without Collide
// never collide with each other, nor do two parts of one compound body;
// with compounds, the envelope and bin size come from the parts' bounding
// radii. The model must be valid; Load forgets the runner (SetRunner), the
// last contacts and warm-start keys.
func (c *Collider) Load(m *engine.Model, s *engine.Settings) {
	n := len(m.Bodies)
	*c = Collider{grid: c.grid, pairs: c.pairs[:0], cps: c.cps[:0], con: c.con,
		sub: c.sub[:0], adj: c.adj[:0], prevA: c.prevA[:0], prevB: c.prevB[:0], prevSub: c.prevSub[:0]}
	c.con.Resize(0)
	c.grid.SetRunner(nil) // as c.runner: SetRunner again after Load
	c.n = n
	c.mats = append([]engine.Material(nil), m.Materials...)
	c.rolling = m.HasRolling()
	c.gravity = m.Gravity
	c.dt = s.Dt
	c.shapeOf = make([]uint32, n)
	c.shapeTab = c.shapeTab[:0]
	tab := map[engine.Shape]uint32{}
	c.material = make([]int32, n)
	c.fixed = make([]bool, n)
	c.moving = make([]bool, n)
	c.parts = newPartSet(m)
	np := n
	if c.parts != nil {
		np = len(c.parts.body)
	}
	c.boxes = make([]AABB, np)
	c.margin = make([]float64, n)
	c.bounded = make([]bool, np)
	c.adjOff = make([]int32, n+1)
	var radii []float64
	for i := range m.Bodies {
		bd := &m.Bodies[i]
		k, ok := tab[bd.Shape]
		if !ok {
			k = uint32(len(c.shapeTab))
			tab[bd.Shape] = k
			c.shapeTab = append(c.shapeTab, bd.Shape)
		}
		c.shapeOf[i] = k
		c.material[i] = int32(bd.Material)
		c.fixed[i] = bd.Static()
		c.moving[i] = bd.Kinematic()
		if !c.fixed[i] && c.parts == nil {
			radii = append(radii, bd.Shape.BoundingRadius())
		}
	}
	if ps := c.parts; ps != nil {
		for e, s := range ps.shape {
			if !ps.fixed[e] {
				radii = append(radii, s.BoundingRadius())
			}
		}
	}
	c.exclude = c.exclude[:0]
	for _, j := range m.Joints {
		if j.Collide || j.Body2 == engine.World {
			continue
		}
		a, b := min(j.Body1, j.Body2), max(j.Body1, j.Body2)
		c.exclude = append(c.exclude, uint64(a)<<32|uint64(b))
	}
	slices.Sort(c.exclude)
	c.envelope = s.Envelope
	c.binSize = s.BinSize
	if len(radii) > 0 {
		sort.Float64s(radii)
		if c.envelope == 0 {
			c.envelope = 0.05 * radii[0]
		}
		if c.binSize == 0 {
			// Two bounding diameters (plus envelope): measured ~30% faster than
			// one in BenchmarkGridPairs.
			c.binSize = 2 * (2*radii[len(radii)/2] + 2*c.envelope)
		}
	} else if c.binSize == 0 {
		c.binSize = 1
	}
}

// Bodies returns the number of bodies loaded.
func (c *Collider) Bodies() int { return c.n }

// Shape returns body i's shape (shared by the bodies of the same shape: do
// not modify).
func (c *Collider) Shape(i int) *engine.Shape { return &c.shapeTab[c.shapeOf[i]] }

// Materials returns the bodies' material indices (not a copy).
func (c *Collider) Materials() []int32 { return c.material }

// MaterialTable returns the model's materials (not a copy).
func (c *Collider) MaterialTable() []engine.Material { return c.mats }

// Fixed returns the bodies' fixed flags, true for planes and kinematic
// bodies (not a copy).
func (c *Collider) Fixed() []bool { return c.fixed }

// ExcludedPairs returns the body pairs that never collide (jointed
// without Collide), each a<<32 | b with a < b, sorted; the caller must not
// modify it.
func (c *Collider) ExcludedPairs() []uint64 { return c.exclude }

// Gravity returns the model's gravity (m/s²).
func (c *Collider) Gravity() mgl64.Vec3 { return c.gravity }

// BodyArrays holds the bodies' state and constants in engine.State's flat
// layouts: Pos, Vel, Omega, InvInertia, Force and Torque 3 per body, Rot
// 4 (w, x, y, z), InvMass 1. SI units: m, m/s, rad/s (body frame),
// 1/kg, 1/(kg·m²) (principal axes), N, N·m. In a model without loads
// (engine.Model.HasLoads; most have none), Force and
// Torque hold one body's +0s, which every body reads (LoadAt): 48 B per
// body less, the same values.
type BodyArrays struct {
	Pos, Rot, Vel, Omega []float64
	InvMass, InvInertia  []float64
	Force, Torque        []float64
}

// BodyArrays copies m's bodies into new flat arrays, as both backends load
// them: orientations are normalised, and fixed bodies (Fixed: planes and
// kinematic bodies) get zero velocity and inverse mass. Call it after
// Load with the same model.
func (c *Collider) BodyArrays(m *engine.Model) BodyArrays {
	n := len(m.Bodies)
	a := BodyArrays{
		Pos: make([]float64, 3*n), Rot: make([]float64, 4*n),
		Vel: make([]float64, 3*n), Omega: make([]float64, 3*n),
		InvMass: make([]float64, n), InvInertia: make([]float64, 3*n),
	}
	nl := 1 // bodies whose loads are held
	if m.HasLoads() {
		nl = n
	}
	a.Force, a.Torque = make([]float64, 3*nl), make([]float64, 3*nl)
	for i := range m.Bodies {
		bd := &m.Bodies[i]
		q := bd.Rot.Normalize()
		copy(a.Pos[3*i:], bd.Pos[:])
		a.Rot[4*i], a.Rot[4*i+1], a.Rot[4*i+2], a.Rot[4*i+3] = q.W, q.V[0], q.V[1], q.V[2]
		if nl == n {
			copy(a.Force[3*i:], bd.Force[:])
			copy(a.Torque[3*i:], bd.Torque[:])
		}
		if c.fixed[i] {
			continue
		}
		copy(a.Vel[3*i:], bd.Vel[:])
		copy(a.Omega[3*i:], bd.Omega[:])
		a.InvMass[i] = 1 / bd.Mass
		for k := 0; k < 3; k++ {
			a.InvInertia[3*i+k] = 1 / bd.Inertia[k]
		}
	}
	return a
}

// LoadAt returns body i's force or torque from f, BodyArrays' Force or
// Torque: f[3i:3i+3], or f[0:3] where f holds the +0s every body shares.
func LoadAt(f []float64, i int) mgl64.Vec3 {
	if len(f) == 3 {
		i = 0
	}
	return vec3At(f, i)
}

// Envelope returns the collision envelope in use (m).
func (c *Collider) Envelope() float64 { return c.envelope }

// BinSize returns the grid's bin size in use (m).
func (c *Collider) BinSize() float64 { return c.binSize }

// Contacts returns the contacts of the last Collide (not a copy).
func (c *Collider) Contacts() *engine.Contacts { return &c.con }

// Sub returns, per contact of the last Collide, its index among the
// contacts of its body pair (not a copy).
func (c *Collider) Sub() []int32 { return c.sub }

// Adjacency returns the body → contact lists of the last Collide in CSR
// form (not copies): body i's entries are adj[adjOff[i]:adjOff[i+1]], each
// 2k + side for contact k (side 0: the body is A, 1: B), in increasing
// contact order; fixed bodies have empty lists.
func (c *Collider) Adjacency() (adjOff, adj []int32) { return c.adjOff, c.adj }

// KeepKeys remembers the current contacts' (A, B, index within the pair)
// keys for the next WarmStart.
func (c *Collider) KeepKeys() {
	nc := c.con.Len()
	c.prevA = append(c.prevA[:0], c.con.A...)
	c.prevB = append(c.prevB[:0], c.con.B...)
	c.prevSub = append(c.prevSub[:0], c.sub[:nc]...)
}

// WarmStart sets g (3 per current contact) to prevGamma's impulse of each
// contact whose (A, B, index within the pair) key was kept by the last
// KeepKeys, else zero: one merge of the two sorted key lists. prevGamma
// holds 3 per kept contact.
func (c *Collider) WarmStart(g, prevGamma []float64) {
	nc := c.con.Len()
	j := 0
	for k := 0; k < nc; k++ {
		kk := contactKey{uint64(c.con.A[k])<<32 | uint64(c.con.B[k]), c.sub[k]}
		for j < len(c.prevA) && (contactKey{uint64(c.prevA[j])<<32 | uint64(c.prevB[j]), c.prevSub[j]}).less(kk) {
			j++
		}
		if j < len(c.prevA) && (contactKey{uint64(c.prevA[j])<<32 | uint64(c.prevB[j]), c.prevSub[j]}) == kk {
			copy(g[3*k:3*k+3], prevGamma[3*j:3*j+3])
		} else {
			g[3*k], g[3*k+1], g[3*k+2] = 0, 0, 0
		}
	}
}

// contactKey orders contacts by body pair, then index within the pair
// (Sub, which may use all 31 bits with compounds: see partShiftA).
type contactKey struct {
	ab  uint64 // A<<32 | B
	sub int32
}

func (k contactKey) less(o contactKey) bool { return k.ab < o.ab || k.ab == o.ab && k.sub < o.sub }

// KeptKeys copies the keys KeepKeys last remembered into w.A, w.B and
// w.Sub (w.Gamma is left alone).
func (c *Collider) KeptKeys(w *engine.WarmStartData) {
	w.A = append(w.A[:0], c.prevA...)
	w.B = append(w.B[:0], c.prevB...)
	w.Sub = append(w.Sub[:0], c.prevSub...)
}

// SetKeptKeys replaces the remembered keys with w's, after checking w
// (engine.WarmStartData.Check: sorted, in range, 3 impulses per key).
func (c *Collider) SetKeptKeys(w *engine.WarmStartData) error {
	if err := w.Check(c.n); err != nil {
		return fmt.Errorf("collide: %w", err)
	}
	c.prevA = append(c.prevA[:0], w.A...)
	c.prevB = append(c.prevB[:0], w.B...)
	c.prevSub = append(c.prevSub[:0], w.Sub...)
	return nil
}
