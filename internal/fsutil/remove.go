package fsutil

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
)

// RemoveAllCtx removes path and what it holds, as os.RemoveAll does, but
// looks at ctx between entries: once ctx is done it stops and returns
// ctx's error (errors.Is(err, context.Canceled)), leaving the rest. A
// missing path is not an error.
func RemoveAllCtx(ctx context.Context, path string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	err := os.Remove(path)
	if err == nil || errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	fi, lerr := os.Lstat(path)
	if lerr != nil {
		if errors.Is(lerr, fs.ErrNotExist) {
			return nil
		}
		return lerr
	}
	if !fi.IsDir() {
		return err
	}
	if err := removeChildren(ctx, path); err != nil {
		return err
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// removeChildren empties the directory dir, a batch of names at a time.
func removeChildren(ctx context.Context, dir string) error {
	for {
		f, err := os.Open(dir)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		names, rerr := f.Readdirnames(1024)
		f.Close()
		if len(names) == 0 {
			if rerr == nil || rerr == io.EOF {
				return nil
			}
			return rerr
		}
		for _, name := range names {
			if err := RemoveAllCtx(ctx, filepath.Join(dir, name)); err != nil {
				return err
			}
		}
	}
}

// interrupts are the signals a command stops on.
var interrupts = []os.Signal{os.Interrupt, syscall.SIGTERM}

// StopOnSecondInterrupt returns a context for work a command finishes
// even after an interrupt, such as removing a replaced output, but that a
// second interrupt stops. ctx is the command's own context, done on the
// first interrupt: if it is done already, the next interrupt stops the
// work; if not, the one after next does. first, if not nil, is called on
// an interrupt that does not stop it (to say that another one will).
// The returned context is not done when ctx is; cancel it when the work
// is over.
func StopOnSecondInterrupt(ctx context.Context, first func()) (context.Context, context.CancelFunc) {
	out, cancel := context.WithCancel(context.WithoutCancel(ctx))
	// ctx is looked at before listening: an interrupt that comes in
	// between is counted at most once.
	seen := 0
	if ctx.Err() != nil {
		seen = 1
	}
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, interrupts...)
	go func() {
		defer signal.Stop(ch)
		for {
			select {
			case <-ch:
				if seen++; seen >= 2 {
					cancel()
					return
				}
				if first != nil {
					first()
				}
			case <-out.Done():
				return
			}
		}
	}()
	return out, cancel
}
