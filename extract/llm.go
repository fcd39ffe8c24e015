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
// posts the embedded prompt and the text, asks for a JSON object at
// temperature 0, and validates the answer strictly. An invalid candidate
// makes the whole answer an error naming what was wrong; nothing is dropped
// silently.
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

// userMessage is the text with what the prompt says comes with it, and the
// speaker when the caller names one.
func userMessage(text, entity, speaker string, now time.Time) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Current time: %s\n", now.UTC().Format(time.RFC3339))
	if entity != "" {
		fmt.Fprintf(&b, "Entity: %s\n", entity)
	}
	if speaker != "" {
		fmt.Fprintf(&b, "Speaker (the entity of \"I\", \"me\" and \"my\" in the text): %s\n", speaker)
	}
	b.WriteString("Text:\n<<<\n")
	b.WriteString(text)
	b.WriteString("\n>>>\n")
	return b.String()
}

// Extract implements Extractor.
func (l *LLM) Extract(ctx context.Context, text, entity string, now time.Time) ([]Candidate, error) {
	return l.ExtractAs(ctx, text, entity, "", now)
}

// ExtractAs implements SpeakerExtractor: a speaker, when named, is told to
// the model in the user message, after the entity. The prompt, and so
// PromptVersion, is the same.
func (l *LLM) ExtractAs(ctx context.Context, text, entity, speaker string, now time.Time) ([]Candidate, error) {
	req := chatRequest{Model: l.model, Messages: []chatMessage{
		{Role: "system", Content: Prompt()},
		{Role: "user", Content: userMessage(text, entity, speaker, now)},
	}}
	req.ResponseFormat.Type = "json_object"
	body, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("extract: llm request: %w", err)
	}
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, l.endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, unavailable("the request could not be built: %v", err)
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "application/json")
	if l.key != "" {
		hreq.Header.Set("Authorization", "Bearer "+l.key)
	}
	res, err := l.client.Do(hreq)
	if err != nil {
		return nil, l.callError(ctx, err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(res.Body, maxAnswer+1))
	if err != nil {
		return nil, l.callError(ctx, err)
	}
	if len(raw) > maxAnswer {
		return nil, invalid("the LLM endpoint at %s answered with more than %d MiB", redact(l.url), maxAnswer>>20)
	}
	if res.StatusCode < 200 || res.StatusCode > 299 {
		return nil, unavailable("the LLM endpoint at %s answered %s: %s", redact(l.url), res.Status, snippet(errorMessage(raw)))
	}
	var chat chatResponse
	if err := json.Unmarshal(raw, &chat); err != nil {
		return nil, invalid("the LLM endpoint at %s did not answer with a chat completion (the body is not JSON of that shape: %v): %s",
			redact(l.url), err, snippet(raw))
	}
	if len(chat.Choices) == 0 {
		return nil, invalid("the LLM endpoint at %s answered with no choices: is it an OpenAI-compatible chat completions endpoint? %s",
			redact(l.url), snippet(raw))
	}
	choice := chat.Choices[0]
	if choice.Message == nil || choice.Message.Content == nil || strings.TrimSpace(*choice.Message.Content) == "" {
		if choice.FinishReason != "" && choice.FinishReason != "stop" {
			return nil, invalid("the model's answer is empty (finish_reason %s)", choice.FinishReason)
		}
		return nil, invalid("the model's answer is empty")
	}
	if choice.FinishReason == "length" {
		return nil, invalid("the model's answer was cut off (finish_reason length): send a shorter text or raise the model's output limit")
	}
	cands, err := parseAnswer(*choice.Message.Content, entity)
	if err != nil {
		return nil, invalid("%v", err)
	}
	return cands, nil
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

// candidateFields are the fields the prompt asks for, in its order.
var candidateFields = []string{"content", "entity", "key", "durability", "category", "deadline",
	"alternatives", "reasoning", "confidence", "reason"}

// parseAnswer validates the model's answer, {"candidates": [...]}, and
// returns its candidates, clamped so that moods and states never harden.
// Every problem is named with its place (candidates[2].durability); one
// invalid candidate refuses the whole answer.
func parseAnswer(content, entity string) ([]Candidate, error) {
	content = stripFence(content)
	dec := json.NewDecoder(strings.NewReader(content))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("the model's answer is not JSON (%v): %s", err, snippet([]byte(content)))
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("the model's answer holds more than one JSON value: %s", snippet([]byte(content)))
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("the model's answer is not valid: it must be a JSON object {\"candidates\": [...]}, not %s", kind(v))
	}
	var problems []string
	for _, k := range sortedKeys(obj) {
		if k != "candidates" {
			problems = append(problems, fmt.Sprintf("%s is not a field of the answer: the answer holds only candidates", k))
		}
	}
	list, ok := obj["candidates"].([]any)
	switch {
	case obj["candidates"] == nil:
		problems = append(problems, "candidates is missing: the answer must be {\"candidates\": [...]}")
	case !ok:
		problems = append(problems, fmt.Sprintf("candidates must be a list, not %s", kind(obj["candidates"])))
	case len(list) > maxCandidates:
		problems = append(problems, fmt.Sprintf("candidates holds %d items: at most %d are allowed", len(list), maxCandidates))
	}
	var out []Candidate
	if len(problems) == 0 {
		for i, item := range list {
			c, errs := parseCandidate(item, fmt.Sprintf("candidates[%d]", i), entity)
			problems = append(problems, errs...)
			out = append(out, clamp(c))
		}
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("the model's answer is not valid: %s", strings.Join(problems, "; "))
	}
	return out, nil
}

// parseCandidate reads one candidate, collecting every problem it has.
func parseCandidate(item any, at, entity string) (Candidate, []string) {
	obj, ok := item.(map[string]any)
	if !ok {
		return Candidate{}, []string{fmt.Sprintf("%s must be an object, not %s", at, kind(item))}
	}
	var problems []string
	bad := func(field, format string, args ...any) {
		problems = append(problems, at+"."+field+" "+fmt.Sprintf(format, args...))
	}
	for _, k := range sortedKeys(obj) {
		if !slices.Contains(candidateFields, k) {
			bad(k, "is not a field of a candidate: the fields are %s", strings.Join(candidateFields, ", "))
		}
	}
	// str reads an optional string field; null and absent read as "".
	str := func(field string) string {
		v, ok := obj[field]
		if !ok || v == nil {
			return ""
		}
		s, ok := v.(string)
		if !ok {
			bad(field, "must be a string, not %s", kind(v))
			return ""
		}
		return strings.TrimSpace(s)
	}
	var c Candidate
	c.Content = str("content")
	switch n := utf8.RuneCountInString(c.Content); {
	case n == 0 && obj["content"] == nil:
		bad("content", "is missing: every candidate needs the statement it comes from")
	case n == 0:
		bad("content", "is empty")
	case n > 10000:
		bad("content", "is %d characters long: at most 10000 are allowed", n)
	}
	c.Entity = str("entity")
	if n := utf8.RuneCountInString(c.Entity); n > MaxEntity {
		bad("entity", "is %d characters long: at most %d are allowed", n, MaxEntity)
	}
	if c.Entity == "" {
		c.Entity = entity
	}
	c.Key = str("key")
	if _, err := memory.ParseKey(c.Key); err != nil {
		bad("key", "%q is not a key: use up to 64 lowercase letters, digits, '_', '.', ':' or '-', such as lives_in", c.Key)
	}
	c.Durability = str("durability")
	durabilities := []string{"permanent", "long_term", "short_term", "ephemeral"}
	switch {
	case c.Durability == "" && obj["durability"] == nil:
		bad("durability", "is missing: use one of %s", strings.Join(durabilities, ", "))
	case !slices.Contains(durabilities, c.Durability):
		bad("durability", "%q is not one of %s", c.Durability, strings.Join(durabilities, ", "))
	}
	c.Category = str("category")
	switch {
	case c.Category == "" && obj["category"] == nil:
		bad("category", "is missing: use a slug such as %s", strings.Join(memory.SuggestedCategories(), ", "))
	default:
		if _, err := memory.ParseCategory(c.Category); err != nil {
			bad("category", "%q is not a category: use a lowercase slug such as %s", c.Category, strings.Join(memory.SuggestedCategories(), ", "))
		}
	}
	if d := str("deadline"); d != "" {
		t, err := time.Parse(time.RFC3339, d)
		switch {
		case err != nil:
			bad("deadline", "%q is not an RFC 3339 time such as 2026-06-10T00:00:00Z", d)
		case c.Category != memory.CategoryObligation:
			bad("deadline", "is set on a %s: only obligations have a deadline", c.Category)
		default:
			t = t.UTC()
			c.Deadline = &t
		}
	}
	if v, ok := obj["alternatives"]; ok && v != nil {
		list, isList := v.([]any)
		if !isList {
			bad("alternatives", "must be a list of strings, not %s", kind(v))
		}
		for i, a := range list {
			s, isString := a.(string)
			if !isString || strings.TrimSpace(s) == "" {
				bad(fmt.Sprintf("alternatives[%d]", i), "must be a non-empty string")
				continue
			}
			c.Alternatives = append(c.Alternatives, strings.TrimSpace(s))
		}
		if len(list) > 20 {
			bad("alternatives", "holds %d items: at most 20 are allowed", len(list))
		}
	}
	c.Reasoning = str("reasoning")
	if c.Category != memory.CategoryDecision {
		if len(c.Alternatives) > 0 {
			bad("alternatives", "are set on a %s: only decisions have alternatives", c.Category)
		}
		if c.Reasoning != "" {
			bad("reasoning", "is set on a %s: only decisions have reasoning (the reason for the axes goes in reason)", c.Category)
		}
	}
	if v, ok := obj["confidence"]; ok && v != nil {
		n, isNumber := v.(json.Number)
		f, err := n.Float64()
		switch {
		case !isNumber:
			bad("confidence", "must be a number from 0 to 1, not %s", kind(v))
		case err != nil || f < 0 || f > 1:
			bad("confidence", "%s is out of range: use a number from 0 to 1", n)
		default:
			c.Confidence = f
		}
	}
	c.Reason = str("reason")
	if c.Reason == "" {
		bad("reason", "is missing: every candidate needs the reason for its axes")
	}
	return c, problems
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
