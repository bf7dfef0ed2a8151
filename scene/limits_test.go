package scene

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

const sphereOnPlane = `{"materials": [{"name": "steel", "friction": 0.5}], "bodies": [{"shape": {"type": "sphere", "radius": 0.5}, "mass": 1, "pos": [0, 0, 0.5]}],
 "containers": [{"type": "plane", "point": [0, 0, 0], "normal": [0, 0, 1]}]%s}`

// TestNameIsOneComponent: a scene's name becomes a folder name (out/NAME,
// the dump-problem and compare folders), so it must not climb out of the
// output folder; before the check "../../../victim" was taken as is.
func TestNameIsOneComponent(t *testing.T) {
	for _, c := range []struct{ name, want string }{
		{"../../../victim", `s.json: name: "../../../victim" cannot name a folder: it holds '/'; want letters, digits, '.', '_' and '-', not starting with '.', at most 128 characters`},
		{"..", `s.json: name: ".." cannot name a folder: it starts with '.'`},
		{"/etc", `s.json: name: "/etc" cannot name a folder: it holds '/'`},
		{"a b", `s.json: name: "a b" cannot name a folder: it holds ' '`},
		{strings.Repeat("n", 129), `s.json: name: "nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn..." is 129 characters long`},
	} {
		_, err := Parse(fmt.Appendf(nil, sphereOnPlane, `, "name": "`+c.name+`"`), "s.json", nil)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("name %q: error %v, want %q", c.name, err, c.want)
		}
	}
	// --set reaches the name too.
	_, err := Parse(fmt.Appendf(nil, sphereOnPlane, ""), "s.json", []string{"name=../x"})
	if err == nil || !strings.Contains(err.Error(), `name: "../x" cannot name a folder`) {
		t.Errorf("--set name=../x: error %v", err)
	}
	sc, err := Parse(fmt.Appendf(nil, sphereOnPlane, `, "name": "ok-name_1.v2"`), "s.json", nil)
	if err != nil || sc.Name != "ok-name_1.v2" {
		t.Errorf("a valid name: %v", err)
	}
}

// TestDefaultNameSanitized: the name taken from a file name is made valid
// rather than refused (a file may be called anything).
func TestDefaultNameSanitized(t *testing.T) {
	for source, want := range map[string]string{
		"dir/my scene.json": "my_scene", "..json": "_", "x/.hidden.json": "_hidden", "a.b.json": "a.b", "builtin:settle": "settle",
	} {
		sc, err := Parse(fmt.Appendf(nil, sphereOnPlane, ""), source, nil)
		if err != nil {
			t.Fatalf("%s: %v", source, err)
		}
		if sc.Name != want {
			t.Errorf("%s: name %q, want %q", source, sc.Name, want)
		}
	}
}

func TestBodyCount(t *testing.T) {
	d := &Doc{Bodies: make([]BodySpec, 2), Containers: []ContainerSpec{{Type: "box", Lid: true}},
		Generators: []GeneratorSpec{{Count: 10}, {Count: -3}, {Count: 1 << 30}, {Count: 1 << 30}}}
	if got, want := d.BodyCount(), 1<<31-1; got != want {
		t.Errorf("BodyCount = %d, want %d (saturated)", got, want)
	}
	d.Generators = d.Generators[:2]
	if got := d.BodyCount(); got != 2+6+10 {
		t.Errorf("BodyCount = %d, want 18", got)
	}
}

// TestCheckBodiesBeforeBuild: LoadOptions.CheckBodies sees the count from
// the document and its error stops the load before the bodies are made
// (settle n = 16 777 216 would otherwise take GBs to build).
func TestCheckBodiesBeforeBuild(t *testing.T) {
	errBig := errors.New("too big")
	var seen int
	start := time.Now()
	_, err := LoadWith("settle", []string{"n=16777216"}, LoadOptions{CheckBodies: func(n int) error { seen = n; return errBig }})
	if !errors.Is(err, errBig) || !strings.HasPrefix(err.Error(), "builtin:settle: too big") {
		t.Fatalf("error %v, want builtin:settle: too big", err)
	}
	if seen != 16777216+5 {
		t.Errorf("CheckBodies saw %d bodies, want 16777216 and the open box's 5 walls", seen)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the refused load took %v: it built the bodies first", d)
	}
}

// TestLoadFileNotRegular: a FIFO is refused at once (os.ReadFile waited
// for a writer forever), /dev/zero too (it never ends), and a file above
// the cap names the cap and the flag.
func TestLoadFileNotRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "s.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan error, 1)
	go func() { _, err := LoadFile(fifo, nil); done <- err }()
	select {
	case err := <-done:
		if err == nil || err.Error() != "scene: "+fifo+" is a FIFO (named pipe), not a regular file" {
			t.Errorf("FIFO: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("LoadFile of a FIFO still blocked after 10 s")
	}
	if _, err := Load("/dev/zero", nil); err == nil || err.Error() != "scene: /dev/zero is a character device, not a regular file" {
		t.Errorf("/dev/zero: %v", err)
	}
	big := filepath.Join(dir, "big.json")
	if err := os.WriteFile(big, []byte(strings.Repeat(" ", 100)+"{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := LoadWith(big, nil, LoadOptions{MaxInputSize: 64})
	if err == nil || !strings.Contains(err.Error(), "big.json is 102 bytes, more than the cap of 64 bytes on input files (--max-input-size raises it)") {
		t.Errorf("over the cap: %v", err)
	}
}
