package vault

import (
	"errors"

	"github.com/cortexmem/cortex/atomicfile"
)

// writeFile replaces the vault's file at abs with data, atomically (durably
// when durable is set; see atomicfile). A file that is a symbolic link is
// never replaced: the refusal is a *LinkError naming the file as shown, and
// a link made between the check and the rename is refused the same way.
func writeFile(abs, shown string, data []byte, durable bool) error {
	if err := refuseLink(abs, shown); err != nil {
		return err
	}
	write := atomicfile.Write
	if !durable {
		write = atomicfile.WriteDerived
	}
	err := write(abs, data)
	if le := (*atomicfile.LinkError)(nil); errors.As(err, &le) {
		return &LinkError{Path: shown, Target: le.Target}
	}
	return err
}
