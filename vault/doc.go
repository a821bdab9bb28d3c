// Package vault owns the Obsidian vault on disk: where notes live, how a note's
// frontmatter and body are read and written back (keeping every key a person
// added), atomic writes, the locks that serialise writers, the scan that tells the
// index what changed, the generated map of contents (_index.md) and the audit log.
//
// cortex writes only inside <vault>/cortex/. Every file it writes goes through a
// hidden temporary file in the same folder, fsync, rename and an fsync of the
// folder, so a crash leaves the old file or the new one, never a torn one.
package vault
