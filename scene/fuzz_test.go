package scene

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// FuzzParse: no document and no override makes Parse panic, and every
// scene that builds dumps to a document that builds the same model. The
// fuzzer runs parse with smaller limits than Parse's (4096 bodies, 1024
// attempts per random body) so that one input cannot take minutes or
// gigabytes; the code paths are the same.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.json")
	bad, _ := filepath.Glob("testdata/bad/*.json")
	for _, name := range append(files, bad...) {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, "")
	}
	minimal, _ := os.ReadFile("testdata/minimal.json")
	for _, set := range []string{"bodies.0.pos=[1,2,3]", "settings.solver=apgd-ar", "run", "materials.0.friction={}", "x.y=1"} {
		f.Add(minimal, set)
	}
	lim := limits{bodies: 1 << 12, attempts: 1 << 10}
	f.Fuzz(func(t *testing.T, data []byte, set string) {
		var sets []string
		if set != "" {
			sets = []string{set}
		}
		sc, err := parse(data, "fuzz.json", sets, lim)
		if err != nil {
			return
		}
		dumped, err := Dump(sc.Doc)
		if err != nil {
			t.Fatalf("dump: %v", err)
		}
		back, err := parse(dumped, "dumped.json", nil, lim)
		if err != nil {
			t.Fatalf("dumped document does not parse: %v\n%s", err, dumped)
		}
		if !reflect.DeepEqual(back.Model, sc.Model) {
			t.Fatalf("model differs after Dump → Parse\n%s", dumped)
		}
	})
}
