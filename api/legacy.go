package api

import (
	"strings"

	"github.com/tenurehq/tenure/memory"
)

// DataTypes lists the legacy data_type values MapDataType accepts.
func DataTypes() []string {
	return []string{"permanent", "identity", "preference", "observation", "temporal"}
}

// MapDataType maps a legacy single data_type onto the two axes of a fact
// onto the two axes: permanent and identity become (permanent, identity),
// preference (long_term, preference), observation (long_term, observation)
// and temporal (short_term, state). Anything else is a CodeInvalid error on
// field data_type naming the allowed values. Import reuses it.
func MapDataType(dataType string) (memory.Durability, string, error) {
	switch strings.TrimSpace(dataType) {
	case "permanent", "identity":
		return memory.Permanent, memory.CategoryIdentity, nil
	case "preference":
		return memory.LongTerm, memory.CategoryPreference, nil
	case "observation":
		return memory.LongTerm, memory.CategoryObservation, nil
	case "temporal":
		return memory.ShortTerm, memory.CategoryState, nil
	}
	return "", "", memory.Invalidf("data_type", "unknown data_type %q: allowed values are %s (or send durability and category instead)",
		dataType, strings.Join(DataTypes(), ", "))
}
