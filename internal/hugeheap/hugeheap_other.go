//go:build !linux

package hugeheap

import (
	"errors"
	"time"
)

// Prepare does nothing where there is no transparent huge page advice.
func Prepare(reserve int64) (Advice, error) { return Advice{}, nil }

// SmallFault is not measured where there is no transparent huge page advice:
// huge pages are never wanted there.
func SmallFault() (time.Duration, error) { return 0, errNoAdvice }

var errNoAdvice = errors.New("hugeheap: no huge page advice on this platform")
