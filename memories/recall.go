package memories

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"
	"unicode/utf8"
)

// Recall limits.
const (
	DefaultRecallLimit = 10
	MaxRecallLimit     = 50
	MaxQueryChars      = 500
	// candidateFactor × limit candidates (at least minCandidates) are taken from
	// the index before the blend re-ranks them.
	candidateFactor = 5
	minCandidates   = 50
)

// RecallRequest asks for the memories that best answer a query.
type RecallRequest struct {
	Query             string
	Project           string
	Type              string
	Limit             int
	IncludeSuperseded bool
}

// Recalled is one recalled memory with its score and the signals behind it.
type Recalled struct {
	Memory  *Memory
	ShortID string
	Score   float64
	Signals Signals
}

// RecallResult is the answer to a RecallRequest, best first.
type RecallResult struct {
	Query   string
	Project string
	Results []Recalled
}

// EmptyMessage is what recall says when nothing matched.
func (r *RecallResult) EmptyMessage() string {
	if r.Query == "" {
		return "No memories found in project: " + r.Project
	}
	return "No memories found for: " + r.Query
}

// Recall finds the memories that best answer req: candidates from the full-text
// index, re-ranked by the blend of relevance, recency, activation and importance.
func (s *Service) Recall(ctx context.Context, req RecallRequest) (*RecallResult, error) {
	q, err := s.checkRecall(&req)
	if err != nil {
		return nil, err
	}
	res := &RecallResult{Query: q.Text, Project: q.Project}
	err = s.backend.View(ctx, func(snap Snapshot) error {
		hits, err := candidates(ctx, snap, q)
		if err != nil {
			return err
		}
		for _, r := range s.rank(hits, q.Text != "") {
			if len(res.Results) == req.Limit {
				break
			}
			m, err := snap.Load(ctx, r.hit.Path)
			if errors.Is(err, fs.ErrNotExist) {
				continue // deleted since it was indexed; the next sync drops it
			}
			if err != nil {
				return err
			}
			// The index's id is the memory's identity: a copied note carries
			// its original's id in its file but is known by another.
			m.ID = r.hit.ID
			res.Results = append(res.Results, Recalled{Memory: m, ShortID: snap.ShortID(m.ID), Score: r.score, Signals: r.signals})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// checkRecall validates req, filling in its default limit, and builds the search.
func (s *Service) checkRecall(req *RecallRequest) (SearchRequest, error) {
	var q SearchRequest
	text := strings.TrimSpace(req.Query)
	if !utf8.ValidString(text) {
		return q, invalid("query", "must be valid UTF-8 text")
	}
	if n := utf8.RuneCountInString(text); n > MaxQueryChars {
		return q, invalid("query", "is %d characters; the maximum is %d", n, MaxQueryChars)
	}
	project, err := NormalizeScope("project", req.Project)
	if err != nil {
		return q, err
	}
	if text == "" && project == "" {
		return q, invalid("query", "give a query, or a project to recall from")
	}
	if req.Type != "" {
		t, err := ParseType(req.Type)
		if err != nil {
			return q, err
		}
		q.Type = t
	}
	switch {
	case req.Limit == 0:
		req.Limit = DefaultRecallLimit
	case req.Limit < 1 || req.Limit > MaxRecallLimit:
		return q, invalid("limit", "is %d; it must be from 1 to %d", req.Limit, MaxRecallLimit)
	}
	q.Text = text
	q.Project = project
	q.IncludeSuperseded = req.IncludeSuperseded
	q.Size = max(req.Limit*candidateFactor, minCandidates)
	return q, nil
}

// candidates asks the index for every term of the query first, then for any term
// when that finds fewer than a page of results.
func candidates(ctx context.Context, snap Snapshot, q SearchRequest) ([]Hit, error) {
	hits, err := snap.Search(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	if q.Text == "" || len(hits) >= DefaultRecallLimit || len(strings.Fields(q.Text)) < 2 {
		return hits, nil
	}
	q.AnyTerm = true
	relaxed, err := snap.Search(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	return relaxed, nil
}

type ranked struct {
	hit     Hit
	signals Signals
	score   float64
}

func (s *Service) rank(hits []Hit, hasQuery bool) []ranked {
	now := s.now()
	best := 0.0
	for _, h := range hits {
		best = max(best, h.Score)
	}
	out := make([]ranked, len(hits))
	for i, h := range hits {
		sig := Signals{
			Recency:    s.ranking.Recency(h.Updated, now),
			Importance: float64(h.Importance) / MaxImportance,
		}
		if hasQuery && best > 0 {
			sig.Relevance = h.Score / best
		}
		out[i] = ranked{hit: h, signals: sig, score: s.ranking.Score(sig, hasQuery)}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.score != b.score {
			return a.score > b.score
		}
		if !a.hit.Updated.Equal(b.hit.Updated) {
			return a.hit.Updated.After(b.hit.Updated)
		}
		return a.hit.ID < b.hit.ID
	})
	return out
}
