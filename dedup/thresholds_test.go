package dedup

import (
	"math"
	"testing"
)

func TestThresholdsCheck(t *testing.T) {
	def := DefaultThresholds()
	with := func(f func(*Thresholds)) Thresholds {
		th := def
		f(&th)
		return th
	}
	tests := []struct {
		name string
		th   Thresholds
		want string // the error, "" for none
	}{
		{"defaults", def, ""},
		{"all zero", Thresholds{}, ""},
		{"all one", Thresholds{1, 1, 1, 1}, ""},
		{"duplicate above 1", with(func(t *Thresholds) { t.Duplicate = 1.5 }), "dedup.duplicate: must be from 0 to 1"},
		{"duplicate NaN", with(func(t *Thresholds) { t.Duplicate = math.NaN() }), "dedup.duplicate: must be from 0 to 1"},
		{"related negative", with(func(t *Thresholds) { t.Related = -0.1 }), "dedup.related: must be from 0 to 1"},
		{"mined skip infinite", with(func(t *Thresholds) { t.MinedSkip = math.Inf(1) }), "dedup.mined_skip: must be from 0 to 1"},
		{"mined related NaN", with(func(t *Thresholds) { t.MinedRelated = math.NaN() }), "dedup.mined_related: must be from 0 to 1"},
		{"related above duplicate", with(func(t *Thresholds) { t.Related = 0.8 }), "dedup.related: must not be above dedup.duplicate (0.7)"},
		{"related equal to duplicate", with(func(t *Thresholds) { t.Related = 0.7 }), ""},
		{"mined related above mined skip", with(func(t *Thresholds) { t.MinedRelated = 0.65 }), "dedup.mined_related: must not be above dedup.mined_skip (0.6)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.th.Check()
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tt.want {
				t.Errorf("Check() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestDefaultThresholds(t *testing.T) {
	want := Thresholds{Duplicate: 0.7, Related: 0.2, MinedSkip: 0.6, MinedRelated: 0.3}
	if got := DefaultThresholds(); got != want {
		t.Errorf("DefaultThresholds() = %+v, want %+v (SPEC §5)", got, want)
	}
}
