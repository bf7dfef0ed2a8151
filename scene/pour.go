package scene

import (
	"cmp"
	"math"
	"slices"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/engine"
)

// pourBody is one body of a pour generator and its entry time (s).
type pourBody struct {
	body engine.Body
	t    float64
	gen  int // the generator's place among the document's pours
}

// pourSpec checks a pour generator's own fields and keeps the function
// that makes its bodies for placePours; rmax is the largest bounding
// radius it can make. Spots avoid the pour's own bodies only: the region
// is the document's to keep clear of walls, as a random generator's.
func (b *builder) pourSpec(p string, g GeneratorSpec, rmax float64, rng *SplitMix64, draw func() (engine.Body, error)) error {
	if !(g.Rate > 0) || math.IsInf(g.Rate, 0) {
		return errAt(join(p, "rate"), "%v must be positive and finite (bodies per second)", g.Rate)
	}
	start := 0.0
	if g.Start != nil {
		start = *g.Start
		if err := checkNonNegative(join(p, "start"), start); err != nil {
			return err
		}
	}
	vel, err := vec(join(p, "velocity"), g.Velocity)
	if err != nil {
		return err
	}
	_, _, sample, err := placement(p, g, rmax, rng)
	if err != nil {
		return err
	}
	attempts, err := b.maxAttempts(p, g)
	if err != nil {
		return err
	}
	if last := start + float64(g.Count-1)/g.Rate; math.IsInf(last, 0) {
		return errAt(join(p, "start"), "%v: the last body's entry time overflows", start)
	}
	window := pourWindow(g.Count, g.Rate, 2*rmax, vel, b.model.Gravity)
	gen := len(b.pours)
	b.pending += g.Count
	b.pours = append(b.pours, func() ([]pourBody, error) {
		out := make([]pourBody, 0, g.Count)
		free := func(x mgl64.Vec3, r float64) bool {
			for _, q := range out[max(0, len(out)-window+1):] {
				rq := q.body.Shape.BoundingRadius()
				if d := x.Sub(q.body.Pos); d.Dot(d) < (r+rq)*(r+rq) {
					return false
				}
			}
			return true
		}
		for k := range g.Count {
			body, err := draw()
			if err != nil {
				return nil, err
			}
			r := body.Shape.BoundingRadius()
			if !place(&body.Pos, r, attempts, sample, free) {
				return nil, errAt(p, "body %d found no free spot in %d attempts among the %d bodies before it that are still in the region at rate %v; enlarge the region or lower rate",
					k, attempts, min(k, window-1), g.Rate)
			}
			body.Vel = vel
			out = append(out, pourBody{body: body, t: start + float64(k)/g.Rate, gen: gen})
		}
		return out, nil
	})
	return nil
}

// pourWindow is the number of consecutive bodies of a pour whose spots
// must not overlap: those entering while a body moves clear of its spot,
// a distance d (the largest bounding diameter) from its entry velocity v
// under gravity g — ⌈rate·t⌉ + 1 with ½|g|t² + v_g t = d, v_g the part of
// v along g (or t = d/|v| without gravity), at most count (all of them
// when nothing moves the bodies).
func pourWindow(count int, rate, d float64, v, g mgl64.Vec3) int {
	t := math.Inf(1)
	if gl := g.Len(); gl > 0 {
		vg := v.Dot(g) / gl
		t = (-vg + math.Sqrt(vg*vg+2*gl*d)) / gl
	} else if vl := v.Len(); vl > 0 {
		t = d / vl
	}
	w := math.Ceil(rate*t) + 1
	if !(w < float64(count)) {
		return count
	}
	return int(w)
}

// placePours makes the pour generators' bodies (after every other body),
// merges them into entry
// order (by time; a tie in generator order, then body order), appends
// those due at t ≤ 0 to the model and keeps the others for Scene.Entering.
func (b *builder) placePours() error {
	var all []pourBody
	for _, f := range b.pours {
		bodies, err := f()
		if err != nil {
			return err
		}
		all = append(all, bodies...)
	}
	slices.SortStableFunc(all, func(x, y pourBody) int { return cmp.Compare(x.t, y.t) })
	for _, q := range all {
		if q.t <= 0 {
			b.model.Bodies = append(b.model.Bodies, q.body)
			continue
		}
		b.entering = append(b.entering, q.body)
		b.entryTimes = append(b.entryTimes, q.t)
	}
	b.pending = 0
	return nil
}

// TotalBodies is the number of bodies of the scene once every body has
// entered: Model's and Entering's.
func (s *Scene) TotalBodies() int { return len(s.Model.Bodies) + len(s.Entering) }

// ModelWith returns the scene's model with its first n bodies, Model's and
// then the first n − len(Model.Bodies) of Entering, for n from
// len(Model.Bodies) to TotalBodies (it panics outside); it shares
// Materials and Joints with Model, and Bodies with Model when n is
// len(Model.Bodies).
func (s *Scene) ModelWith(n int) *engine.Model {
	n0 := len(s.Model.Bodies)
	if n < n0 || n > s.TotalBodies() {
		panic("scene: ModelWith out of range")
	}
	m := s.Model
	if n > n0 {
		m.Bodies = make([]engine.Body, 0, n)
		m.Bodies = append(append(m.Bodies, s.Model.Bodies...), s.Entering[:n-n0]...)
	}
	return &m
}

// EntersAt returns the number of bodies due by time t (s): those of Model
// and those of Entering with an entry time ≤ t.
func (s *Scene) EntersAt(t float64) int {
	k, _ := slices.BinarySearchFunc(s.EntryTimes, t, func(e, t float64) int {
		if e <= t {
			return -1
		}
		return 1
	})
	return len(s.Model.Bodies) + k
}
