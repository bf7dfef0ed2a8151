package checkpoint

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gpusim/gpusim/engine"
)

// sample returns a small checkpoint with every section filled, values
// chosen to exercise the float encoding (negative zero, subnormal, values
// without a short decimal form).
func sample() *Checkpoint {
	s := engine.DefaultSettings()
	s.WarmStart = true
	s.Envelope = 1e-3
	s.Workers = 3
	c := &Checkpoint{
		Step: 42, Settings: s, Steps: 100, Duration: 1, Trace: []int{0, 2},
		Source: "builtin:settle", Params: map[string]float64{"n": 8, "mu": 0.5},
		Scene: []byte(`{"name": "settle"}`),
		State: engine.State{
			Pos:   []float64{0.1, 0.2, 0.3, math.Copysign(0, -1), 5e-324, 1.0 / 3, 7, 8, 9},
			Rot:   []float64{1, 0, 0, 0, math.Sqrt(0.5), math.Sqrt(0.5), 0, 0, 1, 0, 0, 0},
			Vel:   []float64{1, 2, 3, 4, 5, 6, 7, 8, 9},
			Omega: []float64{-1, -2, -3, -4, -5, -6, -7, -8, -9},
		},
		Warm: &engine.WarmStartData{A: []int32{0, 0, 1}, B: []int32{1, 1, 2}, Sub: []int32{0, 1, 0},
			Gamma: []float64{1, 0.1, -0.1, 2, 0.2, -0.2, 3, 0.3, -0.3}, Joints: []float64{0.5, -1.0 / 3}},
	}
	c.Model[0], c.Model[31] = 0xab, 0xcd
	return c
}

func TestRoundTrip(t *testing.T) {
	for _, warm := range []bool{false, true} {
		c := sample()
		if !warm {
			c.Warm = nil
		}
		path := filepath.Join(t.TempDir(), FileName(c.Step))
		if err := Write(path, c); err != nil {
			t.Fatal(err)
		}
		got, err := Read(path)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, c) {
			t.Errorf("warm %v: read back\n%+v\nwant\n%+v", warm, got, c)
		}
		// Bits, not values: -0 and 0 compare equal.
		if math.Float64bits(got.State.Pos[3]) != math.Float64bits(math.Copysign(0, -1)) {
			t.Errorf("-0 came back as %v", got.State.Pos[3])
		}
		ents, err := os.ReadDir(filepath.Dir(path))
		if err != nil {
			t.Fatal(err)
		}
		if len(ents) != 1 || ents[0].Name() != "step-000042.ckpt" {
			t.Errorf("folder holds %v, want only step-000042.ckpt", ents)
		}
	}
}

// withCRC returns data with its CRC recomputed, so that a test (or the
// fuzzer) reaches the content checks.
func withCRC(data []byte) []byte {
	if len(data) < headerLen+trailerLen {
		return data
	}
	out := append([]byte(nil), data...)
	end := len(out) - trailerLen
	binary.LittleEndian.PutUint64(out[12:], uint64(end-headerLen))
	binary.LittleEndian.PutUint32(out[end:], crc32.Checksum(out[:end], castagnoli))
	return out
}

func TestDecodeRejects(t *testing.T) {
	good, err := Encode(sample())
	if err != nil {
		t.Fatal(err)
	}
	flip := func(i int) []byte {
		b := append([]byte(nil), good...)
		b[i] ^= 0x10
		return b
	}
	version := append([]byte(nil), good...)
	binary.LittleEndian.PutUint32(version[8:], 5)
	// The state section starts after the model hash; find it from the
	// end: warm section (1 + 8 + 3·3·4 + 9·8 bytes, joints 8 + 2·8),
	// state (8 + 13·3·8).
	warmLen := 1 + 8 + 3*3*4 + 9*8 + 8 + 2*8
	stateOff := len(good) - trailerLen - warmLen - (8 + 13*3*8)
	nanPos := append([]byte(nil), good...)
	binary.LittleEndian.PutUint64(nanPos[stateOff+8+8*4:], math.Float64bits(math.NaN()))
	badKey := append([]byte(nil), good...)
	// Second warm key's Sub (1) becomes 0: it repeats the first key.
	binary.LittleEndian.PutUint32(badKey[len(good)-trailerLen-warmLen+1+8+2*3*4+4:], 0)
	hugeCount := append([]byte(nil), good...)
	binary.LittleEndian.PutUint64(hugeCount[stateOff:], 1<<40)
	cases := []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "truncated: 0 bytes"},
		{"other file", []byte("step,time\n1,0.01\n"), "not a gpusim checkpoint"},
		{"short magic", good[:5], "truncated"},
		{"header only", good[:headerLen-1], "truncated"},
		{"truncated half", good[:len(good)/2], "truncated"},
		{"truncated crc", good[:len(good)-1], "truncated"},
		{"trailing", append(append([]byte(nil), good...), 0), "after the end"},
		{"version", version, "format version 5; this gpusim reads versions 1 to 4"},
		{"flipped state bit", flip(stateOff + 20), "corrupted"},
		{"flipped crc", flip(len(good) - 1), "corrupted"},
		{"NaN position", withCRC(nanPos), "state: body 1: position component 1 is NaN"},
		{"unsorted warm keys", withCRC(badKey), "does not follow"},
		{"body count", withCRC(hugeCount), "state bodies"},
	}
	for _, c := range cases {
		_, err := Decode(c.data)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
	// Every truncation is caught, by the length check, never by a panic.
	for n := range len(good) {
		if _, err := Decode(good[:n]); err == nil {
			t.Fatalf("a checkpoint cut to %d of %d bytes was accepted", n, len(good))
		}
	}
}

func TestReadNamesFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.ckpt")
	if err := os.WriteFile(path, []byte("GPUSIMCK"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Read(path)
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "truncated") {
		t.Errorf("error %v, want one naming %s and saying truncated", err, path)
	}
}

func TestModelHash(t *testing.T) {
	m := engine.Model{Gravity: [3]float64{0, 0, -9.81}, Materials: []engine.Material{{Name: "a", Friction: 0.5}},
		Bodies: []engine.Body{{Shape: engine.SphereShape(0.1), Mass: 1, Inertia: [3]float64{1, 1, 1}}}}
	h := ModelHash(&m)
	m.Bodies[0].Pos[2] = 3 // state is not part of the hash
	if ModelHash(&m) != h {
		t.Error("the hash depends on the position")
	}
	m.Materials[0].Friction = 0.4
	if ModelHash(&m) == h {
		t.Error("the hash ignores the friction")
	}
}

// FuzzCheckpoint feeds Decode arbitrary bytes, and the same bytes with the
// length and CRC fixed up so that the content parser is reached. Decode
// must return an error or a checkpoint that encodes back to the same bytes.
func FuzzCheckpoint(f *testing.F) {
	good, err := Encode(sample())
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add(good[:len(good)/2])
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, in := range [][]byte{data, withCRC(data)} {
			c, err := Decode(in)
			if err != nil {
				continue
			}
			out, err := Encode(c)
			if err != nil {
				t.Fatalf("decoded checkpoint does not encode: %v", err)
			}
			if c2, err := Decode(out); err != nil || !reflect.DeepEqual(c, c2) {
				t.Fatalf("re-encoded checkpoint decodes to %+v, %v", c2, err)
			}
		}
	})
}

// TestReadVersion1: a file of format version 1 (version 2 without the
// warm section's joint impulses) still reads, with no joint impulses.
func TestReadVersion1(t *testing.T) {
	c := sample()
	good, err := Encode(c)
	if err != nil {
		t.Fatal(err)
	}
	// Drop the joints section (count and two impulses) before the CRC.
	cut := len(good) - trailerLen - (8 + 2*8)
	v1 := append(append([]byte(nil), good[:cut]...), good[len(good)-trailerLen:]...)
	binary.LittleEndian.PutUint32(v1[8:], 1)
	got, err := Decode(withCRC(v1))
	if err != nil {
		t.Fatal(err)
	}
	c.Warm.Joints = nil
	if !reflect.DeepEqual(got, c) {
		t.Errorf("version 1 read back\n%+v\nwant\n%+v", got, c)
	}
}

// TestRollingWarmVersion3: warm-start data with rolling impulses (3 per
// key) is written as version 3 and reads back; without them the file is
// version 2, byte for byte what it was before version 3.
func TestRollingWarmVersion3(t *testing.T) {
	c := sample()
	v2, err := Encode(c)
	if err != nil {
		t.Fatal(err)
	}
	if v := binary.LittleEndian.Uint32(v2[8:]); v != 2 {
		t.Fatalf("without rolling impulses: version %d, want 2", v)
	}
	c.Warm.Rolling = []float64{0.01, -0.02, 0.003, 0, 0, 0, 1e-3, 2e-3, -4e-4}
	v3, err := Encode(c)
	if err != nil {
		t.Fatal(err)
	}
	if v := binary.LittleEndian.Uint32(v3[8:]); v != 3 {
		t.Fatalf("with rolling impulses: version %d, want 3", v)
	}
	if len(v3) != len(v2)+9*8 {
		t.Fatalf("version 3 is %d bytes, want version 2's %d + 72", len(v3), len(v2))
	}
	got, err := Decode(v3)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, c) {
		t.Errorf("read back\n%+v\nwant\n%+v", got.Warm, c.Warm)
	}
	// Truncated rolling section: a clear error.
	cut := len(v3) - trailerLen - 8
	short := append(append([]byte(nil), v3[:cut]...), v3[len(v3)-trailerLen:]...)
	binary.LittleEndian.PutUint64(short[12:], uint64(len(short)-headerLen-trailerLen))
	if _, err := Decode(withCRC(short)); err == nil || !strings.Contains(err.Error(), "rolling") {
		t.Errorf("truncated rolling section: %v, want an error naming it", err)
	}
	// The wrong count of rolling impulses does not encode.
	c.Warm.Rolling = c.Warm.Rolling[:4]
	if _, err := Encode(c); err == nil {
		t.Error("4 rolling impulses for 3 keys encoded")
	}
}

// TestMixedVersion4: settings.precision "mixed" is written as version 4
// (the precision after workers, a flag before the rolling impulses) and
// reads back, with rolling impulses and without; a version 4 file with
// another precision does not read.
func TestMixedVersion4(t *testing.T) {
	c := sample()
	v2, err := Encode(c)
	if err != nil {
		t.Fatal(err)
	}
	c.Settings.Precision = engine.PrecisionMixed
	c.Warm.Rolling = []float64{0.01, -0.02, 0.003, 0, 0, 0, 1e-3, 2e-3, -4e-4}
	v4, err := Encode(c)
	if err != nil {
		t.Fatal(err)
	}
	if v := binary.LittleEndian.Uint32(v4[8:]); v != 4 {
		t.Fatalf("mixed precision: version %d, want 4", v)
	}
	if want := len(v2) + 8 + len("mixed") + 1 + 9*8; len(v4) != want { // precision, rolling flag, rolling impulses
		t.Fatalf("version 4 is %d bytes, want %d", len(v4), want)
	}
	got, err := Decode(v4)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, c) {
		t.Errorf("read back\n%+v\nwant\n%+v", got.Settings, c.Settings)
	}
	// Without rolling impulses: the flag alone.
	c.Warm.Rolling = nil
	noRoll, err := Encode(c)
	if err != nil {
		t.Fatal(err)
	}
	if len(noRoll) != len(v4)-9*8 {
		t.Errorf("version 4 without rolling impulses is %d bytes, want %d", len(noRoll), len(v4)-9*8)
	}
	if got, err := Decode(noRoll); err != nil || !reflect.DeepEqual(got, c) {
		t.Errorf("version 4 without rolling impulses read back %+v, %v", got, err)
	}
	at := bytes.Index(v4, []byte("mixed"))
	bad := append([]byte(nil), v4...)
	copy(bad[at:], "mixxd")
	if _, err := Decode(withCRC(bad)); err == nil || !strings.Contains(err.Error(), "settings.precision") {
		t.Errorf("precision \"mixxd\": %v, want an error naming settings.precision", err)
	}
}

// TestModelHashRolling: a model without rolling friction hashes as before
// the fields existed (they are hashed only when some material has them),
// and a rolling coefficient changes the hash.
func TestModelHashRolling(t *testing.T) {
	m := &engine.Model{Materials: []engine.Material{{Name: "a", Friction: 0.3}},
		Bodies: []engine.Body{{Shape: engine.SphereShape(1), Mass: 1}}}
	h0 := ModelHash(m)
	m.Materials[0].RollingFriction = 0.01
	h1 := ModelHash(m)
	m.Materials[0].RollingFriction, m.Materials[0].SpinningFriction = 0, 0.01
	h2 := ModelHash(m)
	if h0 == h1 || h0 == h2 || h1 == h2 {
		t.Errorf("hashes %x, %x, %x: want all different", h0[:4], h1[:4], h2[:4])
	}
}
