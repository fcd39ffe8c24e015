package classify

import (
	"testing"
)

// The paraphrases of one fact get one key, whatever rule decides their axes,
// so that supersession and merging pair them.
func TestClassifyKeyParaphrases(t *testing.T) {
	groups := []struct {
		key   string
		texts []string
	}{
		{"occupation", []string{"I work as a nurse", "I'm a nurse", "my job is nursing", "Jordan is a nurse",
			"She works as a nurse", "My profession is nursing", "Is a software engineer", "I'm working as a teacher"}},
		{"home_city", []string{"I live in Denver", "I'm based in Denver", "I moved to Denver", "Lives in Austin",
			"Jordan lives in Denver", "I relocated to Denver", "Priya currently lives in Berlin", "I reside in Denver",
			"We're based out of Lyon"}},
		{"employer", []string{"I work at Acme", "I work for Acme", "Works at Acme as a support lead", "Employed by Acme"}},
		{"replication_lag", []string{"billing-db replication lag is 4 s", "billing-db replication lag recovered",
			"replication lag on billing-db back to 0.2 s", "Replication lag was 4 s yesterday",
			"billing-db replication lag is high", "Replica lag is back to normal", "replication lag is 4 s"}},
		{"p99_latency", []string{"The api-gateway p99 latency is 180 ms", "api-gateway p99 back under 120 ms",
			"Payments service p99 latency is 850 ms", "p99 latency recovered", "p99 is 300ms"}},
		{"latency", []string{"api-gateway latency is 300 ms", "latency is back to normal", "Latency is elevated"}},
		{"disk_usage", []string{"Ops: disk usage on db-2 is 91%", "disk usage is back under 80%"}},
		{"drink", []string{"I like tea", "Prefers coffee", "Likes her coffee black", "I drink a flat white every morning",
			"My favourite drink is tea", "Loves a good espresso"}},
		{"theme", []string{"Prefers dark mode", "I love dark mode", "Likes the light theme"}},
		{"seat", []string{"Prefers aisle seats", "Always books a window seat", "I prefer an aisle seat"}},
		{"contact_method", []string{"Would rather be contacted by email", "Doesn't like phone calls",
			"Customer prefers to be contacted via email, not phone"}},
		{"deploy_day", []string{"We deploy on Thursdays", "Deploys go out every Tuesday", "Releases ship on Fridays"}},
		{"work_schedule", []string{"Jordan works nights", "I work nights", "Works from home on Mondays",
			"I work the night shift"}},
		{"timezone", []string{"My timezone is CET", "I'm on Pacific time", "Time zone: UTC+2"}},
		{"medication", []string{"Takes medication at 9am", "Must take medication daily", "Takes her meds every evening"}},
		{"mood", []string{"I'm so tired today", "Feeling stressed", "Priya sounded frustrated"}},
		{"name", []string{"My name is Jordan", "Her name is Priya", "Goes by Jo"}},
		{"cilantro", []string{"Hates cilantro", "Loves cilantro", "Priya can't stand cilantro", "Doesn't like cilantro"}},
		{"status", []string{"The API is down", "The incident is resolved", "The API is back up", "INC-231 resolved"}},
	}
	for _, g := range groups {
		for _, text := range g.texts {
			c := Classify(text, testNow)
			if c.Key != g.key {
				t.Errorf("Classify(%q).Key = %q (%s, %s: %s), want %q", text, c.Key, c.Durability, c.Category, c.Reason, g.key)
			}
			checkClassification(t, text, c)
			checkTriggers(t, text)
		}
	}
}

// A recovery is a state of the moment on the key of what recovered; a
// recovery told as past is a record.
func TestClassifyRecovery(t *testing.T) {
	cases := []struct {
		text       string
		durability Durability
		category   string
		key        string
	}{
		{"billing-db replication lag recovered", Ephemeral, CategoryState, "replication_lag"},
		{"replication lag on billing-db back to 0.2 s", Ephemeral, CategoryState, "replication_lag"},
		{"The incident is resolved", Ephemeral, CategoryState, "status"},
		{"Jordan has recovered from the flu", Ephemeral, CategoryState, "health"},
		{"The outage was resolved yesterday", LongTerm, CategoryObservation, ""},
		{"I'm fine", LongTerm, CategoryObservation, ""},
		{"The API is up again", Ephemeral, CategoryState, "status"},
	}
	for _, tc := range cases {
		c := Classify(tc.text, testNow)
		if c.Durability != tc.durability || c.Category != tc.category || c.Key != tc.key {
			t.Errorf("Classify(%q) = (%s, %s, %q), want (%s, %s, %q); reason %s",
				tc.text, c.Durability, c.Category, c.Key, tc.durability, tc.category, tc.key, c.Reason)
		}
	}
	if !Resolves("It recovered at 10:05") || !Resolves("It's back to normal") || Resolves("It is down") {
		t.Errorf("Resolves does not tell recoveries from other states")
	}
}

// A metric is named by its reading, by how far it is behind, by an alert's
// name or by what its queue did; a threshold set on it is no reading.
func TestMetricKeys(t *testing.T) {
	for _, tc := range []struct{ text, key string }{
		{"the billing-db replica is 2 s behind right now", "replication_lag"},
		{"orders consumer is 40k messages behind", "consumer_lag"},
		{"queue drained", "queue_depth"},
		{"HighMemoryUsage resolved on node ip-10-0-3-17", "memory_usage"},
		{"HighCPULoad firing on search-03", "cpu_usage"},
		{"Kafka consumer lag on orders-ingest is 120k messages", "consumer_lag"},
		{"alert threshold on disk is 85%", ""},
		{"The p99 latency target is 200 ms, and we are fine", ""},
		{"We are 3 sprints behind", ""},
	} {
		if got := Classify(tc.text, testNow).Key; got != tc.key {
			t.Errorf("Classify(%q).Key = %q, want %q", tc.text, got, tc.key)
		}
	}
}
