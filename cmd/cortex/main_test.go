package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/cortexmem/cortex/internal/golden"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"cortex": func() {
			// As main: an interrupt cancels the command (a server stops).
			ctx, stop := interrupts(os.Args[1:], loneArmDelay)
			code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv)
			stop()
			os.Exit(code)
		},
	})
}

// TestScripts runs the end-to-end scripts in testdata/script: each runs the real
// command against a throwaway vault and state folder.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:           "testdata/script",
		UpdateScripts: golden.Update(),
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"jsonvar": jsonvar, "edit": edit, "sleep": sleep, "freeport": freeport, "httppost": httppost,
		},
		Setup: func(env *testscript.Env) error {
			// The vault exists, as a person's does: cortex never creates one.
			if err := os.Mkdir(filepath.Join(env.WorkDir, "vault"), 0o700); err != nil && !os.IsExist(err) {
				return err
			}
			env.Setenv("CORTEX_VAULT", filepath.Join(env.WorkDir, "vault"))
			env.Setenv("CORTEX_HOME", filepath.Join(env.WorkDir, "state"))
			env.Setenv("CORTEX_CONFIG", filepath.Join(env.WorkDir, "config.yaml"))
			return nil
		},
	})
}

// jsonvar NAME PATH sets the environment variable NAME to the value at PATH
// (keys and list indexes separated by dots, e.g. memories.0.id) in the JSON the
// previous command printed.
func jsonvar(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: jsonvar NAME PATH")
	}
	var v any
	if err := json.Unmarshal([]byte(ts.ReadFile("stdout")), &v); err != nil {
		ts.Fatalf("stdout is not JSON: %v", err)
	}
	for _, k := range strings.Split(args[1], ".") {
		switch c := v.(type) {
		case map[string]any:
			v = c[k]
		case []any:
			i, err := strconv.Atoi(k)
			if err != nil || i < 0 || i >= len(c) {
				ts.Fatalf("%s: no element %s", args[1], k)
			}
			v = c[i]
		default:
			ts.Fatalf("%s: %s is not in a map or list", args[1], k)
		}
	}
	ts.Setenv(args[0], fmt.Sprint(v))
}

// edit FILE OLD NEW replaces OLD with NEW in FILE in place — truncating and
// writing the same file, as Obsidian saves a note — so the folder's time does
// not change.
func edit(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: edit FILE OLD NEW")
	}
	p := ts.MkAbs(args[0])
	data, err := os.ReadFile(p)
	ts.Check(err)
	if !strings.Contains(string(data), args[1]) {
		ts.Fatalf("%s does not contain %q", args[0], args[1])
	}
	dir, err := os.Stat(filepath.Dir(p))
	ts.Check(err)
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_TRUNC, 0)
	ts.Check(err)
	_, err = f.WriteString(strings.ReplaceAll(string(data), args[1], args[2]))
	ts.Check(err)
	ts.Check(f.Close())
	ts.Check(os.Chtimes(filepath.Dir(p), dir.ModTime(), dir.ModTime()))
}

// sleep DURATION waits, e.g. for a freshness window to pass.
func sleep(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: sleep DURATION")
	}
	d, err := time.ParseDuration(args[0])
	ts.Check(err)
	time.Sleep(d)
}
