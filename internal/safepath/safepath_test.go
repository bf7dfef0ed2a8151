package safepath

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestComponent(t *testing.T) {
	for _, s := range []string{"settle", "a.b", "run_1-x", "A9", strings.Repeat("x", MaxComponent)} {
		if err := Component(s); err != nil {
			t.Errorf("Component(%q) = %v, want nil", s, err)
		}
	}
	for _, s := range []string{"", ".", "..", "../../../victim", "a/b", `a\b`, "/abs", ".hidden", "a b", "a:b",
		"é", "a\x00b", strings.Repeat("x", MaxComponent+1)} {
		err := Component(s)
		if err == nil {
			t.Errorf("Component(%q) = nil, want an error", s)
			continue
		}
		if !strings.Contains(err.Error(), "want letters, digits") {
			t.Errorf("Component(%q) = %v: does not say what is allowed", s, err)
		}
	}
}

func TestSanitize(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"settle", "settle"}, {"my scene", "my_scene"}, {"..", "_."}, {".x", "_x"}, {"", "scene"},
		{"a/b", "a_b"}, {"é", "__"}, {strings.Repeat("y", 200), strings.Repeat("y", MaxComponent)},
	} {
		got := Sanitize(c.in, "scene")
		if got != c.want {
			t.Errorf("Sanitize(%q) = %q, want %q", c.in, got, c.want)
		}
		if err := Component(got); err != nil {
			t.Errorf("Sanitize(%q) = %q, which Component rejects: %v", c.in, got, err)
		}
	}
}

func TestJoin(t *testing.T) {
	if p, err := Join("out", "settle"); err != nil || p != filepath.Join("out", "settle") {
		t.Errorf("Join(out, settle) = %q, %v", p, err)
	}
	if p, err := Join("out", "runs/0001"); err != nil || p != filepath.Join("out", "runs", "0001") {
		t.Errorf("Join(out, runs/0001) = %q, %v", p, err)
	}
	for _, rel := range []string{"../../../victim", "..", "", "/etc", "a/../../b"} {
		if p, err := Join("out", rel); err == nil {
			t.Errorf("Join(out, %q) = %q, nil: want an error", rel, p)
		}
	}
}
