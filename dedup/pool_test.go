package dedup

import (
	"fmt"
	"testing"
)

func TestPool(t *testing.T) {
	p := NewPool()
	if got := p.Similar(New("anything at all"), 3); got != nil {
		t.Errorf("empty pool: %v", got)
	}
	texts := []string{
		"Use RS256 for JWT signing in production because HS256 shares the secret.",
		"Redis is the session store; sessions expire after 24 hours.",
		"The office coffee machine is descaled on Fridays.",
	}
	for i := 0; i < 200; i++ {
		texts = append(texts, fmt.Sprintf("Filler note %d about widget %d and gadget %d.", i, i*7, i*13))
	}
	for _, s := range texts {
		p.Add(New(s))
	}
	if p.Len() != len(texts) {
		t.Fatalf("Len = %d", p.Len())
	}
	got := p.Similar(New("Always use RS256 for JWT signing in production, because HS256 shares the secret!"), 3)
	if len(got) == 0 || got[0].Index != 0 || got[0].Score < 0.7 {
		t.Fatalf("a paraphrase of text 0: %+v", got)
	}
	got = p.Similar(New("Redis sessions are encrypted at rest"), 1)
	if len(got) != 1 || got[0].Index != 1 || got[0].Score <= 0.2 || got[0].Score >= 0.7 {
		t.Errorf("a related text: %+v", got)
	}
	if got := p.Similar(New("Kafka partitions rebalance during deploys"), 3); len(got) != 0 {
		t.Errorf("an unrelated text: %+v", got)
	}
	if got := p.Similar(New(""), 3); got != nil {
		t.Errorf("an empty text: %+v", got)
	}
}
