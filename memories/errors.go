package memories

import (
	"errors"
	"fmt"
)

// Sentinel errors callers branch on. The CLI maps them to exit codes and the MCP
// server to tool errors, each in one place.
var (
	// ErrInvalid marks bad input: an argument that breaks a documented rule.
	ErrInvalid = errors.New("invalid argument")
	// ErrRejected marks a well-formed request the store refuses: a duplicate, an
	// unsafe text, or a state change that is not allowed.
	ErrRejected = errors.New("rejected")
	// ErrNotFound marks an id or prefix that names no memory.
	ErrNotFound = errors.New("not found")
	// ErrBusy marks a lock that could not be taken in time.
	ErrBusy = errors.New("busy")
)

// ArgError is an invalid argument: which one, and the rule it breaks.
type ArgError struct {
	Arg  string // the argument's name as the user typed it, e.g. "content"
	Rule string // what it must be, e.g. "at most 10000 characters"
}

func (e *ArgError) Error() string { return fmt.Sprintf("%s: %s", e.Arg, e.Rule) }

// Unwrap makes errors.Is(err, ErrInvalid) true for every ArgError.
func (e *ArgError) Unwrap() error { return ErrInvalid }

func invalid(arg, format string, a ...any) error {
	return &ArgError{Arg: arg, Rule: fmt.Sprintf(format, a...)}
}
