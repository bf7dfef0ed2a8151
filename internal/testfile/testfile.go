// Package testfile reads back, in tests, the files that the code under
// test wrote: PNG pictures, CSV tables and gzipped files. Each function fails the test
// (t.Fatal, naming the file) when the file cannot be opened or decoded.
// ResidentBytes reads the process's resident memory for the leak tests.
package testfile

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/csv"
	"image"
	"image/png"
	"io"
	"os"
	"strconv"
	"testing"
)

// PNG decodes the PNG file at path.
func PNG(t testing.TB, path string) image.Image {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return img
}

// Gunzip returns the contents of the gzipped file at path.
func Gunzip(t testing.TB, path string) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return data
}

// CSV reads the whole CSV file at path, header included; rows of
// differing widths are an error (encoding/csv's default).
func CSV(t testing.TB, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return rows
}

// ResidentBytes returns the process's resident set size (bytes), VmRSS
// of /proc/self/status. It skips the test where that file or line is
// missing (not Linux) and fails it where the number does not parse.
func ResidentBytes(t testing.TB) int64 {
	t.Helper()
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skipf("no /proc/self/status: %v", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		f := bytes.Fields(sc.Bytes())
		if len(f) >= 2 && string(f[0]) == "VmRSS:" {
			kb, err := strconv.ParseInt(string(f[1]), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Skip("no VmRSS in /proc/self/status")
	return 0
}

// Missing ends a test that needs something this machine lacks (a program,
// a Python module, a privilege): it skips with why, except where the
// environment variable CI is "true", where .ci/run has installed what the
// tests need and a missing piece is a broken install step: there it fails.
func Missing(t testing.TB, why string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatal(why + " (CI=true: .ci/run should have installed it)")
	}
	t.Skip(why)
}
