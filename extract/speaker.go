package extract

import (
	"context"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tenurehq/tenure/memory"
)

// SpeakerExtractor is an Extractor that can be told who speaks a text: who
// "I", "me" and "my" are. Both extractors, Rules and LLM, are one.
type SpeakerExtractor interface {
	Extractor
	// ExtractAs is Extract with the text's speaker; an empty speaker means
	// the extractor's default (for Rules: the name the speaker introduces
	// themselves with, else memory.UserEntity).
	ExtractAs(ctx context.Context, text, entity, speaker string, now time.Time) ([]Candidate, error)
}

// ExtractFor extracts candidates from text with e, telling it the speaker
// when e is a SpeakerExtractor.
func ExtractFor(ctx context.Context, e Extractor, text, entity, speaker string, now time.Time) ([]Candidate, error) {
	if s, ok := e.(SpeakerExtractor); ok {
		return s.ExtractAs(ctx, text, entity, speaker, now)
	}
	return e.Extract(ctx, text, entity, now)
}

// ParseSpeaker validates the speaker of an extraction as an entity name: no
// bytes or characters memory.CheckText refuses, at most MaxEntity
// characters once trimmed. An empty speaker is valid: the default. Errors
// are CodeInvalid on field speaker.
func ParseSpeaker(s string) (string, error) {
	if err := memory.CheckText("speaker", s); err != nil {
		return "", err
	}
	s = strings.TrimSpace(s)
	if n := utf8.RuneCountInString(s); n > MaxEntity {
		return "", memory.Invalidf("speaker", "the speaker's name is %d characters long: at most %d are allowed", n, MaxEntity)
	}
	return s, nil
}
