package mcpserver

import (
	"context"
	"errors"
	"time"

	"github.com/tenurehq/tenure/extract"
	"github.com/tenurehq/tenure/memory"
)

// Candidate is a fact the extract tool found in a text, classified on both
// axes: an extract.Candidate, which the tool's output schema describes.
type Candidate extract.Candidate

// Extractor turns text into candidate facts for the extract tool; Name is
// its mode (rules or llm). ExtractorOf adapts an extract.Extractor.
type Extractor interface {
	Name() string
	Extract(ctx context.Context, text, entity string, now time.Time) ([]Candidate, error)
}

// SpeakerExtractor is an Extractor that can be told who speaks the text:
// who "I", "me" and "my" are (see extract.SpeakerExtractor). The offline
// extractor and every adapted extract.Extractor are one.
type SpeakerExtractor interface {
	Extractor
	ExtractAs(ctx context.Context, text, entity, speaker string, now time.Time) ([]Candidate, error)
}

// ExtractFor runs e on text, telling it the speaker when e is a
// SpeakerExtractor; speaker must have passed extract.ParseSpeaker ("" for
// the default: the name the speaker introduces themselves with, else the
// user entity, memory.UserEntity).
func ExtractFor(ctx context.Context, e Extractor, text, entity, speaker string, now time.Time) ([]Candidate, error) {
	if s, ok := e.(SpeakerExtractor); ok {
		return s.ExtractAs(ctx, text, entity, speaker, now)
	}
	return e.Extract(ctx, text, entity, now)
}

// OfflineExtractor is the default Extractor: extract.Rules, the offline
// rule-based classifier.
type OfflineExtractor struct{}

// Name implements Extractor.
func (OfflineExtractor) Name() string { return extract.ModeRules }

// Extract implements Extractor.
func (OfflineExtractor) Extract(ctx context.Context, text, entity string, now time.Time) ([]Candidate, error) {
	return ExtractorOf(extract.Rules{}).Extract(ctx, text, entity, now)
}

// ExtractAs implements SpeakerExtractor.
func (OfflineExtractor) ExtractAs(ctx context.Context, text, entity, speaker string, now time.Time) ([]Candidate, error) {
	return adapted{extract.Rules{}}.ExtractAs(ctx, text, entity, speaker, now)
}

// ExtractorOf adapts e for WithExtractor. The failures of an LLM endpoint
// reach the agent with their message (code llm_unavailable or
// llm_invalid_answer) rather than as a failure of Tenure.
func ExtractorOf(e extract.Extractor) Extractor { return adapted{e} }

type adapted struct{ e extract.Extractor }

func (a adapted) Name() string { return a.e.Name() }

func (a adapted) Extract(ctx context.Context, text, entity string, now time.Time) ([]Candidate, error) {
	return a.ExtractAs(ctx, text, entity, "", now)
}

func (a adapted) ExtractAs(ctx context.Context, text, entity, speaker string, now time.Time) ([]Candidate, error) {
	cands, err := extract.ExtractFor(ctx, a.e, text, entity, speaker, now)
	if err != nil {
		var le *extract.Error
		if errors.As(err, &le) {
			return nil, &memory.Error{Code: memory.Code(le.Code), Message: le.Message}
		}
		return nil, err
	}
	out := make([]Candidate, len(cands))
	for i, c := range cands {
		out[i] = Candidate(c)
	}
	return out, nil
}

// node is the working row that carries c into consolidation (see
// extract.Candidate.Node); extractor is the mode that found it.
func (c Candidate) node(extractor string) memory.NewNode {
	return extract.Candidate(c).Node(extractor)
}
