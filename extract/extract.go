// Package extract turns text into candidate facts, each classified on both
// axes (durability and category) with the reason for it. Two extractors do
// the work: Rules, the offline rule-based classifier and the default, and
// LLM, any OpenAI-compatible chat completions endpoint driven by a versioned
// prompt embedded in the binary. Stored candidates become working rows, so
// they pass consolidation's gates like any other row.
package extract

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/tenurehq/tenure/memory"
)

// The modes of extraction, which are also the Names of the extractors.
const (
	ModeRules = "rules"
	ModeLLM   = "llm"
)

// Limits of what one extraction reads and yields.
const (
	MaxText       = 50000 // characters of input text
	MaxEntity     = 200   // characters of an entity name
	maxCandidates = 200
)

// Candidate is a fact extraction found in a text, classified on both axes,
// before it is written: written, it becomes a working row whose properties
// guide consolidation, so it passes the same gates as any other row.
type Candidate struct {
	Content    string     `json:"content" jsonschema:"the sentence the fact comes from"`
	Entity     string     `json:"entity,omitempty" jsonschema:"who or what the fact is about, when known"`
	Key        string     `json:"key,omitempty" jsonschema:"a short slug naming what the fact is about, such as home_city or occupation"`
	Durability string     `json:"durability" jsonschema:"how long the fact naturally persists: permanent, long_term, short_term or ephemeral"`
	Category   string     `json:"category" jsonschema:"observation, preference, identity, mood, decision, routine, state or obligation"`
	Deadline   *time.Time `json:"deadline,omitempty" jsonschema:"for obligations that name a date"`
	// Alternatives and Reasoning are set for decisions.
	Alternatives []string `json:"alternatives,omitempty" jsonschema:"for decisions: the options rejected"`
	Reasoning    string   `json:"reasoning,omitempty" jsonschema:"for decisions: why"`
	// Confidence is how sure the extractor is, 0 to 1; 0 when it does not say
	// (the rule-based classifier), and consolidation then uses its default.
	Confidence float64 `json:"confidence,omitempty" jsonschema:"how sure the extractor is, 0 to 1, when it says"`
	Reason     string  `json:"reason" jsonschema:"why the classifier chose these axes"`
	// Retraction marks a sentence that denies a value rather than stating
	// one ("I no longer live in Berlin"): Key is the attribute denied and
	// Denies the value. Written, it retires the entity's active facts on
	// that key that name the value, and becomes no current fact itself (see
	// memory/retract.go); the axes are those of the sentence.
	Retraction bool   `json:"retraction,omitempty" jsonschema:"true when the sentence denies a value rather than stating one: stored, it retires the entity's facts on key that name denies"`
	Denies     string `json:"denies,omitempty" jsonschema:"for a retraction: the value denied, such as Berlin"`
}

// Extractor turns text into candidate facts. entity, when not empty, is who
// or what the text is about: the entity of the candidates whose sentence
// names no other (the rule-based extractor attributes each sentence itself:
// "I" to the speaker, "Jordan works nights" to Jordan; see attribution.go);
// now reads relative dates ("tomorrow"). A SpeakerExtractor can also be
// told who speaks (ExtractFor).
type Extractor interface {
	// Name is the extractor's mode, rules or llm; the rows it writes record it.
	Name() string
	Extract(ctx context.Context, text, entity string, now time.Time) ([]Candidate, error)
}

// Node is the working row that carries c into consolidation. The axes ride
// in the properties consolidation reads (entity, key, category,
// fact_durability, confidence, deadline, alternatives, reasoning, and for
// a retraction denies, the value it denies of key); the
// metadata says where the row came from: source extraction, the mode, the
// prompt version for llm, extracted_by (the classifier: offline for the
// rule-based one, llm) and the candidate's reason.
func (c Candidate) Node(mode string) memory.NewNode {
	props := memory.RowAxes{Entity: c.Entity, Key: c.Key, Category: c.Category, Durability: c.Durability,
		Confidence: c.Confidence, Deadline: c.Deadline, Alternatives: c.Alternatives, Reasoning: c.Reasoning}.Properties()
	if c.Retraction && c.Key != "" && strings.TrimSpace(c.Denies) != "" {
		// Consolidation reads the row as a denial of the key (memory/retract.go).
		props["denies"] = strings.TrimSpace(c.Denies)
	}
	meta := map[string]any{"source": memory.SourceExtraction, "mode": mode, "reason": c.Reason}
	switch mode {
	case ModeRules:
		meta["extracted_by"] = "offline"
	case ModeLLM:
		meta["extracted_by"] = ModeLLM
		meta["prompt_version"] = PromptVersion
	default:
		meta["extracted_by"] = mode
	}
	return memory.NewNode{Content: c.Content, Metadata: meta, Properties: props}
}

// Nodes are the working rows of cands, found by an extractor of mode.
func Nodes(mode string, cands []Candidate) []memory.NewNode {
	out := make([]memory.NewNode, len(cands))
	for i, c := range cands {
		out[i] = c.Node(mode)
	}
	return out
}

// clamp keeps moods and states from hardening, whatever an extractor said,
// and says so in the candidate's reason.
func clamp(c Candidate) Candidate {
	d := memory.ClampDurability(c.Category, memory.Durability(c.Durability))
	if string(d) != c.Durability {
		c.Reason = strings.TrimSpace(c.Reason + fmt.Sprintf(" (durability %s lowered to %s: a %s never hardens)",
			c.Durability, d, c.Category))
		c.Durability = string(d)
	}
	return c
}

// DefaultTimeout bounds one call to the LLM endpoint when Config names none.
const DefaultTimeout = 30 * time.Second

// Config is the extraction configuration: an OpenAI-compatible endpoint for
// mode llm. With no URL only the rule-based classifier is available.
type Config struct {
	URL     string // the API base, such as http://localhost:11434/v1
	Model   string
	Key     string // sent as a bearer token when set; never logged nor shown
	Timeout time.Duration
}

// Configured reports whether an LLM endpoint is set.
func (c Config) Configured() bool { return strings.TrimSpace(c.URL) != "" }

// Validate checks an LLM configuration: the URL must be http or https with a
// host, and a model is required with it. A configuration without a URL is
// valid (rules only), unless it names a model or key for nothing.
func (c Config) Validate() error {
	if !c.Configured() {
		if strings.TrimSpace(c.Model) != "" || c.Key != "" {
			return fmt.Errorf("an LLM model or key is set without an LLM URL: set the URL of an OpenAI-compatible endpoint too, such as http://localhost:11434/v1")
		}
		return nil
	}
	u, err := url.Parse(strings.TrimSpace(c.URL))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("invalid LLM URL %q: use an http or https URL of an OpenAI-compatible endpoint, such as http://localhost:11434/v1", redact(c.URL))
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("invalid LLM URL %q: give the API base without a query or fragment; Tenure appends /chat/completions", redact(c.URL))
	}
	if strings.TrimSpace(c.Model) == "" {
		return fmt.Errorf("an LLM URL is set without a model: name the model the endpoint serves, such as gpt-4o-mini or llama3.1")
	}
	if c.Timeout < 0 {
		return fmt.Errorf("invalid LLM timeout %s: use a positive duration such as 30s", c.Timeout)
	}
	return nil
}

// redact hides a password in a URL.
func redact(raw string) string {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.User == nil {
		return raw
	}
	return u.Redacted()
}

// Set is the extractors a server offers: the rule-based one always, the LLM
// when one is configured. A nil *Set offers the rule-based one only.
type Set struct {
	rules Rules
	llm   *LLM
}

// NewSet returns the extractors of cfg; cfg must validate.
func NewSet(cfg Config) (*Set, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	s := &Set{}
	if cfg.Configured() {
		llm, err := NewLLM(cfg)
		if err != nil {
			return nil, err
		}
		s.llm = llm
	}
	return s, nil
}

// errNoLLM is the message of mode llm on a server without an LLM.
const errNoLLM = "mode llm needs an LLM endpoint: set TENURE_LLM_URL and TENURE_LLM_MODEL (or use mode rules)"

// Extractor returns the extractor of mode: rules (also for ""), or llm when
// configured. Any other mode, and llm without an endpoint, is a CodeInvalid
// error on field mode.
func (s *Set) Extractor(mode string) (Extractor, error) {
	switch mode {
	case "", ModeRules:
		return Rules{}, nil
	case ModeLLM:
		if s == nil || s.llm == nil {
			return nil, memory.Invalidf("mode", errNoLLM)
		}
		return s.llm, nil
	}
	return nil, memory.Invalidf("mode", "unknown mode %q: allowed values are rules (the default, offline) and llm", mode)
}

// Default is the extractor used when no mode is named: the rule-based one.
func (s *Set) Default() Extractor { return Rules{} }

// Settings is what the console shows of the extraction configuration. It
// never holds the key, only whether one is set.
type Settings struct {
	DefaultMode   string
	LLMConfigured bool
	URL           string // with any password in it hidden
	Model         string
	KeySet        bool
	Timeout       time.Duration
	PromptVersion string
	Prompt        string
}

// Settings describes the set for the console.
func (s *Set) Settings() Settings {
	out := Settings{DefaultMode: ModeRules, PromptVersion: PromptVersion, Prompt: Prompt()}
	if s != nil && s.llm != nil {
		out.LLMConfigured = true
		out.URL = redact(s.llm.url)
		out.Model = s.llm.model
		out.KeySet = s.llm.key != ""
		out.Timeout = s.llm.client.Timeout
	}
	return out
}
