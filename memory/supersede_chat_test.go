package memory

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// chatTurn is one message of a generated conversation.
type chatTurn struct{ speaker, text string }

// chatWords are the values the conversation's templates draw from.
var chatWords = map[string][]string{
	"event": {"pottery class", "charity run", "support group meeting", "book club", "jazz concert", "farmers market",
		"art show", "camping trip", "family reunion", "car mod workshop", "coding bootcamp", "yoga retreat",
		"photography walk", "open mic night", "cooking class", "community garden day", "board game night"},
	"achievement": {"finished my first oil painting", "got accepted into the counseling program",
		"passed my driving test", "ran my first half marathon", "got a promotion at work",
		"sold three of my photos", "finished restoring the old Mustang", "planted a whole vegetable bed",
		"baked a sourdough loaf that actually rose", "learned to play a full song on the guitar"},
	"relative": {"sister", "brother", "mom", "dad", "son", "daughter", "grandma", "cousin", "aunt", "best friend"},
	"relEvent": {"graduated from college", "had a baby girl", "moved to Seattle", "started a new job",
		"broke his arm skateboarding", "got engaged", "turned ten", "adopted a rescue dog", "won a chess tournament"},
	"past": {"yesterday", "last weekend", "last Friday", "a few days ago", "last month", "on Saturday",
		"two weeks ago", "the other day"},
	"future": {"next month", "this summer", "in the spring", "next weekend", "in a couple of weeks", "in October"},
	"feeling": {"excited", "nervous", "thrilled", "happy", "tired", "stressed", "proud", "relieved", "grateful",
		"overwhelmed", "anxious", "pumped"},
	"adj": {"amazing", "so much fun", "really powerful", "exhausting", "pretty chaotic", "super relaxing",
		"a bit overwhelming", "incredible", "inspiring", "hilarious"},
	"hobby": {"painting", "pottery", "hiking", "photography", "gardening", "baking", "guitar", "knitting",
		"woodworking", "rock climbing", "journaling", "birdwatching"},
	"detail": {"I made a bowl and a little vase", "we saw a family of deer on the trail",
		"my instructor said I have a good eye", "the kids loved every minute of it",
		"I met a woman who runs a shelter for foster kids", "it reminded me why I started",
		"we stayed up way too late talking", "I finally got the hang of it", "the weather was perfect",
		"I took about two hundred pictures", "my hands were covered in clay", "we got lost twice"},
	"plan": {"take a road trip to the Grand Canyon", "repaint the kids' room", "visit my parents in Ohio",
		"go camping by the lake", "sign up for a ceramics course", "start a small garden", "host a barbecue",
		"adopt another cat"},
	"task": {"finish my thesis chapter", "send the adoption paperwork", "file my taxes", "prepare a talk for the group",
		"pack for the trip", "renew my passport"},
	"job":     {"a bakery", "a tech startup", "the animal shelter", "a design studio", "the hospital", "a bookstore"},
	"place":   {"the lake", "the city", "the beach", "my parents' place", "the mountains", "the museum downtown"},
	"city":    {"Tokyo", "Paris", "Denver", "Chicago", "Lisbon", "Austin"},
	"pet":     {"puppy", "kitten", "rescue dog", "parrot"},
	"petName": {"Max", "Luna", "Oscar", "Bella", "Pepper"},
	"react": {"That's amazing", "Wow, that sounds incredible", "Oh no, I'm so sorry", "Haha, love that",
		"That's so cool", "Congrats", "Aw, that's sweet", "No way"},
}

// chatTemplates are the turns; {other} is the listener, {x} a value of
// chatWords. Most say several things, as chat turns do; a few are short.
var chatTemplates = []string{
	"Hey {other}, been ages! I {achievement} {past}, so {feeling}.",
	"Hi {other}! I went to a {event} {past} and it was {adj}. {Detail}.",
	"{React}! How did you get into {hobby}?",
	"I've been getting into {hobby} lately, it's {adj}. {Detail}.",
	"My {relative} {relEvent} {past}, so we all went out to celebrate.",
	"I'm so {feeling} because I {achievement} {past}!",
	"Honestly I'm {feeling} about the {event} {future}, it's my first time going.",
	"We're planning to {plan} {future}, I can't wait.",
	"I have to {task} by the end of the month, wish me luck!",
	"Work has been {adj} this week, my boss keeps adding projects.",
	"I started volunteering at {job} {past} and I really like the people there.",
	"{React}, {other}! I'm really proud of you.",
	"I'm in {city} until Friday for a {event}, the food here is incredible.",
	"We adopted a {pet} named {petName}! She's so sweet and the kids adore her.",
	"I love {hobby}, it helps me unwind after a long day. {Detail}.",
	"Thanks, {other}! That means a lot to me.",
	"I usually go for a run every morning before work, it clears my head.",
	"Ugh, my car broke down again on the highway. I had to get it towed.",
	"The {event} was {adj}. {Detail}, and I already signed up for the next one.",
	"I've been feeling a bit down since my {relative} moved away, but {hobby} helps.",
	"What are you up to this weekend? I'm thinking of going to {place}.",
	"I'm so tired today, the baby kept us up all night.",
	"Did I tell you I got a job at {job}? I start {future}.",
	"Yeah, I went to {place} {past} with my {relative}. {Detail}.",
	"I can't believe it's been a year since the {event}, time flies.",
	"I need to call my {relative} later, she keeps asking about the trip.",
	"{React}! You should totally bring some to the {event}.",
	"So excited for the {event} {future}!",
	"My {relative} is a nurse and she works crazy hours at the hospital.",
	"I prefer to paint in the mornings, the light is better and the house is quiet.",
}

// chatConversation generates a conversation of sessions of turns between
// two speakers, the same for the same seed.
func chatConversation(seed uint64, sessions, turns int) [][]chatTurn {
	r := rand.New(rand.NewPCG(seed, 0x7e11))
	speakers := [2]string{"Caroline", "Melanie"}
	fill := func(tmpl, other string) string {
		var b strings.Builder
		for {
			i := strings.IndexByte(tmpl, '{')
			if i < 0 {
				b.WriteString(tmpl)
				return b.String()
			}
			j := strings.IndexByte(tmpl[i:], '}') + i
			b.WriteString(tmpl[:i])
			name := tmpl[i+1 : j]
			v := other
			if name != "other" {
				list := chatWords[strings.ToLower(name[:1])+name[1:]]
				v = list[r.IntN(len(list))]
				if name[0] >= 'A' && name[0] <= 'Z' {
					v = strings.ToUpper(v[:1]) + v[1:]
				}
			}
			b.WriteString(v)
			tmpl = tmpl[j+1:]
		}
	}
	out := make([][]chatTurn, sessions)
	for s := range out {
		for i := range turns {
			who := (s + i) % 2
			t := chatTemplates[r.IntN(len(chatTemplates))]
			out[s] = append(out[s], chatTurn{speakers[who], fill(t, speakers[1-who])})
		}
	}
	return out
}

// archivedShare reports how many facts of scope were superseded, and how
// many were archived in all but by decay and by merging into a fact that
// says the same.
func archivedShare(t *testing.T, e *env, scope string) (superseded, archived int) {
	t.Helper()
	superseded = e.count(t, `SELECT count(*) FROM entity_facts WHERE scope = $1 AND status = 'archived'
		AND archive_reason LIKE 'superseded by fact %'`, scope)
	archived = e.count(t, `SELECT count(*) FROM entity_facts WHERE scope = $1 AND status = 'archived'
		AND archive_reason <> 'decayed' AND archive_reason NOT LIKE 'merged into fact %'`, scope)
	return superseded, archived
}

// TestChatTurnsAreNotSupersededByTheNextTurn: chats of ten sessions of
// twenty turns between two speakers, each turn pushed as "Speaker: text"
// about its speaker and consolidated session by session, keep their turns:
// at most 1% of them end superseded or otherwise archived (decay, and exact
// repeats merged into one fact, aside). So does a support scope where each
// of six customers renewed a contract and then complained about the
// dashboard. Turns that say several things are filed under no superseding
// key, and generic keys (status, mood, routine) supersede nothing.
func TestChatTurnsAreNotSupersededByTheNextTurn(t *testing.T) {
	e := newEnv(t)
	for seed := range uint64(3) {
		scope := fmt.Sprintf("chat-%d", seed)
		turns := 0
		for _, session := range chatConversation(seed, 10, 20) {
			nodes := make([]NewNode, len(session))
			for i, turn := range session {
				nodes[i] = NewNode{Content: turn.speaker + ": " + turn.text,
					Properties: map[string]any{"entity": turn.speaker}}
			}
			turns += len(nodes)
			e.push(t, scope, nodes...)
			e.consolidate(t)
			e.clock.Advance(3 * 24 * time.Hour)
		}
		superseded, archived := archivedShare(t, e, scope)
		t.Logf("%s: %d turns, %d superseded, %d archived in all (decay and merges aside)", scope, turns, superseded, archived)
		if superseded*100 > turns || archived*100 > turns {
			rows, _ := e.pool.Query(context.Background(), `SELECT f.key, f.category, f.content, f.archive_reason
				FROM entity_facts f WHERE f.scope = $1 AND f.status = 'archived' AND f.archive_reason <> 'decayed'
				AND f.archive_reason NOT LIKE 'merged into fact %' ORDER BY f.id LIMIT 20`, scope)
			for rows.Next() {
				var key, category, content, reason string
				_ = rows.Scan(&key, &category, &content, &reason)
				t.Logf("archived: [%s %s] %s (%s)", key, category, content, reason)
			}
			rows.Close()
			t.Errorf("%s: %d of %d turns superseded, %d archived in all; want at most 1%%", scope, superseded, turns, archived)
		}
	}

	customers := []string{"Globex", "Initech", "Umbrella", "Hooli", "Vandelay", "Soylent"}
	for _, c := range customers {
		e.push(t, "support", NewNode{Content: c + " renewed the enterprise contract until 2027.",
			Properties: map[string]any{"entity": c}})
	}
	e.consolidate(t)
	e.clock.Advance(time.Hour)
	for _, c := range customers {
		e.push(t, "support", NewNode{Content: c + " complained the dashboard is slow today.",
			Properties: map[string]any{"entity": c}})
	}
	e.consolidate(t)
	if n := e.count(t, `SELECT count(*) FROM entity_facts WHERE scope = 'support' AND status = 'active'`); n != 2*len(customers) {
		t.Errorf("support: %d active facts, want the renewal and the complaint of each of %d customers", n, len(customers))
	}
}

// TestNewValueOfAnAttributeSupersedes: a bare statement of a new value of
// the same attribute still archives the old one, on each rule's key;
// employer and home city are observations, which accumulate unless the
// setting makes them supersede.
func TestNewValueOfAnAttributeSupersedes(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	pairs := []struct{ entity, old, new, key string }{
		{"Dana", "Dana: I work as a nurse.", "Dana: I'm a teacher now.", "occupation"},
		{"Dana", "Dana: I drink tea every morning.", "Dana: I drink coffee every morning now.", "drink"},
		{"Dana", "Dana: I prefer dark mode.", "Dana: I prefer light mode now.", "theme"},
		{"Dana", "Dana: I'm in Lisbon until Friday.", "Dana: I'm in Porto until Sunday.", "location"},
		{"billing-db", "billing-db replication lag is 4 s", "billing-db replication lag recovered", "replication_lag"},
	}
	push := func(content, entity string, key ...string) {
		props := map[string]any{"entity": entity}
		if len(key) > 0 {
			props["key"] = key[0]
		}
		e.push(t, "pa", NewNode{Content: content, Properties: props})
		e.consolidate(t)
		e.clock.Advance(time.Hour)
	}
	status := func(content string) (key string, status Status, reason string) {
		if err := e.pool.QueryRow(ctx, `SELECT key, status, coalesce(archive_reason, '') FROM entity_facts
			WHERE content = $1`, content).Scan(&key, &status, &reason); err != nil {
			t.Fatalf("%q: %v", content, err)
		}
		return key, status, reason
	}
	check := func(old, new, key string, superseded bool) {
		t.Helper()
		oldKey, oldStatus, reason := status(old)
		newKey, newStatus, _ := status(new)
		if oldKey != key || newKey != key {
			t.Errorf("keys of %q and %q = %q and %q, want %q", old, new, oldKey, newKey, key)
		}
		switch {
		case newStatus != StatusActive:
			t.Errorf("%q = %s, want active", new, newStatus)
		case superseded && (oldStatus != StatusArchived || !strings.HasPrefix(reason, "superseded by fact ")):
			t.Errorf("%q = %s (%q), want superseded by %q", old, oldStatus, reason, new)
		case !superseded && oldStatus != StatusActive:
			t.Errorf("%q = %s (%q), want active beside %q", old, oldStatus, reason, new)
		}
	}
	for _, p := range pairs {
		push(p.old, p.entity)
		push(p.new, p.entity)
		check(p.old, p.new, p.key, true)
	}

	// A single-valued attribute (employer, home city) has one value at a
	// time: a new one replaces the old although observations accumulate.
	push("Dana: I work at Acme.", "Dana")
	push("Dana: I now work at Initech.", "Dana")
	check("Dana: I work at Acme.", "Dana: I now work at Initech.", "employer", true)
	push("Dana: I live in Leeds.", "Dana")
	push("Dana: I moved to York.", "Dana")
	check("Dana: I live in Leeds.", "Dana: I moved to York.", "home_city", true)
	// Other observations still accumulate (and a pair goes to review),
	// until observations are set to supersede.
	push("Dana: I visited Lisbon.", "Dana", "visited")
	push("Dana: I visited Porto.", "Dana", "visited")
	check("Dana: I visited Lisbon.", "Dana: I visited Porto.", "visited", false)
	if _, err := e.store.SetCategorySupersedes(ctx, reviewer, CategoryObservation, true, "one value an attribute"); err != nil {
		t.Fatal(err)
	}
	push("Dana: I visited Faro.", "Dana", "visited")
	check("Dana: I visited Porto.", "Dana: I visited Faro.", "visited", true)
	push("Dana: I work at Hooli.", "Dana")
	check("Dana: I now work at Initech.", "Dana: I work at Hooli.", "employer", true)

	// A bare mood replaces the mood before it; generic keys supersede
	// nothing, whoever names them.
	push("Dana: I'm so tired today.", "Dana")
	push("Dana: Feeling great today!", "Dana")
	check("Dana: I'm so tired today.", "Dana: Feeling great today!", "mood", true)
	for _, content := range []string{"Globex is on the Pro plan until March.", "Globex says the dashboard is slow right now."} {
		e.push(t, "pa", NewNode{Content: content, Properties: map[string]any{"entity": "Globex", "key": "status", "category": "state"}})
		e.consolidate(t)
		e.clock.Advance(time.Hour)
	}
	check("Globex is on the Pro plan until March.", "Globex says the dashboard is slow right now.", "status", false)
}
