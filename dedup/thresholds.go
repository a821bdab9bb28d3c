package dedup

import "fmt"

// Thresholds say what a score means. The defaults are SPEC §5's.
type Thresholds struct {
	// Duplicate: a save or import scoring at or above it against an existing
	// memory is rejected as a duplicate.
	Duplicate float64 `json:"duplicate" yaml:"duplicate"`
	// Related: existing memories scoring above it are linked as related (the
	// top 3).
	Related float64 `json:"related" yaml:"related"`
	// MinedSkip: a memory mined from transcripts scoring above it is skipped.
	MinedSkip float64 `json:"mined_skip" yaml:"mined_skip"`
	// MinedRelated: a mined memory scoring from it up to MinedSkip is linked as
	// related (a candidate to supersede); below it, it is new.
	MinedRelated float64 `json:"mined_related" yaml:"mined_related"`
}

// DefaultThresholds are SPEC §5's: duplicate ≥ 0.7, related > 0.2, mined
// skip > 0.6, mined related 0.3–0.6.
func DefaultThresholds() Thresholds {
	return Thresholds{Duplicate: 0.7, Related: 0.2, MinedSkip: 0.6, MinedRelated: 0.3}
}

// Check reports the first threshold out of range, naming it as the config file
// does ("dedup.duplicate: must be from 0 to 1").
func (t Thresholds) Check() error {
	for _, v := range []struct {
		name string
		v    float64
	}{
		{"duplicate", t.Duplicate}, {"related", t.Related},
		{"mined_skip", t.MinedSkip}, {"mined_related", t.MinedRelated},
	} {
		if !(v.v >= 0 && v.v <= 1) { // NaN fails both
			return fmt.Errorf("dedup.%s: must be from 0 to 1", v.name)
		}
	}
	if t.Related > t.Duplicate {
		return fmt.Errorf("dedup.related: must not be above dedup.duplicate (%g)", t.Duplicate)
	}
	if t.MinedRelated > t.MinedSkip {
		return fmt.Errorf("dedup.mined_related: must not be above dedup.mined_skip (%g)", t.MinedSkip)
	}
	return nil
}
