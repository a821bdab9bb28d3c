package hugeheap

import "testing"

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
		if got := Allowed(func(k string) string { return c.env[k] }); got != c.want {
			t.Errorf("Allowed(%v) = %v, want %v", c.env, got, c.want)
		}
	}
}
