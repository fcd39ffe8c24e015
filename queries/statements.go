package queries

// ArchiveDueFactsSQL is the decay statement's text, for tests that EXPLAIN it
// and for benchmarks that time it against its baseline.
func ArchiveDueFactsSQL() string { return archiveDueFacts }
