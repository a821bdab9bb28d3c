package vault

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// listDir lists a folder's entries, "." and ".." aside, in the order the
// file system gives them, with their types. It reads the kernel's records
// itself: os.File.ReadDir makes two objects of every entry, and a save lists
// the folder the last save wrote to, hundreds of notes, where that was half
// the listing's time.
func listDir(dir string) ([]dirent, error) {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	for errors.Is(err, unix.EINTR) {
		fd, err = unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	}
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: dir, Err: err}
	}
	defer unix.Close(fd)
	buf := make([]byte, 32<<10)
	var out []dirent
	for {
		n, err := unix.Getdents(fd, buf)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return nil, &os.PathError{Op: "readdirent", Path: dir, Err: err}
		}
		if n <= 0 {
			return out, nil
		}
		// One string for all the names of the records read: each name is a
		// part of it.
		chunk := string(buf[:n])
		for off := 0; off < n; {
			// struct linux_dirent64: inode (8 bytes), offset (8), record
			// length (2), type (1), then the name, ended by a NUL.
			if n-off < direntName {
				return nil, &os.PathError{Op: "readdirent", Path: dir, Err: errBadDirent}
			}
			reclen := int(binary.NativeEndian.Uint16(buf[off+16:]))
			if reclen <= direntName || reclen > n-off {
				return nil, &os.PathError{Op: "readdirent", Path: dir, Err: errBadDirent}
			}
			ino := binary.NativeEndian.Uint64(buf[off:])
			typ := buf[off+18]
			name := chunk[off+direntName : off+reclen]
			if i := strings.IndexByte(name, 0); i >= 0 {
				name = name[:i]
			}
			off += reclen
			if ino == 0 || name == "." || name == ".." || name == "" {
				continue
			}
			mode, known := direntMode(typ)
			if !known {
				// The file system does not say (DT_UNKNOWN): ask the file, as
				// os.File.ReadDir does, and skip one gone meanwhile.
				var st unix.Stat_t
				if err := unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
					if errors.Is(err, unix.ENOENT) {
						continue
					}
					return nil, &os.PathError{Op: "lstat", Path: dir + "/" + name, Err: err}
				}
				mode = statMode(st.Mode)
			}
			out = append(out, dirent{name: name, typ: mode})
		}
	}
}

// direntName is the offset of the name in a linux_dirent64 record.
const direntName = 19

var errBadDirent = fmt.Errorf("malformed directory entry")

// direntMode is the type bits of a record's d_type; known is false for
// DT_UNKNOWN.
func direntMode(t byte) (mode fs.FileMode, known bool) {
	switch t {
	case unix.DT_REG:
		return 0, true
	case unix.DT_DIR:
		return fs.ModeDir, true
	case unix.DT_LNK:
		return fs.ModeSymlink, true
	case unix.DT_FIFO:
		return fs.ModeNamedPipe, true
	case unix.DT_SOCK:
		return fs.ModeSocket, true
	case unix.DT_CHR:
		return fs.ModeDevice | fs.ModeCharDevice, true
	case unix.DT_BLK:
		return fs.ModeDevice, true
	}
	return 0, false
}

// statMode is the type bits of a stat's mode.
func statMode(m uint32) fs.FileMode {
	switch m & unix.S_IFMT {
	case unix.S_IFDIR:
		return fs.ModeDir
	case unix.S_IFLNK:
		return fs.ModeSymlink
	case unix.S_IFIFO:
		return fs.ModeNamedPipe
	case unix.S_IFSOCK:
		return fs.ModeSocket
	case unix.S_IFCHR:
		return fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFBLK:
		return fs.ModeDevice
	}
	return 0
}
