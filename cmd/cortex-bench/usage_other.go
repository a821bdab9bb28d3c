//go:build !unix

package main

import "os"

// maxRSS is 0 where a finished process's peak memory is not reported (on
// Windows its rusage holds times only): the rows show no peak RSS, and a
// memory target has nothing to judge.
func maxRSS(*os.ProcessState) float64 { return 0 }

// syncDisks does nothing where there is no sync of every file system: the
// import's first round then pays for writing the generated notes too.
func syncDisks() {}
