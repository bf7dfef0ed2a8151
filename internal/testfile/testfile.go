// Package testfile reads back, in tests, the files that the code under
// test wrote: PNG pictures and CSV tables. Each function fails the test
// (t.Fatal, naming the file) when the file cannot be opened or decoded.
package testfile

import (
	"encoding/csv"
	"image"
	"image/png"
	"os"
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
