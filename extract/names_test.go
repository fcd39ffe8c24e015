package extract

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestRevisedAttribution checks the rules revise applies (see
// attribution.go) on sentences of each kind of conversation: none of them
// is from the corpus.
func TestRevisedAttribution(t *testing.T) {
	now := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name, text, entity, speaker string
		want                        map[string]string // a substring of a candidate's content → its entity
	}{
		{"an ops verb is the caller's system", "Deployed the hotfix. Restarted the pods.", "payments-api", "Ines",
			map[string]string{"Deployed": "payments-api", "Restarted": "payments-api"}},
		{"a reading goes to the system, not who speaks", "Nadia: cpu on cache-07 at 91%.\nNadia: still 91%.\nNadia: back to 30% after the restart.", "", "",
			map[string]string{"cpu on": "cache-07", "still 91%": "cache-07", "back to 30%": "cache-07"}},
		{"a fragment of the speaker's", "Finished the tax return. Renewed my passport until 2036.", "", "Ines Ortiz",
			map[string]string{"tax return": "Ines Ortiz", "passport": "Ines Ortiz"}},
		{"a thing is the caller's entity", "User: Sessions expire after an hour. Rollout is at 50%. Staging runs Redis 7.", "auth-svc", "",
			map[string]string{"Sessions": "auth-svc", "Rollout": "auth-svc", "Staging": "auth-svc"}},
		{"a thing without an entity is the speaker's", "Customer: The invoice is wrong. The export never finished.", "", "Ola Berg",
			map[string]string{"invoice": "Ola Berg", "export": "Ola Berg"}},
		{"a demonstrative follows the sentence before", "User: The p95 on cart is 900 ms. That's too slow for us.", "cart-svc", "Ben",
			map[string]string{"p95": "cart-svc", "too slow": "cart-svc"}},
		{"a single labelled message", "Mika: Mika Saari on Slack. I'm based in Oslo now.", "", "",
			map[string]string{"Oslo": "Mika Saari"}},
		{"we are the speaker without an entity", "We moved to Lisbon in May. We're on the Family plan.", "", "Tara Lee",
			map[string]string{"Lisbon": "Tara Lee", "Family plan": "Tara Lee"}},
		{"we are the customer's organisation", "Customer: I work for Nordlys Bakery. Our shop is in Bergen.", "", "Eva",
			map[string]string{"Bergen": "Nordlys Bakery"}},
		{"we and my company are the caller's entity", "From now on we tag every release. Anyway, my company moved to Jira last week.", "acme", "Jo",
			map[string]string{"tag every release": "acme", "moved to Jira": "acme"}},
		{"a numbered job", "Build 7781 failed on main.\nExport job 12 finished in 4m.", "", "",
			map[string]string{"7781": "Build 7781", "Export job": "Export job 12"}},
		{"an alert is about its node", "Alert: DiskFull firing on host db-node-2 (disk 97%).", "", "",
			map[string]string{"DiskFull": "db-node-2"}},
		{"what a reading is of", "Ops: error rate on cart is 3%.\nOps: Kafka consumer lag on billing-ingest is 40k.", "", "",
			map[string]string{"error rate": "cart", "consumer lag": "billing-ingest"}},
		{"a language is no name", "I speak Portuguese and French. Portuguese is my first language.", "", "Rui",
			map[string]string{"first language": "Rui"}},
		{"Dad is a relation", "My dad, Tom Hale, is 80. Dad gets tired in the afternoons.", "", "Amy Hale",
			map[string]string{"tired": "Tom Hale"}},
		{"a relation reporting on the speaker", "My physio says my knee is fine now.", "", "Lu",
			map[string]string{"knee": "Lu"}},
		{"a heading and a role before a name", "Call notes: Spoke with Dana Kim from Orbital Labs.\nEscalation: Customer Raj Patel threatened to cancel.", "", "",
			map[string]string{"Dana Kim": "Dana Kim", "Raj Patel": "Raj Patel"}},
		{"an apposition names the subject", "Ops: The new hire, Ivo Petrov, starts Monday.", "", "",
			map[string]string{"Ivo Petrov": "Ivo Petrov"}},
		{"names stay names", "Lena decided this on Monday. Ahmed is on call this week. My aunt Olga lives in Kyiv. Olga turns 60 in June.", "", "Sam",
			map[string]string{"Lena": "Lena", "Ahmed": "Ahmed", "Olga": "Olga"}},
		{"a status list reports the item not OK", "health: api OK, queue OK, mailer DOWN.", "", "",
			map[string]string{"mailer DOWN": "mailer"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cands, err := Rules{}.ExtractAs(context.Background(), c.text, c.entity, c.speaker, now)
			if err != nil {
				t.Fatal(err)
			}
			for sub, want := range c.want {
				found := false
				for _, cand := range cands {
					if strings.Contains(cand.Content, sub) {
						found = true
						if cand.Entity != want {
							t.Errorf("%q: entity %q, want %q (%s)", cand.Content, cand.Entity, want, cand.Reason)
						}
					}
				}
				if !found {
					t.Errorf("no candidate holds %q: %+v", sub, cands)
				}
			}
		})
	}
}

func TestCommonWordAndSystemID(t *testing.T) {
	for _, w := range []string{"Rolled", "That's", "From", "Morale", "Standup", "Production", "Tokens", "Swedish", "Migration"} {
		if !commonWord(w) && !pastTense(strings.ToLower(w)) {
			t.Errorf("%s: read as a name", w)
		}
	}
	for _, w := range []string{"Lena", "Priya", "Ahmed", "Olga", "Kwame"} {
		if commonWord(w) {
			t.Errorf("%s: read as a common word", w)
		}
	}
	for _, s := range []string{"search-03", "ip-10-0-3-17", "INC-2291", "auth_service", "billing-db", "node.js"} {
		if !isSystemID(s) {
			t.Errorf("%s: not read as a system", s)
		}
	}
	for _, s := range []string{"0.41s", "97%", "p99", "on-call", "follow-up", "3.1", "Monday"} {
		if isSystemID(s) {
			t.Errorf("%s: read as a system", s)
		}
	}
}
