package pipelinetest

import "github.com/cortexmem/cortex/transcript"

// Fake credentials of shapes the security package's rules know, for tests
// that check none gets through redaction. None is live; each is built from
// two halves so that no literal key is in the source.
const (
	FakeGitHubPAT = "ghp_" + "R7hK2mQ9xL4vT8nB3cW6yF1jD5sA0pE2gU9z"
	FakeAWSKeyID  = "AKIA" + "Q3EGUSX7NW5KZLPT"
	FakeStripeKey = "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc"
	FakeDBURL     = "postgres://app:" + "Xk29vLq8RtW3" + "@db.internal:5432/app"
)

// PlantCredentials returns a copy of evs with credentials planted in every
// field whose text reaches a node or a note: each typed turn gains a marker
// and a token, replies a database URL, diffs a key, edited paths and the
// project's folder a key id, the project a remote URL with a token in it.
// The events' payloads are copied, not changed.
func PlantCredentials(evs []transcript.Event) []transcript.Event {
	out := make([]transcript.Event, len(evs))
	for i, e := range evs {
		e.Project.Repository = "https://x-access-token:" + FakeGitHubPAT + "@github.com/acme/app.git"
		e.Project.Cwd += "/" + FakeAWSKeyID
		switch {
		case e.UserTurn != nil:
			u := *e.UserTurn
			u.Text += "\nFrom now on, use the key " + FakeAWSKeyID + " and export GITHUB_TOKEN=" + FakeGitHubPAT
			e.UserTurn = &u
		case e.AssistantTurn != nil:
			a := *e.AssistantTurn
			a.Text += " DATABASE_URL=" + FakeDBURL
			e.AssistantTurn = &a
		case e.FileEdit != nil:
			f := *e.FileEdit
			f.Unified += "+stripe_key = \"" + FakeStripeKey + "\"\n"
			f.Path += "." + FakeAWSKeyID
			e.FileEdit = &f
		}
		out[i] = e
	}
	return out
}
