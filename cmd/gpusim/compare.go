package main

import (
	"errors"
	"io"
)

// cmdCompare is not written yet.
func cmdCompare(args []string, stdout, stderr io.Writer) error {
	return errors.New("gpusim compare is not implemented yet")
}
