package memories

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRecallInAnswersAsRecall: RecallIn, inside the caller's view, gives
// Recall's results for queries and for filters alone, records accesses as Recall does unless told not to, and looks at the
// store no more than the caller does.
func TestRecallInAnswersAsRecall(t *testing.T) {
	build := func() *fakeBackend {
		f := newFake(t,
			mem(numbered(1), "JWT leeway on staging", "Clock skew breaks tokens.", typ(TypeDecision)),
			mem(numbered(2), "Pool size", "Twenty connections per worker.", typ(TypeConvention)),
			mem(numbered(3), "Retry the timeout", "Retry twice, then give up.", project("api")),
			mem(numbered(4), "Staging tokens expire", "The tokens of staging expire after an hour.", typ(TypeFact)),
		)
		f.selects = true
		return f
	}
	ctx := context.Background()
	for _, req := range []RecallRequest{
		{Query: "staging tokens", Project: "web"},
		{Query: "retry timeout"},
		{Project: "web", Type: string(TypeConvention), NoAccess: true},
		{Project: "web", Type: string(TypeDecision), Limit: 1},
	} {
		f, g := build(), build()
		log, logIn := &fakeAccess{}, &fakeAccess{}
		svc, _ := newTestService(f, WithAccessLog(log))
		svcIn, _ := newTestService(g, WithAccessLog(logIn))
		want, err := svc.Recall(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		if len(want.Results) == 0 {
			t.Fatalf("%+v: Recall found nothing to compare", req)
		}
		var got *RecallResult
		if err := g.View(ctx, func(snap Snapshot) error {
			got, err = svcIn.RecallIn(ctx, snap, req)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%+v (-Recall +RecallIn):\n%s", req, diff)
		}
		if diff := cmp.Diff(log.recorded, logIn.recorded); diff != "" {
			t.Errorf("%+v: accesses (-Recall +RecallIn):\n%s", req, diff)
		}
		if g.views != 1 {
			t.Errorf("%+v: RecallIn looked at the store %d times besides the caller's", req, g.views-1)
		}
	}
}
