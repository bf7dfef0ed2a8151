package run

import (
	"bufio"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/cpuref"
	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/fclib"
	"github.com/gpusim/gpusim/scene"
)

// A scene's figure of merit (its document's "merit" field, see package
// scene) is computed here: a row per step in merit.csv (step, time, then
// the columns of its type) and end-of-run figures in summary.json's
// "merit" and the printed summary.

// MeritFigure is one end-of-run figure of merit.
type MeritFigure struct {
	Name  string  `json:"name"`
	Value float64 `json:"value"`
	// Undefined is set (and Value is 0) when the run gave the figure no
	// finite value, such as a flow rate before anything has flowed: JSON
	// has no NaN, and a 0 must not pass for a measurement.
	Undefined bool   `json:"undefined,omitempty"`
	Unit      string `json:"unit,omitempty"`
	// Note says how it was measured or what the paper gives.
	Note string `json:"note,omitempty"`
}

// Merit is summary.json's "merit": the scene's figures of merit at the
// end of the run and the file of its time series.
type Merit struct {
	Type    string        `json:"type"`
	Figures []MeritFigure `json:"figures"`
	Series  string        `json:"series"` // merit.csv
}

// meritSolvers are the solvers chain's figure of merit compares (pdip
// does not take joint rows).
var meritSolvers = []string{"apgd", "apgd-ar", "spg", "gs", "jacobi"}

// meritHeaders are merit.csv's columns after step and time, per type.
var meritHeaders = map[string]string{
	"chain":    "joint_error,anchor_fx_N,anchor_fy_N,anchor_fz_N",
	"shaker":   "plate_dz_m,plate_dz_exact_m,bed_mean_z_m",
	"shear":    "displacement_m,shear_force_N,normal_force_N",
	"mixer":    "angle_rad,torque_Nm",
	"flow-gap": "passed_kg,flow_kg_s",
}

// meter computes a scene's figure of merit as the run goes.
type meter struct {
	spec  *scene.MeritSpec
	model *engine.Model
	h     float64
	f     *csvFile
	w     writers // its row buffer and number formatting
	state engine.State
	con   engine.Contacts
	gamma []float64
	reac  []engine.Reaction
	// maskA and maskB mark the bodies whose force is measured: shear's
	// moving half (A) and lid (B), mixer's blades (A).
	maskA, maskB []bool
	frame        []jointGeom
	path         string    // merit.csv, which finish reads back
	cols         []float64 // the row being written: the type's columns
	// flow-gap's rate window: the time and mass passed of the last win
	// rows at most, oldest at past[head] once full.
	past [][2]float64
	head int
}

// newMeter opens merit.csv in dir for the scene's figure of merit (nil
// when it has none): a new file, or when resume ≥ 0 the file there cut
// after the rows of steps up to resume (a new one if there is none).
func newMeter(sc *scene.Scene, dir string, resume int) (*meter, error) {
	if sc.Doc == nil || sc.Doc.Merit == nil {
		os.Remove(filepath.Join(dir, "merit.csv"))
		return nil, nil
	}
	spec := sc.Doc.Merit
	m := newMeterOf(sc)
	header := "step,time," + meritHeaders[spec.Type]
	path := filepath.Join(dir, "merit.csv")
	end := int64(-1)
	if resume >= 0 {
		e, _, err := rowsUpTo(path, header, resume, nil)
		switch {
		case errors.Is(err, os.ErrNotExist):
		case err != nil:
			return nil, fmt.Errorf("run: --resume: %w", err)
		default:
			end = e
		}
	}
	var err error
	if m.f, err = openCSV(path, header, end); err != nil {
		return nil, err
	}
	m.path = path
	if spec.Type == "chain" {
		m.frame = jointFrames(&sc.Model)
	}
	if spec.Type == "flow-gap" {
		m.past = make([][2]float64, 0, max(1, int(math.Round(0.01/m.h))))
		if end >= 0 {
			// A resumed run's rates start from the rows it keeps.
			if err := scanMerit(path, func(r []float64) { m.remember(r[0], r[1]) }); err != nil {
				m.f.close()
				return nil, fmt.Errorf("run: --resume: %w", err)
			}
		}
	}
	return m, nil
}

// newMeterOf returns a meter of the scene's figure of merit, which must
// be set, with its masks and no file.
func newMeterOf(sc *scene.Scene) *meter {
	spec := sc.Doc.Merit
	m := &meter{spec: spec, model: &sc.Model, h: sc.Settings.Dt}
	mask := func(ids []int) []bool {
		in := make([]bool, sc.TotalBodies()) // pour bodies too, as they enter
		for _, id := range ids {
			in[id] = true
		}
		return in
	}
	switch spec.Type {
	case "shear":
		m.maskA, m.maskB = mask(spec.Bodies[1:]), mask(spec.Bodies[:1])
	case "mixer":
		m.maskA = mask(spec.Bodies)
	}
	return m
}

// remember adds a row's time and mass passed to flow-gap's rate window,
// in place of its oldest once it holds win rows.
func (m *meter) remember(t, passed float64) {
	if len(m.past) < cap(m.past) {
		m.past = append(m.past, [2]float64{t, passed})
		return
	}
	m.past[m.head] = [2]float64{t, passed}
	m.head = (m.head + 1) % len(m.past)
}

// scanMerit calls row with each row of merit.csv at path after its
// header: the time, then the type's columns (row's slice is reused).
func scanMerit(path string, row func([]float64)) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	var r []float64
	for line := 1; sc.Scan(); line++ {
		if line == 1 {
			continue
		}
		fs := strings.Split(sc.Text(), ",")
		r = r[:0]
		for _, s := range fs[1:] {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				return fmt.Errorf("%s:%d: %w", filepath.Base(path), line, err)
			}
			r = append(r, v)
		}
		row(r)
	}
	return sc.Err()
}

func (m *meter) close() error {
	if m == nil {
		return nil
	}
	err := m.f.close()
	m.f = nil
	return err
}

// step computes and writes the row of the step just taken.
func (m *meter) step(sim *engine.Sim, be engine.Backend, st engine.StepStats) error {
	if m == nil {
		return nil
	}
	if err := be.ReadState(&m.state); err != nil {
		return err
	}
	// Only shear and mixer measure contact forces, only chain and shear
	// joint forces: the others skip reading them back (from the device,
	// on a device backend).
	typ := m.spec.Type
	if typ == "shear" || typ == "mixer" {
		if err := be.ReadContacts(&m.con); err != nil {
			return err
		}
		m.gamma = sim.Impulses(m.gamma)
	}
	if typ == "chain" || typ == "shear" {
		var err error
		if m.reac, err = sim.JointReactions(m.reac); err != nil {
			return err
		}
	}
	cols := m.cols[:0]
	switch m.spec.Type {
	case "chain":
		f := m.anchorForce()
		cols = append(cols, m.jointError(), f[0], f[1], f[2])
	case "shaker":
		id := m.spec.Bodies[0]
		b := &m.model.Bodies[id]
		exact := 0.0
		if b.Motion != nil {
			exact = b.Motion.Offset(st.Time)[2]
		}
		cols = append(cols, m.state.Pos[3*id+2]-b.Pos[2], exact, m.meanZ())
	case "shear":
		ax := mgl64.Vec3(*m.spec.Axis).Normalize()
		half := m.spec.Bodies[1:]
		var disp float64
		if len(half) > 0 {
			disp = m.pos(half[0]).Sub(m.model.Bodies[half[0]].Pos).Dot(ax)
		}
		shear, normal := m.shearForces()
		cols = append(cols, disp, shear, normal)
	case "mixer":
		ax := mgl64.Vec3(*m.spec.Axis).Normalize()
		_, tq := m.force(m.maskA, mgl64.Vec3(*m.spec.Point), false)
		angle := 0.0
		if b := &m.model.Bodies[m.spec.Bodies[0]]; b.Motion != nil {
			angle = b.Motion.Omega.Dot(ax) * st.Time
		}
		cols = append(cols, angle, tq.Dot(ax))
	case "flow-gap":
		passed := m.passed()
		rate := math.NaN()
		// The rate over the last 0.01 s (at least one step), or since the
		// first row while the run is shorter.
		if len(m.past) > 0 {
			o := m.past[m.head]
			rate = (passed - o[1]) / (st.Time - o[0])
		}
		m.remember(st.Time, passed)
		cols = append(cols, passed, rate)
	}
	m.cols = cols
	w := &m.w
	w.buf = w.buf[:0]
	w.i(st.Step)
	w.f(st.Time)
	for _, v := range cols {
		w.f(v)
	}
	w.endRow()
	return m.f.write(w.buf)
}

// anchorForce is chain's: the total force (N) of the joints to the world
// on their bodies over the last step.
func (m *meter) anchorForce() mgl64.Vec3 {
	var f mgl64.Vec3
	for j, jt := range m.model.Joints {
		if jt.Body2 == engine.World && j < len(m.reac) {
			f = f.Add(m.reac[j].Force)
		}
	}
	return f
}

// shearForces are shear's: the force (N) of the specimen and the lid's
// joints on the moving half along the merit's axis, and the force of the
// specimen on the lid against gravity (contacts only), over the last step.
func (m *meter) shearForces() (shear, normal float64) {
	ax := mgl64.Vec3(*m.spec.Axis).Normalize()
	fHalf, _ := m.force(m.maskA, mgl64.Vec3{}, true)
	fLid, _ := m.force(m.maskB, mgl64.Vec3{}, false)
	up := m.model.Gravity.Mul(-1)
	if up.Len() > 0 {
		up = up.Normalize()
	}
	return fHalf.Dot(ax), fLid.Dot(up)
}

// MeritForces returns the forces of the scene's figure of merit for the
// impulses gamma (a vector of sim.Problem(), the last step's) in place of
// the step's own: for shear, shear_force (N: the force of the specimen
// and the lid's joint on the moving half along the scene's axis, as
// merit.csv's shear_force_N) and normal_force (N: the specimen's on the
// lid against gravity); for chain, anchor_fx, anchor_fy, anchor_fz (N: the
// joints to the world on their links). Contact forces come from the
// contacts of the step, joint forces from the backend's JointReactions
// with the state at the end of the step, as the run's merit.csv. Other
// merit types, and scenes without one, have none (nil). gpusim compare
// reports them per solver.
func MeritForces(sc *scene.Scene, sim *engine.Sim, gamma engine.Vec) ([]fclib.Figure, error) {
	if sc.Doc == nil || sc.Doc.Merit == nil {
		return nil, nil
	}
	typ := sc.Doc.Merit.Type
	if typ != "shear" && typ != "chain" {
		return nil, nil
	}
	m := newMeterOf(sc)
	be, p := sim.Backend(), sim.Problem()
	if p == nil {
		return nil, errors.New("run: merit forces before the first step")
	}
	if gamma.Len() != engine.Rows(p) {
		return nil, fmt.Errorf("run: merit forces: gamma has %d rows, the problem %d", gamma.Len(), engine.Rows(p))
	}
	if err := be.ReadState(&m.state); err != nil {
		return nil, err
	}
	if err := be.ReadContacts(&m.con); err != nil {
		return nil, err
	}
	m.gamma = make([]float64, gamma.Len())
	p.Read(m.gamma, gamma)
	if jr, ok := be.(engine.JointReactor); ok && len(sc.Model.Joints) > 0 {
		var err error
		if m.reac, err = jr.JointReactions(gamma, m.h, nil); err != nil {
			return nil, err
		}
	}
	if typ == "chain" {
		f := m.anchorForce()
		return []fclib.Figure{{Name: "anchor_fx", Unit: "N", Value: f[0]}, {Name: "anchor_fy", Unit: "N", Value: f[1]},
			{Name: "anchor_fz", Unit: "N", Value: f[2]}}, nil
	}
	shear, normal := m.shearForces()
	return []fclib.Figure{{Name: "shear_force", Unit: "N", Value: shear}, {Name: "normal_force", Unit: "N", Value: normal}}, nil
}

func (m *meter) pos(i int) mgl64.Vec3 {
	return mgl64.Vec3{m.state.Pos[3*i], m.state.Pos[3*i+1], m.state.Pos[3*i+2]}
}

func (m *meter) quat(i int) mgl64.Quat {
	if i == engine.World {
		return mgl64.QuatIdent()
	}
	r := m.state.Rot[4*i:]
	return mgl64.Quat{W: r[0], V: mgl64.Vec3{r[1], r[2], r[3]}}
}

// force returns the total force (N) on the bodies in over the last step
// from their contacts (and, with joints set, from their joints), and the
// torque of the contact forces about c (N·m).
func (m *meter) force(in []bool, c mgl64.Vec3, joints bool) (f, tq mgl64.Vec3) {
	for k := 0; k < m.con.Len(); k++ {
		a, b := int(m.con.A[k]), int(m.con.B[k])
		if !in[a] && !in[b] {
			continue
		}
		n := mgl64.Vec3{m.con.Normal[3*k], m.con.Normal[3*k+1], m.con.Normal[3*k+2]}
		u, w := cpuref.TangentBasis(n)
		g := m.gamma[3*k : 3*k+3]
		fk := n.Mul(g[0]).Add(u.Mul(g[1])).Add(w.Mul(g[2])).Mul(1 / m.h)
		// The force on B is fk, on A −fk, at the contact point of each.
		if in[b] {
			p := m.pos(b).Add(m.quat(b).Rotate(mgl64.Vec3{m.con.PB[3*k], m.con.PB[3*k+1], m.con.PB[3*k+2]}))
			f = f.Add(fk)
			tq = tq.Add(p.Sub(c).Cross(fk))
		}
		if in[a] {
			p := m.pos(a).Add(m.quat(a).Rotate(mgl64.Vec3{m.con.PA[3*k], m.con.PA[3*k+1], m.con.PA[3*k+2]}))
			f = f.Sub(fk)
			tq = tq.Sub(p.Sub(c).Cross(fk))
		}
	}
	if joints {
		for j, jt := range m.model.Joints {
			if j >= len(m.reac) {
				break
			}
			if in[jt.Body1] {
				f = f.Add(m.reac[j].Force)
			}
			if jt.Body2 != engine.World && in[jt.Body2] {
				f = f.Sub(m.reac[j].Force)
			}
		}
	}
	return f, tq
}

// meanZ is the mean height of the movable bodies (m).
func (m *meter) meanZ() float64 {
	s, n := 0.0, 0
	for i := range m.model.Bodies {
		if !m.model.Bodies[i].Static() {
			s += m.state.Pos[3*i+2]
			n++
		}
	}
	return s / float64(max(n, 1))
}

// passed is the mass (kg) of the movable bodies past the gate: the plane
// through spec.Point normal to spec.Axis, on the side the axis points to.
func (m *meter) passed() float64 {
	p, ax := mgl64.Vec3(*m.spec.Point), mgl64.Vec3(*m.spec.Axis)
	s := 0.0
	for i := range m.model.Bodies {
		if b := &m.model.Bodies[i]; !b.Static() && m.pos(i).Sub(p).Dot(ax) > 0 {
			s += b.Mass
		}
	}
	return s
}

// finish returns the end-of-run figures. sim's last problem is still the
// one its last step solved (chain's solver comparison solves it again).
func (m *meter) finish(sim *engine.Sim) (*Merit, error) {
	if m == nil {
		return nil, nil
	}
	out := &Merit{Type: m.spec.Type, Series: "merit.csv"}
	add := func(name string, v float64, unit, note string) {
		f := MeritFigure{Name: name, Value: v, Unit: unit, Note: note}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			f.Value, f.Undefined = 0, true
		}
		out.Figures = append(out.Figures, f)
	}
	// merit.csv holds every row of the run (a resumed one's included);
	// it is read back twice rather than kept in memory: once for the
	// number of rows and the last, once for the figures.
	n := 0
	var last []float64
	if err := scanMerit(m.path, func(r []float64) { n++; last = append(last[:0], r...) }); err != nil {
		return nil, fmt.Errorf("run: figure of merit: %w", err)
	}
	if n == 0 {
		return out, nil
	}
	// half sums column c over the second half of the rows (rows n/2 on),
	// maxAbs and minimum are its largest |value| and smallest; a row is
	// the time and at most four columns (meritHeaders).
	var half, maxAbs, minimum [5]float64
	for c := range minimum {
		minimum[c] = math.Inf(1)
	}
	var plateErr float64                       // shaker: largest |plate z − exact|
	t20, p20, t80, p80 := -1.0, 0.0, -1.0, 0.0 // flow-gap: first rows past 20 % and 80 %
	k := 0
	err := scanMerit(m.path, func(r []float64) {
		for c, v := range r {
			if k >= n/2 {
				half[c] += v
			}
			maxAbs[c] = math.Max(maxAbs[c], math.Abs(v))
			minimum[c] = math.Min(minimum[c], v)
		}
		switch m.spec.Type {
		case "shaker":
			plateErr = math.Max(plateErr, math.Abs(r[1]-r[2]))
		case "flow-gap":
			if t20 < 0 && r[1] >= 0.2*last[1] {
				t20, p20 = r[0], r[1]
			}
			if t80 < 0 && r[1] >= 0.8*last[1] {
				t80, p80 = r[0], r[1]
			}
		}
		k++
	})
	if err != nil {
		return nil, fmt.Errorf("run: figure of merit: %w", err)
	}
	// secondHalf is the mean of column c over the second half of the rows.
	secondHalf := func(c int) float64 { return half[c] / float64(n-n/2) }
	switch m.spec.Type {
	case "chain":
		weight := 0.0
		for i := range m.model.Bodies {
			if b := &m.model.Bodies[i]; !b.Static() {
				weight += b.Mass * m.model.Gravity.Len()
			}
		}
		add("joint_error_max", maxAbs[1], "m or rad", "largest joint position error over the run (m for points, rad for axes)")
		add("joint_error_end", last[1], "m or rad", "")
		add("anchor_force", mgl64.Vec3{last[2], last[3], last[4]}.Len(), "N", "force of the world joints on the ladder at the end")
		add("weight", weight, "N", "")
		if err := m.compareSolvers(sim, add); err != nil {
			return nil, err
		}
	case "shaker":
		add("plate_error_max", plateErr, "m", "largest |plate z offset − A·sin(2πft)|")
		add("bed_mean_z", secondHalf(3), "m", "mean height of the spheres, mean over the second half of the run")
	case "shear":
		add("displacement", last[1], "m", "")
		add("shear_force_peak", -minimum[2], "N", "largest force resisting the moving half")
		add("shear_force_mean", secondHalf(2), "N", "force of the specimen on the moving half along its motion, second half of the run (negative: it resists)")
		add("normal_force_mean", secondHalf(3), "N", "force of the specimen on the lid, second half")
		if n := secondHalf(3); n != 0 {
			add("friction_ratio", -secondHalf(2)/n, "", "shear over normal force, second half: μ_eff")
		}
	case "mixer":
		add("torque_mean", secondHalf(2), "N·m", "torque of the mixture on the blades about the drum axis, second half of the run (negative: it resists)")
		add("torque_peak", maxAbs[2], "N·m", "")
		add("angle", last[1], "rad", "")
	case "flow-gap":
		mass := 0.0
		for i := range m.model.Bodies {
			if b := &m.model.Bodies[i]; !b.Static() {
				mass += b.Mass
			}
		}
		add("passed", last[1], "kg", "mass past the gap at the end")
		add("total", mass, "kg", "")
		// The mean flow rate between 20 % and 80 % of what passed.
		rate := math.NaN()
		if last[1] > 0 && t80 > t20 {
			rate = (p80 - p20) / (t80 - t20)
		}
		add("flow_rate", rate, "kg/s", "mean rate between 20 % and 80 % of the mass that passed")
	}
	return out, nil
}

// compareSolvers solves the last step's problem again with each of
// meritSolvers from γ = 0, to the run's tolerance within its iteration
// cap, and adds the iterations each took (the SPG paper's Fig. 3).
func (m *meter) compareSolvers(sim *engine.Sim, add func(string, float64, string, string)) error {
	p := sim.Problem()
	if p == nil {
		return nil
	}
	set := sim.Settings()
	n := engine.Rows(p)
	g := p.NewVec(n)
	for _, name := range meritSolvers {
		s, err := engine.NewSolver(name)
		if err != nil {
			return err
		}
		p.Fill(g, 0)
		st, err := s.Solve(p, g, engine.SolveOptions{Tol: set.Tol, MaxIter: set.MaxIter, Gd: set.Gd})
		if err != nil {
			return fmt.Errorf("run: chain's solver comparison, %s: %w", name, err)
		}
		note := fmt.Sprintf("from γ = 0 on the last step's problem (%d rows) to residual %.3g", n, st.Residual)
		if !st.Converged {
			note = fmt.Sprintf("did not reach tol %g within %d iterations (residual %.3g); ", set.Tol, set.MaxIter, st.Residual) + note
		}
		add("iterations_"+name, float64(st.Iterations), "", note)
	}
	return nil
}

// jointGeom is a joint's points and axis in its bodies' frames at t = 0.
type jointGeom struct {
	sa, sb       mgl64.Vec3
	axA, axB     mgl64.Vec3
	rel          mgl64.Quat // q_A⁻¹·q_B at t = 0
	length       float64
	kind         engine.JointKind
	body1, body2 int
}

func jointFrames(md *engine.Model) []jointGeom {
	pose := func(i int) (mgl64.Vec3, mgl64.Quat) {
		if i == engine.World {
			return mgl64.Vec3{}, mgl64.QuatIdent()
		}
		return md.Bodies[i].Pos, md.Bodies[i].Rot
	}
	var gs []jointGeom
	for _, j := range md.Joints {
		xa, qa := pose(j.Body1)
		xb, qb := pose(j.Body2)
		pb := j.Point
		g := jointGeom{kind: j.Kind, body1: j.Body1, body2: j.Body2}
		if j.Kind == engine.JointDistance {
			pb = j.Point2
			g.length = pb.Sub(j.Point).Len()
		}
		g.sa = qa.Conjugate().Rotate(j.Point.Sub(xa))
		g.sb = qb.Conjugate().Rotate(pb.Sub(xb))
		if j.Axis.Len() > 0 {
			a := j.Axis.Normalize()
			g.axA, g.axB = qa.Conjugate().Rotate(a), qb.Conjugate().Rotate(a)
		}
		g.rel = qa.Conjugate().Mul(qb)
		gs = append(gs, g)
	}
	return gs
}

// jointError is the largest position error of the model's joints at the
// current state: the distance between the points the joint holds together
// (m; for a distance joint the change of length, for a prismatic joint
// the distance of B's point from A's line) or the angle between what it
// keeps aligned (rad).
func (m *meter) jointError() float64 {
	worst := 0.0
	pose := func(i int) (mgl64.Vec3, mgl64.Quat) {
		if i == engine.World {
			return mgl64.Vec3{}, mgl64.QuatIdent()
		}
		return m.pos(i), m.quat(i)
	}
	for _, g := range m.frame {
		xa, qa := pose(g.body1)
		xb, qb := pose(g.body2)
		pa, pb := xa.Add(qa.Rotate(g.sa)), xb.Add(qb.Rotate(g.sb))
		d := pb.Sub(pa)
		var e float64
		twist := func() float64 {
			q := qb.Mul(qa.Mul(g.rel).Conjugate())
			return 2 * math.Asin(math.Min(1, q.V.Len()))
		}
		switch g.kind {
		case engine.JointSpherical:
			e = d.Len()
		case engine.JointRevolute:
			e = math.Max(d.Len(), qa.Rotate(g.axA).Cross(qb.Rotate(g.axB)).Len())
		case engine.JointPrismatic:
			a := qa.Rotate(g.axA)
			e = math.Max(d.Sub(a.Mul(d.Dot(a))).Len(), twist())
		case engine.JointFixed:
			e = math.Max(d.Len(), twist())
		case engine.JointDistance:
			e = math.Abs(d.Len() - g.length)
		}
		worst = math.Max(worst, e)
	}
	return worst
}

// String formats the figures as the printed summary shows them.
func (m *Merit) String() string {
	var b strings.Builder
	for i, f := range m.Figures {
		if i > 0 {
			b.WriteString("\n")
		}
		v := strconv.FormatFloat(f.Value, 'g', 6, 64)
		if f.Undefined {
			v = "undefined"
		}
		fmt.Fprintf(&b, "%-20s %s", f.Name, v)
		if f.Unit != "" {
			b.WriteString(" " + f.Unit)
		}
		if f.Note != "" {
			b.WriteString("  (" + f.Note + ")")
		}
	}
	return b.String()
}
