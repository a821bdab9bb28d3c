package transcripts

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Fake credentials of shapes the credential rules know; none is live. They
// are built from parts so that secret scanners do not flag this file.
var (
	plantedPAT    = "ghp_" + "R7hK2mQ9xL4vT8nB3cW6yF1jD5sA0pE2gU9z"
	plantedAWS    = "AKIA" + "Q3EGUSX7NW5KZLPT"
	plantedStripe = "sk_" + "live_" + "4eC39HqLyjWDarjtT1zdp7dc"
	plantedDSN    = "postgres://app:" + "S3cr3tPassw0rd" + "@db.internal:5432/app"
)

// secretSession is a Claude Code session with a secret in every place a
// transcript can hold one: the person's words, the reply, a shell command, a
// failed tool's output, an edit still waiting for its result (which the
// parser keeps in its state between reads), and a compaction summary.
func secretSession() string {
	rec := func(v map[string]any) string {
		v["sessionId"] = "5ec2e7a1-0000-4000-8000-000000000001"
		v["cwd"] = "/home/dev/work/payments"
		v["gitBranch"] = "main"
		v["version"] = "2.1.197"
		b, _ := json.Marshal(v)
		return string(b) + "\n"
	}
	user := func(uuid, parent, ts string, content any) string {
		return rec(map[string]any{"type": "user", "uuid": uuid, "parentUuid": parent, "timestamp": ts,
			"message": map[string]any{"role": "user", "content": content}})
	}
	assistant := func(uuid, parent, ts, id string, content ...map[string]any) string {
		return rec(map[string]any{"type": "assistant", "uuid": uuid, "parentUuid": parent, "timestamp": ts,
			"message": map[string]any{"id": id, "role": "assistant", "model": "claude-opus-4-8", "content": content}})
	}
	return user("u1", "", "2026-11-20T10:00:00Z", "The staging deploy fails; the token is "+plantedPAT+" and the AWS key id "+plantedAWS+", please check the payment webhook") +
		assistant("a1", "u1", "2026-11-20T10:00:05Z", "m1", map[string]any{"type": "text", "text": "Trying the webhook with the Stripe key " + plantedStripe + " from your message."}) +
		assistant("a2", "a1", "2026-11-20T10:00:06Z", "m1", map[string]any{"type": "tool_use", "id": "t1", "name": "Bash",
			"input": map[string]any{"command": "curl -H 'Authorization: token " + plantedPAT + "' https://api.github.com/user"}}) +
		user("u2", "a2", "2026-11-20T10:00:07Z", []any{map[string]any{"type": "tool_result", "tool_use_id": "t1", "is_error": true,
			"content": "connection to " + plantedDSN + " refused"}}) +
		user("u3", "u2", "2026-11-20T10:01:00Z", "Put the database URL in .env and rotate the webhook secret") +
		assistant("a3", "u3", "2026-11-20T10:01:05Z", "m2", map[string]any{"type": "tool_use", "id": "t2", "name": "Edit",
			"input": map[string]any{"file_path": "/home/dev/work/payments/.env", "old_string": "DATABASE_URL=", "new_string": "DATABASE_URL=" + plantedDSN + "\nGITHUB_TOKEN=" + plantedPAT}}) +
		rec(map[string]any{"type": "system", "subtype": "compact_boundary", "uuid": "c1", "parentUuid": nil, "logicalParentUuid": "a3",
			"timestamp": "2026-11-20T10:02:00Z", "content": "Conversation compacted", "compactMetadata": map[string]any{"trigger": "manual", "preTokens": 1000}}) +
		rec(map[string]any{"type": "user", "uuid": "c2", "parentUuid": "c1", "timestamp": "2026-11-20T10:02:01Z", "isCompactSummary": true,
			"isVisibleInTranscriptOnly": true, "message": map[string]any{"role": "user",
				"content": "This session is being continued from a previous conversation. Summary: the payment webhook deploy used " + plantedStripe + " and " + plantedAWS + "."}})
}

// TestSecretsNeverStored plants credentials everywhere in a transcript and
// checks that none of them is in any file of the index folder (the Bleve
// index, the manifest, the parser's saved state), in any document, or in
// any result — while the exchanges are still found, the secrets marked
// redacted.
func TestSecretsNeverStored(t *testing.T) {
	home := t.TempDir()
	path := filepath.Join(home, ".claude", "projects", "-home-dev-work-payments", "5ec2e7a1-0000-4000-8000-000000000001.jsonl")
	writeFile(t, path, []byte(secretSession()))
	// Not settled: the edit is still waiting for its result, so the parser
	// keeps its arguments in the state saved for the next read.
	s := newService(t, home, time.Now)
	syncNow(t, s)
	secrets := []string{plantedPAT, plantedAWS, plantedStripe, "S3cr3tPassw0rd"}
	check := func(where, text string) {
		t.Helper()
		for _, sec := range secrets {
			if strings.Contains(strings.ToLower(text), strings.ToLower(sec)) {
				t.Errorf("%s holds the secret %s…", where, sec[:6])
			}
		}
	}
	var states int
	err := filepath.WalkDir(s.Dir(), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if strings.Contains(p, string(filepath.Separator)+filesDir+string(filepath.Separator)) {
			states++
			if !bytes.Contains(data, []byte("[REDACTED:")) {
				t.Errorf("the reading state %s holds no redaction marker: the pending edit's arguments were expected there, redacted", p)
			}
		}
		check(p, string(data))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if states != 1 {
		t.Fatalf("%d reading states saved, want 1", states)
	}
	docs := allDocs(t, s)
	if len(docs) != 3 {
		t.Errorf("%d documents, want 2 exchanges and a summary", len(docs))
	}
	for id, d := range docs {
		b, _ := json.Marshal(d)
		check("document "+id, string(b))
	}
	for _, q := range append(secrets, "payment webhook token", "database URL env webhook secret", "curl api.github.com", "payment webhook deploy") {
		res, err := s.Search(context.Background(), Request{Query: q, AllExchanges: true, Limit: MaxLimit})
		if err != nil {
			t.Fatalf("search %q: %v", q[:4], err)
		}
		b, _ := json.Marshal(res.Hits) // the query itself is the person's
		check("the results of a search", string(b))
		isSecret := false
		for _, sec := range secrets {
			isSecret = isSecret || q == sec
		}
		if isSecret && res.Count != 0 {
			t.Errorf("searching a secret finds %d exchanges", res.Count)
		}
		if !isSecret && res.Count == 0 {
			t.Errorf("%q finds nothing", q)
		}
		if !isSecret && !strings.Contains(string(b), "[REDACTED:") {
			t.Errorf("%q: the results do not show where secrets were redacted", q)
		}
	}
	v, err := s.Show(context.Background(), ShowRequest{Session: "5ec2e7a1"})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(v)
	check("show", string(b))
}
