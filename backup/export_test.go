package backup

// WithoutSchemaVersion makes restores in this test binary take version for
// one that schema.txt does not hold, as after a migration was added without
// writing schema.txt again; the returned function undoes it.
func WithoutSchemaVersion(version int64) (undo func()) {
	known := knownSchema
	knownSchema = func() (map[int64]map[string]bool, error) {
		versions, err := known()
		out := map[int64]map[string]bool{}
		for v, objects := range versions {
			if v != version {
				out[v] = objects
			}
		}
		return out, err
	}
	return func() { knownSchema = known }
}
