// Command cortex is a local-first long-term memory for AI coding agents, kept as
// notes in an Obsidian vault.
package main

import (
	"context"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

func main() {
	prepareHeap(os.Args[1:], os.Getenv)
	ctx, stop := interrupts(os.Args[1:], loneArmDelay)
	stopProfiles := startProfiles(os.Getenv)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv)
	stopProfiles()
	stop()
	os.Exit(code)
}

// loneArmDelay is how long a command of lateInterrupts runs before Ctrl-C
// and SIGTERM cancel it rather than end the process.
const loneArmDelay = 100 * time.Millisecond

// lateInterrupts are the commands that ask for signals only once they have
// run loneArmDelay: the hooks and capture, which agents run at every turn,
// and recall and context, which read their words from the command line
// (never from standard input) and are usually over in a few milliseconds.
var lateInterrupts = map[string]bool{"hook": true, "capture": true, "recall": true, "context": true}

// interrupts returns the context a command runs in: Ctrl-C (SIGINT) and
// SIGTERM cancel it, so that a command stops cleanly (a server closes, a hook
// logs that it gave up). A command of lateInterrupts arms that only once it
// has run for delay: asking the runtime for signals starts two threads, about
// 0.3 ms of processor time, and such a command is usually over in a few
// milliseconds. A signal before then ends it as a kill would, which each is
// built to survive: a capture's event, a hook's receipt and the index's files
// are written atomically, and a torn access line is skipped by its readers.
func interrupts(args []string, delay time.Duration) (context.Context, func()) {
	if len(args) == 0 || !lateInterrupts[args[0]] {
		return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var mu sync.Mutex
	var stopSignals context.CancelFunc
	arm := time.AfterFunc(delay, func() {
		mu.Lock()
		defer mu.Unlock()
		if ctx.Err() != nil {
			return
		}
		var sctx context.Context
		sctx, stopSignals = signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
		context.AfterFunc(sctx, cancel)
	})
	return ctx, func() {
		arm.Stop()
		mu.Lock()
		if stopSignals != nil {
			stopSignals()
		}
		mu.Unlock()
		cancel()
	}
}
