package pipeline

import (
	"regexp"
	"strings"
	"sync"
)

// What a marker asks for when it asks for something of the task at hand
// (Match.Task) rather than stating a choice about the project: such a
// marker is recorded and admits nothing. A decision is meant to outlive the
// session; "use a subagent to list the files" and "remember the number 42"
// are over when the task is.
const (
	// TaskTool: a decision verb whose object is the agent's own means of
	// working — a subagent, one of its tools, plan mode, a shell command run
	// to look something up — not something the project will use.
	TaskTool = "tool"
	// TaskRecall: a memory marker with nothing to remember beyond the
	// conversation — a bare value, "this", a reference to what was said —
	// where a standing memory states something ("remember that the port is
	// 8080", "remember to run gofmt").
	TaskRecall = "recall"
	// TaskMemory: a request about the memory itself — save this to cortex,
	// look it up in your memory. What is saved was decided elsewhere, and
	// mined from there.
	TaskMemory = "memory"
)

// taskOf says what a marker that stands outside a question asks of the task
// at hand ("" when it states a choice). sentence is the sentence holding the
// marker; memoryWords tells whether the text names the memory at all
// (mentionsMemory), so that most turns skip that search. Rules are told
// apart by their id's last part, as optionOf does, so rules from config
// with the default ids' endings are read the same way.
func taskOf(text string, sentence span, m Match, memoryWords bool) string {
	if memoryWords && memoryRequest().MatchString(clauseAt(text, sentence, m)) {
		return TaskMemory
	}
	rest := text[m.End:sentence.end]
	if lower := strings.ToLower(m.Text); strings.HasSuffix(lower, " that") || strings.HasSuffix(lower, "\tthat") {
		rest = "that " + rest // the marker took the that of its clause
	}
	switch ruleKind(m.Rule) {
	case "use":
		if m.Category == CategoryDecision && agentsMeans(rest) {
			return TaskTool
		}
	case "remember", "remember_that", "keep_in_mind", "note_that":
		if m.Category == CategoryMemory && !statesSomething(rest) {
			return TaskRecall
		}
	}
	return ""
}

// clauseAt is the part of the sentence holding m between semicolons: "save
// it in your memory; always use tabs" asks one thing and decides another.
func clauseAt(text string, sentence span, m Match) string {
	s, e := sentence.start, sentence.end
	if i := strings.LastIndexByte(text[s:m.Start], ';'); i >= 0 {
		s += i + 1
	}
	if i := strings.IndexByte(text[m.End:e], ';'); i >= 0 {
		e = m.End + i
	}
	return text[s:e]
}

func ruleKind(id string) string {
	if i := strings.LastIndexByte(id, '.'); i >= 0 {
		return id[i+1:]
	}
	return id
}

// memoryRequest finds a request to put something into the agent's memory,
// or to get it from there: a verb of keeping or finding, then (in the same
// sentence) cortex or the agent's memory as where; or cortex used or asked
// directly. "In memory" alone is a place for data, not the agent's memory.
var memoryRequest = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(?:remember|memori[sz]e|save|store|record|note|add|put|write|keep|recall|retrieve|look\s+up|search|check|find|ask|query)\b[^.!?\n]*?\b(?:in|into|to|from|with|using|via|on)\s+(?:cortex\b|(?:your|the\s+agent['’]s|its|long[- ]term)\s+memor(?:y|ies)\b|(?:the\s+|your\s+)?memory\s+(?:tool|bank)\b)` +
		`|\b(?:use|ask|query|search|check)\s+(?:the\s+)?cortex\b|\bmemory_(?:save|recall)\b`)
})

// mentionsMemory reports whether lower (a text in lower case) holds a word
// memoryRequest needs: without one it cannot match.
func mentionsMemory(lower string) bool {
	return strings.Contains(lower, "cortex") || strings.Contains(lower, "memor")
}

// agentMeansHeads name the agent's own means of working when they end the
// object of "use": a subagent always; an agent's tool unless the sentence
// gives it a role in the project ("use the lint tool for linting").
var (
	alwaysMeans = map[string]bool{
		"subagent": true, "subagents": true, "sub-agent": true, "sub-agents": true, "agent": true, "agents": true,
	}
	toolMeans = map[string]bool{"tool": true, "tools": true}
	// lookupCommands are shell commands an agent runs to look around; used
	// "to" do something, they are the task's means ("use grep to find the
	// callers"), where "use ripgrep instead of grep in scripts" is a choice.
	lookupCommands = map[string]bool{
		"grep": true, "rg": true, "ripgrep": true, "find": true, "fd": true, "ls": true, "cat": true, "head": true,
		"tail": true, "sed": true, "awk": true, "tree": true, "wc": true, "bash": true, "shell": true, "terminal": true,
	}
	// meansPhrases are the agent's own modes and tools, named in the object.
	meansPhrases = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^\s*(?:the\s+|your\s+)?(?:plan\s+mode|web\s*search|web\s*fetch|browser)\b`)
	})
)

// agentsMeans reports whether what follows "use" names the agent's own
// means of working for the task at hand.
func agentsMeans(rest string) bool {
	if meansPhrases().MatchString(rest) {
		return true
	}
	words := strings.Fields(strings.ToLower(rest))
	// The object: the words up to the first that starts what it is used
	// for ("to", "for", …), at most a few.
	var object []string
	after := ""
	for i, w := range words {
		w = strings.Trim(w, ".,;:!?\"'`()[]")
		if i > 0 && (w == "to" || w == "for" || w == "as" || w == "in" || w == "instead" || w == "rather" || w == "on" || w == "with") {
			after = w
			break
		}
		if len(object) == 5 {
			break
		}
		object = append(object, w)
	}
	if len(object) == 0 {
		return false
	}
	head := object[len(object)-1]
	switch {
	case alwaysMeans[head]:
		return true
	case toolMeans[head]:
		return after != "for" && after != "as"
	}
	if after != "to" {
		return false
	}
	for _, w := range object {
		if lookupCommands[w] {
			return true
		}
	}
	return false
}

// statesSomething reports whether the words after a memory marker state
// something to keep: "to" and a verb ("remember to run gofmt"), a clause
// (a subject and a verb: "the port is 8080", "we deploy from main"), or a
// note after a colon. A bare value ("the number 42"), "this", "these
// numbers: 3, 5, 8" or a reference to what was said ("what I said about
// the tests") states nothing.
func statesSomething(rest string) bool {
	rest = strings.TrimLeft(rest, " \t,;:—–-")
	if before, after, ok := strings.Cut(rest, ":"); ok {
		if letterWords(after) >= 2 {
			return true
		}
		rest = before
	}
	words := strings.Fields(strings.ToLower(rest))
	if len(words) == 0 {
		return false
	}
	first := strings.Trim(words[0], ".,;!?\"'`()")
	switch first {
	case "to":
		return len(words) > 1
	case "what", "which", "where", "when", "who", "how", "why":
		return false
	case "that":
		// A that-clause states something ("remember that the keys
		// include the tenant"); "remember that number" points at one.
		if len(words) > 2 && (determiners[words[1]] || subjects[words[1]] || words[1] == "all" || words[1] == "no") {
			return true
		}
		words = words[1:]
	}
	prev := ""
	for i, w := range words {
		w = strings.Trim(w, ".,;!?\"'`()")
		noun := determiners[prev] // "the last run", "a break"
		prev = w
		if !noun && (statementVerbs()[w] || strings.HasSuffix(w, "n't") || strings.HasSuffix(w, "n’t")) {
			return true
		}
		if subjects[w] && i+1 < len(words) {
			return true
		}
		if p, ok := strings.CutSuffix(strings.ReplaceAll(w, "’", "'"), "'s"); ok && pronounIs[p] {
			return true
		}
	}
	return false
}

func letterWords(s string) int {
	n := 0
	for _, w := range strings.Fields(s) {
		if strings.IndexFunc(w, func(r rune) bool { return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r > 0x7f }) >= 0 {
			n++
		}
	}
	return n
}

// determiners make the word after them a noun.
var determiners = map[string]bool{
	"the": true, "a": true, "an": true, "my": true, "our": true, "your": true, "their": true, "its": true,
	"this": true, "that": true, "these": true, "those": true, "last": true, "next": true, "each": true, "every": true,
}

// subjects start a clause: "remember we deploy from main".
var subjects = map[string]bool{"we": true, "you": true, "i": true, "they": true, "he": true, "she": true}

// pronounIs are the words whose "'s" is "is" ("it's", "that's").
var pronounIs = map[string]bool{"it": true, "that": true, "there": true, "he": true, "she": true, "what": true, "here": true}

// statementVerbs are the verbs that make the words after a memory marker a
// statement: be, have, the modals, and the verbs facts about a project are
// stated with.
var statementVerbs = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`is are was were be been being am has have had do does did
		can could will would shall should must may might cannot never always only
		'll ’ll 're ’re 've ’ve 'd ’d`) {
		m[w] = true
	}
	for _, v := range strings.Fields(`use run go live take return require break fail work mean belong stay
		get keep call depend expect want prefer like need own hold contain point come handle support send
		write read sit happen lead change exist cause matter deploy ship build start end time block wait
		listen serve store save load reject accept allow forbid expire rotate retry cache log print
		squash merge rebase push pull tag release publish sign sort skip ignore`) {
		m[v] = true
		switch {
		case strings.HasSuffix(v, "o"):
			m[v+"es"] = true
		case strings.HasSuffix(v, "y") && !strings.HasSuffix(v, "ay"):
			m[v[:len(v)-1]+"ies"] = true
		case strings.HasSuffix(v, "s"), strings.HasSuffix(v, "sh"), strings.HasSuffix(v, "ch"):
			m[v+"es"] = true
		default:
			m[v+"s"] = true
		}
	}
	return m
})
