package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/tenurehq/tenure/views/pages"
)

// settingsShow shows how extraction is configured: the default mode, the
// LLM endpoint and model (never the key, only whether one is set) and the
// full text of the prompt mode llm sends.
func (s *Console) settingsShow(c echo.Context) error {
	set := s.extract.Settings()
	view := pages.SettingsPage{
		DefaultMode: set.DefaultMode, LLMConfigured: set.LLMConfigured, LLMURL: set.URL, LLMModel: set.Model,
		LLMKeySet: set.KeySet, PromptVersion: set.PromptVersion, Prompt: set.Prompt,
	}
	if set.LLMConfigured {
		view.LLMTimeout = set.Timeout.String()
	}
	content := pages.Settings(view)
	return s.page(c, http.StatusOK, "Settings", "settings", content, content)
}
