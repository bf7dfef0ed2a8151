// Package outdir guards gpusim's output folders: an exclusive or shared
// lock on a folder (flock(2) on a lock file inside it, which the kernel
// releases when the process ends, however it ends), the list of files
// gpusim writes into a run folder (to tell another run's outputs from a
// user's own files, and to clear the former), and the complete rows of a
// CSV file whose last line a full disk or a SIGKILL may have cut.
package outdir

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
)

// LockFile is the name of the lock file in a locked folder. It holds a
// line naming the process that holds the folder (written by exclusive
// holders only): pid, host, start time and command line.
const LockFile = ".gpusim.lock"

// ErrBusy is wrapped by the error of Acquire when another process holds
// the folder's lock.
var ErrBusy = errors.New("in use by another gpusim process")

// BusyError says which folder is held, and by whom when the holder said.
type BusyError struct {
	Dir string
	// Holder is the holder's line (pid, host, start, command), "" when the
	// holders hold the lock shared and say nothing.
	Holder string
}

func (e *BusyError) Error() string {
	if e.Holder == "" {
		return fmt.Sprintf("%s is in use by other gpusim processes (single runs of a sweep, --index); wait for them to end or choose another folder", e.Dir)
	}
	return fmt.Sprintf("%s is in use by another gpusim process (%s); wait for it to end, or choose another folder", e.Dir, e.Holder)
}

func (e *BusyError) Unwrap() error { return ErrBusy }

// Lock is a held lock on a folder.
type Lock struct {
	f      *os.File // nil: the file system does not lock
	path   string
	shared bool
}

// Acquire takes the lock of dir (making dir if needed) without waiting:
// exclusive, or shared with other shared holders. If another process holds
// it in a conflicting way the error is a *BusyError. A lock file left by a
// process that ended without releasing it (killed) is not locked, so it is
// taken over, and notice (if set) is told whose it was. On a file system
// that does not support flock (some network file systems) the folder is
// used unlocked and notice is told so.
//
// An exclusive holder writes its line into the lock file and removes the
// file on Release; shared holders write nothing and leave it (another
// shared holder may still hold it). The file is locked, then checked to be
// still the one at its path (a releasing holder may have removed it
// meanwhile), else taken again.
func Acquire(dir string, shared bool, notice func(string)) (*Lock, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("output folder: %w", err)
	}
	path := filepath.Join(dir, LockFile)
	how := syscall.LOCK_EX
	if shared {
		how = syscall.LOCK_SH
	}
	for range 20 {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return nil, fmt.Errorf("lock %s: %w", dir, err)
		}
		err = flock(f, how|syscall.LOCK_NB)
		if errors.Is(err, syscall.EWOULDBLOCK) {
			holder := readHolder(f)
			f.Close()
			return nil, &BusyError{Dir: dir, Holder: holder}
		}
		if err != nil {
			f.Close()
			if unsupported(err) {
				if notice != nil {
					notice(fmt.Sprintf("%s: the file system does not lock files (flock: %v): the folder is not locked against other gpusim processes", dir, err))
				}
				return &Lock{path: path, shared: shared}, nil
			}
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		fi, ferr := f.Stat()
		pi, perr := os.Stat(path)
		if ferr != nil || perr != nil || !os.SameFile(fi, pi) {
			f.Close() // removed by its last holder meanwhile: take the new one
			continue
		}
		l := &Lock{f: f, path: path, shared: shared}
		if shared {
			return l, nil
		}
		if old := readHolder(f); old != "" && notice != nil {
			notice(fmt.Sprintf("%s: taking over the lock of a gpusim process that ended without releasing it (%s)", dir, old))
		}
		removeTemps(dir)
		host, _ := os.Hostname()
		line := fmt.Sprintf("pid %d on host %s, started %s: %s\n", os.Getpid(), host,
			time.Now().UTC().Format(time.RFC3339), strings.Join(os.Args, " "))
		if err := f.Truncate(0); err == nil {
			f.WriteAt([]byte(line), 0) // informative only: a failure leaves the lock held
		}
		return l, nil
	}
	return nil, fmt.Errorf("lock %s: the lock file keeps being replaced", path)
}

// removeTemps removes the temporary files (".tmp-*") that a gpusim process
// killed in the middle of an atomic write left in dir and in gpusim's
// folders there. Only an exclusive holder calls it: no other gpusim process
// writes into dir then, so every such file is a dead writer's.
func removeTemps(dir string) {
	for _, d := range append([]string{""}, slices.Sorted(maps.Keys(runDirs))...) {
		fs, _ := filepath.Glob(filepath.Join(dir, d, ".tmp-*"))
		for _, f := range fs {
			if fi, err := os.Lstat(f); err == nil && fi.Mode().IsRegular() {
				os.Remove(f) // best effort: a file left is never read as a result
			}
		}
	}
}

// flock is syscall.Flock on f, retried when a signal interrupts it.
func flock(f *os.File, how int) error {
	for {
		err := syscall.Flock(int(f.Fd()), how)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}

// unsupported reports a flock error that means the file system does not
// lock (rather than that the lock is held).
func unsupported(err error) bool {
	return errors.Is(err, syscall.ENOSYS) || errors.Is(err, syscall.EOPNOTSUPP) ||
		errors.Is(err, syscall.ENOLCK) || errors.Is(err, syscall.EINVAL)
}

// readHolder returns the holder line of an open lock file ("" if none).
func readHolder(f *os.File) string {
	buf := make([]byte, 1024)
	n, _ := f.ReadAt(buf, 0)
	return strings.TrimSpace(string(buf[:n]))
}

// Release gives the lock back: an exclusive holder first removes the lock
// file (so a finished run leaves no trace), then closes it, which unlocks.
func (l *Lock) Release() error {
	if l == nil || l.f == nil {
		return nil
	}
	var err error
	if !l.shared {
		if rerr := os.Remove(l.path); rerr != nil && !errors.Is(rerr, os.ErrNotExist) {
			err = rerr
		}
	}
	err = errors.Join(err, l.f.Close())
	l.f = nil
	return err
}

// Names of what gpusim writes into a run folder: files, folders, and the
// files gpusim writes inside those folders (patterns of filepath.Match).
var (
	runFiles = []string{"stats.csv", "trace.csv", "reactions.csv", "merit.csv", "final.csv", "summary.json", "run.pvd", "contacts.pvd", "view.py",
		"render.png", "render-frame-*.png", "DONE", "FAILED", ".tmp-*"}
	runDirs = map[string][]string{
		"vtk":         {"frame-*.vtp", "contacts-*.vtp", "container.vtp", ".tmp-*"},
		"checkpoints": {"step-*.ckpt", ".tmp-*"},
		"npz":         {"step-*.npz", ".tmp-*"},
		"render":      {"frame-*.png", ".tmp-*"},
		"plots": append(plotFiles("contacts", "iterations", "residual", "wall-time", "fixed-force",
			"trace-position", "trace-speed", "reactions-joint", "reactions-body", "merit"), ".tmp-*"),
	}
)

// plotFiles are the files of the named plots: each as PNG, SVG and PDF
// (viz.Formats).
func plotFiles(names ...string) []string {
	var fs []string
	for _, n := range names {
		fs = append(fs, n+".png", n+".svg", n+".pdf")
	}
	return fs
}

func matchAny(pats []string, name string) bool {
	for _, p := range pats {
		if ok, _ := filepath.Match(p, name); ok {
			return true
		}
	}
	return false
}

// Ours reports whether rel, a path relative to a run folder with '/' as
// separator ("final.csv", "plots/merit.png"), names a file gpusim writes
// there (see Contents).
func Ours(rel string) bool {
	d, name, sub := strings.Cut(rel, "/")
	if !sub {
		return matchAny(runFiles, rel)
	}
	pats, ok := runDirs[d]
	return ok && !strings.Contains(name, "/") && matchAny(pats, name)
}

// Contents lists what a run folder holds: ours, the files gpusim writes and
// the folders it writes that hold such files ("vtk/"), and theirs, any other entry (a
// user's own file, or a file a user put into one of gpusim's folders, as
// "vtk/notes.txt"). The lock file is neither. A folder that does not exist
// holds nothing.
func Contents(dir string) (ours, theirs []string, err error) {
	es, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	for _, e := range es {
		name := e.Name()
		switch pats, isDir := runDirs[name]; {
		case name == LockFile:
		case isDir && e.IsDir():
			sub, err := os.ReadDir(filepath.Join(dir, name))
			if err != nil {
				return nil, nil, err
			}
			mine := false
			for _, s := range sub {
				if s.IsDir() || !matchAny(pats, s.Name()) {
					theirs = append(theirs, name+"/"+s.Name())
				} else {
					mine = true
				}
			}
			if mine {
				ours = append(ours, name+"/")
			}
		case !e.IsDir() && matchAny(runFiles, name):
			ours = append(ours, name)
		default:
			theirs = append(theirs, name)
		}
	}
	return ours, theirs, nil
}

// Clear removes what gpusim writes from the run folder dir (see Contents)
// and returns the entries it left: the user's files, and gpusim's folders
// that still hold some of them.
func Clear(dir string) (kept []string, err error) {
	_, theirs, err := Contents(dir)
	if err != nil {
		return nil, err
	}
	es, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	for _, e := range es {
		name := e.Name()
		pats, isDir := runDirs[name]
		switch {
		case name == LockFile:
		case isDir && e.IsDir():
			sub, err := os.ReadDir(filepath.Join(dir, name))
			if err != nil {
				return theirs, err
			}
			for _, s := range sub {
				if !s.IsDir() && matchAny(pats, s.Name()) {
					if err := os.Remove(filepath.Join(dir, name, s.Name())); err != nil {
						return theirs, err
					}
				}
			}
			// Removed when empty; kept with the user's files in it.
			if err := os.Remove(filepath.Join(dir, name)); err != nil && !slices.ContainsFunc(theirs, func(s string) bool {
				return strings.HasPrefix(s, name+"/")
			}) {
				return theirs, err
			}
		case !e.IsDir() && matchAny(runFiles, name):
			if err := os.Remove(filepath.Join(dir, name)); err != nil {
				return theirs, err
			}
		}
	}
	return theirs, nil
}

// ClearAll removes everything in dir but the lock file (the folder of a
// sweep's run, which holds nothing of the user's).
func ClearAll(dir string) error {
	es, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range es {
		if e.Name() == LockFile {
			continue
		}
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			return err
		}
	}
	return nil
}

// CompleteRows returns data up to and including its last newline: the
// complete rows of a CSV file whose last line a failed write or a killed
// process may have cut. cut reports that such a partial line was dropped.
func CompleteRows(data []byte) (rows []byte, cut bool) {
	i := bytes.LastIndexByte(data, '\n')
	return data[:i+1], i+1 < len(data)
}
