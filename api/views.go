package api

import (
	"time"

	"github.com/tenurehq/tenure/wire"
)

// The API's response objects are package wire's, shared with the MCP
// server's structured results so that one concept has one shape on both
// surfaces; the objects only REST has (entities, merges, aliases, a fact
// write's answer) are in the files of their resources. Every time is UTC.

func utc(t time.Time) time.Time { return wire.UTC(t) }

func utcPtr(t *time.Time) *time.Time { return wire.UTCPtr(t) }
