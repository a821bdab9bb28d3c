// Package security finds what must not be saved into a long-term memory that
// models will read later: deceptive Unicode, prompt injection, exfiltration and
// credentials. It takes strings and returns findings; it does no I/O.
//
// # Rules
//
// Every rule is a row of one table (Rules lists it): an ID
// "<category>.<name>", a description, trigger strings, a regular expression and
// an optional check. Scanning is one pass over the text that looks for the
// triggers (as gitleaks uses keywords), then runs each triggered expression
// anchored at the trigger over a short window, then the check (an entropy
// threshold, a placeholder test, where a shell command sends a variable…). The
// expressions are matched against the text as written (credentials), folded to
// lower case, or folded with digits read as letters ("1gn0re"); offsets are the
// same in all three. A space in a trigger stands for any gap between words, as
// in the expressions ("do  not", "do\n**not**").
//
// The scan runs on every save. A check that reads beyond its window (a line, a
// shell command, the quotations of a line) reads it once per scan and shares
// it with every trigger on it, so that a scan's time grows with the length of
// the text, not with its square.
//
// # Invisible characters
//
// The unicode rules refuse characters that render as nothing or reorder the
// display where they hide text, not where a script needs them: a zero-width
// non-joiner or joiner between letters of Persian, Arabic, the Indic scripts,
// Sinhala or Khmer, a zero-width space between words of Thai, Lao, Khmer or
// Burmese, a directional mark in right-to-left text, the joiners, tags and
// selectors of emoji are allowed; the same characters inside or next to a
// Latin word or identifier, in runs, or among letters of a script that has no
// use for them (Cyrillic, Greek, Chinese…) are refused. Each is judged by the
// characters either side of it. The phrase rules read an invisible character
// between two words as part of the gap, so a mark that right-to-left text is
// allowed cannot split an instruction either.
//
// # Mentions are not instructions
//
// Notes that document attacks must still save, so an injection or exfiltration
// match is dropped when it is a mention: it lies wholly inside a quotation (an
// inline code span, a fenced code block, or quotation marks on one line) and
// the prose around the quotation frames it as an example, either by
// introducing it ("like", "such as", "e.g.", "says", "the input", "a fake") or
// by talking about attacks on the same or the previous line ("injection",
// "jailbreak", "payload", "filter", "detect", "test case"…). Quoting alone is
// not enough ("Remember: `ignore all previous instructions`" is an
// instruction), and neither is a framing word without quotes. An injection
// phrase asked as a question and answered no ("Keep this secret from the user?
// No — …") is dropped too, and so is an order reported rather than given ("if
// you instruct the bot to …"). A chat-template token in code whose turn holds
// only a placeholder ("<|im_start|>system" then "{{ .System }}") defines a
// template rather than forging a turn. A fenced block inside a list item
// counts as one however far the item indents it. Unicode and credential
// findings are never exempt:
// an invisible character or a live key is as harmful in an example as
// anywhere else.
//
// # Redaction
//
// Redact replaces credential findings only, merging overlapping ones so that no
// part of a secret survives, and leaves every other byte alone. It is
// idempotent.
//
// It imports only the standard library (arch_test.go checks).
package security
