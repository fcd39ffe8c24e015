package extract

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/tenurehq/tenure/memory"
)

// This file attributes what the rule-based extractor finds to an entity.
//
// A text is read as turns. A line that starts with a speaker's label starts
// a turn ("User:", "Human:", "Customer:", "Assistant:", "AI:", "System:", or
// a name such as "Jordan:"), which runs until the next label; the label is
// not part of any fact. The assistant's turns (Assistant, AI, Bot, Agent,
// Model, Claude, ChatGPT...) and the system's (System, Developer, Tool) are
// dropped: what an assistant says is not a fact about the user, and a fact it
// states about the world comes from the user's side of the conversation
// anyway. A name counts as a label in a transcript (a role label anywhere in
// the text, or two lines with name labels), when it is the speaker's name,
// or when its line speaks in the first person ("Jordan: I work nights");
// "Mood: grumpy", "Decision: ..." and other such labels never count.
//
// Each sentence is then about (memory.SubjectOf):
//   - the speaker, when it speaks in the first person ("I", "me", "my"): the
//     speaker the caller names; else the name the speaker introduced
//     themselves with earlier in the text ("I'm Jordan", "my name is
//     Jordan"); else a named turn's name; else memory.UserEntity;
//   - the person or thing it names first: "Jordan works nights" is about
//     Jordan, "billing-db replication lag is 4 s" about billing-db;
//   - for "he", "she", "it", "they": the one named last;
//   - for a fragment with no subject ("Lives in Austin"): the entity of the
//     sentence before it in the turn, else the speaker of a speaker's turn,
//     else the caller's entity;
//   - for "we", "you" and things ("the office wifi"): the caller's entity,
//     or none.
//
// Greetings and pleasantries ("Hi!", "Thanks, Claude.", "Nice to meet you")
// are no facts. "Hi, I am Jordan, a nurse in Denver." introduces Jordan and
// says two things about Jordan: an occupation and a home city, each its own
// candidate.

// roleKind is who speaks a turn.
type roleKind int

const (
	rolePlain     roleKind = iota // no label: notes, a document
	roleUser                      // User:, Human:, Customer:
	roleNamed                     // Jordan:
	roleAssistant                 // Assistant:, AI: (dropped)
	roleSystem                    // System:, Developer:, Tool: (dropped)
)

// turn is the text one speaker says.
type turn struct {
	role roleKind
	name string // roleNamed: the label, as written
	text string
}

// labelRe finds a speaker's label at the start of a line: up to three words
// and a colon followed by a space or the end of the line, optionally in bold
// or after a bullet.
var labelRe = regexp.MustCompile(`^\s*(?:\[[^\]\n]{1,40}\]\s*)?(?:[-*•>]\s*)?(?:\*\*|__)?(\p{L}[\p{L}\p{N}'’._-]*(?: \p{L}[\p{L}\p{N}'’._-]*){0,2})(?:\*\*|__)?\s*:(?:\*\*|__)?(?:\s+|$)`)

// roleOf names the role of a label.
func roleOf(label string) roleKind {
	switch strings.ToLower(label) {
	case "user", "human", "me", "customer", "client", "patient", "caller", "the user", "end user":
		return roleUser
	case "assistant", "ai", "bot", "chatbot", "agent", "model", "gpt", "chatgpt", "claude", "gemini", "copilot",
		"llm", "tenure", "the assistant", "ai assistant", "support bot", "response", "answer":
		return roleAssistant
	case "system", "developer", "tool", "function", "system prompt", "instructions":
		return roleSystem
	}
	return roleNamed
}

// notLabel are words that start a line with a colon without naming a
// speaker: "Mood: grumpy", "Decision: keep Postgres", "Note: ...".
var notLabel = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`mood decision decisions deadline deadlines note notes reason reasoning rationale
		why update updates status summary reminder reminders todo to-do fact facts birthday dob info warning error
		fyi ps tldr question answer q a important context background goal goals task tasks issue issues problem
		solution result results outcome tip eta date time when where who what location example source title name
		email e-mail phone address timezone owner priority agenda topic incident alert ops prod staging plan
		preferences preference routine obligation identity state observation category key entity content pros
		cons edit nb input output text log logs news subject re fwd fw action actions next step steps yesterday
		today tomorrow tonight monday tuesday wednesday thursday friday saturday sunday morning afternoon evening
		weekend update changelog fix bug feature release version warning caution tip hint rule rules policy
		diagnosis symptoms allergies allergy medication medications diet notes age occupation job role team
		company project meeting call cc bcc from to sent attachment url link http https mailto`) {
		m[w] = true
	}
	return m
}()

// turns splits text into its speakers' turns (see above). speaker is the
// caller's speaker, whose name always counts as a label.
func turns(text, speaker string) []turn {
	lines := strings.Split(text, "\n")
	type labelled struct {
		role         roleKind
		label, rest  string
		firstPerson  bool
		isSpeaker    bool
		candidateRow bool
	}
	found := make([]labelled, len(lines))
	roles, names := 0, 0
	for i, line := range lines {
		m := labelRe.FindStringSubmatchIndex(line)
		if m == nil {
			continue
		}
		label := strings.TrimSpace(line[m[2]:m[3]])
		rest := line[m[1]:]
		role := roleOf(label)
		if role == roleNamed {
			if !labelIsName(label) {
				continue
			}
			names++
		} else {
			roles++
		}
		found[i] = labelled{role: role, label: label, rest: rest, candidateRow: true,
			firstPerson: memory.SubjectOf(rest).Kind == memory.SubjectFirstPerson || speaksFirstPerson(rest),
			isSpeaker:   speaker != "" && strings.EqualFold(label, speaker)}
	}
	transcript := roles > 0 || names > 1
	var out []turn
	cur := turn{role: rolePlain}
	var b strings.Builder
	flush := func() {
		cur.text = b.String()
		if strings.TrimSpace(cur.text) != "" {
			out = append(out, cur)
		}
		b.Reset()
	}
	for i, line := range lines {
		l := found[i]
		if l.candidateRow && (l.role != roleNamed || transcript || l.firstPerson || l.isSpeaker) {
			flush()
			cur = turn{role: l.role, name: l.label}
			line = l.rest
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
	flush()
	return out
}

// labelIsName reports whether a label can be a person's name: capitalised
// words, none of them a heading such as "Mood" or "Decision".
func labelIsName(label string) bool {
	for _, w := range strings.Fields(label) {
		if notLabel[strings.ToLower(strings.Trim(w, "'’._-"))] || !memory.IsName(w) {
			return false
		}
	}
	return true
}

// --------------------------------------------------------------- greetings

// greetingRe matches greetings and openers that start a sentence and are no
// part of its fact: "Hi, ", "Hello there! ", "Hey Claude, ", "Thanks, ".
var greetingRe = regexp.MustCompile(`(?i)^(?:(?:hi|hello|hey|hiya|heya|howdy|yo|greetings|good (?:morning|afternoon|evening|day)|thanks|thank you|thanks a lot|thank you so much|cheers|ok|okay|oh|so|well|um|uh|hmm|alright|great|cool|nice|sure)(?: there| all| everyone| again| guys| folks)?(?: \p{Lu}[\p{L}'’-]*)?\s*(?:[,!.:;]+|\s[-–—])\s*)+`)

// greetingWordRe is a greeting followed by the speaker without punctuation:
// "Hi I am Jordan", "hello my name is Jordan".
var greetingWordRe = regexp.MustCompile(`(?i)^(?:hi|hello|hey|hiya|heya|howdy)(?: there)? ((?:i|i'm|i’m|my)\b.*)$`)

// stripGreeting returns s without the greeting it starts with.
func stripGreeting(s string) string {
	if m := greetingRe.FindStringIndex(s); m != nil {
		s = s[m[1]:]
	}
	if m := greetingWordRe.FindStringSubmatch(s); m != nil {
		s = m[1]
	}
	return strings.TrimSpace(s)
}

// pleasantries are sentences that carry no fact, lowercased without their
// punctuation.
var pleasantries = func() map[string]bool {
	m := map[string]bool{}
	for _, p := range []string{"hi", "hello", "hey", "hi there", "hello there", "hey there", "hiya", "howdy",
		"good morning", "good afternoon", "good evening", "good night", "thanks", "thank you", "thanks a lot",
		"thanks so much", "thank you so much", "many thanks", "cheers", "ok", "okay", "sure", "great", "cool",
		"nice", "perfect", "awesome", "yes", "no", "yep", "nope", "yeah", "lol", "haha", "hmm", "bye", "goodbye",
		"see you", "see you soon", "talk soon", "take care", "got it", "sounds good", "no problem",
		"you're welcome", "nice to meet you", "nice to meet you too", "pleased to meet you", "have a nice day",
		"have a good day", "how are you", "all good", "makes sense", "of course", "sure thing", "will do",
		"that's great", "that's all", "good to know", "noted"} {
		m[p] = true
	}
	return m
}()

// isPleasantry reports whether s, a sentence stripped of its greeting, says
// nothing: it is empty, a pleasantry, or only the name of the one greeted
// ("Thanks, Claude!").
func isPleasantry(s string) bool {
	norm := strings.Join(strings.FieldsFunc(strings.ToLower(strings.ReplaceAll(s, "’", "'")), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\''
	}), " ")
	if norm == "" || pleasantries[norm] {
		return true
	}
	f := strings.Fields(s)
	return len(f) == 1 && memory.IsName(strings.TrimFunc(f[0], func(r rune) bool { return !unicode.IsLetter(r) }))
}

// ------------------------------------------------------------ introductions

// introRe: the speaker gives their name: "I am Jordan", "I'm Jordan",
// "my name is Jordan", "call me Jo", "I go by Jo".
var introRe = regexp.MustCompile(`^(?i:i am|i'm|i’m|im|my name is|my name's|my name’s|my names|call me|you can call me|i go by|i'm called|i am called|name's)\s+(?:(?:Dr|Mr|Mrs|Ms|Mx|Prof)\.?\s+)?(\p{Lu}[\p{L}'’-]*(?:\s+\p{Lu}[\p{L}'’-]*){0,2})(.*)$`)

// notIntroduced are capitalised words after "I'm" that are not a name.
var notIntroduced = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`american canadian mexican german french dutch irish british english scottish
		welsh spanish italian portuguese chinese japanese korean indian brazilian russian polish swedish danish
		norwegian finnish greek turkish jewish muslim christian catholic protestant mormon hindu buddhist sikh
		atheist agnostic australian african asian european latino latina latinx hispanic black white swiss thai
		vietnamese filipino nigerian kenyan egyptian iranian persian arab ukrainian israeli pakistani bangladeshi
		argentinian argentine chilean colombian peruvian cuban jamaican belgian austrian czech hungarian romanian
		bulgarian serbian croatian lebanese moroccan ethiopian ghanaian taiwanese singaporean malaysian
		indonesian texan californian vegan vegetarian gay lesbian bi trans queer deaf blind new here back sorry
		not so very really just also still the a an in on at from with`) {
		m[w] = true
	}
	return m
}()

// introduction finds the name a sentence introduces its speaker with, and
// what the sentence goes on to say ("Hi, I am Jordan, a nurse in Denver."
// gives Jordan and ", a nurse in Denver."). s has no greeting.
func introduction(s string) (name, rest string, ok bool) {
	m := introRe.FindStringSubmatch(s)
	if m == nil {
		return "", "", false
	}
	name, rest = strings.TrimSpace(m[1]), m[2]
	// A name is followed by the end, punctuation, "and", "from", "here".
	words := strings.Fields(name)
	for len(words) > 1 && !memory.IsName(words[len(words)-1]) {
		words = words[:len(words)-1]
	}
	if len(words) < len(strings.Fields(name)) {
		return "", "", false
	}
	first := strings.ToLower(words[0])
	if notIntroduced[first] || !memory.IsName(words[0]) {
		return "", "", false
	}
	if strings.HasSuffix(name, "'s") || strings.HasSuffix(name, "’s") {
		return "", "", false // "I'm Jordan's mother"
	}
	r := strings.TrimSpace(rest)
	switch {
	case r == "", strings.IndexAny(r[:1], ",.!;:-–—(") == 0:
	case strings.HasPrefix(strings.ToLower(r), "and "), strings.HasPrefix(strings.ToLower(r), "from "),
		strings.HasPrefix(strings.ToLower(r), "here"):
	default:
		r2, _ := utf8.DecodeRuneInString(r)
		if r2 != '–' && r2 != '—' {
			return "", "", false // "I'm Google certified"
		}
	}
	if utf8.RuneCountInString(name) > MaxEntity {
		return "", "", false
	}
	return name, rest, true
}

// --------------------------------------------------------------- clauses

// A clause of an introduction or of "I'm a nurse in Denver" that says one
// thing: an occupation, a home city, an employer.
var (
	// roleClauseRe: "a nurse", "an ICU nurse", after clauseEndRe has taken
	// the place and the employer off its end.
	roleClauseRe = regexp.MustCompile(`^(?i:(?:i'm |i am |and i'm |and i am |also |currently )?(?:an? |the )?)([\p{L}-]+(?: [\p{L}-]+){0,3})$`)
	// clauseEndRe: where a role is held, at its end: "in Denver", "at Acme".
	clauseEndRe = regexp.MustCompile(`\s(?i:(in|from|based in|living in|out of)|(at|for|with))\s(\p{Lu}[\p{L}\p{N}&.'’-]*(?:\s\p{Lu}[\p{L}\p{N}&.'’-]*){0,2})$`)
	// placeClauseRe: "from Denver", "living in Denver", "based in Denver".
	placeClauseRe = regexp.MustCompile(`^(?i:(?:and )?(?:i )?(?:live in|living in|based in|based out of|located in|(from)|in|out of|live and work in|living and working in) )(\p{Lu}[\p{L}.'’-]*(?: \p{Lu}[\p{L}.'’-]*){0,2})$`)
	// workClauseRe: "working at Acme", "at Acme".
	workClauseRe = regexp.MustCompile(`^(?i:(?:and )?(?:i )?(?:work at|work for|working at|working for|at|with) )(\p{Lu}[\p{L}\p{N}&.'’-]*(?: \p{Lu}[\p{L}\p{N}&.'’-]*){0,2})$`)
	// roleInPlaceRe: "I'm a nurse in Denver.", "Edmund is a software
	// engineer at Acme in Berlin."
	roleInPlaceRe = regexp.MustCompile(`^(?i:and )?(I|i|\p{Lu}[\p{L}'’-]*(?: \p{Lu}[\p{L}'’-]*){0,2})(?: is| am|'m|’m|'s|’s) (an? [\p{L}-]+(?: [\p{L}-]+){0,3}? (?i:in|based in|from|at|for) \p{Lu}.*?)\s*[.!]?$`)
	// splitClauseRe separates the clauses of an introduction.
	splitClauseRe = regexp.MustCompile(`\s*(?:[,;]|\s[-–—]\s|\band\b)\s*`)
)

// fact is one thing a clause says about its subject.
type fact struct {
	key, category string
	durability    memory.Durability
	content       string // in the third person, or the first for the speaker
	reason        string
}

// clauseFacts reads one clause about subject (a name, or "I"): the
// occupation, home city or employer it states, or nothing.
func clauseFacts(clause, subject, quoted string) []fact {
	clause = strings.TrimSpace(strings.TrimRight(strings.TrimSpace(clause), ".!"))
	if clause == "" {
		return nil
	}
	is, lives, works := subject+" is ", subject+" lives in ", subject+" works at "
	if subject == "I" {
		is, lives, works = "I am ", "I live in ", "I work at "
	}
	home := func(prep, place string) fact {
		content := lives + place + "."
		if strings.EqualFold(prep, "from") {
			content = is + "from " + place + "."
		}
		return fact{key: "home_city", category: memory.CategoryIdentity, durability: memory.LongTerm,
			content: content, reason: "home city in " + quoted}
	}
	if m := placeClauseRe.FindStringSubmatch(clause); m != nil {
		return []fact{home(m[1], m[2])}
	}
	if m := workClauseRe.FindStringSubmatch(clause); m != nil {
		return []fact{{key: "employer", category: memory.CategoryObservation, durability: memory.LongTerm,
			content: works + m[1] + ".", reason: "employer in " + quoted}}
	}
	prep, place, employer := "", "", ""
	for range 2 {
		e := clauseEndRe.FindStringSubmatchIndex(clause)
		if e == nil {
			break
		}
		if e[2] >= 0 && place == "" {
			prep, place = clause[e[2]:e[3]], clause[e[6]:e[7]]
		} else if e[4] >= 0 && employer == "" {
			employer = clause[e[6]:e[7]]
		} else {
			break
		}
		clause = clause[:e[0]]
	}
	m := roleClauseRe.FindStringSubmatch(clause)
	if m == nil {
		return nil
	}
	role := m[1]
	words := strings.Fields(role)
	if !memory.IsRole(words[len(words)-1]) {
		return nil
	}
	article := "a "
	if strings.ContainsRune("aeiouAEIOU", rune(role[0])) {
		article = "an "
	}
	out := []fact{{key: "occupation", category: memory.CategoryIdentity, durability: memory.Permanent,
		content: is + article + role + ".", reason: "occupation in " + quoted}}
	if place != "" {
		out = append(out, home(prep, place))
	}
	if employer != "" {
		out = append(out, fact{key: "employer", category: memory.CategoryObservation, durability: memory.LongTerm,
			content: works + employer + ".", reason: "employer in " + quoted})
	}
	return out
}

// ------------------------------------------------------------ attribution

// attributor decides the entity of each sentence of one text.
type attributor struct {
	entity  string // the caller's entity, for what names no subject
	speaker string // the caller's speaker, "" when none is named
	// introduced maps a speaker (user, or a named turn's label) to the name
	// they introduced themselves with.
	introduced map[string]string
	lastNamed  string // the third party named last, for "she" and "it"
	prev       string // the entity of the previous sentence of the turn
	// lastState is the key of each entity's latest state in the text, for
	// the state that resolves it ("billing-db replication lag is 4 s. It
	// recovered.": the recovery keeps the key replication_lag).
	lastState map[string]string
	// lastSystem is the system named last ("search-03", "checkout"), for the
	// readings that name none ("Nadia: still 97%.").
	lastSystem string
	// known are the folded names the text has shown to be names: its
	// speakers' labels, the caller's speaker and entity, and the capitalised
	// words it writes in the middle of a sentence.
	known map[string]bool
	// learned are the turns whose text known has read.
	learned map[string]bool
	// pending is what attribute made of the latest sentence, which keyState
	// revises once it has the sentence itself (see revise).
	pending pendingAttribution
}

// pendingAttribution is attribute's reading of one sentence, and the state
// of the attributor before it.
type pendingAttribution struct {
	ok              bool
	t               turn
	sub             memory.Subject
	entity, why     string
	prev, lastNamed string
}

func newAttributor(entity, speaker string) *attributor {
	a := &attributor{entity: entity, speaker: speaker, introduced: map[string]string{}, lastState: map[string]string{},
		known: map[string]bool{}, learned: map[string]bool{}}
	for _, n := range []string{entity, speaker} {
		if n != "" {
			a.known[foldName(n)] = true
			a.known[foldName(strings.Fields(n)[0])] = true
		}
	}
	return a
}

// keyState gives a state that resolves an earlier state of the same entity
// the earlier state's key, when the classifier found no key of its own
// (status, health), and remembers the key of every state.
func (a *attributor) keyState(c Candidate) Candidate {
	c = a.revise(c)
	if c.Category != memory.CategoryState || c.Entity == "" {
		return c
	}
	if prev := a.lastState[c.Entity]; prev != "" && prev != c.Key && (c.Key == "status" || c.Key == "health") &&
		memory.Resolves(c.Content) {
		note := fmt.Sprintf(", key %s kept from the state it resolves", prev)
		if i := strings.Index(c.Reason, "; about "); i >= 0 {
			c.Reason = c.Reason[:i] + note + c.Reason[i:]
		} else {
			c.Reason += note
		}
		c.Key = prev
	}
	a.lastState[c.Entity] = c.Key
	return c
}

// speakerKey names who speaks t, for introductions.
func speakerKey(t turn) string {
	if t.role == roleNamed {
		return "named:" + strings.ToLower(t.name)
	}
	return "user"
}

// speakerOf is the entity of t's "I".
func (a *attributor) speakerOf(t turn) string {
	if t.role == roleNamed {
		if a.speaker != "" && strings.EqualFold(t.name, a.speaker) {
			return a.speaker
		}
		if n := a.introduced[speakerKey(t)]; n != "" {
			return n
		}
		return t.name
	}
	return a.user()
}

// user is the entity of the user: the caller's speaker, else the name the
// user introduced themselves with, else memory.UserEntity.
func (a *attributor) user() string {
	if a.speaker != "" {
		return a.speaker
	}
	if n := a.introduced["user"]; n != "" {
		return n
	}
	return memory.UserEntity
}

// introduce records that t's speaker is called name, unless the caller
// named the speaker: then the caller knows better, and "I'm Jordan" is a
// fact about that speaker. It returns the speaker's entity.
func (a *attributor) introduce(t turn, name string) string {
	a.pending.ok = false
	a.known[foldName(name)] = true
	a.known[foldName(strings.Fields(name)[0])] = true
	if a.speaker == "" || t.role == roleNamed && !strings.EqualFold(t.name, a.speaker) {
		a.introduced[speakerKey(t)] = name
	}
	e := a.speakerOf(t)
	a.prev = e
	return e
}

// attribute returns the entity of a sentence of turn t with subject sub,
// and why, for the candidate's reason.
func (a *attributor) attribute(t turn, sub memory.Subject) (string, string) {
	a.pending = pendingAttribution{ok: true, t: t, sub: sub, prev: a.prev, lastNamed: a.lastNamed}
	e, why := a.attributeSubject(t, sub)
	a.pending.entity, a.pending.why = e, why
	return e, why
}

// attributeSubject is attribute's first reading, from the subject alone.
func (a *attributor) attributeSubject(t turn, sub memory.Subject) (string, string) {
	var e, why string
	switch sub.Kind {
	case memory.SubjectFirstPerson:
		e, why = a.speakerOf(t), "the speaker"
	case memory.SubjectRelation:
		e, why = a.speakerOf(t)+"'s "+sub.Name, "the speaker's "+sub.Name
		a.lastNamed = e
	case memory.SubjectNamed:
		e, why = sub.Name, "named in the sentence"
		a.lastNamed = e
	case memory.SubjectUser:
		e, why = a.user(), "the user"
	case memory.SubjectPronoun:
		switch {
		case a.lastNamed != "":
			e, why = a.lastNamed, "named before"
		case a.entity != "":
			e, why = a.entity, "the given entity"
		}
	case memory.SubjectNone:
		switch {
		case a.prev != "":
			e, why = a.prev, "as the sentence before"
		case t.role == roleUser || t.role == roleNamed:
			e, why = a.speakerOf(t), "the speaker"
		case a.entity != "":
			e, why = a.entity, "the given entity"
		}
	default:
		if a.entity != "" {
			e, why = a.entity, "the given entity"
		}
	}
	if utf8.RuneCountInString(e) > MaxEntity {
		e, why = a.entity, "the given entity"
	}
	a.prev = e
	return e, why
}

// about is the end of a candidate's reason that names its entity.
func about(entity, why string) string {
	if entity == "" {
		return ""
	}
	return fmt.Sprintf("; about %s (%s)", entity, why)
}

// ------------------------------------------------------------ revision

// attribute reads a sentence's subject only; revise, which keyState calls
// with the candidate the sentence became, reads the sentence itself and
// corrects what the subject alone gets wrong:
//
//   - A capitalised first word is a name only when it is not a common
//     English word ("Rolled back", "That's way over budget", "Production is
//     still on 15", "For now it stays in Go"), unless the text shows it is
//     one: a speaker's label, the caller's speaker or entity, or a word it
//     also capitalises mid-sentence. "Dad" and "Mum" are relations.
//   - A system is named by its identifier (search-03, INC-2291, ticket
//     #48213, Reindex job 412) or as what a reading is of ("error rate on
//     checkout", "memory usage of the worker", "checkout latency", "Deploy
//     5521 of checkout", "firing on node ip-10-0-3-17"). A short name of the
//     caller's entity ("search" for search-svc) is that entity.
//   - A reading or an operation without a subject ("still 97%", "Rolled
//     back.", "queue drained.") is about the system named last, not about
//     whoever speaks, else about the caller's entity.
//   - "We", "our", "let's", "my company", "everyone" are the caller's
//     entity; without one, the customer's organisation the text names ("I
//     work for Vltava Games... Our studio is in Prague"), else the speaker.
//   - A thing ("Tokens expire after 15 minutes", "The plumber comes on
//     Thursday") is the caller's entity, else the speaker's concern; a
//     thing of his or hers ("The school wants his forms") is the one named
//     last.
//   - "That's ..." and "This is ..." are about what the sentence before was
//     about; "it" and "they" with nobody named before too.
//   - "my doctor says my blood pressure ...", "my daughter set this up for
//     me", "my mother tongue": the speaker, not the relation.
//   - A heading ("Alert:", "Call summary:", "Agent notes:") is no subject,
//     nor is a role before a name ("Customer Jorge Medina reports ...");
//     "Spoke with Kwame Asante" and "The new intern, Zoe Park, starts" are
//     about the person named.

// readKind is what revise reads a sentence's subject as.
type readKind int

const (
	readFirstPerson readKind = iota
	readRelation
	readNamed
	readSystem
	readUser
	readPronoun
	readGroup
	readAddressee
	readThing
	readFragment
	readDemonstrative
	readImperative
)

// reading is revise's reading of a sentence's subject.
type reading struct {
	kind readKind
	name string // readNamed, readSystem; the relation of readRelation
	org  string // readGroup: the organisation the sentence names
}

// revise corrects the entity attribute gave candidate c (see above).
func (a *attributor) revise(c Candidate) Candidate {
	p := a.pending
	if !p.ok {
		return c
	}
	a.pending.ok = false
	a.prev, a.lastNamed = p.prev, p.lastNamed
	e, why := a.resolve(p.t, p.sub, c.Content, c.Category)
	if utf8.RuneCountInString(e) > MaxEntity {
		e, why = a.entity, "the given entity"
	}
	a.prev = e
	if e == p.entity && why == p.why {
		return c
	}
	old, next := about(p.entity, p.why), about(e, why)
	switch {
	case old != "" && strings.Contains(c.Reason, old):
		c.Reason = strings.Replace(c.Reason, old, next, 1)
	case strings.Contains(c.Reason, " (durability "):
		i := strings.Index(c.Reason, " (durability ")
		c.Reason = c.Reason[:i] + next + c.Reason[i:]
	default:
		c.Reason += next
	}
	c.Entity = e
	return c
}

// resolve is the entity of sentence s of turn t, whose subject attribute
// read as sub, and why.
func (a *attributor) resolve(t turn, sub memory.Subject, s, category string) (string, string) {
	a.learn(t)
	r := a.read(s, sub)
	body := strings.ToLower(stripHeading(s))
	switch r.kind {
	case readFirstPerson:
		return a.speakerOf(t), "the speaker"
	case readRelation:
		e := a.speakerOf(t) + "'s " + r.name
		a.lastNamed = e
		return e, "the speaker's " + r.name
	case readNamed:
		a.lastNamed = r.name
		a.known[foldName(r.name)] = true
		if isSystemID(r.name) {
			a.lastSystem = r.name
		}
		return r.name, "named in the sentence"
	case readSystem:
		name := a.systemName(r.name)
		a.lastNamed, a.lastSystem = name, name
		return name, "the system the sentence is about"
	case readUser:
		return a.user(), "the user"
	case readPronoun:
		switch {
		case a.lastNamed != "":
			return a.lastNamed, "named before"
		case a.prev != "":
			return a.prev, "as the sentence before"
		case a.entity != "":
			return a.entity, "the given entity"
		}
		return a.turnSpeaker(t)
	case readGroup:
		switch {
		case a.entity != "":
			return a.entity, "the given entity"
		case r.org != "":
			return r.org, "the organisation named"
		}
		if org := a.orgOf(t); org != "" {
			return org, "the speaker's organisation"
		}
		return a.turnSpeaker(t)
	case readAddressee:
		if a.entity != "" {
			return a.entity, "the given entity"
		}
		return "", ""
	case readDemonstrative:
		switch {
		case a.prev != "":
			return a.prev, "as the sentence before"
		case a.entity != "":
			return a.entity, "the given entity"
		}
		return a.turnSpeaker(t)
	case readImperative:
		if a.entity != "" && !hasWord(body, "me", "i", "i'm", "myself") {
			return a.entity, "the given entity"
		}
		if hasFirstPersonWord(body) {
			return a.speakerOf(t), "the speaker"
		}
		return a.fragment(t, body, category)
	case readFragment:
		return a.fragment(t, body, category)
	}
	// readThing
	if category == memory.CategoryMood && labelValueRe.MatchString(s) {
		if e, why := a.turnSpeaker(t); e != "" {
			return e, why // "Kenji: mood: grumpy."
		}
	}
	switch {
	case a.lastNamed != "" && hasWord(body, "his", "her", "their"):
		return a.lastNamed, "named before"
	case a.entity != "":
		return a.entity, "the given entity"
	case a.lastSystem != "" && category == memory.CategoryState:
		return a.lastSystem, "the system named last"
	}
	if e, why := a.turnSpeaker(t); e != "" {
		return e, why
	}
	if a.prev != "" {
		return a.prev, "as the sentence before"
	}
	return "", ""
}

// statusItem is the item of a status list ("api OK, worker OK, scheduler
// DEGRADED") the sentence reports on: the one not OK, else the one named
// last that was; "" when s is no such list.
func (a *attributor) statusItem(s string) string {
	items := statusRe.FindAllStringSubmatch(s, -1)
	if len(items) < 2 {
		return ""
	}
	for _, m := range items {
		switch m[2] {
		case "OK", "UP", "HEALTHY", "GREEN":
		default:
			return m[1]
		}
	}
	for _, m := range items {
		if strings.EqualFold(m[1], a.lastSystem) {
			return m[1]
		}
	}
	return ""
}

// fragment is the entity of a sentence with no subject of its own: a
// system's reading or operation is the system's named last (else the
// caller's entity); anything else continues the sentence before, else is
// the speaker's.
func (a *attributor) fragment(t turn, body, category string) (string, string) {
	first := firstWord(body)
	reading := opsVerbs[first] || measureInRe.MatchString(body) || category == memory.CategoryState
	switch {
	case reading && a.lastSystem != "" && !hasFirstPersonWord(body):
		return a.lastSystem, "the system named last"
	case opsVerbs[first] && a.entity != "":
		return a.entity, "the given entity"
	case a.prev != "":
		return a.prev, "as the sentence before"
	}
	if e, why := a.turnSpeaker(t); e != "" {
		return e, why
	}
	if a.entity != "" {
		return a.entity, "the given entity"
	}
	return "", ""
}

// turnSpeaker is who speaks t: a turn's speaker, else the caller's.
func (a *attributor) turnSpeaker(t turn) (string, string) {
	if t.role == roleUser || t.role == roleNamed || a.speaker != "" {
		return a.speakerOf(t), "the speaker"
	}
	return "", ""
}

// systemName is a system's name, or the caller's entity when the name is
// its short form ("search" for search-svc).
func (a *attributor) systemName(name string) string {
	e := strings.ToLower(a.entity)
	n := strings.ToLower(name)
	if e != "" && (e == n || strings.HasPrefix(e, n+"-") || strings.HasPrefix(e, n+"_")) {
		return a.entity
	}
	return name
}

// learn records the names turn t shows: its label and the words it
// capitalises mid-sentence.
func (a *attributor) learn(t turn) {
	if t.role == roleNamed && t.name != "" {
		a.known[foldName(t.name)] = true
		a.known[foldName(strings.Fields(t.name)[0])] = true
	}
	if a.learned[t.text] {
		return
	}
	a.learned[t.text] = true
	for _, line := range strings.Split(t.text, "\n") {
		f := strings.Fields(line)
		for i := 1; i < len(f); i++ {
			prev := f[i-1]
			if strings.ContainsAny(prev[len(prev)-1:], ".!?:") {
				continue
			}
			w := strings.TrimFunc(f[i], func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
			w = strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "’s")
			if r, _ := utf8.DecodeRuneInString(w); unicode.IsUpper(r) {
				a.known[foldName(w)] = true
			}
		}
	}
}

// orgOf is the organisation the customer speaking t works for, as t says
// ("I work for Vltava Games", "I'm the head of operations at Maison
// Verte"); "" in other turns.
func (a *attributor) orgOf(t turn) string {
	switch strings.ToLower(t.name) {
	case "customer", "client", "caller":
	default:
		return ""
	}
	for _, m := range employerRe.FindAllStringSubmatch(t.text, -1) {
		if !negatedRe.MatchString(m[0]) {
			return m[1]
		}
	}
	return ""
}

var (
	// headingRe is a heading before a sentence: "Alert: ", "Call summary: ",
	// "SLA breach warning: ". "Mood: grumpy" keeps its label: it states
	// a value, not a sentence.
	headingRe = regexp.MustCompile(`^(?:\[[^\]]{1,40}\]\s*)?\p{L}[\p{L}'’-]*(?:\s+\p{L}[\p{L}'’-]*){0,2}:\s+(\p{L}.*)$`)
	// leadPhraseRe are phrases of time or manner before a subject.
	leadPhraseRe = regexp.MustCompile(`^(?i:for now|from now on|going forward|right now|as of (?:now|today)|for the record|just so you know|by the way|in the end|at the moment|for the time being|please remember|please note|please)\b[,:]?\s*`)
	// roleNameRe: "Customer Jorge Medina reports ...".
	roleNameRe = regexp.MustCompile(`^(?i:customer|client|user|caller|patient|prospect|contact|candidate)\s+(\p{Lu}\p{Ll}+(?:\s+\p{Lu}\p{Ll}+){0,2})\b`)
	// spokeRe: "Spoke with Kwame Asante", "Met Dana".
	spokeRe = regexp.MustCompile(`^(?i:spoke|talked|met|chatted|called|emailed|phoned|messaged|followed up)\s+(?:(?i:with|to)\s+)?(\p{Lu}\p{Ll}+(?:\s+\p{Lu}\p{Ll}+){0,2})\b`)
	// apposRe: "The new intern, Zoe Park, starts Monday".
	apposRe = regexp.MustCompile(`^(?i:the|our|my|a|an)\s+[^,]{1,40},\s+(\p{Lu}\p{Ll}+(?:\s+\p{Lu}\p{Ll}+){0,2}),`)
	// fullNameCommaRe: "Ravi Menon, 34, software architect".
	fullNameCommaRe = regexp.MustCompile(`^(\p{Lu}\p{Ll}+\s+\p{Lu}\p{Ll}+),`)
	// alertRe: an alert on a node: "HighMemoryUsage firing on node ip-10-0-3-17".
	alertRe = regexp.MustCompile(`(?i)\b(?:firing|fired|resolved|triggered|cleared|alerting)\s+on\s+(?:(?:node|host|server|instance|pod|machine|vm)\s+)?([\w.-]+)`)
	// relIsNameRe: "my doctor is Dr. Alvarez", a relation and its name.
	relIsNameRe = regexp.MustCompile(`^(?i:my) [\p{L}-]+ is (?:(?i:dr|mr|mrs|ms|prof)\.? )?\p{Lu}`)
	// idRe: "Reindex job 412", "Ticket #48213", "Deploy 5521 of checkout".
	idRe = regexp.MustCompile(`^(?i:the\s+)?((?:\p{L}[\p{L}-]*\s+)?(\p{L}+)\s+#?\d[\w-]*)(?:\s+of\s+(?:the\s+)?([\w.-]+))?`)
	// holderRe: what a reading is of: "error rate on checkout", "memory
	// usage of the worker", "Postmortem for INC-2291".
	holderRe = regexp.MustCompile(`(?i)\b([\w-]+)\s+(?:on|of|for)\s+(?:the\s+)?([\w.-]*\w)`)
	// holderLeadRe: a system before its reading: "checkout latency is 2 s".
	holderLeadRe = regexp.MustCompile(`^(?i:the\s+)?([a-z][\w-]*)\s+([\w-]+)\b`)
	// measureInRe: a reading's number: "97%", "150 ms", "3.1 GB".
	measureInRe = regexp.MustCompile(`\d\s*(?:%|ms\b|s\b|gb\b|mb\b|k\b|rps\b|qps\b)`)
	// groupOrgRe: "We're a team of 12 at Fernwood Legal".
	groupOrgRe = regexp.MustCompile(`\b(?:team|company|firm|startup|agency|business|studio|shop)\b[^.!?]*?\bat\s+(\p{Lu}[\p{L}&'’-]*(?:\s+\p{Lu}[\p{L}&'’-]*){0,3})`)
	// employerRe: where a customer works.
	employerRe = regexp.MustCompile(`\b(?:I work|I'm working|I am working|I'm|I am|I joined|I run|I own)\b[^.!?\n]*?\b(?:at|for)\s+(\p{Lu}[\p{L}&'’-]*(?:\s+\p{Lu}[\p{L}&'’-]*){0,3})`)
	// labelValueRe: a value under its label: "mood: grumpy".
	labelValueRe = regexp.MustCompile(`^\p{L}+:\s*\S+$`)
	// myGroupRe: "my company switched", a group noun and its verb.
	myGroupRe = regexp.MustCompile(`\bmy ([a-z]+) ([a-z']+)`)
	// statusRe: one item of a status list: "api OK", "scheduler DEGRADED".
	statusRe  = regexp.MustCompile(`\b([a-z][\w.-]*) (OK|UP|DOWN|DEGRADED|FAILING|FAILED|CRITICAL|WARN|WARNING|ERROR|UNHEALTHY|HEALTHY|GREEN|RED|YELLOW)\b`)
	negatedRe = regexp.MustCompile(`(?i)\b(?:not|no longer|never|used to|n't)\b`)
)

// stripHeading returns s without a heading (see headingRe), unless what
// follows it is a single word: "Mood: grumpy" is a value under its label.
func stripHeading(s string) string {
	m := headingRe.FindStringSubmatch(s)
	if m == nil || len(strings.Fields(m[1])) < 2 {
		return s
	}
	return m[1]
}

// read reads the subject of sentence s, which memory.SubjectOf read as sub.
func (a *attributor) read(s string, sub memory.Subject) reading {
	body := stripHeading(s)
	if body != s {
		sub = memory.SubjectOf(body)
	}
	if m := leadPhraseRe.FindStringIndex(body); m != nil && m[1] < len(body) {
		body = body[m[1]:]
		sub = memory.SubjectOf(body)
	}
	lower := strings.ToLower(body)
	first := firstWord(lower)

	// Systems: an alert's node, a numbered job, what a reading is of.
	if sub.Kind != memory.SubjectFirstPerson && sub.Kind != memory.SubjectUser && sub.Kind != memory.SubjectRelation &&
		!(sub.Kind == memory.SubjectNamed && (isSystemID(sub.Name) || a.isKnown(sub.Name))) {
		if m := alertRe.FindStringSubmatch(body); m != nil && isSystemID(strings.TrimRight(m[1], ".-")) {
			return reading{kind: readSystem, name: strings.TrimRight(m[1], ".-")}
		}
		if name := a.statusItem(body); name != "" {
			return reading{kind: readSystem, name: name}
		}
		if m := idRe.FindStringSubmatch(body); m != nil && idNouns[strings.ToLower(m[2])] {
			if m[3] != "" && !holderStop[strings.ToLower(m[3])] && !commonWords[strings.ToLower(m[3])] {
				return reading{kind: readSystem, name: m[3]}
			}
			return reading{kind: readSystem, name: strings.TrimSpace(m[1])}
		}
		if name := holder(body); name != "" {
			return reading{kind: readSystem, name: name}
		}
	}

	switch sub.Kind {
	case memory.SubjectFirstPerson:
		// A first person found after the subject's place, in an
		// instruction: "Send all invoices to ... instead of my address".
		if imperatives[first] && first != "remind" && a.entity != "" && !hasWord(lower, "me", "i", "i'm", "myself") &&
			!isFirstPersonWord(first) {
			return reading{kind: readImperative}
		}
		if m := myGroupRe.FindStringSubmatch(lower); m != nil && groupNouns[m[1]] && predicateStart(m[2]) {
			return reading{kind: readGroup} // "my company switched to ..."
		}
		return reading{kind: readFirstPerson}
	case memory.SubjectRelation:
		return a.readRelation(body, sub.Name)
	case memory.SubjectNamed:
		if r, ok := a.readNamed(body, lower, sub.Name); ok {
			return r
		}
	case memory.SubjectUser:
		return reading{kind: readUser}
	case memory.SubjectPronoun:
		if demonstratives[first] {
			return reading{kind: readDemonstrative}
		}
		return reading{kind: readPronoun}
	case memory.SubjectGroup:
		r := reading{kind: readGroup}
		if m := groupOrgRe.FindStringSubmatch(body); m != nil {
			r.org = m[1]
		}
		return r
	case memory.SubjectAddressee:
		return reading{kind: readAddressee}
	}
	return a.readUnnamed(body, lower, first)
}

// readNamed checks a name memory.SubjectOf found: ok is false when it is a
// common word rather than a name.
func (a *attributor) readNamed(body, lower, name string) (reading, bool) {
	l := strings.ToLower(name)
	if kinship[l] {
		return reading{kind: readRelation, name: l}, true
	}
	if firstWord(lower) == "our" {
		if techAcronyms[l] {
			return reading{kind: readGroup}, true
		}
		return reading{kind: readNamed, name: name}, true
	}
	words := strings.Fields(name)
	switch {
	case measureRe.MatchString(l):
		return reading{}, false
	case len(words) == 1 && (techAcronyms[l] && strings.HasPrefix(body, name) || notIntroduced[l]):
		// "CI on main is red", "Swedish is my native language":
		// capitalised everywhere, and still no one's name. ("The API is
		// down" names the API.)
		return reading{}, false
	case isSystemID(name) || a.isKnown(name):
		return reading{kind: readNamed, name: name}, true
	}
	atStart := strings.HasPrefix(body, words[0])
	if !atStart || len(words) > 1 {
		return reading{kind: readNamed, name: name}, true
	}
	w := strings.ToLower(words[0])
	if commonWord(words[0]) {
		return reading{}, false
	}
	if pastTense(w) {
		// "Rolled back", "Paid the bill": a verb, not Ahmed or Jared, whose
		// predicate would follow ("Ahmed is ...").
		switch secondWord(lower) {
		case "back", "out", "up", "down", "off", "over", "in", "on", "the", "a", "an", "it", "to", "this", "that",
			"my", "our", "all", "with", "from", "for", "some", "":
			return reading{}, false
		}
	}
	return reading{kind: readNamed, name: name}, true
}

// readRelation reads "my <relation> ...": the speaker's relation, or the
// speaker when the relation only reports on the speaker ("My doctor says
// my blood pressure is normal") or is part of a thing ("my mother
// tongue").
func (a *attributor) readRelation(body, rel string) reading {
	lower := strings.ToLower(body)
	i := strings.Index(lower, "my "+rel)
	if i < 0 {
		return reading{kind: readRelation, name: rel}
	}
	rest := lower[i+len("my "+rel):]
	if next := firstWord(rest); compoundHeads[next] {
		return reading{kind: readFirstPerson}
	}
	if groupNouns[rel] {
		return reading{kind: readGroup}
	}
	if len(lower) == len(body) && relIsNameRe.MatchString(body[i:]) {
		// "My doctor is Dr. Alvarez": who the speaker's doctor is, a fact
		// of the speaker's.
		return reading{kind: readFirstPerson}
	}
	if hasWord(rest, "me", "my", "myself") {
		return reading{kind: readFirstPerson}
	}
	return reading{kind: readRelation, name: rel}
}

// readUnnamed reads a sentence memory.SubjectOf found no subject in, or
// whose name was a common word.
func (a *attributor) readUnnamed(body, lower, first string) reading {
	for _, re := range []*regexp.Regexp{roleNameRe, spokeRe, apposRe} {
		if m := re.FindStringSubmatch(body); m != nil {
			return reading{kind: readNamed, name: m[1]}
		}
	}
	if m := fullNameCommaRe.FindStringSubmatch(body); m != nil {
		w := strings.Fields(m[1])
		if !commonWord(w[0]) && !commonWord(w[1]) {
			return reading{kind: readNamed, name: m[1]}
		}
	}
	second := secondWord(lower)
	// A name the text gave before, written in lowercase: "ana ruiz closed
	// the bridge".
	if w := words(body); len(w) > 1 && a.isKnown(w[0]+" "+w[1]) {
		return reading{kind: readNamed, name: w[0] + " " + w[1]}
	}
	// A name the text gave before: "My grandmother Olga lives in Riga. Olga
	// turns 90 in May."
	if w := words(body); len(w) > 1 && a.isKnown(w[0]) && !commonWord(w[0]) && unicode.IsUpper([]rune(w[0])[0]) &&
		!unicode.IsUpper([]rune(w[1])[0]) {
		return reading{kind: readNamed, name: w[0]}
	}
	switch {
	case first == "my" && groupNouns[second]:
		return reading{kind: readGroup}
	case first == "our" || first == "we" || first == "let's" || first == "everyone" || first == "everybody":
		return reading{kind: readGroup}
	case demonstratives[first] || strings.HasPrefix(first, "that'") || strings.HasPrefix(first, "this'"):
		if r, ok := a.readClause(body); ok {
			return r
		}
		return reading{kind: readDemonstrative}
	}
	// A short opener before a comma: "Reminder, the drill is ...", "Just so
	// you know, we went with ...".
	if r, ok := a.readClause(body); ok {
		return r
	}
	switch {
	case first == "no" && second != "longer" && second != "more":
		return reading{kind: readThing} // "no deploys during the freeze"
	case imperatives[first] && !pastTense(first):
		return reading{kind: readImperative}
	case hasWord(lower, "we", "we're", "we've", "we'll", "our") && !hasFirstPersonWord(lower):
		return reading{kind: readGroup} // "Not our fault, but customers see timeouts"
	case verbLike(first) || predicateStart(first):
		return reading{kind: readFragment}
	case hasFirstPersonWord(lower):
		return reading{kind: readFirstPerson}
	}
	return reading{kind: readThing}
}

// readClause reads the clause after a short opener that ends with a comma
// ("That's final, Priya signed off."), when it names a subject.
func (a *attributor) readClause(body string) (reading, bool) {
	i := strings.Index(body, ", ")
	if i < 0 || len(strings.Fields(body[:i])) > 4 || hasFirstPersonWord(strings.ToLower(body[:i])) {
		return reading{}, false
	}
	rest := body[i+2:]
	sub := memory.SubjectOf(rest)
	switch sub.Kind {
	case memory.SubjectNone, memory.SubjectThing:
		if strings.HasPrefix(strings.ToLower(rest), "the ") {
			return reading{kind: readThing}, true
		}
		return reading{}, false
	case memory.SubjectNamed:
		if r, ok := a.readNamed(rest, strings.ToLower(rest), sub.Name); ok {
			return r, true
		}
		return reading{}, false
	}
	return a.read(rest, sub), true
}

// holder is the system a reading in s is of: "error rate on checkout",
// "p99 on search", "memory usage of the worker", "Postmortem for
// INC-2291", "checkout latency is 2 s"; "" when s names none.
func holder(s string) string {
	for _, m := range holderRe.FindAllStringSubmatch(s, -1) {
		head, name := strings.ToLower(m[1]), m[2]
		ln := strings.ToLower(name)
		if isSystemID(name) && (metricWords[head] || idNouns[head] || strings.HasPrefix(s, m[1])) {
			return name
		}
		if metricWords[head] && !holderStop[ln] && !commonWords[ln] && !measureRe.MatchString(ln) &&
			ln == name && len(ln) > 2 {
			return name
		}
	}
	if m := holderLeadRe.FindStringSubmatch(s); m != nil {
		name, metric := m[1], strings.ToLower(m[2])
		if metricWords[metric] && !metricWords[name] && !commonWords[name] && !holderStop[name] && len(name) > 2 &&
			!verbLike(name) {
			return name
		}
	}
	return ""
}

// isKnown reports whether name is one the text shows is a name.
func (a *attributor) isKnown(name string) bool {
	return a.known[foldName(strings.TrimSuffix(strings.TrimSuffix(name, "'s"), "’s"))]
}

// speaksFirstPerson reports whether a line says "I", "me" or "my".
func speaksFirstPerson(s string) bool { return hasFirstPersonWord(strings.ToLower(s)) }

// hasFirstPersonWord reports whether lower, a lowercase text, says "I",
// "me" or "my".
func hasFirstPersonWord(lower string) bool {
	for _, w := range words(lower) {
		if isFirstPersonWord(w) {
			return true
		}
	}
	return false
}

// hasWord reports whether lower, a lowercase text, holds one of ws.
func hasWord(lower string, ws ...string) bool {
	for _, w := range words(lower) {
		for _, x := range ws {
			if w == x {
				return true
			}
		}
	}
	return false
}

// words are the words of s without the punctuation around them, with
// curly apostrophes straightened.
func words(s string) []string {
	var out []string
	for _, f := range strings.Fields(strings.ReplaceAll(s, "’", "'")) {
		f = strings.TrimFunc(f, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\'' })
		f = strings.Trim(f, "'")
		if f != "" {
			out = append(out, f)
		}
	}
	return out
}

// firstWord and secondWord are the first and second words of s.
func firstWord(s string) string {
	if w := words(s); len(w) > 0 {
		return w[0]
	}
	return ""
}

func secondWord(s string) string {
	if w := words(s); len(w) > 1 {
		return w[1]
	}
	return ""
}

// predicateStart reports whether w starts what is said of a subject ("lives",
// "prefers", "is"), as memory.SubjectOf reads a name's predicate.
func predicateStart(w string) bool {
	sub := memory.SubjectOf("Jordan " + w + " it.")
	return w != "" && sub.Kind == memory.SubjectNamed && sub.Name == "Jordan"
}
