package main

import (
	"errors"
	"fmt"
	"image/png"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"

	"github.com/gpusim/gpusim/viz"
)

// cmdRender writes a picture of one frame of a run (see viz.Draw).
func cmdRender(args []string, stdout, stderr io.Writer) error {
	fset := newFlagSet("gpusim render", stderr, `Usage: gpusim render DIR [flags]

Draws the bodies of a run as a PNG: shaded, coloured by speed, with the
container and a colour bar. The bodies come from the run's ParaView frames
(DIR/run.pvd, written by gpusim run --vtk N) or, without frames, from
DIR/final.csv with the shapes of the scene in DIR/summary.json.

Flags:
`)
	var (
		frame  = fset.Int("frame", -1, "the frame to draw: its index in DIR/run.pvd, from 0 (default: the last)")
		width  = fset.Int("width", 1024, "picture width (pixels)")
		height = fset.Int("height", 768, "picture height (pixels)")
		out    = fset.String("out", "", "PNG file to write (default DIR/render.png, or DIR/render-frame-K.png with --frame)")
	)
	dir, err := parseOne(fset, args, "render takes one run folder")
	if err != nil {
		return err
	}
	if *frame < -1 {
		return usageError{fmt.Errorf("--frame %d: want a frame index ≥ 0", *frame)}
	}
	fr, err := viz.LoadFrame(dir, *frame)
	if err != nil {
		return usageError{err}
	}
	caption := fmt.Sprintf("%s  %d bodies", dir, len(fr.Bodies))
	if !math.IsNaN(fr.Time) {
		caption += fmt.Sprintf("  t = %.4g s", fr.Time)
	}
	img, err := viz.Draw(fr.Bodies, viz.RenderOptions{Width: *width, Height: *height, Caption: caption})
	if err != nil {
		return usageError{err}
	}
	if *out == "" {
		*out = filepath.Join(dir, "render.png")
		if *frame >= 0 {
			*out = filepath.Join(dir, fmt.Sprintf("render-frame-%d.png", *frame))
		}
	}
	f, err := os.Create(*out)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return usageError{fmt.Errorf("--out: %w", err)}
		}
		return err
	}
	if err := errors.Join(png.Encode(f, img), f.Close()); err != nil {
		return fmt.Errorf("render: %s: %w", *out, err)
	}
	fmt.Fprintf(stdout, "%s (from %s)\n", *out, fr.Source)
	return nil
}
