package main

import (
	"errors"
	"io"
)

// cmdSolve is not written yet.
func cmdSolve(args []string, stdout, stderr io.Writer) error {
	return errors.New("gpusim solve is not implemented yet")
}
