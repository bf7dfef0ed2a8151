package main

import (
	"bytes"
	"errors"
	"fmt"
	"image/png"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/go-gl/mathgl/mgl64"

	"github.com/gpusim/gpusim/viz"
)

const renderUsage = `Usage: gpusim render DIR [flags]

Draws the bodies of a run as a PNG: shaded, coloured by speed (or
--color-by), with the container and a colour bar. The bodies come from the
run's ParaView frames (DIR/run.pvd, written by gpusim run --vtk N) or,
without frames, from DIR/final.csv with the shapes of the scene in
DIR/summary.json. Render only reads the run; it writes the PNGs only.

One frame (the last, or --frame K) goes to DIR/render.png (or
DIR/render-frame-K.png, or --out FILE.png). With --all every frame of
run.pvd goes to the folder --out (default DIR/render) as frame-000000.png,
frame-000001.png, … (consecutive, in the order of run.pvd), ready for

    ffmpeg -framerate 25 -i DIR/render/frame-%06d.png -pix_fmt yuv420p movie.mp4

(which the command prints; yuv420p wants an even --width and --height).
A movie keeps the colour range (default: over the whole run) and the
automatic camera (framing the bodies of every frame) fixed, so it does not
flicker or jump.

  --camera px,py,pz,tx,ty,tz[,fov]  the camera at (px, py, pz) m looking at
        (tx, ty, tz), z up on the picture, fov degrees across the picture's
        shorter side (default 30); default: framing the bodies from the
        front right and above (gpusim render prints the camera it used)
  --color-by speed|z|id|force|none  speed |v| (m/s), height z of the centre
        (m), body id (scene order), force: the contact force a body carries,
        Σ|f| over its contacts (N; needs the run's contact frames, gpusim run
        --vtk N --vtk-contacts; not the resultant: the contact files carry
        the friction force's size, not its direction), none: one colour, no
        colour bar
  --range lo,hi | run | frame  the colour range: fixed, over every frame of
        the run, or each frame's own; default run with --all, frame for one
        frame (so a single picture uses its full colour scale; --range run
        matches it to the movie's frame)

Flags:
`

// renderFrameName is the name of the frames --all writes: frame-NNNNNN.png.
var renderFrameName = regexp.MustCompile(`^frame-[0-9]{6}\.png$`)

// cmdRender writes a picture of one frame of a run, or of every frame
// (see viz.Draw).
func cmdRender(args []string, stdout, stderr io.Writer) error {
	fset := newFlagSet("gpusim render", stderr, renderUsage)
	var (
		frame   = fset.Int("frame", -1, "the frame to draw: its index in DIR/run.pvd, from 0 (default: the last)")
		all     = fset.Bool("all", false, "draw every frame of DIR/run.pvd into the folder --out as frame-000000.png, …")
		width   = fset.Int("width", 1024, "picture width (pixels)")
		height  = fset.Int("height", 768, "picture height (pixels)")
		out     = fset.String("out", "", "PNG file to write (default DIR/render.png, or DIR/render-frame-K.png with --frame); with --all the folder (default DIR/render)")
		camera  = fset.String("camera", "", "px,py,pz,tx,ty,tz[,fov_deg]: camera position, target (m) and field of view (default 30°); default: automatic framing")
		colorBy = fset.String("color-by", "speed", "colour the bodies by "+strings.Join(viz.Quantities(), ", "))
		rng     = fset.String("range", "", "colour range: lo,hi, run (over every frame) or frame (each frame's own); default run with --all, else frame")
	)
	dir, err := parseOne(fset, args, "render takes one run folder")
	if err != nil {
		return err
	}
	// The flags first, so that a bad one is named before the run is read.
	if *frame < -1 {
		return usageError{fmt.Errorf("--frame %d: want a frame index ≥ 0", *frame)}
	}
	if *all && setFlags(fset)["frame"] {
		return usageError{errors.New("--all draws every frame: leave out --frame")}
	}
	cam, err := parseCamera(*camera)
	if err != nil {
		return usageError{err}
	}
	q, err := viz.ParseQuantity(*colorBy)
	if err != nil {
		return usageError{fmt.Errorf("--color-by %w", err)}
	}
	mode, fixed, err := parseRange(*rng, q)
	if err != nil {
		return usageError{err}
	}
	if mode == "" {
		mode = "frame"
		if *all {
			mode = "run"
		}
	}
	if *out != "" {
		ext := strings.ToLower(filepath.Ext(*out))
		if *all && ext == ".png" {
			return usageError{fmt.Errorf("--out %s: with --all, --out names a folder for frame-000000.png, …", *out)}
		}
		if !*all && ext != ".png" {
			return usageError{fmt.Errorf("--out %s: want a file name ending in .png", *out)}
		}
	}
	if *width < 210 || *height < 100 || *width > 16384 || *height > 16384 {
		return usageError{fmt.Errorf("--width %d --height %d: picture size: want 210 to 16384 by 100 to 16384 pixels", *width, *height)}
	}

	n, err := viz.NumFrames(dir)
	if err != nil {
		return usageError{err}
	}
	if *all && n == 0 {
		return usageError{fmt.Errorf("--all: %s has no ParaView frames (run with --vtk N)", dir)}
	}
	opt := viz.RenderOptions{Width: *width, Height: *height, Camera: cam, ColorBy: q, Range: fixed}
	var st *viz.RunStats
	if mode == "run" || *all {
		// One pass over the run: the colour range and the box the
		// automatic camera frames.
		if st, err = viz.ScanRun(dir, q); err != nil {
			return renderLoadError(err, q, dir)
		}
		if *all {
			opt.Bounds = &st.Bounds
		}
		if mode == "run" && q != viz.ByNone && st.Lo < st.Hi {
			opt.Range = &[2]float64{st.Lo, st.Hi}
		}
	}
	rangeNote := func(fr *viz.Frame) string {
		if q == viz.ByNone {
			return "colour: none"
		}
		name, unit := q.Label()
		var lo, hi float64
		if opt.Range != nil {
			lo, hi = opt.Range[0], opt.Range[1]
		} else {
			lo, hi = viz.ColorRange(q, fr.Bodies, fr.Force)
		}
		how := "this frame's; --range run: the run's"
		switch {
		case mode == "fixed":
			how = "fixed by --range"
		case mode == "run":
			how = fmt.Sprintf("over the run's %d frames", st.Frames)
		case *all:
			how = "each frame's own: the colours change from frame to frame"
		}
		return fmt.Sprintf("colour: %s %s to %s %s (%s)", name, strconv.FormatFloat(lo, 'g', 4, 64), strconv.FormatFloat(hi, 'g', 4, 64), unit, how)
	}
	cameraNote := func(fr *viz.Frame) string {
		if cam != nil {
			return "camera: --camera " + cameraArg(*cam)
		}
		box := viz.Bounds(fr.Bodies)
		if opt.Bounds != nil {
			box = *opt.Bounds
		}
		return "camera: automatic, as --camera " + cameraArg(viz.AutoCamera(box))
	}
	draw := func(k int) (*viz.Frame, []byte, error) {
		fr, err := viz.LoadFrame(dir, k)
		if err != nil {
			return nil, nil, usageError{err}
		}
		if q == viz.ByForce {
			if err := viz.LoadForces(dir, fr); err != nil {
				return nil, nil, renderLoadError(err, q, dir)
			}
		}
		caption := fmt.Sprintf("%s  %d bodies", dir, len(fr.Bodies))
		if fr.Index >= 0 && n > 0 {
			caption += fmt.Sprintf("  frame %d (0..%d)", fr.Index, n-1)
		}
		if !math.IsNaN(fr.Time) {
			caption += fmt.Sprintf("  t = %.4g s", fr.Time)
		}
		o := opt
		o.Caption = caption
		o.Force = fr.Force
		img, err := viz.Draw(fr.Bodies, o)
		if err != nil {
			return nil, nil, usageError{err}
		}
		var buf bytes.Buffer
		if err := png.Encode(&buf, img); err != nil {
			return nil, nil, err
		}
		return fr, buf.Bytes(), nil
	}
	if !*all {
		fr, data, err := draw(*frame)
		if err != nil {
			return err
		}
		if *out == "" {
			*out = filepath.Join(dir, "render.png")
			if *frame >= 0 {
				*out = filepath.Join(dir, fmt.Sprintf("render-frame-%d.png", *frame))
			}
		}
		if err := writeRenderFile(*out, data); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s (from %s)\n%s\n%s\n", *out, fr.Source, rangeNote(fr), cameraNote(fr))
		return nil
	}

	if *out == "" {
		*out = filepath.Join(dir, "render")
	}
	if fi, err := os.Stat(*out); err == nil && !fi.IsDir() {
		return usageError{fmt.Errorf("--out %s: is a file; with --all, --out names a folder", *out)}
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return usageError{fmt.Errorf("--out: %w", err)}
	}
	// Frames past this run's last, left by an earlier render of a longer
	// run, would run on in the movie: only files named as these frames go.
	if old, err := os.ReadDir(*out); err == nil {
		for _, e := range old {
			if renderFrameName.MatchString(e.Name()) {
				if k, _ := strconv.Atoi(e.Name()[6:12]); k >= n {
					os.Remove(filepath.Join(*out, e.Name()))
				}
			}
		}
	}
	// Frames are drawn in parallel, each written as it is done.
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
		next  int
		lastF *viz.Frame
	)
	for range min(runtime.GOMAXPROCS(0), n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				k := next
				next++
				stop := first != nil
				mu.Unlock()
				if stop || k >= n {
					return
				}
				fr, data, err := draw(k)
				if err == nil {
					err = writeRenderFile(filepath.Join(*out, fmt.Sprintf("frame-%06d.png", k)), data)
				}
				mu.Lock()
				if err != nil && first == nil {
					first = err
				}
				if k == n-1 {
					lastF = fr
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if first != nil {
		return first
	}
	fmt.Fprintf(stdout, "%s: %d frames frame-000000.png … frame-%06d.png (from %s)\n%s\n%s\n",
		*out, n, n-1, filepath.Join(dir, "run.pvd"), rangeNote(lastF), cameraNote(lastF))
	fmt.Fprintf(stdout, "movie: ffmpeg -framerate 25 -i %s -pix_fmt yuv420p %s\n",
		shellQuote(filepath.Join(*out, "frame-%06d.png")), shellQuote(strings.TrimSuffix(filepath.Clean(*out), string(filepath.Separator))+".mp4"))
	return nil
}

// renderLoadError turns an error reading the run into a usage error, and
// a run without contact frames for --color-by force into one naming the
// flag.
func renderLoadError(err error, q viz.Quantity, dir string) error {
	if q == viz.ByForce && errors.Is(err, viz.ErrNoContacts) {
		return usageError{fmt.Errorf("--color-by force: %s has %w", dir, viz.ErrNoContacts)}
	}
	return usageError{err}
}

// writeRenderFile writes a PNG; a missing folder is the user's --out.
func writeRenderFile(path string, data []byte) error {
	f, err := os.Create(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return usageError{fmt.Errorf("--out: %w", err)}
		}
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("render: %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("render: %s: %w", path, err)
	}
	return nil
}

// parseCamera reads --camera px,py,pz,tx,ty,tz[,fov]; "" is nil (the
// automatic camera).
func parseCamera(s string) (*viz.Camera, error) {
	if s == "" {
		return nil, nil
	}
	parts := strings.Split(s, ",")
	if len(parts) != 6 && len(parts) != 7 {
		return nil, fmt.Errorf("--camera %q: want px,py,pz,tx,ty,tz or px,py,pz,tx,ty,tz,fov_deg (6 or 7 numbers), got %d", s, len(parts))
	}
	names := []string{"px", "py", "pz", "tx", "ty", "tz", "fov"}
	v := make([]float64, len(parts))
	for i, p := range parts {
		x, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil {
			return nil, fmt.Errorf("--camera %q: %s = %q is not a number", s, names[i], p)
		}
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("--camera %q: %s = %v: want a finite number", s, names[i], x)
		}
		v[i] = x
	}
	c := &viz.Camera{Pos: mgl64.Vec3{v[0], v[1], v[2]}, Target: mgl64.Vec3{v[3], v[4], v[5]}, FOV: 30}
	if len(v) == 7 {
		if !(v[6] > 0 && v[6] < 180) {
			return nil, fmt.Errorf("--camera %q: fov %g°: want 0 < fov < 180 degrees", s, v[6])
		}
		c.FOV = v[6]
	}
	if c.Pos == c.Target {
		return nil, fmt.Errorf("--camera %q: the position and the target are the same point; the camera needs a direction to look in", s)
	}
	return c, nil
}

// parseRange reads --range: "" (the default), run, frame, or lo,hi
// (returned as fixed, mode "fixed").
func parseRange(s string, q viz.Quantity) (mode string, fixed *[2]float64, err error) {
	if s != "" && q == viz.ByNone {
		return "", nil, fmt.Errorf("--range %q: --color-by none has no colour range", s)
	}
	switch s {
	case "", "run", "frame":
		return s, nil, nil
	}
	parts := strings.Split(s, ",")
	if len(parts) != 2 {
		return "", nil, fmt.Errorf("--range %q: want lo,hi (two numbers), run or frame", s)
	}
	var v [2]float64
	for i, p := range parts {
		x, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil {
			return "", nil, fmt.Errorf("--range %q: %q is not a number", s, p)
		}
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return "", nil, fmt.Errorf("--range %q: %v: want finite numbers", s, x)
		}
		v[i] = x
	}
	if !(v[0] < v[1]) {
		return "", nil, fmt.Errorf("--range %q: want lo < hi", s)
	}
	return "fixed", &v, nil
}

// cameraArg formats a camera as --camera takes it.
func cameraArg(c viz.Camera) string {
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', 4, 64) }
	return strings.Join([]string{f(c.Pos[0]), f(c.Pos[1]), f(c.Pos[2]), f(c.Target[0]), f(c.Target[1]), f(c.Target[2]), f(c.FOV)}, ",")
}

// shellQuote quotes a path for a POSIX shell when it needs quoting.
func shellQuote(s string) string {
	if regexp.MustCompile(`^[A-Za-z0-9_./%+-]+$`).MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
