package api

import (
	"errors"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"github.com/tenurehq/tenure/extract"
	"github.com/tenurehq/tenure/memory"
)

// extractRequest is a text to extract facts from. Entity is what the
// sentences that name no subject are about; Speaker is who "I", "me" and
// "my" are (by default the name the speaker introduces themselves with in
// the text, else the user entity, memory.UserEntity). Mode is rules (the
// default, offline) or llm; with Store the candidates are written as
// working rows.
type extractRequest struct {
	Text    string `json:"text"`
	Entity  string `json:"entity"`
	Speaker string `json:"speaker"`
	Mode    string `json:"mode"`
	Store   bool   `json:"store"`
}

// extractResponse is the candidates found, each with both axes and the
// reason for them, and with store the ids of the working rows written, one
// per candidate in order.
type extractResponse struct {
	Mode          string              `json:"mode"`
	PromptVersion string              `json:"prompt_version,omitempty"`
	Candidates    []extract.Candidate `json:"candidates"`
	StoredNodeIDs *[]int64            `json:"stored_node_ids,omitempty"`
}

// extractCreate extracts candidate facts from a text (200), and with store
// writes them as working rows of the scope (201) so that consolidation's
// gates decide what becomes a fact. Mode llm without an LLM configured is a
// 400; a failure of the LLM endpoint is a 502 (llm_unavailable, or
// llm_invalid_answer when it answered nonsense).
func (h *handlers) extractCreate(c echo.Context) error {
	if _, err := newQuery(c); err != nil {
		return err
	}
	var req extractRequest
	if err := decodeBody(c, maxBody, &req); err != nil {
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
	ex, err := h.extractors.Extractor(strings.TrimSpace(req.Mode))
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	cands, err := extract.ExtractFor(ctx, ex, text, entity, speaker, h.store.Now())
	var llmErr *extract.Error
	if errors.As(err, &llmErr) {
		h.logger.Error("api.llm_failed", "code", llmErr.Code, "err", llmErr.Message, "scope", c.Param("scope"))
		return c.JSON(http.StatusBadGateway, errorBody{Error: errorDetail{Code: llmErr.Code, Message: llmErr.Message}})
	}
	if err != nil {
		return err
	}
	res := extractResponse{Mode: ex.Name(), Candidates: cands}
	if res.Candidates == nil {
		res.Candidates = []extract.Candidate{}
	}
	if ex.Name() == extract.ModeLLM {
		res.PromptVersion = extract.PromptVersion
	}
	if !req.Store {
		return c.JSON(http.StatusOK, res)
	}
	ids := []int64{}
	if len(cands) > 0 {
		if ids, err = h.store.Push(ctx, actor(c), c.Param("scope"), extract.Nodes(ex.Name(), cands)); err != nil {
			return err
		}
	}
	res.StoredNodeIDs = &ids
	return c.JSON(http.StatusCreated, res)
}
