// Command cortex is a local-first long-term memory for AI coding agents, kept as
// notes in an Obsidian vault.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	stopProfiles := startProfiles(os.Getenv)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv)
	stopProfiles()
	stop()
	os.Exit(code)
}
