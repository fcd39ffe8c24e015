package wire

import "github.com/tenurehq/tenure/extract"

// Extraction is the answer to an extraction: the candidates found, each
// with both axes and the reason for them, and, when they were stored, the
// ids of the working rows written (one per candidate, in order) and the
// notes on them (row is the candidate's index). PromptVersion names the LLM
// prompt of mode llm.
type Extraction struct {
	Mode          string              `json:"mode"`
	PromptVersion string              `json:"prompt_version,omitempty"`
	Candidates    []extract.Candidate `json:"candidates"`
	StoredNodeIDs *[]int64            `json:"stored_node_ids,omitempty"`
	Notes         *[]PushNote         `json:"notes,omitempty"`
}

// NewExtraction is the candidates mode found; Stored adds what a store
// wrote.
func NewExtraction(mode string, cands []extract.Candidate) Extraction {
	out := Extraction{Mode: mode, Candidates: orEmpty(cands)}
	if mode == extract.ModeLLM {
		out.PromptVersion = extract.PromptVersion
	}
	return out
}

// Stored records the push of the candidates as working rows.
func (e *Extraction) Stored(p Push) {
	e.StoredNodeIDs, e.Notes = &p.IDs, &p.Notes
}
