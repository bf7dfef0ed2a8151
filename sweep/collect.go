package sweep

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/gpusim/gpusim/run"
)

// result is one result column of collect.csv, taken from a run's summary.
type result struct {
	name string
	// value returns the result and whether the summary has it; isInt
	// results are written as integers.
	value func(s *Summary) (float64, bool)
	isInt bool
}

// results are the result columns, in order (see the package doc).
var results = []result{
	{"final_contacts", func(s *Summary) (float64, bool) { return float64(s.Final.Contacts), true }, true},
	{"iterations_mean", func(s *Summary) (float64, bool) { return s.IterationsMean, true }, false},
	{"final_residual", func(s *Summary) (float64, bool) { return s.Final.Residual, true }, false},
	{"steps_not_converged", func(s *Summary) (float64, bool) { return float64(s.NotConverged), true }, true},
	{"wall_s", func(s *Summary) (float64, bool) { return s.WallSeconds, true }, false},
	{"step_s_median", func(s *Summary) (float64, bool) { return s.StepSecondsMedian, true }, false},
	{"fixed_force_z_N", func(s *Summary) (float64, bool) { return s.Final.FixedForce[2], true }, false},
	{"weight_N", func(s *Summary) (float64, bool) { return s.Final.Weight, true }, false},
	{"mean_height_m", func(s *Summary) (float64, bool) { return s.Final.MeanHeight, true }, false},
	{"max_penetration_m", func(s *Summary) (float64, bool) { return s.Final.MaxPenetration, true }, false},
	{"escaped", func(s *Summary) (float64, bool) {
		if s.Final.Escaped == nil {
			return 0, false
		}
		return float64(*s.Final.Escaped), true
	}, true},
	{"max_speed_m_s", func(s *Summary) (float64, bool) { return s.Final.MaxSpeed, true }, false},
}

// ResultNames lists the result columns of collect.csv in order.
func ResultNames() []string {
	names := make([]string, len(results))
	for i, r := range results {
		names[i] = r.name
	}
	return names
}

// Run states in collect.csv.
const (
	StatusDone        = "done"        // DONE marker valid
	StatusFailed      = "failed"      // FAILED marker
	StatusInterrupted = "interrupted" // summary.json with interrupted_at_step
	StatusIncomplete  = "incomplete"  // a folder with none of those
	StatusMissing     = "missing"     // no folder
)

// Row is one run in a collected sweep.
type Row struct {
	Run    Run
	Status string
	// Summary is read from the run's summary.json, for done runs; nil
	// otherwise.
	Summary *Summary
}

// Summary holds the fields of a run's summary.json (run.Summary) that
// collect uses.
type Summary struct {
	Backend           string             `json:"backend"`
	Host              string             `json:"host"`
	Device            *run.DeviceSummary `json:"device"`
	Steps             int                `json:"steps"`
	WallSeconds       float64            `json:"wall_s"`
	StepSecondsMedian float64            `json:"step_s_median"`
	IterationsMean    float64            `json:"iterations_mean"`
	NotConverged      int                `json:"steps_not_converged"`
	Final             run.Final          `json:"final"`
}

// Collection is a sweep folder's runs and their results.
type Collection struct {
	Dir      string
	Manifest *Manifest
	Rows     []Row
	// Results are the result column names: the manifest's observables, or
	// all (ResultNames).
	Results []string
}

// Collect reads the manifest of the sweep in dir and each run's state and
// summary.
func Collect(dir string) (*Collection, error) {
	m, err := ReadManifest(dir)
	if err != nil {
		return nil, err
	}
	c := &Collection{Dir: dir, Manifest: m, Results: m.Observables}
	if len(c.Results) == 0 {
		c.Results = ResultNames()
	}
	for _, name := range c.Results {
		if findResult(name) == nil {
			return nil, fmt.Errorf("sweep: %s/manifest.json: observable %q is not a result (have %s)", dir, name, strings.Join(ResultNames(), ", "))
		}
	}
	for _, r := range m.Runs {
		row := Row{Run: r}
		folder := filepath.Join(dir, filepath.FromSlash(r.Folder))
		_, statErr := os.Stat(folder)
		switch {
		case Complete(folder, r.Index):
			row.Status = StatusDone
			data, err := os.ReadFile(filepath.Join(folder, "summary.json"))
			if err != nil {
				return nil, fmt.Errorf("sweep: run %d: %w", r.Index, err)
			}
			var s Summary
			if err := json.Unmarshal(data, &s); err != nil {
				return nil, fmt.Errorf("sweep: run %d: %s: %w", r.Index, filepath.Join(folder, "summary.json"), err)
			}
			row.Summary = &s
		case errors.Is(statErr, os.ErrNotExist):
			row.Status = StatusMissing
		case fileExists(filepath.Join(folder, FailedFile)):
			row.Status = StatusFailed
		case interrupted(filepath.Join(folder, "summary.json")):
			row.Status = StatusInterrupted
		default:
			row.Status = StatusIncomplete
		}
		c.Rows = append(c.Rows, row)
	}
	return c, nil
}

// interrupted reports whether the summary.json at path is that of a run
// stopped early (it has interrupted_at_step).
func interrupted(path string) bool {
	data, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	var s struct {
		InterruptedAt *int `json:"interrupted_at_step"`
	}
	return json.Unmarshal(data, &s) == nil && s.InterruptedAt != nil
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func findResult(name string) *result {
	for i := range results {
		if results[i].name == name {
			return &results[i]
		}
	}
	return nil
}

// Header is the CSV header: index, each varied key, status, backend,
// device (the Vulkan device's UUID, else its PCI address, else its index;
// empty on the CPU path), host, steps, then the result columns.
func (c *Collection) Header() []string {
	h := append([]string{"index"}, c.Manifest.Keys...)
	h = append(h, "status", "backend", "device", "host", "steps")
	return append(h, c.Results...)
}

// Record is row i of the CSV. A parameter that is a JSON string is written
// without quotes, other values as their JSON text; a run that is not done
// has empty result cells, and so has a result its summary lacks (escaped,
// for a scene without a box container).
func (c *Collection) Record(i int) []string {
	row := c.Rows[i]
	rec := []string{strconv.Itoa(row.Run.Index)}
	for _, p := range row.Run.Params {
		rec = append(rec, paramText(p.Value))
	}
	rec = append(rec, row.Status)
	s := row.Summary
	if s == nil {
		rec = append(rec, "", "", "", "")
		for range c.Results {
			rec = append(rec, "")
		}
		return rec
	}
	dev := ""
	if d := s.Device; d != nil {
		switch {
		case d.UUID != "":
			dev = d.UUID
		case d.PCI != "":
			dev = d.PCI
		default:
			dev = strconv.Itoa(d.Index)
		}
	}
	rec = append(rec, s.Backend, dev, s.Host, strconv.Itoa(s.Steps))
	for _, name := range c.Results {
		r := findResult(name)
		v, ok := r.value(s)
		switch {
		case !ok:
			rec = append(rec, "")
		case r.isInt:
			rec = append(rec, strconv.FormatInt(int64(v), 10))
		default:
			rec = append(rec, strconv.FormatFloat(v, 'g', -1, 64))
		}
	}
	return rec
}

func paramText(v json.RawMessage) string {
	var s string
	if len(v) > 0 && v[0] == '"' && json.Unmarshal(v, &s) == nil {
		return s
	}
	return string(v)
}

// WriteCSV writes the collection to path (through a temporary file).
func (c *Collection) WriteCSV(path string) error {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	w.Write(c.Header())
	for i := range c.Rows {
		w.Write(c.Record(i))
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return fmt.Errorf("sweep: %s: %w", path, err)
	}
	return writeAtomic(path, b.Bytes())
}

// Counts returns how many runs are in each state.
func (c *Collection) Counts() map[string]int {
	n := map[string]int{}
	for _, r := range c.Rows {
		n[r.Status]++
	}
	return n
}

// resultValue returns result y of a done row.
func (c *Collection) resultValue(row Row, y string) (float64, bool) {
	if row.Summary == nil {
		return 0, false
	}
	return findResult(y).value(row.Summary)
}

// checkXY checks the names of a plot's parameter and result.
func (c *Collection) checkXY(x, y string) error {
	if !slices.Contains(c.Manifest.Keys, x) {
		return fmt.Errorf("sweep: --x %q is not a varied parameter (have %s)", x, strings.Join(c.Manifest.Keys, ", "))
	}
	if !slices.Contains(c.Results, y) {
		return fmt.Errorf("sweep: --y %q is not a result column (have %s)", y, strings.Join(c.Results, ", "))
	}
	return nil
}
