package classify

import (
	"regexp"
	"strings"
)

var (
	// eventVerbRe: how a job, a deploy or a ticket ended or changed, as a
	// log line or a bot's message puts it.
	eventVerbRe = regexp.MustCompile(`\b(?:finished|completed|succeeded|failed|started|resumed|stopped|created|merged|drained|deployed|redeployed|rolled back|reverted|aborted|timed out|passed|assigned to|changed to|updated|closed|reopened|restarted|rebooted|crashed|cancell?ed|queued|triggered|failed over)\b`)
	// leadOpsRe: an operation told without a subject ("Rolled back.").
	leadOpsRe = regexp.MustCompile(`^(?:rolled back|reverted|restarted|redeployed|rebooted|failed over)\b`)
	// testLineRe: a test runner's verdict line ("FAIL example.com/pkg 1.02s").
	testLineRe = regexp.MustCompile(`(?:^|\s)(?:--- )?(?:fail|ok|pass)\b:? [\w.@-]*[/.][\w./@-]* \(?\d[\d.]*s\)?`)
	// checkItemRe: one component's status in a health check ("api OK").
	checkItemRe = regexp.MustCompile(`\b[a-z0-9_.-]+ (?:ok|degraded|down|up|healthy|unhealthy|failing|passing|green|red)(?:[,;.]|$)`)
	// pastTimeRe: a time that makes an event a record rather than the
	// latest status.
	pastTimeRe = regexp.MustCompile(`\b(?:yesterday|ago|last (?:week|month|year|night|time|quarter|sprint|monday|tuesday|wednesday|thursday|friday|saturday|sunday|weekend)|in (?:19|20)\d\d)\b`)
)

// isEventWord reports whether w is a trigger of the event line patterns.
func isEventWord(w string) bool {
	switch w {
	case "finished", "completed", "succeeded", "failed", "started", "resumed", "stopped", "created", "merged",
		"drained", "deployed", "redeployed", "rolled", "reverted", "aborted", "timed", "passed", "assigned",
		"changed", "updated", "closed", "reopened", "restarted", "rebooted", "crashed", "cancelled", "canceled",
		"queued", "triggered", "fail", "ok", "pass":
		return true
	}
	return false
}

// isJobNoun reports whether w names a job, a run or a tracked item, what
// a status line reports on.
func isJobNoun(w string) bool {
	switch w {
	case "job", "jobs", "deploy", "deployment", "build", "run", "backup", "restore", "migration", "sync", "import",
		"export", "reindex", "pipeline", "dag", "task", "workflow", "ticket", "release", "rollout", "rollback",
		"upload", "download", "cron", "batch", "queue", "backlog", "writes", "reads", "replication", "failover",
		"page", "alert", "pr", "incident", "snapshot", "compaction", "vacuum", "integration", "worker", "consumer",
		"replica", "pod", "node", "cluster", "service", "adr", "issue", "status", "check", "suite", "tests":
		return true
	}
	return false
}

// isPersonWord reports whether w, before a verb, makes a person its subject.
func isPersonWord(w string) bool {
	switch w {
	case "i", "i've", "we", "we've", "you", "you've", "he", "she", "they", "they've", "my", "our", "your", "his",
		"her", "their", "me", "us":
		return true
	}
	return false
}

// isIdentifier reports whether w reads as an id or a machine name: it holds
// a digit ("412", "ops-881", "2026-03-01") or joins parts with '-' or '_'
// ("backup-db-nightly", "ingest_orders").
func isIdentifier(w string) bool {
	if strings.ContainsAny(w, "0123456789") {
		return true
	}
	i := strings.IndexAny(w, "-_")
	return i > 0 && i < len(w)-1
}

// event classifies a templated status line, a bare statement of how a
// job, a deploy, a backup or a ticket ended or changed ("Reindex job 412
// finished in 3m10s", "Deploy 5521 of checkout to production succeeded",
// "Ticket OPS-881 created", "queue drained", "Rolled back"), a test
// runner's verdict or a health check's list: the latest status of the
// thing, an ephemeral state, though it is told in the past. The subject
// must be a thing, named by a job noun or an id, not a person ("I finished
// the report" is a record), and no past time may date it ("the backup
// failed yesterday" is a record too).
func (t *text) event() (Classification, bool) {
	if !t.has(fEvent) {
		return Classification{}, false
	}
	s := t.norm
	ev := func(label string, a, b int) (Classification, bool) {
		return Classification{Durability: Ephemeral, Category: CategoryState, Key: "status",
			Reason: label + " " + t.quote(a, b)}, true
	}
	if pastTimeRe.MatchString(s) {
		return Classification{}, false
	}
	// A test runner's verdict on one line, after the command that ran it
	// ("go test ./... FAIL example.com/pkg 1.02s"): the command's "./..."
	// reads as a sentence end to bare.
	if m := testLineRe.FindStringIndex(s); m != nil && !strings.Contains(strings.TrimSpace(t.orig), "\n") &&
		countWords(s) <= 2*bareWords {
		a := m[0]
		for a < m[1] && s[a] == ' ' {
			a++
		}
		return ev("test result", a, m[1])
	}
	if !t.bare() {
		return Classification{}, false
	}
	if m := leadOpsRe.FindStringIndex(s); m != nil {
		return ev("operation", m[0], m[1])
	}
	if ms := checkItemRe.FindAllStringIndex(s, 3); len(ms) >= 2 {
		return ev("health check", ms[0][0], ms[len(ms)-1][1])
	}
	for from, tries := 0, 0; from < len(s) && tries < maxTries; tries++ {
		loc := eventVerbRe.FindStringIndex(s[from:])
		if loc == nil {
			break
		}
		a, b := from+loc[0], from+loc[1]
		from = b
		var before [8]string
		n := wordsBefore(s, a, before[:])
		thing, person := false, false
		for _, w := range before[:n] {
			person = person || isPersonWord(w)
			thing = thing || isJobNoun(w) || isIdentifier(w)
		}
		if thing && !person {
			return ev("status line", a, b)
		}
	}
	return Classification{}, false
}
