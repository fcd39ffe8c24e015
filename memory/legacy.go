package memory

import "strings"

// LegacyDataTypes lists the values of the single data_type that stores
// before the two axes used (NOVA before its two-axis migration, and files
// written by it), the ones MapLegacyDataType maps.
func LegacyDataTypes() []string {
	return []string{"permanent", "identity", "preference", "observation", "temporal"}
}

// MapLegacyDataType maps a legacy data_type onto the two axes: permanent and
// identity become (permanent, identity), preference (long_term, preference),
// observation (long_term, observation) and temporal (short_term, state),
// outer spaces ignored. ok is false for any other value. Every reader of
// legacy rows (the file import, the NOVA import) maps through it.
func MapLegacyDataType(dataType string) (d Durability, category string, ok bool) {
	switch strings.TrimSpace(dataType) {
	case "permanent", "identity":
		return Permanent, CategoryIdentity, true
	case "preference":
		return LongTerm, CategoryPreference, true
	case "observation":
		return LongTerm, CategoryObservation, true
	case "temporal":
		return ShortTerm, CategoryState, true
	}
	return "", "", false
}
