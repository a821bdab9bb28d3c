package view

import (
	"fmt"

	"github.com/cortexmem/cortex/memories"
)

// Recall is what recall found.
type Recall struct {
	Query   string     `json:"query"`
	Project string     `json:"project,omitempty"`
	Scope   string     `json:"scope,omitempty"`
	Count   int        `json:"count"`
	Results []Recalled `json:"results" jsonschema:"best first, then the memories the results link to (related)"`
	// Message is set when nothing was found.
	Message string `json:"message,omitempty" jsonschema:"what recall says when it found nothing"`
}

// Recalled is one recalled memory.
type Recalled struct {
	Memory
	Content string  `json:"content" jsonschema:"the memory's text, markdown"`
	Score   float64 `json:"score" jsonschema:"the blended score, 0 to 1"`
	Related bool    `json:"related,omitempty" jsonschema:"true when the memory was not found by the query but is linked from a result"`
	Via     string  `json:"via,omitempty" jsonschema:"for a related memory, the short id of the result that links to it"`
	// Explain is set when it was asked for.
	Explain *Explain `json:"explain,omitempty" jsonschema:"the score broken into its four signals, when explain was asked for"`
}

// Explain breaks a score down: each signal, its effective weight and their
// product; the products sum to the score.
type Explain struct {
	Relevance  Term    `json:"relevance" jsonschema:"how well the memory matches the query: its full-text score over the best candidate's"`
	Recency    Term    `json:"recency" jsonschema:"0.995 to the power of the hours since the memory was updated or last used"`
	Activation Term    `json:"activation" jsonschema:"how often and how lately the memory was used"`
	Importance Term    `json:"importance" jsonschema:"the memory's importance over 5"`
	Score      float64 `json:"score"`
}

// Term is one signal of the blend: the signal, its effective weight, and
// their product.
type Term struct {
	Signal       float64 `json:"signal"`
	Weight       float64 `json:"weight"`
	Contribution float64 `json:"contribution"`
}

// RecallOf is the view of a recall; explain adds each result's breakdown.
func RecallOf(res *memories.RecallResult, explain bool, abs Abs) Recall {
	out := Recall{Query: res.Query, Project: res.Project, Scope: res.Scope, Count: len(res.Results), Results: []Recalled{}}
	short := make(map[string]string, len(res.Results))
	for _, r := range res.Results {
		short[r.Memory.ID] = r.ShortID
	}
	for _, r := range res.Results {
		v := Recalled{Memory: MemoryOf(r.Memory, r.ShortID, abs), Content: r.Memory.Content(), Score: Round(r.Score), Related: r.Related}
		if r.Related {
			// The result it hangs from is among the results; its id
			// stands in, should it not be.
			v.Via = r.Via
			if s, ok := short[r.Via]; ok {
				v.Via = s
			}
		}
		if explain {
			v.Explain = ExplainOf(r)
		}
		out.Results = append(out.Results, v)
	}
	if len(res.Results) == 0 {
		out.Message = res.EmptyMessage()
	}
	return out
}

// ExplainOf breaks r's score down.
func ExplainOf(r memories.Recalled) *Explain {
	t := func(signal, weight float64) Term {
		return Term{Signal: Round(signal), Weight: Round(weight), Contribution: Round(signal * weight)}
	}
	return &Explain{
		Relevance:  t(r.Signals.Relevance, r.Weights.Relevance),
		Recency:    t(r.Signals.Recency, r.Weights.Recency),
		Activation: t(r.Signals.Activation, r.Weights.Activation),
		Importance: t(r.Signals.Importance, r.Weights.Importance),
		Score:      Round(r.Score),
	}
}

// String is the breakdown on one line, as both transports print it:
// "relevance 1.00×0.50 + recency … = 0.770".
func (e *Explain) String() string {
	return fmt.Sprintf("relevance %.2f×%.2f + recency %.2f×%.2f + activation %.2f×%.2f + importance %.2f×%.2f = %.3f",
		e.Relevance.Signal, e.Relevance.Weight, e.Recency.Signal, e.Recency.Weight,
		e.Activation.Signal, e.Activation.Weight, e.Importance.Signal, e.Importance.Weight, e.Score)
}
