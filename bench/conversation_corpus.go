package bench

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// The conversation corpus: long chats of several sessions between two or
// more people, generated from a seed, with questions about what was said.
//
// A conversation belongs to a domain (friends catching up over months, a
// customer and support over weeks, a developer and a coding agent, an
// incident channel of several engineers, a personal agent and its user).
// Its sessions are dated; each is a run of turns: greetings, small talk,
// acknowledgements and news that asks nothing, and the turns that state the
// facts questions are later asked about, each a sentence of a frame (a
// purchase, a trip, a config change, an alert) with a value drawn for it,
// often with a lead-in, a follow-up sentence and a reaction around it.
//
// Questions name the turns that answer them, in four kinds:
//   - single-hop: one turn answers, and the question shares a content word
//     with it besides the speaker's name ("What did Caroline buy for the
//     kitchen?" / "I finally bought an air fryer for the kitchen").
//   - multi-hop: two turns of one speaker answer together; the question
//     names the speaker by the first ("What did the friend who adopted a
//     beagle buy for the kitchen?").
//   - temporal: when something happened; the turn says "yesterday" or "on
//     Saturday" and its session's date makes the answer.
//   - paraphrase: one turn answers, and the question shares no content word
//     with it but the speaker's name ("Which appliance did Caroline
//     purchase?"): checked with this package's stemmer, a word counting as
//     shared also when the first five letters agree.

// Question kinds.
const (
	SingleHop  = "single-hop"
	MultiHop   = "multi-hop"
	Temporal   = "temporal"
	Paraphrase = "paraphrase"
)

// QuestionKinds lists the kinds in report order.
var QuestionKinds = []string{SingleHop, MultiHop, Temporal, Paraphrase}

// Corpus is the generated conversations.
type Corpus struct {
	Seed          int64          `json:"seed"`
	Conversations []Conversation `json:"conversations"`
}

// Conversation is one long chat and the questions about it.
type Conversation struct {
	Scope     string     `json:"scope"`
	Domain    string     `json:"domain"`
	Speakers  []string   `json:"speakers"`
	Sessions  []Session  `json:"sessions"`
	Turns     []Turn     `json:"turns"`
	Questions []Question `json:"questions"`
}

// Session is a dated run of turns: Turns[First:First+Count].
type Session struct {
	Date  string `json:"date"` // YYYY-MM-DD
	First int    `json:"first_turn"`
	Count int    `json:"turns"`
}

// Turn is one message.
type Turn struct {
	Session int    `json:"session"`
	Date    string `json:"date"`
	Speaker string `json:"speaker"`
	Text    string `json:"text"`
}

// Content is the turn as an agent integration stores it.
func (t Turn) Content() string { return t.Speaker + ": " + t.Text }

// Question asks about a conversation; Turns are the indexes of the turns
// that answer it.
type Question struct {
	Kind   string `json:"kind"`
	Text   string `json:"text"`
	Turns  []int  `json:"turns"`
	Answer string `json:"answer"`
}

// CorpusOptions size the corpus.
type CorpusOptions struct {
	Conversations int   // default 10
	Seed          int64 // default 1
	// Questions is about how many questions each conversation gets; default
	// 150.
	Questions int
}

// GenerateCorpus generates the corpus: the same options give the same
// corpus, byte for byte.
func GenerateCorpus(o CorpusOptions) Corpus {
	if o.Conversations <= 0 {
		o.Conversations = 10
	}
	if o.Seed == 0 {
		o.Seed = 1
	}
	if o.Questions <= 0 {
		o.Questions = 150
	}
	c := Corpus{Seed: o.Seed}
	for i := range o.Conversations {
		d := domains[i%len(domains)]
		r := rand.New(rand.NewPCG(uint64(o.Seed), uint64(i)+0xc0417))
		g := newConvGen(r, d, i, i/len(domains))
		c.Conversations = append(c.Conversations, g.generate(o.Questions))
	}
	return c
}

// person is a speaker.
type person struct {
	name, role string
	their      string // his, her, their
}

// fact is one stated fact of a conversation.
type fact struct {
	frame   *factFrame
	class   *factClass
	speaker int
	about   int // the speaker the fact is about (the speaker, or the user an agent speaks to)
	value   string
	session int
	turn    int
	when    timePhrase
	text    string // the fact's sentence as said
}

type convGen struct {
	r        *rand.Rand
	d        *domain
	scope    string
	people   []person
	dates    []time.Time
	facts    []*fact
	turns    []Turn
	sessions []Session
	used     map[string]bool // names, so that no third party shares a speaker's name
	valueOf  map[string][]string
}

func newConvGen(r *rand.Rand, d *domain, index, round int) *convGen {
	g := &convGen{r: r, d: d, used: map[string]bool{}, valueOf: map[string][]string{}}
	g.scope = fmt.Sprintf("conv-%02d-%s", index, d.name)
	roles := d.roles
	if round%2 == 1 && len(d.moreRoles) > 0 {
		roles = d.moreRoles
	}
	for _, role := range roles {
		var p person
		if fixed, ok := agentNames[role]; ok {
			p = person{name: fixed[r.IntN(len(fixed))], role: role, their: "their"}
		} else {
			p = g.newPerson(role)
		}
		g.used[p.name] = true
		g.people = append(g.people, p)
	}
	return g
}

func (g *convGen) newPerson(role string) person {
	for {
		n := peopleNames[g.r.IntN(len(peopleNames))]
		name, gender, _ := strings.Cut(n, ":")
		if g.used[name] {
			continue
		}
		their := map[string]string{"f": "her", "m": "his", "n": "their"}[gender]
		return person{name: name, role: role, their: their}
	}
}

// thirdParty is a name no speaker has.
func (g *convGen) thirdParty() string {
	for {
		n, _, _ := strings.Cut(peopleNames[g.r.IntN(len(peopleNames))], ":")
		if !g.used[n] {
			return n
		}
	}
}

func (g *convGen) pick(list []string) string { return list[g.r.IntN(len(list))] }

func (g *convGen) generate(questions int) Conversation {
	nSessions := 15 + g.r.IntN(16)
	start := time.Date(2024, 1, 8, 0, 0, 0, 0, time.UTC).AddDate(0, 0, g.r.IntN(200))
	day := start
	lengths := make([]int, nSessions)
	capacity := 0
	for s := range nSessions {
		if s > 0 {
			day = day.AddDate(0, 0, g.d.gapMin+g.r.IntN(g.d.gapMax-g.d.gapMin+1))
		}
		g.dates = append(g.dates, day)
		lengths[s] = 10 + g.r.IntN(31)
		capacity += (lengths[s] - 4) / 3
	}
	g.planFacts(min(capacity, 110))
	for s := range nSessions {
		g.session(s, lengths[s])
	}
	conv := Conversation{Scope: g.scope, Domain: g.d.name, Sessions: g.sessions, Turns: g.turns}
	for _, p := range g.people {
		conv.Speakers = append(conv.Speakers, p.name)
	}
	conv.Questions = g.questions(questions)
	return conv
}

// planFacts chooses up to n facts: frames and classes the speakers may
// state, each speaker stating each (frame, class) at most once (a frame
// that is not class-keyed once, of one class), and no two facts of a
// (frame, class) sharing a value, so that every question has one answer.
// Personal news in a domain that is not about it (side frames) makes at
// most a quarter of the facts.
func (g *convGen) planFacts(n int) {
	type slot struct {
		frame *factFrame
		class *factClass
		who   int
	}
	slotsOf := func(frames []*factFrame, may func(f *factFrame, p person) bool) []slot {
		var slots []slot
		for i, p := range g.people {
			for _, f := range frames {
				if !may(f, p) {
					continue
				}
				if f.classKeyed {
					for c := range f.classes {
						slots = append(slots, slot{f, &f.classes[c], i})
					}
				} else {
					slots = append(slots, slot{f, &f.classes[g.r.IntN(len(f.classes))], i})
				}
			}
		}
		g.r.Shuffle(len(slots), func(i, j int) { slots[i], slots[j] = slots[j], slots[i] })
		return slots
	}
	slots := slotsOf(g.d.frames, func(f *factFrame, p person) bool { return slices.Contains(f.roles, p.role) })
	side := slotsOf(g.d.side, func(_ *factFrame, p person) bool { return p.role == g.d.sideRole })
	// A fact some question asks without naming anyone ("Which region is
	// checkout-api degraded in?") is stated by one speaker only.
	seen := map[*factClass]bool{}
	slots = slices.DeleteFunc(slots, func(s slot) bool {
		if !s.frame.world() {
			return false
		}
		dup := seen[s.class]
		seen[s.class] = true
		return dup
	})
	slots = slots[:min(len(slots), n-min(len(side), n/4))]
	slots = append(slots, side[:min(len(side), n-len(slots))]...)
	for _, s := range slots {
		f := &fact{frame: s.frame, class: s.class, speaker: s.who, about: s.who}
		if s.frame.aboutOther {
			f.about = g.otherThan(s.who)
		}
		if f.value = g.value(s.frame, s.class); f.value != "" {
			g.facts = append(g.facts, f)
		}
	}
	g.r.Shuffle(len(g.facts), func(i, j int) { g.facts[i], g.facts[j] = g.facts[j], g.facts[i] })
}

// world reports whether a question of the frame may name no one.
func (f *factFrame) world() bool {
	lists := [][]string{f.ask, f.when, f.para}
	for _, c := range f.classes {
		if c.over != nil {
			lists = append(lists, c.over.ask, c.over.when, c.over.para)
		}
	}
	for _, list := range lists {
		for _, t := range list {
			if !strings.Contains(t, "{who") {
				return true
			}
		}
	}
	return false
}

// otherThan is a speaker other than i, for a fact about them: the first of
// the domain's roles (the customer, the developer, the user).
func (g *convGen) otherThan(i int) int {
	for j := range g.people {
		if j != i && !g.people[j].isAgent() {
			return j
		}
	}
	return (i + 1) % len(g.people)
}

func (p person) isAgent() bool { _, ok := agentNames[p.role]; return ok }

// value draws a value of class for frame that no fact of the conversation
// holds yet, and that is no speaker's name.
func (g *convGen) value(f *factFrame, c *factClass) string {
	key := f.id + "/" + c.name
	left, ok := g.valueOf[key]
	if !ok {
		left = slices.DeleteFunc(slices.Clone(c.values), func(v string) bool { return g.used[v] })
		g.r.Shuffle(len(left), func(i, j int) { left[i], left[j] = left[j], left[i] })
	}
	if len(left) == 0 {
		return ""
	}
	v := left[0]
	g.valueOf[key] = left[1:]
	return v
}

// talkOf is what speaker who says besides the facts.
func (g *convGen) talkOf(who int) *talk {
	if t, ok := g.d.talk[g.people[who].role]; ok {
		return t
	}
	return g.d.talk[""]
}

// respondent is who answers speaker who: another speaker, of another role
// when there is one.
func (g *convGen) respondent(who int) int {
	var others, otherRole []int
	for i, p := range g.people {
		if i == who {
			continue
		}
		others = append(others, i)
		if p.role != g.people[who].role {
			otherRole = append(otherRole, i)
		}
	}
	if len(otherRole) > 0 {
		return otherRole[g.r.IntN(len(otherRole))]
	}
	return others[g.r.IntN(len(others))]
}

// session writes session s of n turns with its share of the facts not yet
// told: an even share, give or take one, within the session's room.
func (g *convGen) session(s, n int) {
	var todo []*fact
	for _, f := range g.facts {
		if !f.placed() {
			todo = append(todo, f)
		}
	}
	left := len(g.dates) - s
	share := (len(todo) + left - 1) / left
	if left > 1 && share > 0 {
		share += g.r.IntN(3) - 1
	}
	mine := todo[:max(0, min(share, (n-4)/3, len(todo)))]
	first := len(g.turns)
	date := g.dates[s]
	g.sessions = append(g.sessions, Session{Date: date.Format(time.DateOnly), First: first})
	last := -1
	say := func(who int, text string) {
		g.turns = append(g.turns, Turn{Session: s, Date: date.Format(time.DateOnly), Speaker: g.people[who].name,
			Text: finish(text)})
		last = who
	}
	line := func(who int, list []string) {
		say(who, g.fill(g.pick(list), g.vars(who)))
	}
	next := func() int {
		if last < 0 || (len(g.people) > 2 && g.r.IntN(3) == 0) {
			return g.r.IntN(len(g.people))
		}
		return g.respondent(last)
	}
	// Greetings, the body, the closings.
	w := next()
	line(w, g.talkOf(w).greetings)
	if n > 12 || g.r.IntN(2) == 0 {
		w = g.respondent(w)
		line(w, g.talkOf(w).greetReplies)
	}
	closing := 1 + g.r.IntN(2)
	written := func() int { return len(g.turns) - first }
	for told := 0; written() < n-closing; {
		room := n - closing - written()
		if told < len(mine) && (room <= 3*(len(mine)-told) || g.r.IntN(3) == 0) {
			g.factBlock(mine[told], s, date, room-3*(len(mine)-told-1), say, line)
			told++
			continue
		}
		g.smallTalk(next(), room-3*(len(mine)-told), say, line)
	}
	for range closing {
		w = next()
		line(w, g.talkOf(w).closings)
	}
	g.sessions[s].Count = written()
}

// vars are the placeholders of what speaker who says: {me} and {other}.
func (g *convGen) vars(who int) map[string]string {
	return map[string]string{"me": g.people[who].name, "other": g.people[g.respondent(who)].name}
}

func (f *fact) placed() bool { return f.text != "" }

// factBlock writes a fact's turn, with a prompt before it and a reaction
// after it when room allows.
func (g *convGen) factBlock(f *fact, s int, date time.Time, room int, say func(int, string), line func(int, []string)) {
	other := g.respondent(f.speaker)
	if room >= 3 && g.r.IntN(3) > 0 {
		prompts := g.talkOf(other).prompts
		if len(f.frame.prompts) > 0 && g.r.IntN(3) == 0 {
			prompts = f.frame.prompts
		}
		line(other, prompts)
		room--
	}
	f.session, f.turn = s, len(g.turns)
	tmpl := g.pick(g.templates(f, func(fr *factFrame) []string { return fr.say }))
	// A sentence without a time phrase tells of the session's day.
	f.when = timePhrase{}
	if strings.Contains(tmpl, "{t}") {
		f.when = g.timePhrase(f.frame.future, date)
	}
	vars := g.vars(f.speaker)
	vars["t"] = f.when.text
	g.factVars(f, vars, "")
	f.text = g.fill(tmpl, vars)
	text := f.text
	t := g.talkOf(f.speaker)
	if g.r.IntN(5) < 3 {
		lead := g.fill(g.pick(t.leads), vars)
		text = lead + " " + continueAfter(lead, text)
	}
	if g.r.IntN(2) == 0 {
		more := t.followUps
		if len(f.frame.more) > 0 && g.r.IntN(2) == 0 {
			more = f.frame.more
		}
		text += " " + g.fill(g.pick(more), vars)
	}
	say(f.speaker, text)
	room--
	if room >= 1 && g.r.IntN(4) > 0 {
		line(other, g.talkOf(other).reactions)
	}
}

// templates is a fact's templates of one kind: its class's when it has
// them, its frame's otherwise.
func (g *convGen) templates(f *fact, of func(*factFrame) []string) []string {
	if c := f.class; c.over != nil {
		if t := of(c.over); len(t) > 0 {
			return t
		}
	}
	return of(f.frame)
}

// factVars sets the fact's placeholders: {v} the value, {a} with an
// article, {the} with "the", {hs} and {hq} the class's hints in statements
// and questions, {p} its paraphrase, {their} the possessive of who the
// question is about (theirs is used for a reference, "the friend who ...").
func (g *convGen) factVars(f *fact, vars map[string]string, their string) {
	c := f.class
	vars["v"] = f.value
	vars["a"], vars["the"] = f.value, f.value
	if !c.proper {
		vars["a"], vars["the"] = article(f.value)+" "+f.value, "the "+f.value
	}
	vars["hs"], vars["hq"], vars["p"] = c.hs, c.hq, c.p
	if their == "" {
		their = g.people[f.about].their
	}
	vars["their"] = their
	if _, ok := vars["x"]; !ok {
		vars["x"] = g.thirdParty()
	}
}

// continueAfter lowercases the first word of text when lead leaves the
// sentence open ("So," "Not much honestly, but") and the word is no name.
func continueAfter(lead, text string) string {
	if strings.HasSuffix(lead, ".") || strings.HasSuffix(lead, "!") || strings.HasSuffix(lead, "?") || strings.HasSuffix(lead, ":") {
		return text
	}
	word, _, _ := strings.Cut(text, " ")
	word = strings.TrimRight(word, ",:;!?.")
	if sentenceStarts[word] {
		r, n := utf8.DecodeRuneInString(text)
		return string(unicode.ToLower(r)) + text[n:]
	}
	return text
}

// sentenceStarts are the words the fact templates begin with that are no
// names: after an open lead they take a small letter.
var sentenceStarts = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`A After All Ask As Bad Benchmarked Big Block Booked Can Current Decision Done
Earlier Ended Everything Finally First Flag Flight For Found Got Heads Here's Honestly If Important In Just Last
Let's Looking My New Next Nothing On Only Opened Our Paging Picked Please Pretty Reminder Remind Rolled Root So
Support Sure Table The There This Three Today Tomorrow Tracked Two We We're When Yesterday Your Add Finally`) {
		sentenceStarts[w] = true
	}
}

// smallTalk writes one to three turns that state none of the facts,
// begun by speaker who, within room turns.
func (g *convGen) smallTalk(who, room int, say func(int, string), line func(int, []string)) {
	t := g.talkOf(who)
	switch k := g.r.IntN(10); {
	case k < 4 && room >= 2:
		// Both halves of an exchange name the same third party.
		qa := t.exchanges[g.r.IntN(len(t.exchanges))]
		w := g.respondent(who)
		x := g.thirdParty()
		ask, answer := g.vars(who), g.vars(w)
		ask["x"], answer["x"] = x, x
		say(who, g.fill(qa[0], ask))
		say(w, g.fill(qa[1], answer))
		if room >= 3 && g.r.IntN(3) == 0 {
			line(who, t.acks)
		}
	case k < 8:
		if f, echoes := g.echo(who); f != nil {
			vars := g.vars(who)
			g.factVars(f, vars, "")
			say(who, g.fill(g.pick(echoes), vars))
		} else {
			line(who, t.news)
		}
		if room >= 2 && g.r.IntN(2) == 0 {
			w := g.respondent(who)
			line(w, g.talkOf(w).reactions)
		}
	default:
		line(who, t.acks)
	}
}

// echo is, three times in five, a fact of speaker who and the sentences
// on its topic that do not tell it.
func (g *convGen) echo(who int) (*fact, []string) {
	if g.r.IntN(5) >= 3 {
		return nil, nil
	}
	var mine []*fact
	for _, f := range g.facts {
		if f.speaker == who {
			mine = append(mine, f)
		}
	}
	if len(mine) == 0 {
		return nil, nil
	}
	f := mine[g.r.IntN(len(mine))]
	echoes := g.templates(f, func(fr *factFrame) []string { return fr.echo })
	if len(echoes) == 0 {
		return nil, nil
	}
	return f, echoes
}

// fill replaces {name} placeholders: those of vars, then the shared word
// lists (vocabulary), each drawn anew where it occurs.
func (g *convGen) fill(t string, vars map[string]string) string {
	var b strings.Builder
	for pass := 0; pass < 3 && strings.Contains(t, "{"); pass++ {
		b.Reset()
		for {
			i := strings.IndexByte(t, '{')
			if i < 0 {
				b.WriteString(t)
				break
			}
			j := strings.IndexByte(t[i:], '}')
			if j < 0 {
				b.WriteString(t)
				break
			}
			b.WriteString(t[:i])
			key := t[i+1 : i+j]
			switch v, ok := vars[key]; {
			case ok:
				b.WriteString(v)
			case key == "x":
				b.WriteString(g.thirdParty())
			case vocabulary[key] != nil:
				b.WriteString(g.pick(vocabulary[key]))
			default:
				panic(fmt.Sprintf("bench: conversation template %q has no value for {%s}", t, key))
			}
			t = t[i+j+1:]
		}
		t = b.String()
	}
	return t
}

// finish capitalizes the first letter of each sentence and tidies spaces.
func finish(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	rs := []rune(s)
	up := true
	for i, r := range rs {
		if up && unicode.IsLetter(r) {
			rs[i] = unicode.ToUpper(r)
			up = false
		} else if up && !unicode.IsSpace(r) && r != '"' && r != '(' {
			up = false
		}
		if (r == '.' || r == '!' || r == '?') && i+1 < len(rs) && rs[i+1] == ' ' {
			up = true
		}
	}
	return string(rs)
}

// article is "a" or "an" for a noun phrase.
func article(s string) string {
	l := strings.ToLower(s)
	for _, p := range []string{"uni", "use", "usu", "eu", "one", "ukul", "uto"} {
		if strings.HasPrefix(l, p) {
			return "a"
		}
	}
	for _, p := range []string{"hour", "honest", "heir"} {
		if strings.HasPrefix(l, p) {
			return "an"
		}
	}
	if r, _ := utf8.DecodeRuneInString(l); strings.ContainsRune("aeiou", r) {
		return "an"
	}
	return "a"
}

// timePhrase is how a turn says when something happened or will.
type timePhrase struct {
	text  string
	days  int          // offset from the session's day
	wday  time.Weekday // for "on Saturday": the last (or next) such day
	byDay bool         // the offset is to a weekday
	week  bool         // a weekend: the answer names its Saturday
}

func (p timePhrase) day(session time.Time) time.Time {
	if !p.byDay {
		return session.AddDate(0, 0, p.days)
	}
	d := session
	step := 1
	if p.days < 0 {
		step = -1
	}
	for {
		d = d.AddDate(0, 0, step)
		if d.Weekday() == p.wday {
			return d
		}
	}
}

// answer is the temporal answer: the day, or the weekend it starts.
func (p timePhrase) answer(session time.Time) string {
	d := p.day(session)
	if p.week {
		return "the weekend of " + d.Format(time.DateOnly)
	}
	return d.Format(time.DateOnly)
}

var pastPhrases = []timePhrase{
	{text: "yesterday", days: -1}, {text: "last night", days: -1}, {text: "this morning"}, {text: "today"},
	{text: "earlier today"}, {text: "two days ago", days: -2}, {text: "three days ago", days: -3},
	{text: "on Saturday", days: -1, wday: time.Saturday, byDay: true},
	{text: "on Sunday", days: -1, wday: time.Sunday, byDay: true},
	{text: "on Friday", days: -1, wday: time.Friday, byDay: true},
	{text: "last Tuesday", days: -1, wday: time.Tuesday, byDay: true},
	{text: "last weekend", days: -1, wday: time.Saturday, byDay: true, week: true},
	{text: "the day before yesterday", days: -2},
}

var futurePhrases = []timePhrase{
	{text: "tomorrow", days: 1}, {text: "the day after tomorrow", days: 2},
	{text: "next Friday", days: 1, wday: time.Friday, byDay: true},
	{text: "on Thursday", days: 1, wday: time.Thursday, byDay: true},
	{text: "this coming Monday", days: 1, wday: time.Monday, byDay: true},
	{text: "this weekend", days: 1, wday: time.Saturday, byDay: true, week: true},
	{text: "in a week", days: 7}, {text: "in two weeks", days: 14}, {text: "in ten days", days: 10},
}

func (g *convGen) timePhrase(future bool, session time.Time) timePhrase {
	list := pastPhrases
	if future {
		list = futurePhrases
	}
	for {
		p := list[g.r.IntN(len(list))]
		// "on Saturday" said on a Saturday would name that very day.
		if p.byDay && session.Weekday() == p.wday {
			continue
		}
		return p
	}
}

// contentWords are the words of text that say what it is about: its
// tokens without stopwords, minus the words of skip (a speaker's name).
func contentWords(text string, skip ...string) []string {
	drop := map[string]bool{}
	for _, s := range skip {
		for _, t := range Tokens(s) {
			drop[t] = true
		}
	}
	var out []string
	for _, t := range Tokens(text) {
		if !IsStopword(t) && !drop[t] {
			out = append(out, t)
		}
	}
	return out
}

// sameWord reports whether two lowercased words count as one: the same
// stem, or, both of five letters or more, the same first five.
func sameWord(a, b string) bool {
	if Stem(a) == Stem(b) {
		return true
	}
	ra, rb := []rune(a), []rune(b)
	return len(ra) >= 5 && len(rb) >= 5 && string(ra[:5]) == string(rb[:5])
}

// sharedWords are the content words of question (the speaker's name aside)
// that the turn's content also holds.
func sharedWords(question, turn, speaker string) []string {
	var out []string
	tw := contentWords(turn, speaker)
	for _, q := range contentWords(question, speaker) {
		for _, t := range tw {
			if sameWord(q, t) {
				out = append(out, q)
				break
			}
		}
	}
	return out
}

// questions draws the conversation's questions, about n of them: two in
// five single-hop, the rest multi-hop, temporal and paraphrase in equal
// parts, as far as the facts allow.
func (g *convGen) questions(n int) []Question {
	var single, temporal, para, multi []Question
	facts := slices.Clone(g.facts)
	var placed []*fact
	for _, f := range facts {
		if f.placed() {
			placed = append(placed, f)
		}
	}
	facts = placed
	content := func(f *fact) string { return g.turns[f.turn].Content() }
	name := func(f *fact) string { return g.people[f.about].name }
	ask := func(f *fact, list []string, who, their string, want func(q string) bool) (string, bool) {
		order := g.r.Perm(len(list))
		for _, i := range order {
			t := list[i]
			if strings.Contains(t, "{whose}") && who != name(f) {
				continue
			}
			vars := map[string]string{"who": who, "whose": who + "'s"}
			g.factVars(f, vars, their)
			q := finish(g.fill(t, vars))
			if want(q) {
				return q, true
			}
		}
		return "", false
	}
	for _, f := range facts {
		who, their := name(f), g.people[f.about].their
		sharing := func(q string) bool { return len(sharedWords(q, content(f), who)) > 0 }
		if q, ok := ask(f, g.templates(f, func(fr *factFrame) []string { return fr.ask }), who, their, sharing); ok {
			single = append(single, Question{Kind: SingleHop, Text: q, Turns: []int{f.turn}, Answer: f.value})
		}
		if q, ok := ask(f, g.templates(f, func(fr *factFrame) []string { return fr.when }), who, their, sharing); ok {
			temporal = append(temporal, Question{Kind: Temporal, Text: q, Turns: []int{f.turn},
				Answer: f.when.answer(g.dates[f.session])})
		}
		disjoint := func(q string) bool { return len(sharedWords(q, content(f), who)) == 0 }
		if q, ok := ask(f, g.templates(f, func(fr *factFrame) []string { return fr.para }), who, their, disjoint); ok {
			para = append(para, Question{Kind: Paraphrase, Text: q, Turns: []int{f.turn}, Answer: f.value})
		}
	}
	// Multi-hop: a fact names its speaker by a clause, another is asked of
	// them ("the friend who adopted a beagle").
	for _, a := range facts {
		clauses := g.templates(a, func(fr *factFrame) []string { return fr.clause })
		if len(clauses) == 0 {
			continue
		}
		named := func(b *fact) []string { // b's questions that name who they ask about
			var out []string
			for _, t := range g.templates(b, func(fr *factFrame) []string { return fr.ask }) {
				if strings.Contains(t, "{who}") {
					out = append(out, t)
				}
			}
			return out
		}
		var partners []*fact
		for _, b := range facts {
			if b != a && b.about == a.about && b.frame != a.frame && len(named(b)) > 0 {
				partners = append(partners, b)
			}
		}
		if len(partners) == 0 {
			continue
		}
		b := partners[g.r.IntN(len(partners))]
		vars := map[string]string{}
		g.factVars(a, vars, "their")
		clause := g.fill(g.pick(clauses), vars)
		who := g.pick(g.people[a.about].refs()) + " "
		if !strings.HasPrefix(clause, "whose ") {
			who += "who "
		}
		who += clause
		if q, ok := ask(b, named(b), who, "their", func(string) bool { return true }); ok {
			turns := []int{a.turn, b.turn}
			multi = append(multi, Question{Kind: MultiHop, Text: q, Turns: turns, Answer: b.value})
		}
	}
	shuffle := func(qs []Question) {
		g.r.Shuffle(len(qs), func(i, j int) { qs[i], qs[j] = qs[j], qs[i] })
	}
	shuffle(single)
	shuffle(temporal)
	shuffle(para)
	shuffle(multi)
	// Quotas: 2/5 single-hop, 1/5 of each other kind; what a kind lacks
	// goes to single-hop, then to the others.
	want := map[string]int{SingleHop: n * 2 / 5, MultiHop: n / 5, Temporal: n / 5, Paraphrase: n / 5}
	want[SingleHop] += n - want[SingleHop] - want[MultiHop] - want[Temporal] - want[Paraphrase]
	pools := map[string][]Question{SingleHop: single, MultiHop: multi, Temporal: temporal, Paraphrase: para}
	short := 0
	for _, k := range QuestionKinds {
		if d := want[k] - len(pools[k]); d > 0 {
			short += d
			want[k] = len(pools[k])
		}
	}
	for short > 0 {
		moved := false
		for _, k := range QuestionKinds {
			if short > 0 && want[k] < len(pools[k]) {
				want[k]++
				short--
				moved = true
			}
		}
		if !moved {
			break
		}
	}
	var out []Question
	for _, k := range QuestionKinds {
		out = append(out, pools[k][:want[k]]...)
	}
	shuffle(out)
	return out
}

// refs are the ways a multi-hop question names this person.
func (p person) refs() []string {
	if r, ok := roleRefs[p.role]; ok {
		return r
	}
	return []string{"the person"}
}
