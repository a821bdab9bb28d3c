package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/view"
)

type supersedeOptions struct {
	with, title, reason string
	withSet             bool
}

func newSupersedeCmd(a *app) *cobra.Command {
	var o supersedeOptions
	cmd := &cobra.Command{
		Use:   "supersede ID [--with CONTENT | --with -] [--reason R]",
		Short: "Retire a memory, optionally replacing it with a new one",
		Long: `Supersede marks a memory superseded; recall leaves it out from then on. The old
note stays in the vault, so its history is visible in Obsidian.

With --with, a replacement memory is saved in the same project, with the same
tags and type, linked both ways. Without it, supersede is how a memory is
deleted. ID may be any unique prefix of at least 8 characters.`,
		Example: `  cortex supersede 01jd3k8z --with "Use RS256 for JWT everywhere, staging too." --reason "staging now shares prod keys"
  cortex supersede 01jd3k8z --reason "no longer true"`,
		Args: args(1, 1, "takes exactly one memory ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.withSet = cmd.Flags().Changed("with")
			return runSupersede(cmd.Context(), a, o, args[0])
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.with, "with", "", "content of the replacement memory, or - to read it from standard input")
	f.StringVar(&o.title, "title", "", "title of the replacement (default: its first line)")
	f.StringVar(&o.reason, "reason", "", "why the memory is superseded")
	return cmd
}

func runSupersede(ctx context.Context, a *app, o supersedeOptions, id string) error {
	var replacement string
	if o.withSet {
		var err error
		if replacement, err = a.readContent(ctx, "with", []string{o.with}); err != nil {
			return err
		}
		if err := memories.CheckContent("with", replacement); err != nil {
			return err
		}
	}
	if o.title != "" && !o.withSet {
		return &memories.ArgError{Arg: "title", Rule: "names the replacement, so it needs --with"}
	}
	svc, err := a.open()
	if err != nil {
		return err
	}
	res, err := svc.Supersede(ctx, memories.SupersedeRequest{ID: id, Replacement: replacement, Title: o.title, Reason: o.reason})
	if err != nil {
		return err
	}
	if a.asJSON {
		return a.printJSON(view.SupersedeOf(res, a.store.Vault().Abs))
	}
	fmt.Fprintln(a.stdout, res.Message())
	return nil
}
