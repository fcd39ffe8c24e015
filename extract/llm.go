package extract

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/tenurehq/tenure/memory"
)

// The codes of an *Error, which the API answers with (502).
const (
	CodeUnavailable   = "llm_unavailable"    // the endpoint is down, slow or refused the call
	CodeInvalidAnswer = "llm_invalid_answer" // it answered, but not with valid candidates
)

// Error is a failure of the LLM endpoint: Code says whether it could not be
// reached or answered nonsense; Message says what happened, for the person
// who configured it. It never holds the key.
type Error struct {
	Code    string
	Message string
}

func (e *Error) Error() string { return e.Message }

// maxAnswer bounds what is read of the endpoint's answer.
const maxAnswer = 4 << 20

// LLM extracts through an OpenAI-compatible chat completions endpoint: it
// posts the prompt of PromptVersion and the text, asks for a JSON object at
// temperature 0, and validates and normalises the answer (parseReply): keys
// through the vocabulary, entities as the caller's, moods and states
// clamped. An invalid candidate makes the whole answer an error naming what
// was wrong; no invalid candidate is dropped silently. Fields the prompt does
// not ask for are ignored.
type LLM struct {
	url      string // the base URL as configured
	endpoint string // url + /chat/completions
	model    string
	key      string
	client   *http.Client
}

// NewLLM returns the LLM extractor of cfg, which must name a URL and a
// model; a zero Timeout means DefaultTimeout.
func NewLLM(cfg Config) (*LLM, error) {
	if !cfg.Configured() {
		return nil, errors.New("extract: no LLM URL configured")
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = DefaultTimeout
	}
	base := strings.TrimRight(strings.TrimSpace(cfg.URL), "/")
	endpoint := base
	if !strings.HasSuffix(base, "/chat/completions") {
		endpoint = base + "/chat/completions"
	}
	return &LLM{
		url: base, endpoint: endpoint, model: strings.TrimSpace(cfg.Model), key: cfg.Key,
		client: &http.Client{Timeout: cfg.Timeout},
	}, nil
}

// Name implements Extractor.
func (l *LLM) Name() string { return ModeLLM }

type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type chatRequest struct {
	Model          string        `json:"model"`
	Messages       []chatMessage `json:"messages"`
	ResponseFormat struct {
		Type string `json:"type"`
	} `json:"response_format"`
	Temperature float64 `json:"temperature"`
}

type chatResponse struct {
	Choices []struct {
		Message *struct {
			Content *string `json:"content"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
}

// userMessage is the text with what the prompt says comes with it: the
// time, and when the caller names them, the speaker (who "I" is) and the
// default entity (who "we" and things no one is named for are about), each
// on a line of its own.
func userMessage(text, entity, speaker string, now time.Time) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Current time: %s\n", now.UTC().Format(time.RFC3339))
	if s := oneLine(speaker); s != "" {
		fmt.Fprintf(&b, "Speaker: %s\n", s)
	}
	if e := oneLine(entity); e != "" {
		fmt.Fprintf(&b, "Default entity: %s\n", e)
	}
	b.WriteString("Text:\n<<<\n")
	b.WriteString(text)
	b.WriteString("\n>>>\n")
	return b.String()
}

// oneLine is s with its white space collapsed to single spaces.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// Extract implements Extractor.
func (l *LLM) Extract(ctx context.Context, text, entity string, now time.Time) ([]Candidate, error) {
	return l.ExtractAs(ctx, text, entity, "", now)
}

// ExtractAs implements SpeakerExtractor: the speaker and the entity are
// told to the model in the user message, and the candidates' entities read
// as theirs ("I" is the speaker). The prompt, and so PromptVersion, is the
// same whoever speaks.
func (l *LLM) ExtractAs(ctx context.Context, text, entity, speaker string, now time.Time) ([]Candidate, error) {
	a, err := l.ExtractAnswer(ctx, text, entity, speaker, now)
	if err != nil {
		return nil, err
	}
	return append(a.Candidates, a.retractionCandidates(now)...), nil
}

// retractionCandidates are a's retractions as the rule-based extractor
// makes them (rules.go): candidates marked Retraction, denying the value the
// sentence denies of the key. A retraction whose value cannot be read from
// its content is left out: it would retire nothing.
func (a Answer) retractionCandidates(now time.Time) []Candidate {
	var out []Candidate
	for _, r := range a.Retractions {
		key := memory.CanonicalKey(r.Key)
		value := memory.DeniedValue(r.Content, key)
		if key == "" || value == "" {
			continue
		}
		c := memory.Classify(r.Content, now)
		out = append(out, Candidate{Content: r.Content, Entity: r.Entity, Key: key, Category: c.Category,
			Durability: string(memory.ClampDurability(c.Category, c.Durability)), Retraction: true, Denies: value,
			Reason: fmt.Sprintf("a negation the model reported: denies %s %q, so it retires the facts that name it", key, value)})
	}
	return out
}

// ExtractAnswer is ExtractAs with the retractions the model reported
// beside the candidates.
func (l *LLM) ExtractAnswer(ctx context.Context, text, entity, speaker string, now time.Time) (Answer, error) {
	req := chatRequest{Model: l.model, Messages: []chatMessage{
		{Role: "system", Content: Prompt()},
		{Role: "user", Content: userMessage(text, entity, speaker, now)},
	}}
	req.ResponseFormat.Type = "json_object"
	body, err := json.Marshal(req)
	if err != nil {
		return Answer{}, fmt.Errorf("extract: llm request: %w", err)
	}
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, l.endpoint, bytes.NewReader(body))
	if err != nil {
		return Answer{}, unavailable("the request could not be built: %v", err)
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "application/json")
	if l.key != "" {
		hreq.Header.Set("Authorization", "Bearer "+l.key)
	}
	res, err := l.client.Do(hreq)
	if err != nil {
		return Answer{}, l.callError(ctx, err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(res.Body, maxAnswer+1))
	if err != nil {
		return Answer{}, l.callError(ctx, err)
	}
	if len(raw) > maxAnswer {
		return Answer{}, invalid("the LLM endpoint at %s answered with more than %d MiB", redact(l.url), maxAnswer>>20)
	}
	if res.StatusCode < 200 || res.StatusCode > 299 {
		return Answer{}, unavailable("the LLM endpoint at %s answered %s: %s", redact(l.url), res.Status, snippet(errorMessage(raw)))
	}
	var chat chatResponse
	if err := json.Unmarshal(raw, &chat); err != nil {
		return Answer{}, invalid("the LLM endpoint at %s did not answer with a chat completion (the body is not JSON of that shape: %v): %s",
			redact(l.url), err, snippet(raw))
	}
	if len(chat.Choices) == 0 {
		return Answer{}, invalid("the LLM endpoint at %s answered with no choices: is it an OpenAI-compatible chat completions endpoint? %s",
			redact(l.url), snippet(raw))
	}
	choice := chat.Choices[0]
	if choice.Message == nil || choice.Message.Content == nil || strings.TrimSpace(*choice.Message.Content) == "" {
		if choice.FinishReason != "" && choice.FinishReason != "stop" {
			return Answer{}, invalid("the model's answer is empty (finish_reason %s)", choice.FinishReason)
		}
		return Answer{}, invalid("the model's answer is empty")
	}
	if choice.FinishReason == "length" {
		return Answer{}, invalid("the model's answer was cut off (finish_reason length): send a shorter text or raise the model's output limit")
	}
	answer, err := parseReply(*choice.Message.Content, subjects{speaker: speaker, entity: entity})
	if err != nil {
		return Answer{}, invalid("%v", err)
	}
	return answer.sameNames(text, speaker, entity), nil
}

func unavailable(format string, args ...any) error {
	return &Error{Code: CodeUnavailable, Message: fmt.Sprintf(format, args...)}
}

func invalid(format string, args ...any) error {
	return &Error{Code: CodeInvalidAnswer, Message: fmt.Sprintf(format, args...)}
}

// callError explains a call that got no answer. A caller that gave up gets
// its own context's error back.
func (l *LLM) callError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("extract: llm call: %w", ctx.Err())
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return unavailable("the LLM endpoint at %s did not answer within %s: it is down or too slow (raise --llm-timeout or TENURE_LLM_TIMEOUT)",
			redact(l.url), l.client.Timeout)
	}
	// url.Error repeats the method and URL; keep only the cause.
	var ue interface{ Unwrap() error }
	if errors.As(err, &ue) && ue.Unwrap() != nil {
		err = ue.Unwrap()
	}
	return unavailable("the LLM endpoint at %s did not answer: %v", redact(l.url), err)
}

// errorMessage is the message of an OpenAI-style error body, or the body.
func errorMessage(raw []byte) []byte {
	var e struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(raw, &e) != nil || len(e.Error) == 0 {
		return raw
	}
	var withMessage struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(e.Error, &withMessage) == nil && withMessage.Message != "" {
		return []byte(withMessage.Message)
	}
	var s string
	if json.Unmarshal(e.Error, &s) == nil && s != "" {
		return []byte(s)
	}
	return raw
}

// snippet is the start of a body, on one line, for an error message.
func snippet(raw []byte) string {
	const max = 200
	s := strings.ToValidUTF8(string(raw), "?")
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
	s = strings.Join(strings.Fields(s), " ")
	if s == "" {
		return "(empty body)"
	}
	if utf8.RuneCountInString(s) > max {
		s = string([]rune(s)[:max]) + "…"
	}
	return fmt.Sprintf("%q", s)
}

// Answer is what the LLM extractor read of one reply: the candidate facts,
// and the negations the model reported as retractions.
type Answer struct {
	Candidates  []Candidate
	Retractions []Retraction
}

// Retraction is a negation the model reported: the text says an attribute
// of an entity does not hold, or no longer does ("I don't live in Berlin
// anymore": the speaker's home_city). It states no fact of its own, so it is
// no candidate.
type Retraction struct {
	Content string `json:"content"`
	Entity  string `json:"entity,omitempty"`
	Key     string `json:"key"`
}

// Bounds of the parts of a reply, beyond which it is refused.
const (
	maxContent = 10000 // characters of a candidate's or a retraction's content
	maxNote    = 2000  // characters of a reason or a decision's reasoning
	maxOptions = 20    // alternatives of a decision
)

// subjects are who the pronouns of a text stand for, as the caller named
// them: the speaker ("I") and the default entity ("we", and things no one is
// named for).
type subjects struct{ speaker, entity string }

// user is the speaker, or memory.UserEntity when the caller named none.
func (s subjects) user() string {
	if s.speaker != "" {
		return s.speaker
	}
	return memory.UserEntity
}

// entityOf reads the entity a reply names: white space trimmed and
// collapsed; a pronoun or placeholder the model echoed is whom it stands
// for ("I" and "speaker" the speaker, "we" the default entity, else the
// speaker); no entity is the default entity.
func (s subjects) entityOf(name string) string {
	name = oneLine(name)
	switch strings.ToLower(name) {
	case "", "none", "null", "n/a", "unknown", "default", "default entity", "the default entity":
		return s.entity
	case "i", "me", "my", "myself", "speaker", "the speaker", "user", "the user":
		return s.user()
	case "we", "us", "our", "ours", "ourselves":
		if s.entity != "" {
			return s.entity
		}
		return s.user()
	}
	return name
}

// slug is s in lowercase with each run of spaces, dashes and underscores
// as one '_': "Long-term" is long_term, "home city" home_city.
func slug(s string) string {
	return strings.Join(strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return unicode.IsSpace(r) || r == '-' || r == '_'
	}), "_")
}

// keyOf is the canonical key of a key a reply gives: its slug, read through
// the vocabulary (memory.CanonicalKey), so that "works_at" and "Company" are
// employer. A placeholder ("none", "null") is no key.
func keyOf(key string) string {
	switch k := slug(key); k {
	case "none", "null", "n/a", "na":
		return ""
	default:
		return memory.CanonicalKey(k)
	}
}

// parseAnswer validates the model's answer and returns its candidates, for
// a caller that names only the default entity.
func parseAnswer(content, entity string) ([]Candidate, error) {
	a, err := parseReply(content, subjects{entity: entity})
	return a.Candidates, err
}

// parseReply validates the model's answer, {"candidates": [...],
// "retractions": [...]} (retractions optional), and normalises it: keys
// canonical, entities trimmed and read as the caller's (entityOf),
// durabilities spelled as Tenure spells them, candidates clamped so that
// moods and states never harden. Fields it does not know are ignored. Every
// problem is named with its place (candidates[2].durability); one invalid
// item refuses the whole answer.
func parseReply(content string, who subjects) (Answer, error) {
	content = stripFence(content)
	dec := json.NewDecoder(strings.NewReader(content))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return Answer{}, fmt.Errorf("the model's answer is not JSON (%v): %s", err, snippet([]byte(content)))
	}
	if _, err := dec.Token(); err != io.EOF {
		return Answer{}, fmt.Errorf("the model's answer holds more than one JSON value: %s", snippet([]byte(content)))
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return Answer{}, fmt.Errorf("the model's answer is not valid: it must be a JSON object {\"candidates\": [...]}, not %s", kind(v))
	}
	var problems []string
	// list reads the list of field; null is an empty list, and an
	// optional list may be absent.
	list := func(field string, optional bool) []any {
		l, ok := obj[field].([]any)
		_, present := obj[field]
		switch {
		case obj[field] == nil && (optional || present):
		case obj[field] == nil:
			problems = append(problems, fmt.Sprintf("%s is missing: the answer must be {\"%s\": [...]}", field, field))
		case !ok:
			problems = append(problems, fmt.Sprintf("%s must be a list, not %s", field, kind(obj[field])))
		case len(l) > maxCandidates:
			problems = append(problems, fmt.Sprintf("%s holds %d items: at most %d are allowed", field, len(l), maxCandidates))
		default:
			return l
		}
		return nil
	}
	cands, retractions := list("candidates", false), list("retractions", true)
	var out Answer
	if len(problems) == 0 {
		for i, item := range cands {
			c, errs := parseCandidate(item, fmt.Sprintf("candidates[%d]", i), who)
			problems = append(problems, errs...)
			out.Candidates = append(out.Candidates, clamp(c))
		}
		for i, item := range retractions {
			r, errs := parseRetraction(item, fmt.Sprintf("retractions[%d]", i), who)
			problems = append(problems, errs...)
			out.Retractions = append(out.Retractions, r)
		}
	}
	if len(problems) > 0 {
		return Answer{}, fmt.Errorf("the model's answer is not valid: %s", strings.Join(problems, "; "))
	}
	return out, nil
}

// fields reads the fields of one object of a reply, at, collecting every
// problem they have.
type fields struct {
	obj      map[string]any
	at       string
	problems []string
}

func (f *fields) bad(field, format string, args ...any) {
	f.problems = append(f.problems, f.at+"."+field+" "+fmt.Sprintf(format, args...))
}

// str reads an optional string field, trimmed; null and absent read as "".
func (f *fields) str(field string) string {
	v, ok := f.obj[field]
	if !ok || v == nil {
		return ""
	}
	s, ok := v.(string)
	if !ok {
		f.bad(field, "must be a string, not %s", kind(v))
		return ""
	}
	return strings.TrimSpace(s)
}

// text reads a string field of at most max characters; required says
// whether it must be there.
func (f *fields) text(field string, max int, required bool, missing string) string {
	s := f.str(field)
	switch n := utf8.RuneCountInString(s); {
	case n == 0 && required && f.obj[field] == nil:
		f.bad(field, "is missing: %s", missing)
	case n == 0 && required:
		f.bad(field, "is empty")
	case n > max:
		f.bad(field, "is %d characters long: at most %d are allowed", n, max)
	}
	return s
}

// entity reads the entity field (entityOf).
func (f *fields) entity(who subjects) string {
	e := who.entityOf(f.str("entity"))
	if n := utf8.RuneCountInString(e); n > MaxEntity {
		f.bad("entity", "is %d characters long: at most %d are allowed", n, MaxEntity)
	}
	return e
}

// key reads the key field (keyOf).
func (f *fields) key() string {
	k := keyOf(f.str("key"))
	if _, err := memory.ParseKey(k); err != nil {
		f.bad("key", "%q is not a key: use up to 64 lowercase letters, digits, '_', '.', ':' or '-', such as home_city", k)
	}
	return k
}

// parseCandidate reads one candidate, collecting every problem it has.
func parseCandidate(item any, at string, who subjects) (Candidate, []string) {
	obj, ok := item.(map[string]any)
	if !ok {
		return Candidate{}, []string{fmt.Sprintf("%s must be an object, not %s", at, kind(item))}
	}
	f := &fields{obj: obj, at: at}
	var c Candidate
	c.Content = f.text("content", maxContent, true, "every candidate needs the statement it comes from")
	c.Entity = f.entity(who)
	c.Key = f.key()
	// The axes are read in any case, and a durability with dashes or
	// spaces ("long-term"); a problem names them as the model wrote them.
	durability := f.str("durability")
	c.Durability = slug(durability)
	durabilities := []string{"permanent", "long_term", "short_term", "ephemeral"}
	switch {
	case durability == "" && obj["durability"] == nil:
		f.bad("durability", "is missing: use one of %s", strings.Join(durabilities, ", "))
	case !slices.Contains(durabilities, c.Durability):
		f.bad("durability", "%q is not one of %s", durability, strings.Join(durabilities, ", "))
	}
	category := f.str("category")
	c.Category = strings.ToLower(category)
	switch {
	case category == "" && obj["category"] == nil:
		f.bad("category", "is missing: use a slug such as %s", strings.Join(memory.SuggestedCategories(), ", "))
	default:
		if _, err := memory.ParseCategory(c.Category); err != nil {
			f.bad("category", "%q is not a category: use a lowercase slug such as %s", category, strings.Join(memory.SuggestedCategories(), ", "))
		}
	}
	if d := f.str("deadline"); d != "" {
		t, err := time.Parse(time.RFC3339, d)
		if err != nil {
			// A date alone is its midnight, UTC.
			t, err = time.Parse(time.DateOnly, d)
		}
		switch {
		case err != nil:
			f.bad("deadline", "%q is not an RFC 3339 time such as 2026-06-10T00:00:00Z", d)
		case c.Category != memory.CategoryObligation:
			f.bad("deadline", "is set on a %s: only obligations have a deadline", c.Category)
		default:
			t = t.UTC()
			c.Deadline = &t
		}
	}
	if v, ok := obj["alternatives"]; ok && v != nil {
		list, isList := v.([]any)
		if !isList {
			f.bad("alternatives", "must be a list of strings, not %s", kind(v))
		}
		for i, a := range list {
			s, isString := a.(string)
			if !isString || strings.TrimSpace(s) == "" {
				f.bad(fmt.Sprintf("alternatives[%d]", i), "must be a non-empty string")
				continue
			}
			c.Alternatives = append(c.Alternatives, strings.TrimSpace(s))
		}
		if len(list) > maxOptions {
			f.bad("alternatives", "holds %d items: at most %d are allowed", len(list), maxOptions)
		}
	}
	c.Reasoning = f.text("reasoning", maxNote, false, "")
	if c.Category != memory.CategoryDecision {
		if len(c.Alternatives) > 0 {
			f.bad("alternatives", "are set on a %s: only decisions have alternatives", c.Category)
		}
		if c.Reasoning != "" {
			f.bad("reasoning", "is set on a %s: only decisions have reasoning (the reason for the axes goes in reason)", c.Category)
		}
	}
	if v, ok := obj["confidence"]; ok && v != nil {
		n, isNumber := v.(json.Number)
		x, err := n.Float64()
		switch {
		case !isNumber:
			f.bad("confidence", "must be a number from 0 to 1, not %s", kind(v))
		case err != nil || x < 0 || x > 1:
			f.bad("confidence", "%s is out of range: use a number from 0 to 1", n)
		default:
			c.Confidence = x
		}
	}
	c.Reason = f.text("reason", maxNote, true, "every candidate needs the reason for its axes")
	return c, f.problems
}

// parseRetraction reads one retraction, collecting every problem it has.
func parseRetraction(item any, at string, who subjects) (Retraction, []string) {
	obj, ok := item.(map[string]any)
	if !ok {
		return Retraction{}, []string{fmt.Sprintf("%s must be an object, not %s", at, kind(item))}
	}
	f := &fields{obj: obj, at: at}
	r := Retraction{
		Content: f.text("content", maxContent, true, "every retraction needs the statement it comes from"),
		Entity:  f.entity(who),
		Key:     f.key(),
	}
	if r.Key == "" && len(f.problems) == 0 {
		f.bad("key", "is missing: a retraction names the key it denies, such as home_city")
	}
	return r, f.problems
}

// sameNames gives the entities of a's candidates and retractions one name
// each, as the rule-based extractor does (canonicalEntities): "Ana" is "Ana
// Ruiz" when the text names Ana Ruiz and no other Ana.
func (a Answer) sameNames(text, speaker, entity string) Answer {
	all := slices.Clone(a.Candidates)
	for _, r := range a.Retractions {
		all = append(all, Candidate{Content: r.Content, Entity: r.Entity})
	}
	all = canonicalEntities(all, text, speaker, entity)
	n := len(a.Candidates)
	out := Answer{Candidates: all[:n:n]}
	for i, r := range a.Retractions {
		r.Entity = all[n+i].Entity
		out.Retractions = append(out.Retractions, r)
	}
	return out
}

// stripFence removes a Markdown code fence some models put around JSON.
func stripFence(s string) string {
	t := strings.TrimSpace(s)
	if !strings.HasPrefix(t, "```") || !strings.HasSuffix(t, "```") || len(t) < 6 {
		return s
	}
	t = strings.TrimSuffix(strings.TrimPrefix(t, "```"), "```")
	if nl := strings.IndexByte(t, '\n'); nl >= 0 && !strings.ContainsAny(t[:nl], "{[") {
		t = t[nl+1:]
	}
	return t
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// kind names the kind of a decoded JSON value.
func kind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	return "a JSON value"
}
