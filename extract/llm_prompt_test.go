package extract_test

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/tenurehq/tenure/extract"
	"github.com/tenurehq/tenure/memory/classify"
)

// promptKey is one key the prompt's vocabulary lists.
type promptKey struct {
	key      string
	single   bool     // marked * : one value at a time
	synonyms []string // the spellings it says not to write
	gloss    string
}

// keyItemRe is one key of a vocabulary line: key, an optional *, and an
// optional note in parentheses.
var keyItemRe = regexp.MustCompile(`([a-z][a-z0-9_]*)(\*?)(?: \(([^)]*)\))?(?:, |$)`)

// promptKeys reads the key vocabulary out of the prompt: the "- axes:
// keys" lines after the KEY heading.
func promptKeys(t *testing.T, prompt string) []promptKey {
	t.Helper()
	_, section, ok := strings.Cut(prompt, "\nKEY:")
	if !ok {
		t.Fatal("the prompt has no KEY section")
	}
	var keys []promptKey
	for _, line := range strings.Split(section, "\n")[1:] {
		if !strings.HasPrefix(line, "- ") {
			break
		}
		_, items, ok := strings.Cut(line, ": ")
		if !ok {
			t.Fatalf("vocabulary line %q has no axes", line)
		}
		matched := 0
		for _, m := range keyItemRe.FindAllStringSubmatch(items, -1) {
			matched += len(m[0])
			k := promptKey{key: m[1], single: m[2] == "*"}
			for _, part := range strings.Split(m[3], "; ") {
				if syn, ok := strings.CutPrefix(part, "not "); ok {
					k.synonyms = strings.Split(syn, ", ")
				} else {
					k.gloss = part
				}
			}
			keys = append(keys, k)
		}
		if matched != len(items) {
			t.Fatalf("vocabulary line %q does not read as keys", line)
		}
	}
	if len(keys) == 0 {
		t.Fatal("the prompt's KEY section lists no keys")
	}
	return keys
}

func TestPromptV2(t *testing.T) {
	p := extract.Prompt()
	if extract.PromptVersion != "v2" {
		t.Errorf("PromptVersion = %q, want v2", extract.PromptVersion)
	}
	if strings.Contains(p, "{{") {
		t.Errorf("the prompt still holds a placeholder")
	}
	if p != extract.Prompt() {
		t.Errorf("Prompt() differs between calls")
	}
	for _, want := range []string{
		// both axes, each value with its definition
		"permanent: identity", "long_term: stable", "short_term: days or weeks", "ephemeral: minutes or hours",
		"observation: a general fact", "preference: a lasting taste", "identity: who someone is",
		"mood: a feeling of the moment", "decision: a choice made", "routine: a recurring",
		"state: a temporary condition", "obligation: a duty",
		// one fact per attribute; decisions from decision language
		"One fact per attribute stated", "decision language", "a decider and what was chosen",
		`"alternatives"`, `"reasoning"`,
		// entities: the fullest name, the speaker, the default entity
		`"Ana" is "Ana Ruiz"`, `"I", "me", "my": the speaker`, "the default entity",
		// what is not a fact
		"questions", "acknowledgements", "instructions to the assistant", "hypotheticals", "sarcasm",
		// negations, as retractions of a key
		`"retractions": [{`, "with the key it denies",
		`{"candidates": [`,
	} {
		if !strings.Contains(p, want) {
			t.Errorf("the prompt does not say %q", want)
		}
	}
}

// TestPromptKeysFromVocabulary: the keys the prompt teaches are the
// vocabulary's. Every single-valued key of the classifier is listed,
// marked, so a key added to the vocabulary is in the prompt; every key
// listed is canonical and every synonym it names is read as that key, so
// a key made a synonym, or a synonym moved to another concept, fails here.
// Every key the corpus labels a fact with is listed too: the model cannot
// use a key it was never told.
func TestPromptKeysFromVocabulary(t *testing.T) {
	keys := promptKeys(t, extract.Prompt())
	listed := map[string]promptKey{}
	for _, k := range keys {
		if _, dup := listed[k.key]; dup {
			t.Errorf("key %s is listed twice", k.key)
		}
		listed[k.key] = k
		if c := classify.CanonicalKey(k.key); c != k.key {
			t.Errorf("key %s is listed, but the vocabulary reads it as %s", k.key, c)
		}
		if k.single != classify.IsSingleValued(k.key) {
			t.Errorf("key %s is marked single-valued %v, the vocabulary says %v", k.key, k.single, classify.IsSingleValued(k.key))
		}
		for _, s := range k.synonyms {
			if c := classify.CanonicalKey(s); c != k.key {
				t.Errorf("the prompt says to write %s, not %s, but the vocabulary reads %s as %q", k.key, s, s, c)
			}
		}
		// Keys a gloss names ("or p50_latency") are canonical too.
		for _, w := range regexp.MustCompile(`[a-z0-9]+(?:_[a-z0-9]+)+`).FindAllString(k.gloss, -1) {
			if c := classify.CanonicalKey(w); c != w {
				t.Errorf("the note of %s names %s, which the vocabulary reads as %s", k.key, w, c)
			}
		}
	}
	for _, k := range classify.SingleValuedKeys() {
		if _, ok := listed[k]; !ok {
			t.Errorf("the vocabulary's single-valued key %s is not in the prompt", k)
		}
	}
	c := loadCorpus(t)
	var labelled []string
	for k := range c.canonical {
		labelled = append(labelled, k)
	}
	slices.Sort(labelled)
	for _, k := range labelled {
		if _, ok := listed[k]; !ok {
			t.Errorf("the corpus labels facts with key %s, which the prompt does not list", k)
		}
	}
}

// pretokenRe splits text as a GPT-style tokenizer does before its merges:
// contractions, words with their leading space, numbers of up to three
// digits, runs of punctuation, white space.
var pretokenRe = regexp.MustCompile(`'(?:s|t|re|ve|m|ll|d)| ?\pL+| ?\pN{1,3}| ?[^\s\pL\pN]+|\s+`)

// estimateTokens estimates the tokens of text: one a piece, and one more
// for each word longer than ten letters, which such tokenizers split.
func estimateTokens(text string) int {
	n := 0
	for _, piece := range pretokenRe.FindAllString(text, -1) {
		n++
		if len([]rune(strings.TrimSpace(piece))) > 10 {
			n++
		}
	}
	return n
}

// TestPromptTokenBudget: the prompt goes with every call, so it stays
// under about 1,500 tokens.
func TestPromptTokenBudget(t *testing.T) {
	const budget = 1500
	p := extract.Prompt()
	n := estimateTokens(p)
	t.Logf("prompt %s: %d characters, about %d tokens", extract.PromptVersion, len(p), n)
	if n > budget {
		t.Errorf("the prompt is about %d tokens, over the budget of %d", n, budget)
	}
}
