// Command mem0gen writes a large export of Mem0's get_all to standard
// output, to measure tenure import --from mem0 on (RELIABILITY.md):
//
//	go run ./bench/mem0gen -size 1G > mem0.json
//
// The memories are short sentences of the kinds Mem0 keeps (preferences,
// facts about the user, moods, plans, decisions), each with an id, a hash,
// metadata, categories, times and a user id, some with an agent or a run,
// about 400 bytes each. By default each user's memories come together, as
// when the answers of get_all for one user after another are joined;
// -interleave deals them out in turn instead, the hardest case for an
// import that batches rows by user.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"time"
)

// sentences are the memories' texts; %d varies them.
var sentences = []string{
	"Is a vegetarian and has been for %d years",
	"Prefers dark mode in every editor, font size %d",
	"Feeling stressed about launch %d today",
	"The nightly backup %d is still running, ETA 10 minutes",
	"Has a dentist appointment on June %d",
	"Goes running every morning, about %d kilometres",
	"Decided to use PostgreSQL instead of MySQL for service %d because of JSONB support",
	"Works on the billing team since release %d",
	"Allergic to peanuts, carries an EpiPen since age %d",
	"Lives in Lisbon, in flat %d near the river",
	"Prefers tea over coffee, %d cups a day",
	"Is learning Japanese, lesson %d of the course",
	"Wants the weekly report every Monday before %d am",
	"User is frustrated right now about ticket %d",
	"Has two cats and %d plants",
	"Plays the piano on weekends, grade %d",
}

var categories = [][]string{
	{"personal_details"}, {"preferences"}, {"food", "health"}, {"work"}, {"sports"}, nil, {"technology"}, {"travel", "personal_details"},
}

func main() {
	size := flag.String("size", "1G", "how much JSON to write: bytes, or with a K, M or G suffix")
	users := flag.Int("users", 1000, "how many users the memories belong to")
	interleave := flag.Bool("interleave", false, "deal the memories out to the users in turn rather than user by user")
	seed := flag.Uint64("seed", 1, "seed of the generator")
	flag.Parse()
	limit, err := parseSize(*size)
	if err != nil || *users < 1 {
		fmt.Fprintln(os.Stderr, "mem0gen: give -size as bytes or 10M, 1G; -users at least 1")
		os.Exit(2)
	}
	n, written, err := write(bufio.NewWriterSize(os.Stdout, 1<<20), limit, *users, *interleave, *seed)
	if err != nil {
		fmt.Fprintln(os.Stderr, "mem0gen:", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "mem0gen: %d memories of %d users, %d bytes\n", n, *users, written)
}

func parseSize(s string) (int64, error) {
	mult := int64(1)
	switch {
	case strings.HasSuffix(s, "K"):
		mult, s = 1<<10, strings.TrimSuffix(s, "K")
	case strings.HasSuffix(s, "M"):
		mult, s = 1<<20, strings.TrimSuffix(s, "M")
	case strings.HasSuffix(s, "G"):
		mult, s = 1<<30, strings.TrimSuffix(s, "G")
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n * mult, err
}

// write writes memories until about limit bytes are written, and says how
// many memories and bytes it wrote.
func write(w *bufio.Writer, limit int64, users int, interleave bool, seed uint64) (int, int64, error) {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	// Without -interleave, each user's memories are one run: the count per
	// user is the expected total spread over the users.
	perUser := max(1, int(limit/400)/users)
	start := time.Date(2025, 6, 1, 8, 0, 0, 0, time.UTC)
	var written int64
	put := func(s string) {
		n, _ := w.WriteString(s)
		written += int64(n)
	}
	put(`{"results": [`)
	i := 0
	var b strings.Builder
	for ; written < limit; i++ {
		user := i % users
		if !interleave {
			user = (i / perUser) % users
		}
		b.Reset()
		if i > 0 {
			b.WriteString(",\n")
		}
		created := start.Add(time.Duration(rng.IntN(500*24*3600)) * time.Second)
		text := fmt.Sprintf(sentences[rng.IntN(len(sentences))], 1+rng.IntN(28))
		fmt.Fprintf(&b, `{"id": "%08x-%04x-4%03x-a%03x-%012x", "memory": %q, "hash": "%016x%016x", `,
			rng.Uint32(), rng.IntN(1<<16), rng.IntN(1<<12), rng.IntN(1<<12), rng.Int64N(1<<48), text, rng.Uint64(), rng.Uint64())
		switch rng.IntN(3) {
		case 0:
			b.WriteString(`"metadata": null, `)
		case 1:
			fmt.Fprintf(&b, `"metadata": {"app": "support-chat", "session": %d}, `, rng.IntN(100000))
		default:
			fmt.Fprintf(&b, `"metadata": {"source": "ide", "channel": "email", "priority": %d}, `, rng.IntN(5))
		}
		if c := categories[rng.IntN(len(categories))]; c == nil {
			b.WriteString(`"categories": null, `)
		} else {
			fmt.Fprintf(&b, `"categories": ["%s"], `, strings.Join(c, `", "`))
		}
		fmt.Fprintf(&b, `"created_at": %q, `, created.Format("2006-01-02T15:04:05.000000-07:00"))
		if rng.IntN(4) == 0 {
			fmt.Fprintf(&b, `"updated_at": %q, `, created.Add(time.Duration(rng.IntN(30*24))*time.Hour).Format("2006-01-02T15:04:05.000000-07:00"))
		} else {
			b.WriteString(`"updated_at": null, `)
		}
		if rng.IntN(10) == 0 {
			fmt.Fprintf(&b, `"agent_id": "support-bot", "run_id": "session-%d", `, rng.IntN(10000))
		}
		fmt.Fprintf(&b, `"user_id": "user-%d@example.com"}`, user)
		put(b.String())
	}
	put("],\n\"relations\": []}\n")
	return i, written, w.Flush()
}
