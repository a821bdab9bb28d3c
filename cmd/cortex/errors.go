package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/cortexmem/cortex/memories"
)

// Exit codes, documented in the README.
const (
	exitOK       = 0
	exitInternal = 1 // anything unexpected: I/O failures, a corrupt file
	exitUsage    = 2 // a bad command line or argument
	exitRejected = 3 // a well-formed request refused: duplicate, unsafe, not allowed
	exitNotFound = 4 // no memory with that id
	exitBusy     = 5 // a lock held by another process too long
)

// usageError is a command-line mistake (unknown flag, missing argument).
type usageError struct {
	msg  string
	hint string // the command to ask for help
}

func (e *usageError) Error() string { return e.msg }

// exitCode maps an error to the process's exit code: the one place that does.
func exitCode(err error) int {
	var ue *usageError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &ue), errors.Is(err, memories.ErrInvalid):
		return exitUsage
	case errors.Is(err, memories.ErrRejected):
		return exitRejected
	case errors.Is(err, memories.ErrNotFound):
		return exitNotFound
	case errors.Is(err, memories.ErrBusy):
		return exitBusy
	}
	return exitInternal
}

// codeName is the machine-readable name of an exit code, for JSON errors.
func codeName(code int) string {
	return map[int]string{
		exitInternal: "internal", exitUsage: "invalid", exitRejected: "rejected",
		exitNotFound: "not_found", exitBusy: "busy",
	}[code]
}

// report prints err for a person on stderr, and as JSON on stdout when the
// command was asked for JSON, and returns the exit code.
func report(err error, asJSON bool, stdout, stderr io.Writer) int {
	code := exitCode(err)
	msg := describe(err)
	fmt.Fprintf(stderr, "cortex: %s\n", msg)
	var ue *usageError
	if errors.As(err, &ue) && ue.hint != "" {
		fmt.Fprintf(stderr, "Run '%s --help' for usage.\n", ue.hint)
	}
	if asJSON {
		e := map[string]any{"code": codeName(code), "exit": code, "message": msg}
		var rej *memories.RejectedError
		if errors.As(err, &rej) {
			if rej.Finding != nil {
				e["rule"], e["line"] = rej.Finding.Rule, rej.Finding.Line
				if rej.InTitle {
					e["field"] = "title"
				}
			}
			if rej.Existing != nil {
				e["existing"] = map[string]any{"id": rej.Existing.ID, "short_id": rej.ShortID, "title": rej.Existing.Title, "score": rej.Score}
			}
		}
		out, _ := json.Marshal(map[string]any{"error": e})
		fmt.Fprintf(stdout, "%s\n", out)
	}
	return code
}

// describe words an error for a person; operating-system errors get the advice
// they need.
func describe(err error) string {
	var pe *fs.PathError
	switch {
	case errors.Is(err, context.Canceled):
		return "interrupted"
	case errors.Is(err, fs.ErrPermission) && errors.As(err, &pe):
		return fmt.Sprintf("cannot %s %s: permission denied (is the vault or state folder read-only?)", pe.Op, pe.Path)
	case errors.Is(err, os.ErrDeadlineExceeded):
		return "timed out: " + err.Error()
	}
	return err.Error()
}
