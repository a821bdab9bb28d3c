package pipeline_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/cortexmem/cortex/pipeline"
	"github.com/cortexmem/cortex/pipeline/pipelinetest"
	"github.com/cortexmem/cortex/security"
	"github.com/cortexmem/cortex/transcript"
)

// TestRedactEvents: every fixture, with credentials planted in every text,
// redacted event by event, holds no credential and keeps its events; with
// no content, no text the person or the model wrote is left.
func TestRedactEvents(t *testing.T) {
	planted := 0
	for _, fx := range fixtures(t) {
		evs := pipelinetest.PlantCredentials(events(t, fx))
		for i := range evs {
			before := evs[i]
			raw, _ := json.Marshal(before)
			if len(security.ScanCredentials(string(raw))) > 0 {
				planted++
			}
			e := before
			if err := pipeline.RedactEvent(&e, redactor(t), false); err != nil {
				t.Fatalf("%s: %v", fx.Name, err)
			}
			data, _ := json.Marshal(e)
			if f := security.ScanCredentials(string(data)); len(f) > 0 {
				t.Fatalf("%s event %s: redacted event holds %s", fx.Name, e.EventID, f[0])
			}
			if e.EventID != before.EventID || e.Kind != before.Kind || e.Seq != before.Seq {
				t.Fatalf("%s: redaction changed the event's identity", fx.Name)
			}
			s := before
			if err := pipeline.RedactEvent(&s, nil, true); err != nil {
				t.Fatal(err)
			}
			data, _ = json.Marshal(s)
			if s.UserTurn != nil && s.UserTurn.Text != "" || s.AssistantTurn != nil && s.AssistantTurn.Text != "" ||
				s.FileEdit != nil && s.FileEdit.Unified != "" || strings.Contains(string(data), "From now on") {
				t.Fatalf("%s event %s: text left with no content: %s", fx.Name, s.EventID, data)
			}
			if s.Kind != before.Kind || s.EventID != before.EventID || s.Timestamp != before.Timestamp {
				t.Fatalf("%s: no-content dropped structure: %s", fx.Name, data)
			}
		}
	}
	if planted == 0 {
		t.Fatal("no event held a planted credential: the test shows nothing")
	}
}

func redactor(t *testing.T) pipeline.Redactor {
	r, err := pipeline.NewCredentialRedactor(nil)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestRedactEventNil leaves an event alone with neither.
func TestRedactEventNil(t *testing.T) {
	e := transcript.Event{EventID: "1", Kind: transcript.KindUserTurn, UserTurn: &transcript.UserTurn{Text: "hi"}}
	if err := pipeline.RedactEvent(&e, nil, false); err != nil || e.UserTurn.Text != "hi" {
		t.Fatalf("%v %q", err, e.UserTurn.Text)
	}
}
