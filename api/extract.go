package api

import (
	"errors"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"github.com/tenurehq/tenure/auth"
	"github.com/tenurehq/tenure/extract"
	"github.com/tenurehq/tenure/memory"
	"github.com/tenurehq/tenure/wire"
)

// extractRequest is a text to extract facts from. Entity is what the
// sentences that name no subject are about; Speaker is who "I", "me" and
// "my" are (by default the name the speaker introduces themselves with in
// the text, else the user entity, memory.UserEntity). Mode is rules (the
// default, offline) or llm; with Store the candidates are written as
// working rows, and with Strict too nothing is written when a candidate
// would get a note (see wire.Push).
type extractRequest struct {
	Text    string `json:"text"`
	Entity  string `json:"entity"`
	Speaker string `json:"speaker"`
	Mode    string `json:"mode"`
	Store   bool   `json:"store"`
	Strict  bool   `json:"strict"`
	// ObservedAt is when the text was said or written (RFC 3339; default
	// now): dates in it are read relative to it, and with store the rows
	// are observed then.
	ObservedAt *time.Time `json:"observed_at"`
}

// extractCreate extracts candidate facts from a text (200), and with store
// writes them as working rows of the scope (201) so that consolidation's
// gates decide what becomes a fact, with the notes a push answers (strict:
// 409 and nothing written when there are any). Mode llm without an LLM
// configured is a 400; a failure of the LLM endpoint is a 502
// (llm_unavailable, or llm_invalid_answer when it answered nonsense).
func (h *handlers) extractCreate(c echo.Context) error {
	if _, err := newQuery(c); err != nil {
		return err
	}
	var req extractRequest
	if err := decodeBody(c, maxBody, &req); err != nil {
		return err
	}
	if tok := callerToken(c); req.Store && tok.Role != auth.TokenWriter {
		err := errReaderWrites(tok).(*memory.Error)
		err.Field = "store"
		err.Message += " (extract without store reads only, and is open to it)"
		return err
	}
	text := strings.TrimSpace(req.Text)
	if text == "" {
		return memory.Invalidf("text", "the text is empty: send the text to extract facts from")
	}
	if n := utf8.RuneCountInString(text); n > extract.MaxText {
		return memory.Invalidf("text", "the text is %d characters long: at most %d are allowed", n, extract.MaxText)
	}
	entity := strings.TrimSpace(req.Entity)
	if n := utf8.RuneCountInString(entity); n > extract.MaxEntity {
		return memory.Invalidf("entity", "the entity name is %d characters long: at most %d are allowed", n, extract.MaxEntity)
	}
	speaker, err := extract.ParseSpeaker(req.Speaker)
	if err != nil {
		return err
	}
	if req.Strict && !req.Store {
		return memory.Invalidf("strict", "strict refuses a stored batch that would get notes: it needs store true")
	}
	ex, err := h.extractors.Extractor(strings.TrimSpace(req.Mode))
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	said := h.store.Now()
	if req.ObservedAt != nil {
		if err := memory.CheckObservedAt("observed_at", *req.ObservedAt, said); err != nil {
			return err
		}
		said = *req.ObservedAt
	}
	cands, err := extract.ExtractFor(ctx, ex, text, entity, speaker, said)
	var llmErr *extract.Error
	if errors.As(err, &llmErr) {
		h.logger.Error("api.llm_failed", "code", llmErr.Code, "err", llmErr.Message, "scope", c.Param("scope"))
		return c.JSON(http.StatusBadGateway, errorBody{Error: errorDetail{Code: llmErr.Code, Message: llmErr.Message}})
	}
	if err != nil {
		return err
	}
	res := wire.NewExtraction(ex.Name(), cands)
	if !req.Store {
		return c.JSON(http.StatusOK, res)
	}
	pushed := wire.Push{IDs: []int64{}, Notes: []wire.PushNote{}}
	if len(cands) > 0 {
		nodes := extract.Nodes(ex.Name(), cands)
		for i := range nodes {
			nodes[i].ObservedAt = req.ObservedAt
		}
		r, err := h.store.PushNoted(ctx, actor(c), c.Param("scope"), nodes, memory.PushOptions{Strict: req.Strict})
		var me *memory.Error
		if errors.As(err, &me) && me.Code == memory.CodeConflict {
			// The rows are the candidates: name the one at fault as such.
			named := *me
			named.Field = candidateField(me.Field)
			return &named
		}
		if err != nil {
			return err
		}
		pushed = wire.NewPush(r)
	}
	res.Stored(pushed)
	return c.JSON(http.StatusCreated, res)
}

// candidateField names a pushed row's field as the candidate's it came from:
// nodes[2].key or, for a batch of one, key become candidates[2].key and
// candidates[0].key.
func candidateField(field string) string {
	if rest, ok := strings.CutPrefix(field, "nodes["); ok {
		return "candidates[" + rest
	}
	if field == "" {
		return field
	}
	return "candidates[0]." + field
}
