package fclib

import (
	"bufio"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestHypotCorrectlyRounded checks hypot against testdata/hypot.txt:
// √(x² + y²) correctly rounded, computed by exact rational arithmetic in
// Python (406 pairs: random magnitudes over 60 decades, subnormals, near
// overflow, and contact 40 of FCLib's LMGC PerioBox, where Go's math.Hypot
// is one ulp off).
func TestHypotCorrectlyRounded(t *testing.T) {
	f, err := os.Open("testdata/hypot.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n, goOff := 0, 0
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		var v [3]float64
		for i, s := range strings.Fields(line) {
			if v[i], err = strconv.ParseFloat(s, 64); err != nil {
				t.Fatalf("%q: %v", line, err)
			}
		}
		if got := hypot(v[0], v[1]); got != v[2] {
			t.Errorf("hypot(%v, %v) = %v, want %v", v[0], v[1], got, v[2])
		}
		if math.Hypot(v[0], v[1]) != v[2] {
			goOff++
		}
		n++
	}
	if n < 400 {
		t.Fatalf("%d cases read, want 406", n)
	}
	if got := hypot(10075.183191913298, -1550.290601999489); got != 10193.758742547332 {
		t.Errorf("LMGC contact 40: hypot = %v, want 10193.758742547332", got)
	}
	t.Logf("%d cases; math.Hypot is one ulp off in %d", n, goOff)
	for _, c := range [][3]float64{{0, -2, 2}, {3, 0, 3}, {math.Inf(-1), 1, math.Inf(1)}, {1, math.NaN(), math.NaN()}} {
		if got := hypot(c[0], c[1]); got != c[2] && !(math.IsNaN(got) && math.IsNaN(c[2])) {
			t.Errorf("hypot(%v, %v) = %v, want %v", c[0], c[1], got, c[2])
		}
	}
}
