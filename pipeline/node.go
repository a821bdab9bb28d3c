package pipeline

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"strconv"

	"github.com/cortexmem/cortex/transcript"
	"github.com/cortexmem/cortex/transcript/ndjson"
)

// SchemaVersion is the version of the node encoding; it changes only when a
// field changes meaning or disappears.
const SchemaVersion = 1

// NodeKind says what a node is; the node's field of the same name holds it.
type NodeKind string

// The node kinds, in the order Prep emits them.
const (
	KindConversation NodeKind = "conversation"
	KindDecision     NodeKind = "decision"
	KindEpisode      NodeKind = "episode"
	KindBinding      NodeKind = "binding"
)

// FactStatus says how much a node's content can be trusted. The pipeline only
// ever emits the first two; the others are for downstream tools that rank or
// guess, so a consumer can tell their output from this one's.
type FactStatus string

// The fact statuses.
const (
	Observed                 FactStatus = "observed"                  // verbatim from the source
	DeterministicallyDerived FactStatus = "deterministically_derived" // a pure function of observed data
	StatisticallyRanked      FactStatus = "statistically_ranked"      // downstream only
	LLMHypothesis            FactStatus = "llm_hypothesis"            // downstream only
)

// Why the events a node comes from no longer stand.
const (
	// SupersededRewind: the person went back to an earlier point; this was
	// on the abandoned branch.
	SupersededRewind = "rewind"
	// SupersededReplaced: the tool rewrote the message in place; a newer
	// version follows.
	SupersededReplaced = "replaced"
)

// Node is one prepared node: exactly one of its payload fields is set, the one
// Kind names.
type Node struct {
	SchemaVersion int                   `json:"schema_version"`
	Kind          NodeKind              `json:"kind"`
	ID            string                `json:"id"`
	Fact          FactStatus            `json:"fact_status"`
	Source        transcript.SourceKind `json:"source"`
	SessionID     string                `json:"session_id"`
	// Superseded is why the node's events no longer stand (SupersededRewind,
	// SupersededReplaced), empty when they do. Superseded nodes are kept so
	// history is complete; nothing binds to them.
	Superseded string `json:"superseded,omitempty"`
	// Compacted marks nodes from events a later compaction summarised: the
	// model no longer saw them verbatim, but they happened.
	Compacted bool `json:"compacted,omitempty"`

	Conversation *Conversation `json:"conversation,omitempty"`
	Decision     *Decision     `json:"decision,omitempty"`
	Episode      *Episode      `json:"episode,omitempty"`
	Binding      *Binding      `json:"binding,omitempty"`
}

// Turn is one message of a conversation span, verbatim.
type Turn struct {
	EventID   string `json:"event_id"`
	Role      string `json:"role"` // "user" or "assistant"
	Timestamp string `json:"timestamp,omitempty"`
	Text      string `json:"text"`
}

// Conversation is a gated dialogue span: the person's turn that carried a
// commitment marker, and the assistant's replies up to the person's next
// turn.
type Conversation struct {
	EventID    string                `json:"event_id"`
	Timestamp  string                `json:"timestamp,omitempty"`
	Project    transcript.Project    `json:"project,omitzero"`
	Turns      []Turn                `json:"turns"`
	Markers    []Match               `json:"markers"`
	Provenance transcript.Provenance `json:"provenance"`
}

// Decision is a decision candidate parsed from a gated turn.
type Decision struct {
	// Conversation is the id of the conversation node it came from.
	Conversation string             `json:"conversation"`
	EventID      string             `json:"event_id"`
	Timestamp    string             `json:"timestamp,omitempty"`
	Project      transcript.Project `json:"project,omitzero"`
	// Epitome is the sentence holding the first marker.
	Epitome string `json:"epitome"`
	// Chosen are the things after a decision verb (use, go with, switch
	// to, adopt, …) and after "in favour of"; Rejected the things after
	// "instead of", "rather than", "as opposed to", and what a ban forbids.
	Chosen   []string `json:"chosen,omitempty"`
	Rejected []string `json:"rejected,omitempty"`
	// IsBan is set when a ban marker fired (never use, no new dependency).
	IsBan bool `json:"is_ban,omitempty"`
	// Categories are the marker categories that fired, in rule-table order.
	Categories []Category            `json:"categories"`
	Provenance transcript.Provenance `json:"provenance"`
}

// Episode is one successful file edit.
type Episode struct {
	EventID   string             `json:"event_id"`
	Seq       uint64             `json:"seq"`
	Timestamp string             `json:"timestamp,omitempty"`
	Project   transcript.Project `json:"project,omitzero"`
	// GitRef is the commit the session worked on, else its branch, when
	// the transcript says.
	GitRef    string `json:"git_ref,omitempty"`
	AgentID   string `json:"agent_id,omitempty"`
	Sidechain bool   `json:"sidechain,omitempty"`
	Tool      string `json:"tool,omitempty"`
	CallID    string `json:"call_id,omitempty"`
	Path      string `json:"path"`
	MovePath  string `json:"move_path,omitempty"`
	Op        string `json:"op"`
	Unified   string `json:"unified"`
	Added     int    `json:"added"`
	Removed   int    `json:"removed"`
	// From is where the diff came from (transcript.FromToolPatch, …);
	// Fragment marks a diff of the replaced text alone.
	From       string                `json:"from"`
	Fragment   bool                  `json:"fragment,omitempty"`
	Provenance transcript.Provenance `json:"provenance"`
}

// RelationProduced is the one relation the binder draws: a decision produced
// an episode.
const RelationProduced = "produced"

// Binding is an edge from a decision to an episode it produced.
type Binding struct {
	Relation string `json:"relation"`
	Decision string `json:"decision"`
	Episode  string `json:"episode"`
	// Prov records the decision being used and the diff being generated;
	// the edge exists only when it is temporally valid.
	Prov ProvRecord `json:"prov"`
	// Correlation is set on every binding of a decision that binds two
	// episodes or more.
	Correlation *Correlation `json:"correlation,omitempty"`
}

// ProvRecord is the provenance of a binding, in the terms of W3C PROV: the
// session used the decision at UsedAt; the diff was generated at GeneratedAt.
type ProvRecord struct {
	Session     string `json:"session"`
	UsedEvent   string `json:"used_event"`
	UsedAt      string `json:"used_at"`
	Generated   string `json:"generated_event"`
	GeneratedAt string `json:"generated_at"`
	// GapSeconds is t_gen − t_use.
	GapSeconds float64 `json:"gap_seconds"`
}

// TemporallyValid reports whether the decision was used no later than the
// diff was generated.
func (p ProvRecord) TemporallyValid() bool {
	u, okU := ParseTime(p.UsedAt)
	g, okG := ParseTime(p.GeneratedAt)
	return okU && okG && !u.After(g)
}

// Correlation measures how strongly the session's actions after a decision
// lean to editing files, over the session's actions: each episode, and each
// tool call that produced none. Of N actions, A are this decision's episodes,
// B its other actions (tool calls in its scope that edited nothing), C the
// session's other episodes, D the rest. Support = A/N, Confidence = A/(A+B),
// Lift = Confidence / ((A+C)/N), Phi the phi coefficient of the 2×2 table, P
// the one-sided Fisher exact p-value of A or more; each rounded to 6
// decimals (0 where a denominator is 0).
type Correlation struct {
	A          int     `json:"a"`
	B          int     `json:"b"`
	C          int     `json:"c"`
	D          int     `json:"d"`
	Support    float64 `json:"support"`
	Confidence float64 `json:"confidence"`
	Lift       float64 `json:"lift"`
	Phi        float64 `json:"phi"`
	P          float64 `json:"p"`
}

// nodeID is a node's stable id: prefix and 16 hex digits of the SHA-256 of
// parts joined by NUL.
func nodeID(prefix string, parts ...string) string {
	h := sha256.New()
	for i, p := range parts {
		if i > 0 {
			h.Write([]byte{0})
		}
		h.Write([]byte(p))
	}
	var sum [sha256.Size]byte
	return prefix + hex.EncodeToString(h.Sum(sum[:0])[:8])
}

// EpisodeID is the id of the episode of a file edit: a hash of the session,
// the edit's seq and its path (and the subagent, whose file has seqs of its
// own).
func EpisodeID(session, agent string, seq uint64, path string) string {
	if agent == "" {
		return nodeID("ep-", session, strconv.FormatUint(seq, 10), path)
	}
	return nodeID("ep-", session, strconv.FormatUint(seq, 10), path, agent)
}

// ConversationID is the id of the conversation span of a gated turn.
func ConversationID(session, eventID string) string {
	return nodeID("conv-", session, eventID)
}

// DecisionID is the id of the decision candidate of a gated turn.
func DecisionID(session, eventID string) string {
	return nodeID("dec-", session, eventID)
}

// BindingID is the id of the edge from a decision to an episode.
func BindingID(decision, episode string) string {
	return nodeID("bind-", decision, episode)
}

// Encoder writes nodes as NDJSON, the same bytes for the same nodes.
type Encoder = ndjson.Encoder[Node]

// NewEncoder returns an encoder writing to w.
func NewEncoder(w io.Writer) *Encoder { return ndjson.NewEncoder[Node](w) }

// Marshal returns the NDJSON of nodes.
func Marshal(nodes []Node) ([]byte, error) { return ndjson.Marshal(nodes) }

// DecodeNodes reads nodes NDJSON (Encoder's output) from r.
func DecodeNodes(r io.Reader) ([]Node, error) { return ndjson.DecodeAll[Node](r) }
