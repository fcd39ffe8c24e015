package extract

import (
	_ "embed"
	"slices"
	"strings"
	"sync"

	"github.com/tenurehq/tenure/memory/classify"
)

// PromptVersion names the prompt the LLM extractor sends; rows it writes
// record it, so a change of prompt can be traced in the data. A new prompt
// is a new file (prompt_v3.txt) and a new version, never an edit in place.
// The key vocabulary the prompt lists is the code's (keyVocabulary), so a
// key added to the classifier's vocabulary reaches the prompt without a new
// version.
const PromptVersion = "v2"

//go:embed prompt_v2.txt
var promptV2 string

// keysMarker is the place in prompt_v2.txt that keyVocabulary fills.
const keysMarker = "{{keys}}"

// Prompt returns the system prompt of PromptVersion, as sent to the model.
func Prompt() string { return prompt() }

var prompt = sync.OnceValue(func() string {
	return strings.Replace(promptV2, keysMarker, keyVocabulary(classify.SingleValuedKeys()), 1)
})

// keyGroup is one line of the prompt's key vocabulary: keys that usually
// take the same axes.
type keyGroup struct {
	axes string // the usual category and durability
	keys []string
}

// keyGroups are the canonical keys the classifier names facts with
// (memory/classify: vocabulary.go and the vocabulary in keys.go's header),
// by their usual axes. A single-valued key of the vocabulary that no group
// lists is still written into the prompt, on a line of its own.
var keyGroups = []keyGroup{
	{"identity, permanent", []string{"name", "occupation", "born_in", "birthday", "origin", "native_language",
		"pronouns", "diet", "allergy", "personality"}},
	{"observation, long_term", []string{"employer", "home_city", "timezone", "plan", "contract_end", "manager",
		"partner", "email", "phone", "speaks", "editor"}},
	{"preference, long_term", []string{"contact_method", "drink", "theme", "seat", "browser"}},
	{"routine, long_term", []string{"work_schedule", "deploy_day", "standup", "medication", "exercise",
		"wake_time", "bedtime", "backup_schedule"}},
	{"state, short_term", []string{"availability", "on_call", "health", "location", "workload"}},
	{"state, ephemeral, a metric's name", []string{"replication_lag", "consumer_lag", "p99_latency", "latency",
		"error_rate", "cpu_usage", "memory_usage", "disk_usage", "queue_depth", "throughput", "progress"}},
	{"mood, ephemeral", []string{"mood"}},
}

// keyHint is what the prompt says beside a key: a gloss where the key's
// name does not say it, and spellings the vocabulary reads as the key, so
// that the model writes the canonical one. A test holds each synonym to
// classify.CanonicalKey.
type keyHint struct {
	gloss    string
	synonyms []string
}

var keyHints = map[string]keyHint{
	"occupation":     {synonyms: []string{"job", "role"}},
	"origin":         {gloss: "where one comes from"},
	"diet":           {gloss: "vegan, lactose intolerant"},
	"personality":    {gloss: "early bird, night owl"},
	"employer":       {synonyms: []string{"company", "works_at"}},
	"home_city":      {synonyms: []string{"lives_in", "city"}},
	"plan":           {gloss: "a customer's tier", synonyms: []string{"subscription_plan"}},
	"contract_end":   {synonyms: []string{"renewal_date"}},
	"manager":        {synonyms: []string{"boss"}},
	"partner":        {synonyms: []string{"spouse"}},
	"speaks":         {gloss: "languages"},
	"editor":         {gloss: "one uses"},
	"contact_method": {gloss: "how to be reached"},
	"work_schedule":  {gloss: "when or where one works"},
	"availability":   {gloss: "away, on leave, off"},
	"on_call":        {gloss: "holds the pager"},
	"p99_latency":    {gloss: "or p50_latency, p95_latency"},
	"progress":       {gloss: "of a job"},
	"mood":           {synonyms: []string{"feeling"}},
}

// keyVocabulary is the key list of the prompt, one line per group: each
// key with its hint, a * on the single-valued ones (singleValued: a new
// value replaces the old), which the prompt lists all, in groups or after
// them.
func keyVocabulary(singleValued []string) string {
	var b strings.Builder
	listed := map[string]bool{}
	line := func(axes string, keys []string) {
		b.WriteString("- " + axes + ": ")
		for i, k := range keys {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(k)
			if slices.Contains(singleValued, k) {
				b.WriteByte('*')
			}
			h := keyHints[k]
			var notes []string
			if h.gloss != "" {
				notes = append(notes, h.gloss)
			}
			if len(h.synonyms) > 0 {
				notes = append(notes, "not "+strings.Join(h.synonyms, ", "))
			}
			if len(notes) > 0 {
				b.WriteString(" (" + strings.Join(notes, "; ") + ")")
			}
			listed[k] = true
		}
		b.WriteByte('\n')
	}
	for _, g := range keyGroups {
		line(g.axes, g.keys)
	}
	var rest []string
	for _, k := range singleValued {
		if !listed[k] {
			rest = append(rest, k)
		}
	}
	if len(rest) > 0 {
		line("other", rest)
	}
	return strings.TrimSuffix(b.String(), "\n")
}
