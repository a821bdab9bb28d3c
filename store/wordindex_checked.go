package store

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"os"
	"sync/atomic"

	"github.com/cortexmem/cortex/atomicfile"
)

// A word index is checked whole (its checksum) before it is trusted: it is
// written without a flush (atomicfile.WriteDerived), so that a crash may
// leave one torn. Checking it at every read cost every save run as a
// command a read of all of it: at 10,000 real-shaped notes in one project,
// 10 MB summed and every page of it mapped, about 2.4 ms of a 17 ms save.
//
// So a full check that passed is recorded beside the file
// (<index>.checked): the file's identity as it was read (device, inode,
// size, modification and change times) and the boot it was read in. A
// later read of the same file in the same boot trusts that check. The
// store replaces an index only whole (a new inode); anything else that
// writes into one changes its change time, which no program can set back;
// and what a crash may have torn is read after a reboot, which checks it
// again. Where the boot or the change time are not known (systems other
// than Linux), every read checks the whole file, as before.

// fullChecks counts the word indexes checksummed whole, for tests.
var fullChecks atomic.Int64

// checkedMagic starts a record of a check.
const checkedMagic = "cortex checked word index 1\n"

// checkedPath is where the check of the word index at path is recorded.
func checkedPath(path string) string { return path + ".checked" }

// checkedSum is the checksum a full check found the file fi, opened at
// path, to have, when one is recorded for that file in this boot.
func checkedSum(path string, fi os.FileInfo) (uint32, bool) {
	id, ok := checkIdentity(fi)
	if !ok {
		return 0, false
	}
	b, err := os.ReadFile(checkedPath(path))
	n := len(checkedMagic) + len(id)
	if err != nil || len(b) != n+8 || string(b[:len(checkedMagic)]) != checkedMagic ||
		!bytes.Equal(b[len(checkedMagic):n], id) || crc32.ChecksumIEEE(b[:n+4]) != binary.LittleEndian.Uint32(b[n+4:]) {
		return 0, false
	}
	return binary.LittleEndian.Uint32(b[n:]), true
}

// markChecked records that the file fi at path has checksum sum, found by
// a full check (or made and checked by this process). The record only
// spares work: one that cannot be written is not.
func markChecked(path string, fi os.FileInfo, sum uint32) {
	id, ok := checkIdentity(fi)
	if !ok {
		return
	}
	b := append([]byte(checkedMagic), id...)
	b = binary.LittleEndian.AppendUint32(b, sum)
	b = binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
	_ = atomicfile.WriteDerived(checkedPath(path), b)
}

// parseCheckedWordIndex is parse(data, sum) of the word index file fi (nil
// when not known) at path, but for a file whose full check is recorded:
// then its recorded checksum stands for sum's. A file that passes a full
// check has it recorded.
func parseCheckedWordIndex(path string, fi os.FileInfo, data []byte, parse func([]byte, func([]byte) uint32) (*wordIndex, bool), sum func([]byte) uint32) (*wordIndex, bool) {
	if fi != nil {
		if s, ok := checkedSum(path, fi); ok {
			return parse(data, func([]byte) uint32 { return s })
		}
	}
	var got uint32
	ix, ok := parse(data, func(b []byte) uint32 {
		fullChecks.Add(1)
		got = sum(b)
		return got
	})
	if ok && fi != nil {
		markChecked(path, fi, got)
	}
	return ix, ok
}
