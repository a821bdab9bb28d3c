//go:build !linux

package vault

import "time"

// fineTimes reports whether the folder dir is on a local filesystem that
// keeps fine times: not known here, so no.
func fineTimes(string) bool { return false }

// FineWindow is 0 where the clock behind file times is not known: fine times
// get the same margin as any other (see ScanOptions.FineRacyAfter).
func FineWindow() time.Duration { return 0 }
