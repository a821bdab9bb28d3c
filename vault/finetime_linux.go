package vault

import (
	"time"

	"golang.org/x/sys/unix"
)

// localFineFS are the filesystems (statfs magic numbers) that store file
// times to the nanosecond and take them from this machine's clock: a file
// time there is the kernel's coarse clock at the change. Network
// filesystems are not among them (their times come from the server's
// clock), nor anything unknown.
var localFineFS = map[int64]bool{
	0xEF53:     true, // ext2/3/4 (whole seconds with small inodes: then the times show it)
	0x58465342: true, // xfs
	0x9123683E: true, // btrfs
	0x01021994: true, // tmpfs
	0xF2F52010: true, // f2fs
	0x2FC12FC1: true, // zfs
	0xCA451A4E: true, // bcachefs
	0x794C7630: true, // overlayfs
}

// fineTimes reports whether the folder dir is on a local filesystem that
// keeps fine times (see ScanOptions.FineRacyAfter).
func fineTimes(dir string) bool {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return false
	}
	return localFineFS[int64(st.Type)]
}

// FineWindow is how long after a look at the vault a fine file time (see
// ScanOptions.FineRacyAfter) may still be shared by a later change: the tick
// of the kernel's coarse clock, which file times are taken from, four times
// over for safety, and at least 4 ms. On systems where it is not known it is
// 0: fine times are given no shorter margin than the others.
func FineWindow() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGetres(unix.CLOCK_REALTIME_COARSE, &ts); err != nil || ts.Nano() <= 0 || ts.Nano() > int64(25*time.Millisecond) {
		return 0
	}
	return max(4*time.Millisecond, 4*time.Duration(ts.Nano()))
}
