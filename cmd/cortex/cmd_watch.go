package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/spf13/cobra"

	"github.com/cortexmem/cortex/memories"
	norm "github.com/cortexmem/cortex/normalize"
	"github.com/cortexmem/cortex/scribe"
	"github.com/cortexmem/cortex/transcript"
	"github.com/cortexmem/cortex/watch"
)

type watchOptions struct {
	install, uninstall, poll bool
	service                  string
	debounce                 time.Duration
}

func newWatchCmd(a *app) *cobra.Command {
	var o watchOptions
	cmd := &cobra.Command{
		Use:   "watch",
		Short: "Keep the index and notes up to date as the vault, the inbox and transcripts change",
		Long: `watch is cortex's one optional long-running process. It watches, with the
system's file notifications (fsnotify), and once changes have been quiet for
watch.debounce (300ms):

  the vault's cortex folder   re-indexes the notes edited, renamed or deleted
                              in Obsidian (an editor's save by rename and a
                              sync tool's burst are one change)
  the inbox (pending/)        runs normalize
  agents' transcript folders  takes what grew into the transcript index
                              (cortex transcripts search), and into session,
                              decision and episode notes as cortex scribe run
                              --to-vault --all does (watch.transcripts: false
                              turns the notes off)

Everything runs once when watch starts, so nothing changed while it was not
running is missed, and nothing is done twice (each job keeps its own
progress). New folders are watched as they appear, deleted ones are watched
for again; when the system's file watches run out it polls every watch.poll
(2s) and says so. One watch runs per vault: a second one exits with an error.
It stops cleanly on Ctrl-C (SIGINT) or SIGTERM.

Nothing needs it: every command brings the index up to date on its own.

--install writes a service file that starts watch with your session — a
systemd user unit (~/.config/systemd/user/cortex-watch.service) on Linux, a
launchd agent (~/Library/LaunchAgents/dev.cortex.watch.plist) on macOS — for
the vault and state folder this command was given, and prints the command that
enables it; --uninstall removes it (never a file cortex did not write).`,
		Example: `  cortex watch
  cortex watch --install
  cortex watch --uninstall`,
		Args: args(0, 0, "takes no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runWatch(cmd.Context(), a, o)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&o.install, "install", false, "write the service file that runs watch with your session")
	f.BoolVar(&o.uninstall, "uninstall", false, "remove the service file --install wrote")
	f.StringVar(&o.service, "service", "", "with --install/--uninstall: systemd or launchd (default: this system's)")
	f.BoolVar(&o.poll, "poll", false, "poll the folders instead of using the system's file notifications")
	f.DurationVar(&o.debounce, "debounce", 0, "how long changes must be quiet before the jobs run (default watch.debounce, 300ms)")
	return cmd
}

func runWatch(ctx context.Context, a *app, o watchOptions) error {
	if o.install && o.uninstall {
		return &memories.ArgError{Arg: "--install", Rule: "give --install or --uninstall, not both"}
	}
	if o.service != "" && !o.install && !o.uninstall {
		return &memories.ArgError{Arg: "--service", Rule: "goes with --install or --uninstall"}
	}
	if o.debounce != 0 && (o.debounce < 10*time.Millisecond || o.debounce > time.Minute) {
		return &memories.ArgError{Arg: "--debounce", Rule: fmt.Sprintf("%s is not a duration from 10ms to 1m", o.debounce)}
	}
	if o.install || o.uninstall {
		return runWatchService(a, o)
	}
	if _, err := a.open(); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	logf := func(msg string) { fmt.Fprintf(a.stderr, "cortex watch: %s\n", msg) }
	jobs, err := a.watchJobs(logf)
	if err != nil {
		return err
	}
	debounce := a.settings.Watch.Debounce
	if o.debounce != 0 {
		debounce = o.debounce
	}
	w := watch.New(watch.Options{
		Jobs: jobs, Lock: filepath.Join(a.store.Layout().Dir, "watch.lock"), Debounce: debounce, Poll: a.settings.Watch.Poll,
		ForcePoll: o.poll, Log: logf,
	})
	hctx, stopHeart := context.WithCancel(ctx)
	heart := make(chan struct{})
	go func() {
		defer close(heart)
		a.store.Heartbeat(hctx)
	}()
	err = w.Run(ctx)
	stopHeart()
	<-heart
	if errors.Is(err, watch.ErrRunning) {
		return &memories.ArgError{Arg: "watch", Rule: err.Error()}
	}
	return err
}

// watchJobs are the watcher's jobs for the opened vault: re-index, normalize
// and, as the settings say, read transcripts into notes. log hears what is
// not watched.
func (a *app) watchJobs(log func(string)) ([]watch.Job, error) {
	n, err := a.normalizer(0)
	if err != nil {
		return nil, err
	}
	jobs := []watch.Job{
		// Settled: while the index holds every change the watcher saw,
		// commands of every process skip stat'ing every note (the store's
		// heartbeat, which runWatch keeps).
		// After the first run, the events say which notes to look at.
		{Name: "index", Dirs: []string{a.store.Vault().Dir}, Run: func(ctx context.Context) error {
			_, err := a.store.Sync(ctx)
			return err
		}, RunChanged: func(ctx context.Context, paths []string) error {
			_, err := a.store.SyncChanged(ctx, paths)
			return err
		}, Settled: a.store.Followed},
		{Name: "normalize", Dirs: []string{a.inbox.Pending()},
			// Events leaving pending/ are normalize's own doing.
			Match: func(_ string, op fsnotify.Op) bool { return op.Has(fsnotify.Create) || op.Has(fsnotify.Write) },
			Run: func(ctx context.Context) error {
				_, err := n.Run(ctx)
				var busy *norm.BusyError
				if errors.As(err, &busy) {
					return nil // another normalize is at it
				}
				return err
			}},
	}
	ts, err := a.transcripts()
	if err != nil {
		return nil, err
	}
	var runner *scribe.Runner
	if a.settings.Watch.Transcripts {
		if runner, err = a.scribeRunner(scribeRunOptions{toVault: true}); err != nil {
			return nil, err
		}
	}
	dirs, unwatched := transcriptDirs(a.scribeEnv(), a.home())
	for _, d := range unwatched {
		log(fmt.Sprintf("not watching %s, the home folder, for transcripts (too many folders): what it holds is read when other transcripts change, and by every command", d))
	}
	// cortex's own folders are no agent's transcripts: its writes there
	// (the runner's progress, the notes) must not run the job again.
	own := []string{a.settings.Home, a.settings.Vault}
	// The transcript index takes in what grew; with watch.transcripts the
	// pipeline turns it into notes too.
	jobs = append(jobs, watch.Job{Name: "transcripts", Dirs: dirs, Match: func(p string, _ fsnotify.Op) bool {
		return !underAny(p, own)
	}, Run: func(ctx context.Context) error {
		if _, err := ts.Sync(ctx); err != nil {
			return fmt.Errorf("transcript index: %w", err)
		}
		if runner == nil {
			return nil
		}
		files, _, err := scribe.Select(scribe.Selection{All: true, Env: a.scribeEnv()})
		if err != nil {
			return err
		}
		_, err = runner.Run(ctx, files)
		return err
	}})
	return jobs, nil
}

// transcriptDirs are the transcript folders discovery looks in, to watch;
// a root that is the home folder itself (Aider's chat histories are
// searched for there) is left out — watching a whole home folder would take
// every file watch the system has — and returned apart.
func transcriptDirs(env transcript.Env, home string) (dirs, unwatched []string) {
	for _, src := range scribe.Discover(env).Sources {
		for _, r := range src.Roots {
			if home != "" && filepath.Clean(r.Path) == filepath.Clean(home) {
				if !slices.Contains(unwatched, r.Path) {
					unwatched = append(unwatched, r.Path)
				}
				continue
			}
			dirs = append(dirs, r.Path)
		}
	}
	return dirs, unwatched
}

// underAny reports whether p is one of dirs or below one.
func underAny(p string, dirs []string) bool {
	for _, d := range dirs {
		if d == "" {
			continue
		}
		d = filepath.Clean(d)
		if p == d || strings.HasPrefix(p, d+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

func runWatchService(a *app, o watchOptions) error {
	if err := a.resolve(); err != nil {
		return err
	}
	mgr := o.service
	if mgr == "" {
		mgr = watch.Systemd
		if runtime.GOOS == "darwin" {
			mgr = watch.Launchd
		}
	}
	if mgr != watch.Systemd && mgr != watch.Launchd {
		return &memories.ArgError{Arg: "--service", Rule: fmt.Sprintf("%q is not systemd or launchd", o.service)}
	}
	bin, err := os.Executable()
	if err != nil {
		return fmt.Errorf("watch: the path of cortex: %w", err)
	}
	s := watch.Service{Manager: mgr, Binary: bin, Home: a.home(), Log: filepath.Join(a.settings.Home, "watch.log"),
		Args: []string{"--vault", a.settings.Vault, "--home", a.settings.Home, "--config", a.settings.ConfigFile}}
	if o.uninstall {
		path, removed, err := s.Uninstall()
		if err != nil {
			return err
		}
		if !removed {
			fmt.Fprintf(a.stdout, "No service file at %s: nothing to remove.\n", path)
			return nil
		}
		fmt.Fprintf(a.stdout, "Removed %s.\n", path)
		if mgr == watch.Systemd {
			fmt.Fprintln(a.stdout, "Stop a running one with: systemctl --user disable --now cortex-watch.service")
		} else {
			fmt.Fprintln(a.stdout, "Stop a running one with: launchctl remove dev.cortex.watch")
		}
		return nil
	}
	path, changed, err := s.Install()
	if err != nil {
		return err
	}
	if changed {
		fmt.Fprintf(a.stdout, "Wrote %s.\n", path)
	} else {
		fmt.Fprintf(a.stdout, "%s is already up to date.\n", path)
	}
	fmt.Fprintf(a.stdout, "Start it with: %s\n", s.Enable(path))
	return nil
}
