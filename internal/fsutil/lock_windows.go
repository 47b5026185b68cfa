//go:build windows

package fsutil

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

// Locking reports whether temporary directories are held, so that
// CleanStale can tell a leftover from a live run's directory.
//
// On Windows, LockFileEx locks byte ranges of files, not directories
// (on a directory's handle it fails), and its locks are mandatory: a lock
// on a temporary file itself would stop the writes of whoever reads it
// next. So the lock on a directory or file lives in a lock file of its
// own beside it, named after its file ID (.compact-lock-<volume>-<id>):
// a rename in the same directory keeps the ID (on NTFS and ReFS; FAT
// gives no such guarantee), so the lock follows the directory through
// renames as an flock does. The system drops the lock when the process
// dies, however it dies (possibly a moment later: a leftover is then
// spared once, and removed by the run after); the owner of a lock removes
// the lock file when it releases it, and CleanStale removes the lock
// files that no one holds (those a killed process left). As with flock,
// another handle of the same process does not get a held lock.
const Locking = true

// lock is an open handle on a lock file, carrying a LockFileEx lock on its
// first byte.
type lock struct{ h windows.Handle }

// unlock removes the lock file while the lock is still held (no one else
// owns it then: whoever opened it meanwhile and locks it next finds it
// gone and starts again), and closes the handle, which drops the lock.
func (l lock) unlock() {
	removeByHandle(l.h)
	windows.CloseHandle(l.h)
}

// lockTries bounds the retries on a lock file that is being removed, or
// changes under the name between its opening and its lock.
const lockTries = 50

// lockPath takes the lock on path (a directory or a file, not followed if
// a symbolic link or junction) without waiting. It fails with ErrHeld when
// someone holds it, and with fs.ErrNotExist when path is gone or names
// another directory or file by the time the lock is taken.
func lockPath(path string) (lock, error) {
	want, err := idOfPath(path)
	if err != nil {
		return lock{}, err
	}
	l, err := lockFile(filepath.Join(filepath.Dir(path), lockFileName(want)), windows.OPEN_ALWAYS)
	if err != nil {
		if errors.Is(err, ErrHeld) {
			return lock{}, fmt.Errorf("%s: %w", path, ErrHeld)
		}
		return lock{}, err
	}
	// Whoever held it before may have removed path, or put another
	// directory under its name, before this got the lock.
	if now, err := idOfPath(path); err != nil || now != want {
		l.unlock()
		return lock{}, &fs.PathError{Op: "lock", Path: path, Err: fs.ErrNotExist}
	}
	return l, nil
}

// lockFile opens the lock file name (creating it with OPEN_ALWAYS; with
// OPEN_EXISTING only if it is there) and locks it without waiting.
func lockFile(name string, disposition uint32) (lock, error) {
	p, err := windows.UTF16PtrFromString(name)
	if err != nil {
		return lock{}, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	for try := 0; ; try++ {
		h, err := windows.CreateFile(p, windows.GENERIC_READ|windows.GENERIC_WRITE|windows.DELETE,
			windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE, nil,
			disposition, windows.FILE_ATTRIBUTE_HIDDEN|windows.FILE_FLAG_OPEN_REPARSE_POINT, 0)
		if err != nil {
			// A lock file whose removal is pending opens for no one
			// until its last handle is closed.
			if err == windows.ERROR_ACCESS_DENIED && try < lockTries {
				time.Sleep(time.Millisecond)
				continue
			}
			return lock{}, &fs.PathError{Op: "open", Path: name, Err: err}
		}
		err = windows.LockFileEx(h, windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, new(windows.Overlapped))
		if err != nil {
			windows.CloseHandle(h)
			if err == windows.ERROR_LOCK_VIOLATION {
				return lock{}, fmt.Errorf("%s: %w", name, ErrHeld)
			}
			return lock{}, &fs.PathError{Op: "LockFileEx", Path: name, Err: err}
		}
		// Its owner may have removed it between the open and the lock:
		// the lock is then on a file no one else opens. Start again on
		// the one now under the name.
		got, err := idOfHandle(h)
		if err == nil {
			var now fileID
			if now, err = idOfPath(name); err == nil && now == got {
				return lock{h: h}, nil
			}
		}
		windows.CloseHandle(h)
		if disposition == windows.OPEN_EXISTING && errors.Is(err, fs.ErrNotExist) {
			return lock{}, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
		}
		if try >= lockTries {
			return lock{}, &fs.PathError{Op: "lock", Path: name, Err: errors.New("the lock file keeps changing")}
		}
	}
}

// sweepLockFiles removes the lock files among the entries of dir that no
// one holds: those of processes that died holding them.
func sweepLockFiles(dir string, entries []os.DirEntry) {
	for _, ent := range entries {
		if !isLockFile(ent.Name()) || !ent.Type().IsRegular() {
			continue
		}
		if l, err := lockFile(filepath.Join(dir, ent.Name()), windows.OPEN_EXISTING); err == nil {
			l.unlock()
		}
	}
}

// fileID names a file or directory for as long as it exists: its volume's
// serial number and its file ID there.
type fileID struct {
	vol uint64
	id  [16]byte
}

func lockFileName(id fileID) string {
	return fmt.Sprintf("%s%016x-%x", lockFilePrefix, id.vol, id.id)
}

// idOfPath returns the fileID of path, not following a final symbolic
// link or junction.
func idOfPath(path string) (fileID, error) {
	p, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return fileID{}, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	h, err := windows.CreateFile(p, windows.FILE_READ_ATTRIBUTES,
		windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE, nil,
		windows.OPEN_EXISTING, windows.FILE_FLAG_BACKUP_SEMANTICS|windows.FILE_FLAG_OPEN_REPARSE_POINT, 0)
	if err != nil {
		return fileID{}, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	defer windows.CloseHandle(h)
	id, err := idOfHandle(h)
	if err != nil {
		return fileID{}, &fs.PathError{Op: "stat", Path: path, Err: err}
	}
	return id, nil
}

// idOfHandle returns the fileID of an open handle: the 128-bit ID where
// the file system has one (FILE_ID_INFO: NTFS, ReFS), else the 64-bit
// file index.
func idOfHandle(h windows.Handle) (fileID, error) {
	var info struct {
		VolumeSerialNumber uint64
		FileID             [16]byte
	}
	if err := windows.GetFileInformationByHandleEx(h, windows.FileIdInfo, (*byte)(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err == nil {
		return fileID{vol: info.VolumeSerialNumber, id: info.FileID}, nil
	}
	var bi windows.ByHandleFileInformation
	if err := windows.GetFileInformationByHandle(h, &bi); err != nil {
		return fileID{}, err
	}
	id := fileID{vol: uint64(bi.VolumeSerialNumber)}
	binary.LittleEndian.PutUint32(id.id[0:4], bi.FileIndexLow)
	binary.LittleEndian.PutUint32(id.id[4:8], bi.FileIndexHigh)
	return id, nil
}

// removeByHandle removes the file an open handle (with DELETE access)
// names: at once where the file system can (POSIX semantics: the name
// goes now, other handles stay valid), else when the last handle closes.
func removeByHandle(h windows.Handle) error {
	ex := struct{ Flags uint32 }{windows.FILE_DISPOSITION_DELETE | windows.FILE_DISPOSITION_POSIX_SEMANTICS}
	if err := windows.SetFileInformationByHandle(h, windows.FileDispositionInfoEx, (*byte)(unsafe.Pointer(&ex)), uint32(unsafe.Sizeof(ex))); err == nil {
		return nil
	}
	del := struct{ DeleteFile bool }{true}
	return windows.SetFileInformationByHandle(h, windows.FileDispositionInfo, (*byte)(unsafe.Pointer(&del)), uint32(unsafe.Sizeof(del)))
}
