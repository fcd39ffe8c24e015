package classify

import (
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// This file tells the text that states no fact from the text that does. A
// conversation is mostly talk about the facts, not the facts themselves:
//
//	question         "Could you check the deploy logs", "Any update on the refund"
//	acknowledgement  "Incident closed.", "Thanks for the quick fix!", "LGTM"
//	instruction      "Please don't reopen this thread", "Summarise the thread"
//	hypothetical     "If I moved to Paris I'd learn French", "Maybe we should switch"
//	sarcasm          "Oh great, another pager storm.", "I just love being paged at 3am"
//	negation         "I no longer live in Berlin", "I'm not vegetarian anymore"
//
// Conversation adds its own chatter to the first four: a question put as a
// statement ("I don't want to cancel, I just want to know"), a reaction
// ("First time ever.", "Love this job."), help offered ("I'm happy to
// help"), a pointer at what was said ("Yeah, that's the nil map."), an
// answer that accepts ("Ethan is fine."), an action announced in the moment
// ("I'll roll back the 14:05 deploy."), a request ending in "please"
// ("Pavel Horak on the invoice, please."), an order to a device ("Set my
// alarm for 5:15 tomorrow"), a wish on a condition ("We'd love a discount
// if we add the third site") and a decision not made that names no options
// ("Nothing is settled yet."; "We haven't decided between pnpm and npm
// yet" is a fact).
//
// Stored as facts, the first five are chatter at best and false at worst (a
// hypothetical city becomes a home city, sarcasm a preference). A negation
// denies a value rather than stating one: it should retire the fact it
// denies, so NotFact names that fact's key.
//
// NotFact is not part of Classify: the store classifies every row it
// consolidates, and only the extractor, which reads raw conversation, pays
// for these checks. Every rule is anchored (at the start of the text, on a
// short text, or on an explicit phrase) because dropping a real fact costs
// more than keeping some chatter; a text that also states something ("Check
// the API, it's down") is a fact.

// The kinds of text that state no fact, as NotFact names them.
const (
	NotFactQuestion        = "question"
	NotFactAcknowledgement = "acknowledgement"
	NotFactInstruction     = "instruction"
	NotFactHypothetical    = "hypothetical"
	NotFactSarcasm         = "sarcasm"
	NotFactNegation        = "negation"
)

// NotFactKinds lists the kinds NotFact returns.
func NotFactKinds() []string {
	return []string{NotFactQuestion, NotFactAcknowledgement, NotFactInstruction, NotFactHypothetical,
		NotFactSarcasm, NotFactNegation}
}

// maxNotFactSentences is the most sentences a text may have to be called no
// fact: a longer text is a document, which states something somewhere.
const maxNotFactSentences = 4

// maxNotFactBytes is the longest sentence the rules read: chatter is short,
// and a longer sentence is read as a fact unless it ends in "?".
const maxNotFactBytes = 1 << 10

// MayDeny reports whether text holds the words a negation needs (the
// negation markers NotFact reads): a text without them is no negation, and
// a caller can skip NotFact, which costs several classifications.
func MayDeny(text string) bool {
	return negationRe.MatchString(normalize(text).norm)
}

// NotFact reports whether text, which Classify classified as c, states no
// fact, and what it is instead: "" for a fact, else one of NotFactKinds.
// For a negation, retracts is the key of the attribute the text denies
// ("I no longer live in Berlin": home_city). A text of several sentences is
// no fact only when none of them is one; its kind is its first sentence's.
// It is deterministic and never fails.
func NotFact(text string, c Classification) (kind, retracts string) {
	t := normalize(text)
	if t.norm == "" {
		return "", ""
	}
	spans := t.sentences(maxNotFactSentences + 1)
	if len(spans) > maxNotFactSentences {
		return "", ""
	}
	if len(spans) == 1 {
		return t.notFact(c, true, 0)
	}
	for i, sp := range spans {
		s := normalize(t.span(sp[0], sp[1]))
		k, r := s.notFact(c, false, 0)
		if k == "" {
			return "", ""
		}
		if i == 0 {
			kind, retracts = k, r
		}
	}
	return kind, retracts
}

// sentences splits the normalised text into at most max sentences, as
// [start, end) offsets into norm.
func (t *text) sentences(max int) [][2]int {
	s := t.norm
	var out [][2]int
	start := 0
	for i := 0; i < len(s) && len(out) < max; i++ {
		if isSentenceEnd(s, i) && !t.abbreviation(i) && strings.ContainsFunc(s[i+1:], isLetterOrDigit) {
			out = append(out, [2]int{start, i + 1})
			start = i + 1
		}
	}
	if len(out) < max {
		out = append(out, [2]int{start, len(s)})
	}
	return out
}

func isLetterOrDigit(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// maxDepth bounds the openers stripped from a sentence ("Ok, thanks, sure,
// ..."); a clause read on its own (secondClause) is read at maxDepth, so
// that it neither strips openers nor looks for clauses of its own, and the
// cost stays linear.
const maxDepth = 3

// notFact is NotFact for one sentence. whole says the sentence is the whole
// text c classifies; depth counts the openers stripped (maxDepth).
func (t *text) notFact(c Classification, whole bool, depth int) (string, string) {
	s := strings.TrimSpace(t.norm)
	if s == "" {
		return "", ""
	}
	w := leadingWords(s, 8)
	if len(w) == 0 {
		return "", ""
	}
	if len(s) > maxNotFactBytes {
		// A sentence this long says something; only a question mark at its
		// end makes it a question.
		if endsInQuestionMark(s) {
			return NotFactQuestion, ""
		}
		return "", ""
	}
	switch {
	case t.question(s, w, depth):
		return NotFactQuestion, ""
	case sarcastic(s):
		// Before acknowledgements: "Thanks for nothing." thanks no one.
		return NotFactSarcasm, ""
	case t.acknowledgement(s, w):
		return NotFactAcknowledgement, ""
	case t.instruction(s, w, c, depth):
		return NotFactInstruction, ""
	case t.hypothetical(s, w, c):
		return NotFactHypothetical, ""
	}
	if key, ok := t.negation(s, c, whole); ok {
		return NotFactNegation, key
	}
	// "Ok, don't reopen it", "Thanks for the fix, can you close the ticket":
	// an opener says nothing, what follows it decides.
	if depth < maxDepth {
		if rest, ok := t.afterOpener(s); ok {
			if countWords(rest) <= 2 && !strings.ContainsFunc(rest, unicode.IsDigit) && t.thanks(s) ||
				countWords(rest) == 0 {
				return NotFactAcknowledgement, ""
			}
			r := normalize(rest)
			return r.notFact(c, whole, depth+1)
		}
	}
	return "", ""
}

// ----------------------------------------------------------------- words

// leadingWords returns the first n words of s, trimmed of quotes and dashes;
// contractions stay whole ("what's", "don't", "i'd").
func leadingWords(s string, n int) []string {
	var out []string
	if n <= 0 {
		return out
	}
	scanWords(s, func(_ int, w string) bool {
		out = append(out, w)
		return len(out) < n
	})
	return out
}

// countWords counts the words of s.
func countWords(s string) int {
	n := 0
	eachWord(s, func(string) bool { n++; return true })
	return n
}

// wordAt returns w[i], or "" past its end.
func wordAt(w []string, i int) string {
	if i < len(w) {
		return w[i]
	}
	return ""
}

func wordSet(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// secondClause reports whether s goes on, after a comma, a semicolon or
// "but", with a clause of its own subject that states a fact: "Check the
// API, it's down", "Can you close the ticket, I fixed it". Within a clause
// (depth maxDepth) it looks no further.
func secondClause(s string, depth int) bool {
	if depth >= maxDepth {
		return false
	}
	for i, tries := 0, 0; i < len(s) && tries < 8; i++ {
		j := -1
		switch {
		case s[i] == ',' || s[i] == ';' || s[i] == ':':
			j = i + 1
		case strings.HasPrefix(s[i:], " but ") || strings.HasPrefix(s[i:], " because ") ||
			strings.HasPrefix(s[i:], " since "):
			j = i + 1 + strings.IndexByte(s[i+1:], ' ')
		}
		if j < 0 {
			continue
		}
		tries++
		first, _ := nextWord(s, j)
		if clauseSubjects[strings.Trim(first, "'-")] {
			rest := normalize(s[j:])
			if k, _ := rest.notFact(Classification{}, false, maxDepth); k == "" {
				return true
			}
		}
	}
	return false
}

// clauseSubjects open a clause with a subject of its own.
var clauseSubjects = wordSet(`i i'm i've i'll im ive we we're we've we'll he he's she she's they they're they've
	it it's its that's there's my our his her their`)

// standingRe: a rule that holds from now on, not a request of the moment
// ("Never deploy on Fridays", "Keep answers short", "From now on, ping me
// first"). Instructions that set one are preferences and rules, and kept.
var standingRe = regexp.MustCompile(`\b(?:always|never|from now on|going forward|in future|in the future|by default|whenever|every time|each time|as a rule|in general|answers|replies|responses|emojis?|tone|formatting|spelling|address me|call me|refer to me)\b`)

// noteRe: a request to remember that carries the fact it asks to keep
// ("Please note that I'm vegetarian", "Make a note: Jordan prefers email").
var noteRe = regexp.MustCompile(`\b(?:note|remember|keep in mind|bear in mind|be aware|aware|know|record|save|store|write down|jot down)\b(?: that\b|:)|\bmake a note\b|\btake note\b|\bfor the record\b|\bfyi\b`)

// -------------------------------------------------------------- questions

var (
	whWords = wordSet(`what why how where when who which whose whom`)
	// whContractions are a wh-word and its verb in one word.
	whContractions = wordSet(`what's whats where's wheres who's how's hows when's why's what're where're who're
		how're what'll who'll how'd where'd why'd what'd who'd`)
	auxWords = wordSet(`is are was were do does did can could should would will has have had am shall must might
		isn't aren't wasn't weren't don't doesn't didn't can't couldn't shouldn't wouldn't won't hasn't haven't
		's 're`)
	// questionSubjects follow an auxiliary that opens a question: "Can you",
	// "Is there", "Does anyone". "Is on vacation" and "Has a dentist
	// appointment" are fragments that state a fact.
	questionSubjects = wordSet(`i you we he she it they there anyone anybody someone somebody everyone everybody
		this that these those y'all u ya`)
	// personalSubjects follow "do" or "have", which are imperatives before
	// an object: "Do you know" asks, "Do it now" tells.
	personalSubjects = wordSet(`i you we he she they anyone anybody someone somebody everyone everybody y'all u`)
)

// justAskingRe: a sentence that only says it asks ("I don't want to
// cancel, I just want to know", "We only wanted to check"): a question put
// as a statement, whatever intent it first disowns.
var justAskingRe = regexp.MustCompile(`^(?:(?:i|we) (?:don't|do not|didn't|did not) (?:want|mean|plan) to [^,;]{1,40}[,;] )?(?:but )?(?:i|we) (?:just|only) (?:want|wanted|need|needed|'d like|would like) to (?:know|ask|check|confirm|understand|clarify|find out|make sure)\b[^,;]*$`)

// questionStartRe: the openers of a question that does not end in "?".
var questionStartRe = regexp.MustCompile(`^(?:i wonder|i was wondering|i'm wondering|im wondering|wondering (?:if|whether|why|how|what|when|where|who)|just wondering|curious (?:if|whether|why|how|what|when|where|who)|just curious|(?:i'm |im )?not sure (?:if|whether|why|how|what|when|where|who)|i don't know (?:if|whether|why|how|what|when|where|who)|any (?:idea|ideas|clue|update|updates|news|eta|chance|luck|thoughts|word)\b|do you know|do you happen to know|quick question|question:|how about|what about|why not|how come|can i ask|may i ask|just checking (?:in|if|whether|on)|(?:anyone|anybody|someone|somebody) (?:know|knows|seen|have|has|got|else|able|around|free|available)\b)`)

// question: the sentence asks rather than tells.
func (t *text) question(s string, w []string, depth int) bool {
	if endsInQuestionMark(s) || justAskingRe.MatchString(s) {
		return true
	}
	if questionStartRe.MatchString(s) {
		return !secondClause(s, depth)
	}
	first, second := w[0], wordAt(w, 1)
	asks := false
	switch {
	case whContractions[first]:
		// "What's worse is the lag" states; "What's the ETA" asks.
		asks = !pseudoCleft(w[1:])
	case whWords[first] && first != "which" && auxWords[second]:
		asks = !pseudoCleft(w[2:])
	case first == "which" && (second == "do" || second == "does" || second == "did" || second == "should" ||
		second == "would" || second == "can" || second == "could" || second == "will"):
		asks = true
	case (first == "which" || first == "what" || first == "whose" || first == "how") && auxWords[wordAt(w, 2)] &&
		questionSubjects[wordAt(w, 3)]:
		// "Which region should we use", "What time does it open", "How long does it take"
		asks = true
	case first == "how" && (second == "many" || second == "much" || second == "long" || second == "often" ||
		second == "far" || second == "soon") && (auxWords[wordAt(w, 2)] || auxWords[wordAt(w, 3)]):
		asks = true
	case (first == "did" || first == "have") && second == "i":
		// "Did I mention I'm moving to Berlin" tells.
		switch wordAt(w, 2) {
		case "mention", "mentioned", "tell", "told", "say", "said":
		default:
			asks = true
		}
	case first == "do" || first == "don't" || first == "have" || first == "haven't":
		asks = personalSubjects[second]
	case first == "may":
		asks = second == "i" || second == "we"
	case auxWords[first] && first != "'s" && first != "'re" && first != "had" && first != "must":
		asks = questionSubjects[second]
	}
	return asks && !secondClause(s, depth)
}

// endsInQuestionMark reports whether s ends in "?", before any closing
// punctuation or emoji ("Is it down?! 😅").
func endsInQuestionMark(s string) bool {
	return strings.HasSuffix(strings.TrimRightFunc(s, func(r rune) bool {
		return r != '?' && !isLetterOrDigit(r)
	}), "?")
}

// pseudoCleft reports whether the words after "what's" or "what is" go on
// to a second "is" ("What's worse is that...", "What is clear is..."),
// which makes the sentence a statement.
func pseudoCleft(w []string) bool {
	for i, x := range w {
		if i >= 4 {
			break
		}
		if x == "is" || x == "was" {
			return true
		}
	}
	return false
}

// -------------------------------------------------------- acknowledgements

// ackWords are the words an acknowledgement is made of: "Ok, thanks!",
// "Incident closed.", "Marking this as resolved", "Sounds good to me". A
// fact needs a word outside them: "The incident is resolved" ("is") and
// "INC-231 resolved" (an identifier) are facts.
var ackWords = wordSet(`ok okay k kk thanks thank thx ty tysm tyvm you got it noted sounds good great perfect cool
	sure will do on roger that ack acked acknowledged understood makes sense yes yeah yep yup no nope problem
	problems np nw worries lgtm sgtm done fixed sorted resolved closed closing close marking mark marked as this
	the ticket incident issue case thread page alert all set agreed fair enough works for me appreciate
	appreciated cheers nice awesome so much a lot very really again alright right excellent brilliant wonderful
	fantastic super sweet neat exactly correct true indeed absolutely definitely totally of course thing one
	catch point sorry apologies my bad lol haha hahaha lmao heh hehe yay wow ah oh now then just glad happy to
	help helped welcome pleasure anytime merged approved pushed and bye later see talk soon hi hello hey
	morning evening i i'm i'll we we're we'll agree see same here too me fine by whatever brb sec second moment
	hang hold bear with leave back check checking look looking into`)

// ackNumberRe: "+1" agrees.
var ackNumberRe = regexp.MustCompile(`^\+1\b`)

// thanksRe: thanks for something ("Thanks for the quick fix!", "Appreciate
// the help"), an acknowledgement up to the next clause. "Thanks to the new
// cache, p99 is 80 ms" gives a cause, not thanks.
var thanksRe = regexp.MustCompile(`^(?:(?:thanks|thank you|thx|ty|many thanks|cheers|kudos)(?: so much| a lot| very much| again| heaps)? for\b|(?:i |we )?(?:really |truly |greatly |much )?appreciated?\b|much appreciated\b)`)

// acknowledgement: the sentence only receives, thanks or closes.
func (t *text) acknowledgement(s string, w []string) bool {
	if ackNumberRe.MatchString(s) {
		return true
	}
	if core := bareSentence(s); ackPhraseRe.MatchString(core) || closableRe.MatchString(core) ||
		autoReplyRe.MatchString(s) || t.signIn(core) || reactionRe.MatchString(core) || offerRe.MatchString(core) ||
		deicticRe.MatchString(core) && countWords(core) <= 8 && !strings.ContainsFunc(core, unicode.IsDigit) ||
		t.acceptance(core) || t.announcement(core) {
		return true
	}
	if m := resolvedRe.FindStringSubmatchIndex(s); m != nil && m[4] >= 0 {
		return false // "it works again", "it's fine now": a system well again
	}
	if t.thanks(s) {
		return clauseEnd(s) == len(s)
	}
	if len(w) > 6 || strings.ContainsFunc(s, unicode.IsDigit) || hasIdentifier(s) {
		return false
	}
	if countWords(s) > len(w) {
		return false
	}
	for _, x := range w {
		if !ackWords[x] {
			return false
		}
	}
	return true
}

// ackPhraseRe: the formulas that cheer, wish well, praise the helper,
// close a turn or react without telling anything ("Congrats!", "Enjoy!",
// "Confirmed.", "Ship it.", "Have a good one.", "No, that's all.", "Actually
// one more thing.", "You've been amazing."), read on the whole sentence
// (bareSentence): "Confirmed: the outage was DNS" goes on to a fact.
var ackPhraseRe = regexp.MustCompile(`^(?:(?:oh|ah|wow|hmm|ha|haha|well|ok|okay|yeah|yes|no|and|actually|anyway|so|ugh|aw|aww)[,!.]* )*(?:` +
	`congrats|congratulations|congrats to (?:you|you both|you all|everyone|the team|all)|` +
	`congratulations to (?:you|you both|you all|everyone|the team|all)|` +
	`enjoy|enjoy (?:it|yourself|yourselves|the (?:trip|holiday|break|weekend|show|meal|ride|day)|` +
	`your (?:trip|holiday|vacation|weekend|day|break|time off|evening|meal|leave))|` +
	`(?:well|nicely) done|(?:nice|great|good|awesome|amazing|excellent) (?:work|job|stuff|one)|good luck|best of luck|` +
	`have (?:a|an) (?:good|great|nice|lovely|wonderful|safe|fun) (?:one|day|weekend|evening|night|trip|flight|time|holiday|break|shift)|` +
	`take care|confirmed|interesting|fascinating|ship it|go for it|` +
	`(?:just )?(?:kidding|joking)|jk|ugh|meh|phew|oops|whoops|yikes|argh|sigh|fine|` +
	`that(?:'s| is) (?:all|it|everything|perfect|great|fine|right|correct|true|fair|awesome|amazing|wonderful|lovely|brilliant|helpful|very helpful|super helpful|so helpful|exactly it)(?: for (?:now|today|me|this week))?|` +
	`(?:just )?(?:one|another) (?:more|last) (?:thing|question|request)|one last thing|` +
	`nothing (?:serious|major|urgent|important|else|much|new|worrying)|no rush|all good|` +
	`looking forward to (?:it|this|that|hearing from you|seeing you|chatting|talking|the call|` +
	`(?:working|meeting|collaborating) with (?:you|everyone|all of you|you all|the team|y'all))|` +
	`welcome aboard|welcome to the team|` +
	`you(?:'ve| have) been (?:amazing|awesome|great|so helpful|very helpful|super helpful|a great help|a big help|wonderful|brilliant|fantastic|a star|a lifesaver|incredible)|` +
	`you(?:'re| are) (?:amazing|awesome|the best|a star|a lifesaver|a legend|a hero|a gem|incredible)|you rock` +
	`)$`)

var (
	// reactionRe: a reaction that tells nothing ("First time ever.", "Love
	// this job.", "As usual.").
	reactionRe = regexp.MustCompile(`^(?:(?:oh|ah|wow|well|so|yeah|and|honestly|seriously|lol|haha)[,!.]* )*(?:` +
		`(?:the |a |my |our )?first time(?: ever)?|never again|not again|here we go again|as usual|as always|` +
		`same as (?:always|usual|ever|last time)|story of my life|typical|classic|figures|go figure|no surprise there|` +
		`(?:love|loving|hate|hating|gotta love|got to love|must love) (?:this|that|it|these|those)(?: [a-z]+)?)$`)
	// offerRe: help offered in the moment ("I'm happy to help with the
	// school bake sale"); another's willingness reported ("Priya is happy
	// to help with onboarding") is a fact.
	offerRe = regexp.MustCompile(`^(?:i'm|i am|we're|we are|i'd be|we'd be|i would be|we would be|i'll be|we'll be) (?:always |more than |very |really |so |just |also )?(?:happy|glad|pleased|willing|keen) to (?:help|assist|pitch in|lend a hand|chip in|volunteer|take part)\b`)
	// deicticRe: a pointer at what was said before ("Yeah, that's the nil
	// map.", "That's the decision from the postmortem."): it names no
	// subject of its own.
	deicticRe = regexp.MustCompile(`^(?:(?:yeah|yes|yep|ok|okay|right|so|and|ah|oh|hmm|exactly|true|well)[,!.]* )*(?:that's|that is|that was) (?:just |exactly |probably |definitely |basically |literally |really )?(?:the|a|an|our|my|your) [a-z' -]+$`)
	// acceptRe: an answer that accepts ("Ethan is fine.", "Email is ok
	// too"); the subject is one word.
	acceptRe = regexp.MustCompile(`^([a-z]+) is (?:fine|ok|okay|good|perfect|great|enough)(?: (?:too|as well|with me|by me|for me|for now))?$`)
	// announceRe: an action the speaker announces in the moment ("I'll
	// roll back the 14:05 deploy", "Let me check the logs"): what is done
	// next, reported by what it does, not kept.
	announceRe = regexp.MustCompile(`^(?:(?:ok|okay|right|sure|alright|on it)[,!]* )?(?:i'll|i will|i'm going to|i'm gonna|let me|lemme) (?:go |now |just |quickly |first )?(?:roll back|revert|restart|reboot|redeploy|rerun|retry|bounce|flush|drain|kill|silence|ack|acknowledge|check|look|take a look|have a look|dig|investigate|ping|page|escalate|grab|handle|pick (?:it|this|that) up|open|file|raise|kick|trigger|run|push|merge|deploy|fix|scale|fail over|cordon|pause|resume)\b`)
)

// acceptance reports whether core, a whole sentence, accepts what was
// offered ("Ethan is fine"), rather than telling how a system is ("Lag is
// fine").
func (t *text) acceptance(core string) bool {
	m := acceptRe.FindStringSubmatch(core)
	if m == nil {
		return false
	}
	return !isJobNoun(m[1]) && t.metricKey() == "" && !isIdentifier(m[1])
}

// announcement reports whether core, a whole sentence, announces an
// action the speaker takes now: no date but a clock time, no recurrence.
func (t *text) announcement(core string) bool {
	if !announceRe.MatchString(core) || t.find(fRecur, recurRe) != nil {
		return false
	}
	d, dated := t.findDate(noFactNow)
	return !dated || d.clockOnly
}

// closableRe: a ticket said to be closable, not closed ("Ticket can be
// closed."); "The ticket was closed" is a fact.
var closableRe = regexp.MustCompile(`^(?:(?:the|this|that|your|my|our) )?(?:ticket|issue|case|incident|thread|request|chat|conversation|pr|bug|it|this|that)(?: can| may| could| should)? be (?:closed|resolved|marked (?:as )?(?:resolved|closed|done))$`)

// autoReplyRe: the receipt and the promise of a reply a help desk sends on
// its own ("We received your request (#50211).", "An agent will respond
// within 24 hours.").
var autoReplyRe = regexp.MustCompile(`^(?:we(?:'ve| have)? (?:received|got) your (?:request|message|email|e-mail|ticket|inquiry|enquiry|report|query)\b|` +
	`(?:an? |one of our |our )?(?:agent|support agent|representative|rep|team member|member of (?:our|the) team|specialist|support team|team)s? will (?:respond|reply|get back to you|be in touch|contact you|reach out)\b)`)

// bareSentence is s without the punctuation, emoji and quotes around it.
func bareSentence(s string) string {
	return strings.TrimFunc(s, func(r rune) bool { return !isLetterOrDigit(r) && r != '+' && r != '#' })
}

// signIn reports whether core, a whole sentence, only names who speaks:
// "Julia here".
func (t *text) signIn(core string) bool {
	w := strings.Fields(core)
	if len(w) != 2 || w[1] != "here" || !strings.HasPrefix(t.norm, w[0]) && !strings.Contains(t.norm, " "+w[0]+" here") {
		return false
	}
	for _, r := range w[0] {
		if !unicode.IsLetter(r) {
			return false
		}
	}
	if ackWords[w[0]] || clauseSubjects[w[0]] || objectStarters[w[0]] {
		return false // "Same here", "Me here"
	}
	i := strings.Index(t.norm, w[0])
	r, _ := utf8.DecodeRuneInString(t.orig[t.off[i]:])
	return unicode.IsUpper(r)
}

// thanks reports whether s opens with thanks for something.
func (t *text) thanks(s string) bool { return thanksRe.MatchString(s) }

// clauseEnd is where the first clause of s ends: at a comma, a semicolon,
// a colon or "but", else at the end.
func clauseEnd(s string) int {
	end := len(s)
	if i := strings.IndexAny(s, ",;:"); i >= 0 {
		end = i
	}
	if i := strings.Index(s, " but "); i >= 0 && i < end {
		end = i
	}
	return end
}

// hasIdentifier reports whether s holds a word made for machines: one with
// an inner hyphen, underscore, dot, slash or hash ("billing-db", "node.js",
// "#4312").
func hasIdentifier(s string) bool {
	for i := 1; i+1 < len(s); i++ {
		switch s[i] {
		case '-', '_', '.', '/':
			if isPartByte(s[i-1]) && isPartByte(s[i+1]) {
				return true
			}
		case '#':
			if isPartByte(s[i+1]) {
				return true
			}
		}
	}
	return false
}

// -------------------------------------------------------------- openers

// openerRe: words that open a sentence and say nothing, followed by a
// comma, a colon or a dash (made a comma by normalize): "Ok, ", "Thanks Sam,
// ", "Got it: ", "Hey Claude, ", "Oh, ".
var openerRe = regexp.MustCompile(`^(?:(?:oh|ah|well|so|um|uh|hmm|and) )?(?:ok|okay|k|sure|sure thing|yes|yeah|yep|yup|right|alright|all right|great|cool|nice|awesome|perfect|excellent|fantastic|wonderful|brilliant|lovely|thanks|thank you|thanks so much|thank you so much|thanks a lot|thanks again|many thanks|cheers|got it|gotcha|noted|sounds good|understood|roger|roger that|will do|on it|no worries|no problem|np|fair enough|makes sense|good call|good catch|good point|ah|oh|well|so|hmm|um|uh|hi|hello|hey|hiya|morning|good morning|good afternoon|good evening|lol|haha|fyi|btw|also|anyway|anyways|actually|honestly|update|quick update|heads up|sorry|apologies|agreed|done|fixed|closed|resolved|confirmed|interesting|wait|no|nope|in the meantime|meanwhile|for now|until then|in the mean time)(?: [\p{L}][\p{L}'.]*)?\s*(?:[,:;]+|\.\.\.|!+)\s*`)

// afterOpener returns what follows the opener of s, or false when s opens
// with none. A "thanks for ..." opener runs to the end of its clause.
func (t *text) afterOpener(s string) (string, bool) {
	if t.thanks(s) {
		if end := clauseEnd(s); end < len(s) {
			rest := strings.TrimLeft(s[end:], ",;: ")
			rest = strings.TrimPrefix(rest, "but ")
			return t.origAfter(len(s) - len(rest)), true
		}
		return "", false
	}
	m := openerRe.FindStringIndex(s)
	if m == nil {
		m = asideRe.FindStringIndex(s)
	}
	if m == nil {
		return "", false
	}
	return t.origAfter(m[1]), true
}

// asideRe: a condition that only frames what follows it ("If I remember
// correctly, Jordan lives in Leeds", "In case you missed it, the API is
// down"): an opener, not a supposition.
var asideRe = regexp.MustCompile(`^(?:just )?(?:in case you (?:missed it|were wondering|didn't know|forgot)|if (?:you're|you are|anyone is) (?:wondering|curious|interested)|if you must know|if i (?:remember|recall)(?: correctly| right)?|if memory serves(?: me)?(?: right)?|if (?:it|that) (?:helps|matters)|if anyone asks|for what it's worth)\s*,\s*`)

// origAfter is the original text behind t.norm[i:] (s is t.norm trimmed,
// and normalize leaves no leading space).
func (t *text) origAfter(i int) string { return t.span(i, len(t.norm)) }

// ------------------------------------------------------------ instructions

// instructionVerbs are the bare imperatives that open an instruction.
// "remind" is missing on purpose: "Remind me to renew the passport" is an
// obligation the user keeps. "use" is missing too: "Use pnpm, not npm" is
// a decision.
var instructionVerbs = wordSet(`do make tell show give check keep stop ignore add remove delete create write
	summarize summarise explain list find look reopen open close ping escalate ask try run fix update draft
	investigate confirm restart reboot revert rollback rerun retry send share forward merge deploy cancel
	schedule book assign approve review rename enable disable install upgrade bump pin wait hold help get buy
	email message file raise grab pull push clean clear verify double-check triage rotate sync
	translate rewrite rephrase shorten expand compare describe walk note roll turn switch shut spin scale tear
	skip ship reply touch move drop kill mute unmute silence snooze pause resume tag label unpin set`)

// objectStarters open the object of an imperative: "Check the logs", "Ping
// me", "Explain why". "Fix version 2.3 ships Friday" and "Draft is ready"
// have none, and are facts.
var objectStarters = wordSet(`the a an this that these those it them him her me us my our your his their its
	all any some every each everything something anything everyone someone more again why how what where when who
	whether if sure yourself`)

// particles follow the verbs of particleVerbs in an imperative ("Look into
// it", "Escalate to tier 2"); after another word they read as a fragment
// ("Open to suggestions", "Update on the migration: done").
var (
	particles     = wordSet(`up down off on in back over through into at for with about out to`)
	particleVerbs = wordSet(`look check keep find hold wait roll follow reach sign ping try escalate send forward
		get add turn pick write fill shut reply switch roll spin scale tear set`)
)

// pleaseWords ask politely; "please" before anything is a request.
var pleaseWords = wordSet(`please pls plz kindly`)

// dontVerbs after "don't" make a statement with its subject left out ("Don't
// have a car", "Don't like phone calls"), not an order.
var dontVerbs = wordSet(`have know like love need want own drink eat smoke live work speak think care mind
	remember understand see feel believe recall plan usually really ever normally drive cook watch play get go
	mean agree`)

// instructionRe: a request put as a need: "I need you to ...", "You
// should ...".
var instructionRe = regexp.MustCompile(`^(?:i|we) (?:need|want|would like|'d like|d like) (?:you|someone|somebody|one of you) to\b|^(?:i|we)'d like (?:you|someone) to\b|^you (?:should|need to|must|have to|'ll need to|will need to)\b|^(?:let|lemme) (?:me|us) know\b|^make sure\b|^go ahead\b|^hold off\b`)

// instruction: the sentence tells someone to do something now. A dated
// request ("Rotate the API key by Friday", "Submit expenses by next
// Monday") is an obligation someone keeps, and a rule ("Never deploy on
// Fridays", "Use pnpm, not npm") a decision, a routine or a preference:
// those are facts.
func (t *text) instruction(s string, w []string, c Classification, depth int) bool {
	switch c.Category {
	case CategoryDecision, CategoryRoutine, CategoryPreference, CategoryIdentity:
		return false
	case CategoryObligation:
		if c.Deadline != nil && !lookupRe.MatchString(s) {
			return false
		}
	}
	if standingRe.MatchString(s) || noteRe.MatchString(s) {
		return false
	}
	if pleaseEndRe.MatchString(s) && !clauseSubjects[w[0]] && !strings.Contains(s, " not ") &&
		!strings.Contains(s, ", not") {
		return !secondClause(s, depth) // "Pavel Horak on the invoice, please": a request
	}
	if _, dated := t.findDate(noFactNow); dated && !lookupRe.MatchString(s) && !deviceRe.MatchString(s) {
		return false
	}
	if crowdOrderRe.MatchString(s) || letsRe.MatchString(s) && !secondClause(s, depth) {
		return true
	}
	found := false
	i := 0
	for i < 2 && i < len(w) && (pleaseWords[w[i]] || w[i] == "just" || w[i] == "also" || w[i] == "now" ||
		w[i] == "then" || w[i] == "and" || w[i] == "so") {
		i++
	}
	please := i > 0 && pleaseWords[w[0]]
	verb, next, after := wordAt(w, i), wordAt(w, i+1), wordAt(w, i+2)
	switch {
	case instructionRe.MatchString(s):
		found = true
	case verb == "don't" || verb == "dont" || verb == "do" && next == "not":
		v := next
		if verb == "do" {
			v = after
		}
		found = v != "" && !dontVerbs[v]
	case verb == "let" || verb == "lemme":
		found = next == "me" || next == "us"
	case verb == "be":
		found = next == "careful" || next == "sure" || next == "patient" || next == "concise" || next == "brief"
	case instructionVerbs[verb]:
		if at := wordIndex(s, i); at >= 0 && strings.HasPrefix(s[at+len(verb):], ":") {
			return false // a heading: "Update: the migration finished"
		}
		gerund := strings.HasSuffix(next, "ing") && (verb == "try" || verb == "stop")
		found = (gerund || t.imperativeObject(s, w, i+1) || putsSomewhere(s, i)) && !copula(next) && !copula(after)
	case please && verb != "" && !copula(verb):
		// "Please rotate the key", "Please send the invoice"
		found = true
	}
	return found && !secondClause(s, depth)
}

// pleaseEndRe: a request that ends in "please".
var pleaseEndRe = regexp.MustCompile(`,? (?:please|pls|plz)[.!]*$`)

// deviceRe: an order to a device, which is one even when it names the day
// ("Set my alarm for 5:15 tomorrow"); a reminder carries the duty it
// reminds of and stays a fact.
var deviceRe = regexp.MustCompile(`^(?:(?:please|pls|can you|could you) )?(?:set|cancel|snooze|turn off|switch off|stop|start|change|move|reset) (?:an?|my|the|this|that) (?:alarm|timer|wake-up call|wakeup call)s?\b`)

// lookupRe: a request to look something up is one even when it names the
// day the thing is for ("Find me a sushi place for Friday"); "Book a table
// for Friday" makes a plan and stays a fact.
var lookupRe = regexp.MustCompile(`^(?:(?:please|pls|can you|could you) )?(?:find|search for|look up|look for|recommend|suggest|google) (?:me|us|a|an|some|the|something|somewhere|options)\b`)

// crowdOrderRe: an order to everyone or no one, the verb bare ("Nobody touch
// the DNS until I say so", "Everyone update your passwords"); "Nobody
// touches the DNS" states a rule and is a fact.
var crowdOrderRe = regexp.MustCompile(`^(?:nobody|no one|no-one|everyone|everybody|somebody|someone|anyone) (?:touch|deploy|merge|push|restart|change|run|ping|page|reboot|delete|update|check|review|stop|start|close|open|reopen|use|commit|approve|rotate|revert|roll|edit|move|remove|upgrade|install|log|sign|join|grab|take|hold|wait)\b`)

// letsRe: "let's" that tries, waits or puts off rather than decides ("Let's
// try a smaller batch size and see", "Let's hold off on deciding", "Let's
// just do the grocery order"); "Let's go with Postgres" and "Let's not use
// ORMs" are decisions.
var letsRe = regexp.MustCompile(`^(?:ok,? |so,? |then,? )?(?:let's|lets|let us) (?:try|just (?:do the|try|wait|see|skip)|hold off|wait|see|revisit|circle back|park|table|pause|sleep on|think|talk|discuss|regroup|sync|take a look|look|check|skip|play it by ear|keep an eye|revisit)\b`)

// putsSomewhere reports whether the imperative whose verb is the i-th word
// of s puts a bare object somewhere and ends there: "Add oat milk to the
// shopping list", "Move the standup notes into the wiki". A copula, a
// number or a past participle in the object ("Add-on pricing is $5",
// "Order 1234 shipped to the depot") makes a fact.
func putsSomewhere(s string, i int) bool {
	w := leadingWords(s, 16)
	if countWords(s) != len(w) || len(w) > 12 || slices.ContainsFunc(w, copula) {
		return false // "Push notifications to the app are broken"
	}
	for j := i + 1; j < len(w) && j <= i+4; j++ {
		x := w[j]
		if copula(x) || strings.ContainsFunc(x, unicode.IsDigit) || strings.HasSuffix(x, "ed") && j > i+1 {
			return false
		}
		if j == i+1 {
			continue // the object has a word at least
		}
		switch x {
		case "to", "into", "onto", "from", "off", "on", "in":
		default:
			continue
		}
		det := wordAt(w, j+1)
		if det != "the" && det != "my" && det != "our" && det != "your" && det != "this" && det != "that" {
			return false
		}
		tail := len(w) - (j + 2)
		return tail >= 1 && tail <= 3
	}
	return false
}

// imperativeObject reports whether w[i] opens the object of an imperative: a
// determiner or pronoun, a name (capitalised in the original), or an
// identifier ("Reopen INC-231").
func (t *text) imperativeObject(s string, w []string, i int) bool {
	x := wordAt(w, i)
	if x == "" {
		return i > 0 && w[0] != "" && len(w) == i // "Retry." alone
	}
	if objectStarters[x] {
		return true
	}
	if particles[x] && particleVerbs[wordAt(w, i-1)] {
		// "Roll back the change", but "Set up took an hour": a noun.
		next := wordAt(w, i+1)
		return !strings.HasSuffix(next, "ed") && !pastVerbs[next]
	}
	if strings.ContainsFunc(x, unicode.IsDigit) || strings.ContainsAny(x, "-_") {
		// "Reopen INC-231", but not "Order 1234 shipped".
		next := wordAt(w, i+1)
		return !strings.HasSuffix(next, "ed") && !copula(next)
	}
	// A name: the word is capitalised where the writer wrote it.
	at := wordIndex(s, i)
	if at >= 0 && at < len(t.norm) {
		if r, _ := utf8.DecodeRuneInString(t.orig[t.off[at]:]); unicode.IsUpper(r) {
			return true
		}
	}
	return false
}

// pastVerbs are verbs in the past that make the words before them a
// subject ("Roll out took a week", "Set up went fine").
var pastVerbs = wordSet(`took went ran came broke made got left began became caught cost felt found gave held
	kept lost meant paid put said sent set shut spent stood struck taught told thought threw won wrote`)

// wordIndex is the offset in s of its n-th word (from 0), or -1.
func wordIndex(s string, n int) int {
	at, k := -1, 0
	scanWords(s, func(i int, _ string) bool {
		if k == n {
			at = i
			return false
		}
		k++
		return true
	})
	return at
}

// copula reports whether w makes the word before it a subject: "Draft is
// ready", "Review was fine", "Update has landed".
func copula(w string) bool {
	switch w {
	case "is", "are", "was", "were", "has", "have", "had", "'s", "will", "would", "can", "could", "should",
		"must", "may", "might", "of", "and", "or":
		return true
	}
	return false
}

// noFactNow is the reference time NotFact reads dates against: only whether
// a text names a date matters here, never which.
var noFactNow = time.Date(2026, 1, 5, 12, 0, 0, 0, time.UTC)

// ----------------------------------------------------------- hypotheticals

// hypotheticalStartRe: the openers of a supposition.
var hypotheticalStartRe = regexp.MustCompile(`^(?:if|even if|only if|suppose|supposing|imagine|assuming|assume|hypothetically|what if|let's say|lets say|say (?:we|i|you|they|he|she)|were (?:i|we)|had (?:i|we)|maybe|perhaps|possibly|hopefully|ideally|one day,? (?:i|we|i'll|we'll|i'd|we'd|you|he|she|they|my|our)|someday|some day|in an ideal world)\b`)

var (
	// ifModalRe: a condition with a modal ("If we moved the standup to 9
	// we'd lose Ana", "I would go if they paid").
	ifModalRe = regexp.MustCompile(`\bif (?:i|we|you|he|she|they|it|only)\b`)
	modalRe   = regexp.MustCompile(`\b(?:would|could|might|wouldn't|couldn't)\b|[a-z]'d\b|\bwere\b`)
	// wishRe: wishes, musings and plans not yet made.
	wishRe = regexp.MustCompile(`\b(?:(?:i|we|you|he|she|they|it) might|might (?:be|have|not|need|want|go|get|come|take|move|switch|quit|leave|join|lose|fail|break|happen|work|rain|slip|change|try|use|end up|buy|sell|hire|cancel|drop|run|ask|call|stay)|(?:i|we|you|he|she|they) could (?:be|have|try|use|switch|move|go|do|always|just|also|maybe|possibly|probably|potentially|consider|hire|add|look|buy|take|start|ask|swap|drop|cut|skip|save|split|rewrite|migrate|learn|get away)|thinking (?:about|of) [a-z]+ing|considering [a-z]+ing|toying with|(?:i|we|he|she|they) (?:wish|wished) (?:i|we|you|he|she|they|it|the|my|our|there|that)|someday|some day|hypothetically|would be (?:nice|great|cool|good|awesome|ideal) (?:if|to)|it'd be (?:nice|great|cool|good|awesome|ideal)|in an ideal world|what if)\b`)
	// preferRe: a stated preference put with "would": "Would rather be
	// contacted by email", "Priya would like a callback".
	preferRe = regexp.MustCompile(`\b(?:would|'d|d) (?:rather|like|prefer|love|hate|appreciate)\b`)
	// pastMarkRe: "I could see the error yesterday" is a past ability.
	pastMarkRe = regexp.MustCompile(`\b(?:yesterday|ago|last (?:week|night|time|month|year)|earlier|before|already)\b`)
)

var (
	// supposeRe: openers that make all that follows a supposition, whatever
	// it would be said plainly ("Imagine if the app had an offline mode,
	// I'd use it every day", "In theory I'd love to run a marathon").
	supposeRe = regexp.MustCompile(`^(?:in theory|theoretically|in an ideal world|in a perfect world|hypothetically|imagine|suppose|supposing|picture this|what if)\b`)
	// hedgeRe: a guess, said to be one ("Probably the new allocator, but
	// I'm not sure", "I think it's the flag, but not sure", "I think the
	// cache is unbounded", "We may raise them later, who knows"). A hedge
	// inside the sentence ("I live in Leeds, but not sure for how long")
	// leaves the fact.
	hedgeRe = regexp.MustCompile(`^(?:probably|likely|most likely|presumably|my (?:guess|hunch|bet) is|(?:just )?a (?:guess|hunch))\b|` +
		`^(?:i|we) (?:think|suspect|guess|reckon|bet) (?:it's|it is|it was|it might|it may|it could|that's|that is|this is|the|that|there's|there is|maybe|probably)\b|` +
		`(?:,|\bbut) (?:i'm |i am |i )?(?:not (?:sure|certain|100% sure|a hundred percent sure)|(?:don't|do not) know for sure|could be wrong|might be wrong)[.!…]*$|` +
		`(?:,|\bbut) who knows[.!…]*$|\bdon't quote me\b|\bi could be wrong\b|\bi might be wrong\b`)
	// undecidedRe: what disowns a decision ("Not a decision, just an
	// experiment", "let's not decide now", "Not saying we should"). That
	// a decision is still open ("We haven't decided between pnpm and npm
	// yet") is a fact.
	undecidedRe = regexp.MustCompile(`^not (?:a|the|yet a|our|my) (?:decision|final decision)\b|\blet's not decide\b|` +
		`^not saying (?:we|you|i|they) should\b|` +
		`^nothing(?:'s| is| has been| was)? (?:settled|decided|final|agreed|confirmed|set in stone)(?: (?:yet|so far|for now))?[.!]*$|` +
		`^(?:we|i|they|the team)(?: still)? (?:haven't|have not|hasn't|has not|didn't|did not) (?:decided|settled|agreed|chosen|picked)` +
		`(?: (?:on|about|for) (?:the |a )?(?:next|this|coming|following) (?:week|month|quarter|year|sprint|release|season|phase|step))?(?: yet)?[.!]*$`)
	// musingRe: a whole sentence that owns up to musing ("Just
	// daydreaming.", "Thinking out loud").
	musingRe = regexp.MustCompile(`^(?:just |only |i'm just |i'm only )?(?:daydreaming|dreaming|thinking out loud|thinking aloud|musing|brainstorming|spitballing|wondering|a thought|an idea|food for thought)$`)
	// conditionalRe: a consequence said without its condition ("I'd need a
	// bigger flat", "We would lose the replica"); a preference ("I'd like",
	// "I'd rather", preferRe) and "'d" for "had" ("I'd been there") are not.
	conditionalRe = regexp.MustCompile(`^(?:i|we|you|he|she|they)(?:'d| would) (?:need|have to|want|go|get|buy|move|take|use|lose|make|pay|start|switch|try|be|miss|end up|consider|hire|learn|save|spend|sell|quit|probably|definitely|totally|happily)\b`)
)

var (
	// wishIfRe: a condition put on a wish ("if we add the third site").
	wishIfRe = regexp.MustCompile(`\bif (?:i|we|you|they|he|she|it) [a-z]+`)
	// politeIfRe: a condition that only asks politely ("if possible", "if
	// you can").
	politeIfRe = regexp.MustCompile(`\bif (?:possible|you can|you could|you don't mind|that's ok|that's okay|that works|that's possible|at all possible|it's possible|it helps)\b`)
	// jointRe: where a second clause starts.
	jointRe = regexp.MustCompile(`, (?:so|but|and|though|which means) |; `)
)

// conditionalWish reports whether s puts a condition on a wish ("We'd
// love a discount if we add the third site"). The if-clause right after
// the wish is what is wished ("I'd prefer if you called", "I'd like it if
// you called"), and a polite one ("if possible") none.
func (t *text) conditionalWish(s string) bool {
	p := preferRe.FindStringIndex(s)
	if p == nil || politeIfRe.MatchString(s) {
		return false
	}
	m := wishIfRe.FindStringIndex(s[p[1]:])
	if m == nil {
		return false
	}
	between := strings.TrimSpace(s[p[1] : p[1]+m[0]])
	return between != "" && between != "it"
}

// lastJoint is where the last second clause of s starts, or -1.
func lastJoint(s string) int {
	ms := jointRe.FindAllStringIndex(s, -1)
	if len(ms) == 0 {
		return -1
	}
	return ms[len(ms)-1][0]
}

// hypothetical: the sentence supposes, wishes or muses rather than states.
// "May" is never a cue (it is also the month) nor "probably" ("lag is 4 s,
// probably the backup" is a reading). A condition that sets a habit or a
// rule ("If it rains, Jordan works from home", "If lag tops 10 s, always
// page the DBA") is a fact.
func (t *text) hypothetical(s string, w []string, c Classification) bool {
	if supposeRe.MatchString(s) || hedgeRe.MatchString(s) || undecidedRe.MatchString(s) ||
		musingRe.MatchString(bareSentence(s)) {
		return true
	}
	if t.conditionalWish(s) {
		return true // "We'd love a discount if we add the third site"
	}
	if c.Category == CategoryRoutine || c.Category == CategoryPreference || standingRe.MatchString(s) ||
		preferRe.MatchString(s) {
		return false
	}
	if asideRe.MatchString(s) {
		return false // the rest decides (afterOpener)
	}
	if hypotheticalStartRe.MatchString(s) {
		return true
	}
	if ifModalRe.MatchString(s) && modalRe.MatchString(s) || conditionalRe.MatchString(s) {
		return true
	}
	if m := wishRe.FindStringIndex(s); m != nil {
		if j := lastJoint(s[:m[0]]); j > 0 {
			// "I'm on call this weekend, so I might not answer": a fact,
			// then a guess at what follows from it.
			head := strings.TrimSpace(s[:j])
			if Classify(head, noFactNow).Reason != noRule {
				return false
			}
		}
		return !(strings.Contains(s[m[0]:m[1]], " could ") && pastMarkRe.MatchString(s))
	}
	return false
}

// ----------------------------------------------------------------- sarcasm

var (
	// sarcasmOpenRe: "Oh great", "Oh joy": delight that the rest of the
	// sentence, or nothing at all, belies.
	sarcasmOpenRe = regexp.MustCompile(`^(?:oh|ah)[,!]* (?:great|wonderful|fantastic|perfect|joy|lovely|brilliant|goody|fun|terrific|super|splendid|marvell?ous|nice|cool)\b`)
	// sarcasmGreatRe: "Great, another outage", "Perfect, more meetings".
	sarcasmGreatRe = regexp.MustCompile(`^(?:oh[,!]* )?(?:great|wonderful|fantastic|perfect|lovely|brilliant|awesome|terrific|super|splendid|fabulous|nice|fun)[,!.]* (?:another|more|yet another|yet more|just what|exactly what|because|here we go)\b`)
	// sarcasmPhraseRe: phrases that are sarcastic wherever they stand.
	sarcasmPhraseRe = regexp.MustCompile(`\b(?:just what (?:i|we) (?:needed|need|wanted)|exactly what (?:i|we) needed|yeah,? right|what a (?:surprise|shock)|big surprise|colou?r me (?:surprised|shocked)|shocking,? i know|thanks for nothing|that went well|because that always works|because that (?:worked|went) so well|what could (?:possibly )?go wrong|said no ?one ever|said nobody ever|how (?:convenient|delightful)|could this day get any better|oh joy|oh goody)\b|^as if\b|^(?:sure|yeah|right|oh sure|oh yeah|oh right)[,!]* because\b|^another (?:day|week|monday|morning|night|sprint|release|deploy|quarter|weekend)[,!]* another\b|(?:^|\s)/s[.!]*$|\x{1F644}|\beye ?roll\b|` +
		`\blove that for (?:me|us|you|them)\b|\bwhich is (?:hilarious|rich|ironic|adorable|cute|hysterical|hilarious given)\b|` +
		`^that went (?:great|swimmingly|brilliantly|perfectly|fantastic)[.!]*$|` +
		`^(?:truly|literally|easily|officially|seriously|honestly) the (?:best|greatest|happiest) (?:day|week|night|morning|monday|time|moment) (?:of my life|ever)\b|` +
		`^(?:it |that |this )?only took (?:me |us |you |them |him |her )?(?:\S+ )?(?:hours|days|weeks|months|years|forever|ages)\b|` +
		`^took (?:you|y'all|them|you guys|you all) (?:long enough|(?:\S+ )?(?:hours|days|weeks|months|forever|ages))\b`)
	// praiseEndRe: praise tacked on to a trouble ("Wow, the linter found
	// 400 warnings, amazing.").
	praiseEndRe = regexp.MustCompile(`, (?:just )?(?:amazing|great|wonderful|fantastic|perfect|brilliant|lovely|awesome|love it|love that|fun|terrific|splendid|super|fabulous|marvell?ous|incredible)[.!…]*$`)
	// choreRe: what loving is sarcasm about, beyond troubles ("I just love
	// doing taxes on a Sunday").
	choreRe = regexp.MustCompile(`\b(?:taxes|tax returns?|paperwork|chores|traffic|commute|commuting|meetings|forms|laundry|ironing|expense reports?|timesheets|invoices|admin)\b`)
	// loveTroubleRe: loving what nobody loves ("I just love being paged
	// at 3am", "Love how the build breaks every Friday").
	loveTroubleRe = regexp.MustCompile(`\b(?:love|loves|adore|adores|enjoy|enjoys|nothing like|nothing says)(?: it)? (?:when|how|being|getting|having|waiting|spending|doing|dealing|filling|sitting|a|an|the)\b`)
	troubleRe     = regexp.MustCompile(`\b(?:warnings|errors|failures|paged|pages|pager|woken|woke|ignored|blamed|stuck|waiting|breaks|broke|broken|fails|failed|failing|crash|crashes|crashed|crashing|down|late|outage|outages|flaky|flakes|on hold|delayed|delays|cancell?ed|timeouts?|timed out|rejected|red|bugs?|regressions?|incidents?|3am|2am|4am|overtime|reverted|rollback)\b`)
	// sarcasmEndRe: a trouble told with a sarcastic opener ("Great, the
	// build is broken again").
	sarcasmEndRe = regexp.MustCompile(`\b(?:again|as usual|as always|of course)[.!]*$`)
	// greatOpenRe: a delighted opener.
	greatOpenRe = regexp.MustCompile(`^(?:oh[,!]* )?(?:great|wonderful|fantastic|perfect|lovely|brilliant|awesome|terrific|super|fabulous|nice|fun)[,!.]`)
)

// sarcastic reports whether s says the opposite of what it means in a way a
// rule can see. "Great, the deploy finished." and "Oh nice, Jordan is back"
// are not: nothing in them belies the delight.
func sarcastic(s string) bool {
	if sarcasmPhraseRe.MatchString(s) || sarcasmGreatRe.MatchString(s) {
		return true
	}
	trouble := troubleRe.FindStringIndex(s) != nil && !Resolves(s)
	if m := sarcasmOpenRe.FindStringIndex(s); m != nil {
		rest := strings.TrimLeft(s[m[1]:], " ,!.")
		if trouble {
			return true
		}
		if rest == "" {
			// "Oh joy." alone; "Oh great." and "Oh nice." alone may be meant.
			switch w := strings.Fields(s[:m[1]]); w[len(w)-1] {
			case "great", "nice", "cool", "perfect", "super":
				return false
			}
			return true
		}
		switch first, _ := nextWord(rest, 0); first {
		case "another", "more", "yet", "again", "just", "exactly", "because", "here", "now", "nothing":
			return true
		}
	}
	if greatOpenRe.MatchString(s) && trouble && sarcasmEndRe.MatchString(s) {
		return true
	}
	if m := loveTroubleRe.FindStringIndex(s); m != nil && (troubleRe.MatchString(s[m[1]:]) || choreRe.MatchString(s[m[1]:])) {
		return true
	}
	if trouble && praiseEndRe.MatchString(s) {
		return true
	}
	return false
}

// --------------------------------------------------------------- negations

var (
	// negationRe: the words that deny a value.
	negationRe = regexp.MustCompile(`\b(?:no longer|any ?more|any longer|used to|moved (?:out of|away from)|(?:quit|left|leaving|quitting|resigned from) (?:my|his|her|their|our|the) (?:job|position|role)|stopped|gave up)\b`)
	// negWordRe: the negation an "anymore" needs before it.
	negWordRe = regexp.MustCompile(`\b(?:not|never|no|nobody|nothing)\b|n't\b`)
	// newValueRe: the sentence goes on to state the new value ("I'm not a
	// nurse anymore, I'm a teacher", "I used to live in Leeds but now ...").
	newValueRe = regexp.MustCompile(`\b(?:now|instead|these days|nowadays|currently)\b|(?:,|;| but| and) (?:i|i'm|im|i've|i'll|we|we're|he|she|he's|she's|they|they're|it's|my|our|his|her|their|moved|switched|started|joined|work|works|live|lives)\b`)
	// denyRe: the words stripped to read what is denied.
	denyRe     = regexp.MustCompile(`\b(?:no longer|any ?more|any longer|not|never|do not|does not|did not|don't|doesn't|didn't|dont|doesnt|didnt|stopped|gave up)\b`)
	contractRe = regexp.MustCompile(`\b(is|are|was|were|has|have|had|ca|wo|ai)n't\b`)
	usedToBeRe = regexp.MustCompile(`\b(i|we|you|they|[a-z]+) used to be\b`)
	usedToRe   = regexp.MustCompile(`\bused to\b`)
	movedOutRe = regexp.MustCompile(`\bmoved (?:out of|away from)\b`)
	leftJobRe  = regexp.MustCompile(`\b(?:quit|left|leaving|quitting|resigned from) (?:my|his|her|their|our|the) (?:job|position|role)\b`)
)

// negation reports whether s denies an attribute it names ("I no longer
// live in Berlin", "I don't work at Globex anymore", "I used to be a
// nurse") and its key. A mood, a state or a decision said in the negative
// is what holds now ("Edmund is not stressed anymore", "The VPN is no
// longer flaky"), and a denial with no attribute to retire ("Priya doesn't
// need to file taxes this year") or that goes on to the new value ("I'm not
// a nurse anymore, I'm a teacher") is a fact too.
func (t *text) negation(s string, c Classification, whole bool) (string, bool) {
	m := t.negationMarker(s)
	if m == nil {
		return "", false
	}
	if newValueRe.MatchString(s[m[1]:]) {
		return "", false
	}
	switch c.Category {
	case CategoryMood, CategoryState, CategoryDecision:
		if whole {
			return "", false
		}
	}
	denied := Classify(deniedText(s), noFactNow)
	switch denied.Category {
	case CategoryMood, CategoryState, CategoryDecision:
		return "", false
	}
	key := ""
	switch {
	case denied.Key != "" && !IsGenericKey(denied.Key):
		key = denied.Key
	case whole && c.Key != "" && !IsGenericKey(c.Key):
		key = c.Key
	case leftJobRe.MatchString(s):
		key = "employer"
	}
	return key, key != ""
}

// negationMarker finds the words of s that deny a value, or nil. "Any more"
// needs a negation before it ("I don't work there any more"), "used to" is
// not "is used to", and "no longer than" is a length.
func (t *text) negationMarker(s string) []int {
	for from, tries := 0, 0; from < len(s) && tries < maxTries; tries++ {
		loc := negationRe.FindStringIndex(s[from:])
		if loc == nil {
			return nil
		}
		a, b := from+loc[0], from+loc[1]
		from = b
		switch w := s[a:b]; {
		case w == "no longer":
			if next, _ := nextWord(s, b); next == "than" {
				continue
			}
		case strings.HasPrefix(w, "any"):
			if !negWordRe.MatchString(s[sentenceStart(s, a):a]) {
				continue
			}
			if next, _ := nextWord(s, b); next != "" && w == "any more" {
				continue // "any more questions"
			}
		case w == "used to":
			var prev [1]string
			if wordsBefore(s, a, prev[:]) == 1 {
				switch prev[0] {
				case "am", "'m", "i'm", "im", "is", "'s", "are", "'re", "we're", "they're", "you're", "was", "were",
					"be", "been", "being", "get", "got", "getting", "gets", "become", "became", "it's", "he's", "she's":
					continue // "I'm used to working nights"
				}
			}
		case w == "stopped" || w == "gave up":
			// Only people give things up: "the backup stopped running" is an
			// incident, not a retraction.
			next, _ := nextWord(s, b)
			var prev [1]string
			wordsBefore(s, a, prev[:])
			if w == "stopped" && !strings.HasSuffix(next, "ing") || next == "" || !quitters[prev[0]] {
				continue
			}
		}
		return []int{a, b}
	}
	return nil
}

// quitters are the words before "stopped" or "gave up" when a person
// stops a habit ("I stopped drinking coffee", "she finally gave up meat").
var quitters = wordSet(`i we he she they you i've we've they've he's she's finally just recently already
	have has`)

// deniedText is s said in the affirmative, to name what it denies: "i no
// longer live in berlin" is "i live in berlin", "i used to be a nurse" "i
// am a nurse".
func deniedText(s string) string {
	s = usedToBeRe.ReplaceAllStringFunc(s, func(m string) string {
		subject := strings.Fields(m)[0]
		switch subject {
		case "i":
			return "i am"
		case "we", "you", "they":
			return subject + " are"
		}
		return subject + " is"
	})
	s = usedToRe.ReplaceAllString(s, "")
	s = movedOutRe.ReplaceAllString(s, "live in")
	s = leftJobRe.ReplaceAllString(s, "job")
	s = contractRe.ReplaceAllStringFunc(s, func(m string) string {
		switch m {
		case "can't":
			return "can"
		case "won't":
			return "will"
		case "ain't":
			return "is"
		}
		return strings.TrimSuffix(m, "n't")
	})
	s = denyRe.ReplaceAllString(s, "")
	return strings.Join(strings.Fields(s), " ")
}
