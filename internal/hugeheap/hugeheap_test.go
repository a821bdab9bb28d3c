package hugeheap

import (
	"errors"
	"testing"
	"time"
)

func TestAllowed(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		want bool
	}{
		{nil, true},
		{map[string]string{"CORTEX_HUGEPAGES": "on"}, true},
		{map[string]string{"CORTEX_HUGEPAGES": "off"}, false},
		{map[string]string{"CORTEX_HUGEPAGES": " OFF "}, false},
		{map[string]string{"GODEBUG": "gctrace=1,disablethp=1"}, false},
		{map[string]string{"GODEBUG": "disablethp=0"}, true},
	} {
		if got := allowed(func(k string) string { return c.env[k] }); got != c.want {
			t.Errorf("allowed(%v) = %v, want %v", c.env, got, c.want)
		}
	}
}

// TestWanted: the environment decides when it says, and the measured cost
// of a small page's first write otherwise; the probe is not run when the
// environment decides, and a probe that fails asks for nothing.
func TestWanted(t *testing.T) {
	errProbe := errors.New("no probe")
	for _, c := range []struct {
		name  string
		env   map[string]string
		cost  time.Duration
		err   error
		want  bool
		probe bool // whether the probe runs
	}{
		{"cheap faults", nil, 2 * time.Microsecond, nil, false, true},
		{"just under", nil, slowFault - time.Nanosecond, nil, false, true},
		{"at the bar", nil, slowFault, nil, true, true},
		{"slow faults", nil, 30 * time.Microsecond, nil, true, true},
		{"probe failed", nil, 30 * time.Microsecond, errProbe, false, true},
		{"on", map[string]string{"CORTEX_HUGEPAGES": " On "}, 0, nil, true, false},
		{"off", map[string]string{"CORTEX_HUGEPAGES": "off"}, time.Millisecond, nil, false, false},
		{"disablethp", map[string]string{"GODEBUG": "disablethp=1"}, time.Millisecond, nil, false, false},
		{"on, but disablethp", map[string]string{"CORTEX_HUGEPAGES": "on", "GODEBUG": "disablethp=1"}, 0, nil, false, false},
	} {
		probed := false
		probe := func() (time.Duration, error) {
			probed = true
			return c.cost, c.err
		}
		if got := wanted(func(k string) string { return c.env[k] }, probe); got != c.want {
			t.Errorf("%s: wanted = %v, want %v", c.name, got, c.want)
		}
		if probed != c.probe {
			t.Errorf("%s: probe run = %v, want %v", c.name, probed, c.probe)
		}
	}
}
