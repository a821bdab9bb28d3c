package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// version is set at build time with -ldflags "-X main.version=…"; otherwise it
// comes from the module's build information.
var version = ""

func newVersionCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print cortex's version",
		Args:  args(0, 0, "takes no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runVersion(a)
		},
	}
}

// addVersionFlag gives the root command --version, which prints what
// 'cortex version' prints (JSON too, with --json).
func addVersionFlag(root *cobra.Command, a *app) {
	var show bool
	root.Flags().BoolVar(&show, "version", false, "print cortex's version (as 'cortex version' does)")
	help := root.RunE
	root.RunE = func(cmd *cobra.Command, args []string) error {
		if show {
			return runVersion(a)
		}
		return help(cmd, args)
	}
}

func runVersion(a *app) error {
	v := buildVersion()
	if a.asJSON {
		return a.printJSON(map[string]string{"version": v, "go": runtime.Version(), "platform": runtime.GOOS + "/" + runtime.GOARCH})
	}
	fmt.Fprintf(a.stdout, "cortex %s (%s, %s/%s)\n", v, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return nil
}

func buildVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}
