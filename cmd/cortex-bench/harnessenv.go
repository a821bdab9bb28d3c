package main

import (
	"fmt"
	"os"
	"os/exec"
)

// harnessEnv is the environment the in-process rows run in: e's vault,
// and a copy of e's state folder. Those rows run this harness's own code,
// whose index schema may not be the binary's (a before/after of a schema
// change): on e's own state folder they would rebuild the binary's index
// to their schema, and the binary's next command would rebuild it back,
// inside whatever row it times. The copy keeps every file's bytes, mode
// and modification time (cp -a, as the vaults are copied), so that a
// harness of the binary's schema finds its index current and rebuilds
// nothing. The notes the rows save are written to the shared vault, as
// before, and the binary's next command reads them as it would any note
// written beside it.
func harnessEnv(e *env) (*env, error) {
	home := e.home + "-harness"
	if err := os.RemoveAll(home); err != nil {
		return nil, err
	}
	if out, err := exec.Command("cp", "-a", e.home, home).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("copy the state folder for the in-process rows: %v: %s", err, out)
	}
	return &env{bin: e.bin, vault: e.vault, home: home, name: e.name}, nil
}
