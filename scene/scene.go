package scene

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/internal/inputfile"
)

// Scene is a model with its settings, how long to run it and which bodies
// to trace.
type Scene struct {
	Name, Description string
	// Source is the file path, or "builtin:NAME".
	Source   string
	Model    engine.Model
	Settings engine.Settings
	// Duration is the simulated time to run (s).
	Duration float64
	// Steps, if > 0, is the number of steps to run; it overrides Duration.
	Steps int
	// Trace lists the ids (indices into Model.Bodies) of the bodies to trace.
	Trace []int
	// Params are the resolved parameters of a built-in scene (nil for files).
	Params map[string]float64
	// Domain is the inner space [inner_min, inner_max] of the scene's first
	// box container, nil if it has none; package run counts the movable
	// bodies that end outside it as escaped.
	Domain *Region
	// Entering holds the bodies of pour generators that enter after
	// t = 0, in entry order: Entering[k] is body len(Model.Bodies) + k and
	// is due at EntryTimes[k] (s, > 0, nondecreasing). Model holds the
	// bodies present at t = 0, pour bodies due at t ≤ 0 last; ModelWith(n)
	// is the model with the first n bodies, EntersAt(t) the number due by
	// t. Both nil without a pour generator.
	Entering   []engine.Body
	EntryTimes []float64
	// Doc is the fully resolved document the scene was built from:
	// parameters and overrides applied, defaults of name, gravity, settings
	// and run filled in, generators not expanded. Dump writes it.
	Doc *Doc
}

// Load loads the built-in scene called nameOrPath if there is one, else the
// scene file at that path (write ./settle to read a file that has a
// built-in's name).
func Load(nameOrPath string, sets []string) (*Scene, error) {
	return LoadWith(nameOrPath, sets, LoadOptions{})
}

// LoadOptions are the options of LoadWith.
type LoadOptions struct {
	// MaxInputSize caps the size of a scene file in bytes: 0 means
	// inputfile.DefaultScene (256 MiB), a negative value no cap.
	MaxInputSize int64
	// CheckBodies, if set, is called with the number of bodies the scene
	// will have (Doc.BodyCount) once the document is read and before any
	// body is made; its error ends the load, unwrapped but for the source
	// prefix. Package run's memory check goes here, so that a scene too
	// large for the machine fails before its bodies take the memory.
	CheckBodies func(n int) error
}

// LoadWith is Load with options.
func LoadWith(nameOrPath string, sets []string, opt LoadOptions) (*Scene, error) {
	lim := defaultLimits()
	lim.checkBodies = opt.CheckBodies
	if _, ok := findBuiltin(nameOrPath); ok {
		return loadBuiltin(nameOrPath, sets, lim)
	}
	if _, err := os.Stat(nameOrPath); err != nil && !strings.ContainsAny(nameOrPath, "/.\\") {
		return nil, fmt.Errorf("scene: %q is neither a built-in scene (%s) nor a file", nameOrPath, strings.Join(builtinNames(), ", "))
	}
	return loadFile(nameOrPath, sets, opt.MaxInputSize, lim)
}

// LoadFile reads and builds a scene file; sets are "path=value" overrides.
// Only a regular file of at most inputfile.DefaultScene bytes is read
// (LoadWith changes the cap).
func LoadFile(path string, sets []string) (*Scene, error) {
	return loadFile(path, sets, 0, defaultLimits())
}

func loadFile(path string, sets []string, max int64, lim limits) (*Scene, error) {
	if max == 0 {
		max = inputfile.DefaultScene
	}
	data, err := inputfile.ReadFile(path, max)
	if err != nil {
		return nil, fmt.Errorf("scene: %w", err)
	}
	return parse(data, path, sets, lim)
}

// Parse builds a scene from JSON text. source names the text in errors
// (and becomes Scene.Source); sets are "path=value" overrides.
func Parse(data []byte, source string, sets []string) (*Scene, error) {
	return parse(data, source, sets, defaultLimits())
}

func parse(data []byte, source string, sets []string, lim limits) (*Scene, error) {
	v, err := parseGeneric(data, source)
	if err != nil {
		return nil, err
	}
	if _, ok := v.(map[string]any); !ok {
		return nil, fmt.Errorf("%s: expected a JSON object at top level, got %s", source, describe(v))
	}
	for _, s := range sets {
		if err := setPath(v, s); err != nil {
			return nil, fmt.Errorf("%s: %w", source, err)
		}
	}
	var d Doc
	if err := decodeValue(v, &d, ""); err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	return d.build(source, lim)
}

// setPath applies one "path=value" override to a generic document.
func setPath(doc any, set string) error {
	key, value, err := splitSet(set)
	if err != nil {
		return err
	}
	if err := applySet(doc, key, parseValue(value)); err != nil {
		return fmt.Errorf("--set %s: %w", set, err)
	}
	return nil
}

// Dump writes d as indented JSON that Parse reads back to the same scene.
// Arrays of numbers stay on one line.
func Dump(d *Doc) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(d); err != nil {
		return nil, fmt.Errorf("scene: dump: %w", err)
	}
	return indent(bytes.TrimSpace(buf.Bytes())), nil
}

// indent indents compact JSON by two spaces per level, writing arrays that
// hold no objects or arrays on one line.
func indent(src []byte) []byte {
	var out bytes.Buffer
	depth := 0
	newline := func() {
		out.WriteByte('\n')
		for range depth {
			out.WriteString("  ")
		}
	}
	for i := 0; i < len(src); i++ {
		switch c := src[i]; c {
		case '"':
			j := stringEnd(src, i)
			out.Write(src[i:j])
			i = j - 1
		case '{', '[':
			if i+1 < len(src) && (src[i+1] == '}' || src[i+1] == ']') {
				out.Write(src[i : i+2])
				i++
				continue
			}
			if c == '[' {
				if j, flat := flatArray(src, i); flat {
					for k := i; k < j; k++ {
						if src[k] == '"' {
							e := stringEnd(src, k)
							out.Write(src[k:e])
							k = e - 1
							continue
						}
						out.WriteByte(src[k])
						if src[k] == ',' {
							out.WriteByte(' ')
						}
					}
					i = j - 1
					continue
				}
			}
			out.WriteByte(c)
			depth++
			newline()
		case '}', ']':
			depth--
			newline()
			out.WriteByte(c)
		case ',':
			out.WriteByte(c)
			newline()
		case ':':
			out.WriteString(": ")
		default:
			out.WriteByte(c)
		}
	}
	out.WriteByte('\n')
	return out.Bytes()
}

// stringEnd returns the index just past the JSON string starting at i.
func stringEnd(src []byte, i int) int {
	for j := i + 1; j < len(src); j++ {
		switch src[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(src)
}

// flatArray reports whether the array starting at i holds no object or
// array, and the index just past its ']'.
func flatArray(src []byte, i int) (end int, flat bool) {
	for j := i + 1; j < len(src); j++ {
		switch src[j] {
		case '"':
			j = stringEnd(src, j) - 1
		case '[', '{':
			return 0, false
		case ']':
			return j + 1, true
		}
	}
	return 0, false
}
