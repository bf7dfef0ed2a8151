// Package atomicfile writes files that a reader sees whole or not at all:
// the content goes to a temporary file beside the target, which is synced,
// given the mode of an ordinary output file (0644; os.CreateTemp makes
// 0600, which hides results from the rest of a group on a shared cluster)
// and renamed over the target, and the folder is synced so that the rename
// itself survives a crash.
package atomicfile

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Mode is the permission of the files written.
const Mode = 0o644

// Write writes path through fill, which gets a buffered writer on the
// temporary file; an error of fill, of a write, of the sync or of the
// rename leaves path as it was and removes the temporary file.
func Write(path string, fill func(w *bufio.Writer) error) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, ".tmp-"+filepath.Base(path))
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(tmp, 1<<16)
	ferr := fill(w)
	if ferr == nil {
		ferr = w.Flush()
	}
	merr := tmp.Chmod(Mode)
	serr := tmp.Sync()
	cerr := tmp.Close()
	if err := errors.Join(ferr, merr, serr, cerr); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	serr = d.Sync()
	if err := errors.Join(serr, d.Close()); err != nil {
		return fmt.Errorf("sync folder %s: %w", dir, err)
	}
	return nil
}

// WriteBytes writes data to path as Write does.
func WriteBytes(path string, data []byte) error {
	return Write(path, func(w *bufio.Writer) error {
		_, err := w.Write(data)
		return err
	})
}
