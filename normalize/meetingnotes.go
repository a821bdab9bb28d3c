package normalize

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/cortexmem/cortex/inbox"
	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/vault"
)

// MeetingsDir is the folder of meeting notes inside the cortex folder (SPEC
// §2); a meeting's action items and decisions go into a folder of its own
// beside its note.
const MeetingsDir = "meetings"

// meeting writes a meeting event as a meeting note, a note per action item
// (type action, open or done, with its due date) and one per decision (a
// memory like a mined decision: compared with the memories there, and not
// written when one already holds it), each linked to the meeting and with
// the event in its provenance. The notes are screened first as a save is:
// unsafe content refuses the event, and nothing is written.
func (n *Normalizer) meeting(ctx context.Context, ev *inbox.Event, er *EventResult) error {
	mt := ParseMeeting(ev.Body)
	if strings.TrimSpace(mt.Body) == "" {
		return refuse("the meeting notes are empty (only frontmatter)")
	}
	if err := n.Service.Screen(ctx, mt.Title, ev.Body); err != nil {
		if errors.Is(err, memories.ErrRejected) {
			return &refusal{msg: err.Error()}
		}
		return err
	}
	notes := MeetingNotes(ev, mt)
	res, err := n.Service.Mine(ctx, memories.MineRequest{Notes: notes, Op: memories.OpNormalize})
	if err != nil {
		return err
	}
	actions, decisions, dups := 0, 0, 0
	for _, it := range res.Items {
		er.Notes = append(er.Notes, Note{ID: it.ID, Type: it.Type, Title: it.Title, Path: it.Path, Outcome: it.Outcome})
		switch {
		case it.Outcome == memories.MineDuplicate || it.Outcome == memories.MineRejected:
			dups++
		case it.Type == memories.TypeAction:
			actions++
		case it.Type == memories.TypeDecision:
			decisions++
		}
	}
	er.Detail = fmt.Sprintf("meeting '%s': %d %s, %d %s", mt.Title, actions, plural(actions, "action item", "action items"),
		decisions, plural(decisions, "decision", "decisions"))
	if dups > 0 {
		er.Detail += fmt.Sprintf(" (%d already remembered)", dups)
	}
	if len(res.Items) > 0 {
		er.Detail += "; " + res.Items[0].Outcome
	}
	return nil
}

// MeetingNotes renders a meeting event's notes: the meeting's, then its
// action items', then its decisions', each with an id derived from the
// event's (the same event gives the same notes), dated when the event was
// captured.
func MeetingNotes(ev *inbox.Event, mt Meeting) []memories.MinedNote {
	at := ev.Time.UTC().Truncate(time.Second)
	date := mt.Date
	if date == "" {
		date = at.Format("2006-01-02")
	}
	project := ev.Project
	if project == "" {
		project = memories.DefaultProject
	}
	tags := cleanTags(append(append([]string{}, ev.Tags...), mt.Tags...))
	key := "cortex-meeting:" + ev.ID
	id := memories.KeyedID(at, key)
	stem := date + "-" + vault.Slug(mt.Title) + "-" + id[:memories.MinPrefix]
	meetingName := stem
	meetingLink := "[[" + meetingName + "|" + vault.LinkAlias(mt.Title) + "]]"
	itemDir := path.Join(MeetingsDir, stem)
	prov := provenanceOf(ev)

	item := func(kind string, i int, title string, typ memories.Type) *memories.Memory {
		iid := memories.KeyedID(at, fmt.Sprintf("%s/%s/%d", key, kind, i))
		p := prov
		p.EventIDs = append([]string(nil), prov.EventIDs...)
		p.DerivedFrom = id
		return &memories.Memory{
			ID: iid, Title: title, Type: typ, Project: project, Tags: tags, Source: memories.SourceCapture,
			Status: memories.StatusActive, Importance: memories.DefaultImportance, Created: at, Updated: at,
			Fields:     []memories.Field{{Key: "meeting", Value: "[[" + meetingName + "]]"}},
			Provenance: p,
			Path:       path.Join(itemDir, vault.Slug(title)+"-"+iid[:memories.MinPrefix]+".md"),
		}
	}
	var actions, decisions []memories.MinedNote
	var actionLinks, decisionLinks []string
	for i, a := range mt.Actions {
		m := item("action", i, a.Title, memories.TypeAction)
		m.Status, m.Due = memories.StatusOpen, a.Due
		if a.Done {
			m.Status = memories.StatusDone
		}
		var b strings.Builder
		b.WriteString(a.Text + "\n\n")
		if a.Due != "" {
			fmt.Fprintf(&b, "Due %s. ", a.Due)
		}
		fmt.Fprintf(&b, "An action item of the meeting %s (%s).\n", meetingLink, date)
		m.Body = b.String()
		actions = append(actions, memories.MinedNote{Memory: m, Compare: a.Text})
		actionLinks = append(actionLinks, "[["+strings.TrimSuffix(path.Base(m.Path), ".md")+"]]")
	}
	for i, d := range mt.Decisions {
		m := item("decision", i, d.Title, memories.TypeDecision)
		m.Body = fmt.Sprintf("%s\n\nDecided in the meeting %s (%s).\n", d.Text, meetingLink, date)
		decisions = append(decisions, memories.MinedNote{Memory: m, Compare: d.Text})
		decisionLinks = append(decisionLinks, "[["+strings.TrimSuffix(path.Base(m.Path), ".md")+"]]")
	}
	meeting := &memories.Memory{
		ID: id, Title: mt.Title, Type: memories.TypeMeeting, Project: project, Tags: tags, Source: memories.SourceCapture,
		Status: memories.StatusActive, Importance: memories.DefaultImportance, Created: at, Updated: at,
		Fields: []memories.Field{
			{Key: "date", Value: date},
			{Key: "actions", List: nonNil(actionLinks)},
			{Key: "decisions", List: nonNil(decisionLinks)},
		},
		Provenance: prov,
		Body:       strings.TrimSpace(mt.Body) + "\n",
		Path:       path.Join(MeetingsDir, stem+".md"),
	}
	out := append([]memories.MinedNote{{Memory: meeting}}, actions...)
	return append(out, decisions...)
}

// cleanTags keeps the tags that are valid, once each.
func cleanTags(in []string) []string {
	var out []string
	for _, t := range in {
		got, err := memories.NormalizeTags([]string{t})
		if err != nil {
			continue
		}
		for _, g := range got {
			if !slices.Contains(out, g) {
				out = append(out, g)
			}
		}
	}
	return out
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
