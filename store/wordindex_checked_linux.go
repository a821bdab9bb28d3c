package store

import (
	"encoding/binary"
	"os"
	"strings"
	"sync"
	"syscall"
)

// checkIdentity is what tells the file fi apart, in this boot, from any
// other file or content it may have: the boot's id, the file's device,
// inode, size, modification and change times. False when not known.
func checkIdentity(fi os.FileInfo) ([]byte, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	boot := thisBoot.id()
	if !ok || boot == "" {
		return nil, false
	}
	b := append([]byte(boot), '\n')
	for _, v := range []uint64{uint64(st.Dev), st.Ino, uint64(st.Size), uint64(st.Mtim.Nano()), uint64(st.Ctim.Nano())} {
		b = binary.LittleEndian.AppendUint64(b, v)
	}
	return b, true
}

// bootID is the id the kernel gave this boot, read once ("" when it
// cannot be read).
type bootID struct {
	once sync.Once
	v    string
}

var thisBoot bootID

func (b *bootID) id() string {
	b.once.Do(func() {
		data, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
		if v := strings.TrimSpace(string(data)); err == nil && len(v) >= 16 && !strings.ContainsRune(v, '\n') {
			b.v = v
		}
	})
	return b.v
}
