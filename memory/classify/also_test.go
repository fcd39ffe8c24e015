package classify

import (
	"slices"
	"testing"
)

// TestAlsoStated: a sentence filed under one lasting attribute lists the
// other identities and observations it states, and nothing when it is
// intended, a question, several sentences, or states only a passing
// condition, routine or preference beside it.
func TestAlsoStated(t *testing.T) {
	keys := func(cs []Classification) []string {
		var out []string
		for _, c := range cs {
			out = append(out, c.Key)
		}
		return out
	}
	for _, tc := range []struct {
		text, key string
		want      []string
	}{
		{"I'm the finance lead at Bluefin Logistics", "occupation", []string{"employer"}},
		{"I'm a staff engineer based in Montevideo", "occupation", []string{"home_city"}},
		{"I joined Kettle Labs as a platform engineer", "employer", []string{"occupation"}},
		{"I'm a nurse", "occupation", nil},
		{"I want to move to Berlin and join Kettle Labs", "home_city", nil},
		{"Are you the finance lead at Bluefin Logistics?", "occupation", nil},
		{"I'm the finance lead. I work at Bluefin Logistics.", "occupation", nil},
		{"My company, Maple Health, is letting me work remotely", "employer", nil},
		{"I'm on call this week at Acme", "on_call", nil},
	} {
		if got := keys(AlsoStated(tc.text, tc.key)); !slices.Equal(got, tc.want) {
			t.Errorf("AlsoStated(%q, %s) = %v, want %v", tc.text, tc.key, got, tc.want)
		}
	}
}
