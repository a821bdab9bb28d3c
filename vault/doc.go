// Package vault owns the Obsidian vault on disk: where notes live, how a note's
// frontmatter and body are read and written back (keeping every key a person
// added), the scan that tells the index what changed, the generated map of
// contents (_index.md), and the rules for notes that are symbolic links.
//
// cortex writes only inside <vault>/cortex/. Every file it writes there goes
// through package atomicfile: a hidden temporary file in the same folder,
// fsync, rename and an fsync of the folder, so a crash leaves the old file or
// the new one, never a torn one. A note that is a symbolic link is never
// replaced by a file. The locks that serialise writers are package filelock's.
package vault
