// Package reliability holds end-to-end tests of how Tenure behaves when parts
// of its deployment fail: several "tenure serve" replicas sharing a database
// whose job leader dies, and a PostgreSQL restarted under a running server.
// The tests build the real tenure binary and run it as separate processes;
// the package has no code of its own.
package reliability
