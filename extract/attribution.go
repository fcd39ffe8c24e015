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
			firstPerson: memory.SubjectOf(rest).Kind == memory.SubjectFirstPerson,
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
}

func newAttributor(entity, speaker string) *attributor {
	return &attributor{entity: entity, speaker: speaker, introduced: map[string]string{}, lastState: map[string]string{}}
}

// keyState gives a state that resolves an earlier state of the same entity
// the earlier state's key, when the classifier found no key of its own
// (status, health), and remembers the key of every state.
func (a *attributor) keyState(c Candidate) Candidate {
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
