package api

import (
	"strings"

	"github.com/tenurehq/tenure/memory"
)

// MapDataType maps a legacy single data_type onto the two axes of a fact
// (memory.MapLegacyDataType); anything else is a CodeInvalid error on field
// data_type naming the allowed values. Import reuses it.
func MapDataType(dataType string) (memory.Durability, string, error) {
	if d, c, ok := memory.MapLegacyDataType(dataType); ok {
		return d, c, nil
	}
	return "", "", memory.Invalidf("data_type", "unknown data_type %q: allowed values are %s (or send durability and category instead)",
		dataType, strings.Join(memory.LegacyDataTypes(), ", "))
}
