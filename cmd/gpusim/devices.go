package main

import (
	"errors"
	"io"
)

// cmdDevices is not written yet.
func cmdDevices(args []string, stdout, stderr io.Writer) error {
	return errors.New("gpusim devices is not implemented yet")
}
