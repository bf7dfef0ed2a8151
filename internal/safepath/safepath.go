// Package safepath keeps the paths gpusim builds from user input (scene
// names, sweep names) inside the folder they are meant for: a name becomes
// one path component, never "..", a separator or an absolute path.
package safepath

import (
	"fmt"
	"path/filepath"
	"strings"
)

// MaxComponent is the longest name Component accepts, in bytes: well
// under the 255-byte limit of a file name on common file systems, leaving
// room for the prefixes and suffixes gpusim adds (sweep-, -from-STEP,
// -stepK).
const MaxComponent = 128

// Allowed says in words which names Component accepts, for messages.
const Allowed = "letters, digits, '.', '_' and '-', not starting with '.', at most 128 characters"

// Component reports whether s can be used as one path component: it is
// not empty, at most MaxComponent bytes of ASCII letters, digits, '.', '_'
// and '-', and does not start with '.' (so it is neither "." nor ".." nor
// a hidden file). The error says what is wrong, without naming the field.
func Component(s string) error {
	switch {
	case s == "":
		return fmt.Errorf("is empty; want %s", Allowed)
	case len(s) > MaxComponent:
		return fmt.Errorf("%q is %d characters long; want %s", clip(s), len(s), Allowed)
	}
	for _, r := range s {
		if r >= 0x80 || !allowed(byte(r)) {
			return fmt.Errorf("%q cannot name a folder: it holds %q; want %s", clip(s), r, Allowed)
		}
	}
	if s[0] == '.' {
		return fmt.Errorf("%q cannot name a folder: it starts with '.'; want %s", s, Allowed)
	}
	return nil
}

func allowed(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-'
}

// Sanitize turns s into a name that Component accepts: every byte outside
// the allowed set becomes '_', leading dots become '_', and the name is
// cut to MaxComponent bytes; an empty s gives fallback (which must itself
// be valid).
func Sanitize(s, fallback string) string {
	if s == "" {
		return fallback
	}
	b := []byte(s)
	for i, c := range b {
		if !allowed(c) {
			b[i] = '_'
		}
	}
	if b[0] == '.' {
		b[0] = '_'
	}
	if len(b) > MaxComponent {
		b = b[:MaxComponent]
	}
	return string(b)
}

// Join joins base and the relative path rel and checks that the result
// stays inside base: rel must be local in the sense of filepath.IsLocal
// (not absolute, no ".." that climbs out, not empty, no reserved name on
// Windows).
func Join(base, rel string) (string, error) {
	if !filepath.IsLocal(rel) {
		return "", fmt.Errorf("%q would leave the folder %s", rel, base)
	}
	return filepath.Join(base, rel), nil
}

// clip shortens s for a message.
func clip(s string) string {
	if len(s) > 40 {
		return s[:37] + "..."
	}
	return strings.ToValidUTF8(s, "?")
}
