package extract

import (
	_ "embed"
)

// PromptVersion names the prompt the LLM extractor sends; rows it writes
// record it, so a change of prompt can be traced in the data. A new prompt
// is a new file (prompt_v2.txt) and a new version, never an edit in place.
const PromptVersion = "v1"

//go:embed prompt_v1.txt
var promptV1 string

// Prompt returns the system prompt of PromptVersion, as sent to the model.
func Prompt() string { return promptV1 }
