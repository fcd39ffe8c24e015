package wire

import (
	"time"

	"github.com/tenurehq/tenure/memory"
)

// Fact is a fact in long-term memory, with its effective (decayed)
// confidence at the time it was read.
type Fact struct {
	ID                  int64      `json:"id"`
	Scope               string     `json:"scope"`
	EntityID            int64      `json:"entity_id"`
	Entity              string     `json:"entity"`
	Key                 string     `json:"key"`
	Content             string     `json:"content"`
	Durability          string     `json:"durability"`
	Category            string     `json:"category"`
	Confidence          float64    `json:"confidence"`
	EffectiveConfidence float64    `json:"effective_confidence"`
	Importance          float64    `json:"importance"`
	ConfirmedAt         time.Time  `json:"confirmed_at"`
	ExpiresAt           *time.Time `json:"expires_at"`
	Deadline            *time.Time `json:"deadline"`
	ForgetAt            *time.Time `json:"forget_at"`
	Status              string     `json:"status"`
	ArchivedAt          *time.Time `json:"archived_at"`
	ArchiveReason       string     `json:"archive_reason"`
	Source              string     `json:"source"`
	SourceNodeID        *int64     `json:"source_node_id"`
	ExtractionCount     int32      `json:"extraction_count"`
	Version             int32      `json:"version"`
	CreatedAt           time.Time  `json:"created_at"`
	UpdatedAt           time.Time  `json:"updated_at"`
}

// NewFact is f as the surfaces show it.
func NewFact(f memory.Fact) Fact {
	return Fact{
		ID: f.ID, Scope: f.Scope, EntityID: f.EntityID, Entity: f.Entity, Key: f.Key, Content: f.Content,
		Durability: string(f.Durability), Category: f.Category, Confidence: f.Confidence,
		EffectiveConfidence: f.EffectiveConfidence, Importance: f.Importance,
		ConfirmedAt: UTC(f.ConfirmedAt), ExpiresAt: UTCPtr(f.ExpiresAt), Deadline: UTCPtr(f.Deadline),
		ForgetAt: UTCPtr(f.ForgetAt), Status: string(f.Status), ArchivedAt: UTCPtr(f.ArchivedAt),
		ArchiveReason: f.ArchiveReason, Source: f.Source, SourceNodeID: f.SourceNodeID,
		ExtractionCount: f.ExtractionCount, Version: f.Version, CreatedAt: UTC(f.CreatedAt),
		UpdatedAt: UTC(f.UpdatedAt),
	}
}

// FactSummary is a fact as lists show it; read the fact for its expiry,
// archive state and source row.
type FactSummary struct {
	ID                  int64      `json:"id"`
	Scope               string     `json:"scope"`
	EntityID            int64      `json:"entity_id"`
	Entity              string     `json:"entity"`
	Key                 string     `json:"key"`
	Content             string     `json:"content"`
	Durability          string     `json:"durability"`
	Category            string     `json:"category"`
	Confidence          float64    `json:"confidence"`
	EffectiveConfidence float64    `json:"effective_confidence"`
	Importance          float64    `json:"importance"`
	ConfirmedAt         time.Time  `json:"confirmed_at"`
	Deadline            *time.Time `json:"deadline"`
	ForgetAt            *time.Time `json:"forget_at"`
	Status              string     `json:"status"`
	Source              string     `json:"source"`
	ExtractionCount     int32      `json:"extraction_count"`
	Version             int32      `json:"version"`
	CreatedAt           time.Time  `json:"created_at"`
}

// NewFactSummary is f as lists show it.
func NewFactSummary(f memory.FactSummary) FactSummary {
	return FactSummary{
		ID: f.ID, Scope: f.Scope, EntityID: f.EntityID, Entity: f.Entity, Key: f.Key, Content: f.Content,
		Durability: string(f.Durability), Category: f.Category, Confidence: f.Confidence,
		EffectiveConfidence: f.EffectiveConfidence, Importance: f.Importance,
		ConfirmedAt: UTC(f.ConfirmedAt), Deadline: UTCPtr(f.Deadline), ForgetAt: UTCPtr(f.ForgetAt),
		Status: string(f.Status), Source: f.Source, ExtractionCount: f.ExtractionCount, Version: f.Version,
		CreatedAt: UTC(f.CreatedAt),
	}
}
