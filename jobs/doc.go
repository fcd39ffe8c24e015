// Package jobs runs Tenure's scheduled work (consolidation, decay, tombstone
// purge) with gocron, on exactly one replica at a time.
package jobs

import _ "github.com/go-co-op/gocron/v2"
