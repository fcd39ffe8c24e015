package classify

import (
	"regexp"
	"strings"
)

// Obligations close when they are fulfilled. "Paid the water bill" closes
// "I must pay the water bill by Friday": the statement does, in the past
// or perfect tense, the action the obligation names (or says it is done),
// about a thing the obligation names. Fulfils decides it from the two
// texts alone; the store archives the obligation as fulfilled by the fact
// that says so (memory/supersede.go).

// obligationActionRe finds the action an obligation names: the verb after
// a modal of duty, or the first word of a bare imperative, and what
// follows it.
var obligationActionRe = regexp.MustCompile(`\b(?:must|need(?:s|ed)? to|have to|has to|had to|got to|gotta|should|ought to|remember to|don't forget to|do not forget to|supposed to|required to|reminder to|reminder:|todo:|to do:)\s*([a-z]+)\s+(.+)$`)

// imperativeRe reads a bare imperative ("Pay the invoice by the 5th"): its
// first word and what follows it.
var imperativeRe = regexp.MustCompile(`^(?:please\s+)?([a-z]+)\s+(.+)$`)

// doneRe finds a statement that something is done, whatever the verb.
var doneRe = regexp.MustCompile(`\b(?:done|finished|completed|complete|taken care of|sorted|handled|dealt with|ticked off|crossed off)\b`)

// negatedRe finds a denial before a verb: "haven't paid", "not yet sent".
var negatedRe = regexp.MustCompile(`\b(?:not|never|no longer|yet to|still (?:need|have) to)\b|n't\b`)

// irregularPast maps a verb to its past forms where they are not verb+ed.
var irregularPast = map[string][]string{
	"pay": {"paid"}, "send": {"sent"}, "buy": {"bought"}, "make": {"made"}, "do": {"did", "done"},
	"write": {"wrote", "written"}, "give": {"gave", "given"}, "take": {"took", "taken"}, "get": {"got", "gotten"},
	"find": {"found"}, "bring": {"brought"}, "tell": {"told"}, "meet": {"met"}, "leave": {"left"},
	"sell": {"sold"}, "read": {"read"}, "feed": {"fed"}, "pick": {"picked"}, "put": {"put"}, "set": {"set"},
	"go": {"went", "gone"}, "see": {"saw", "seen"}, "speak": {"spoke", "spoken"}, "ring": {"rang", "rung"},
	"drive": {"drove", "driven"}, "run": {"ran"}, "build": {"built"}, "lend": {"lent"}, "spend": {"spent"},
	"sign": {"signed"}, "hold": {"held"}, "keep": {"kept"}, "forget": {"forgot"}, "choose": {"chose", "chosen"},
	"rewrite": {"rewrote", "rewritten"}, "upload": {"uploaded"}, "shut": {"shut"}, "cut": {"cut"},
}

// pastForms are the past forms of verb: its irregular ones, or verb+ed
// with English spelling (file: filed, ship: shipped, apply: applied).
func pastForms(verb string) []string {
	if p, ok := irregularPast[verb]; ok {
		return p
	}
	n := len(verb)
	switch {
	case n < 2:
		return nil
	case strings.HasSuffix(verb, "e"):
		return []string{verb + "d"}
	case strings.HasSuffix(verb, "y") && !strings.ContainsRune("aeiou", rune(verb[n-2])):
		return []string{verb[:n-1] + "ied"}
	}
	forms := []string{verb + "ed"}
	if c := verb[n-1]; n >= 3 && !strings.ContainsRune("aeiouwxy", rune(c)) &&
		strings.ContainsRune("aeiou", rune(verb[n-2])) && !strings.ContainsRune("aeiou", rune(verb[n-3])) {
		forms = append(forms, verb+string(c)+"ed") // ship: shipped, submit: submitted, cancel: cancelled
	}
	return forms
}

// objectStop are words of an obligation's object that say nothing of what
// the thing is.
var objectStop = map[string]bool{
	"the": true, "a": true, "an": true, "my": true, "our": true, "your": true, "his": true, "her": true,
	"their": true, "this": true, "that": true, "these": true, "those": true, "some": true, "to": true,
	"for": true, "of": true, "and": true, "or": true, "with": true, "in": true, "on": true, "at": true,
	"it": true, "them": true, "him": true, "me": true, "us": true, "off": true, "up": true, "out": true,
	"back": true, "new": true, "all": true, "again": true, "please": true,
}

// objectPrep are prepositions that end an object's first phrase.
var objectPrep = map[string]bool{"for": true, "to": true, "with": true, "at": true, "from": true, "about": true,
	"on": true, "in": true, "into": true, "of": true}

// determiner are the words that open a noun phrase.
var determiner = map[string]bool{"the": true, "a": true, "an": true, "my": true, "our": true, "your": true,
	"his": true, "her": true, "their": true, "this": true, "that": true, "some": true}

// objectEnd are words after which an obligation's object has ended: its
// deadline or its reason follow.
var objectEnd = map[string]bool{
	"by": true, "before": true, "until": true, "till": true, "tomorrow": true, "today": true, "tonight": true,
	"next": true, "this": true, "due": true, "because": true, "so": true, "asap": true, "soon": true,
	"when": true, "after": true, "once": true, "monday": true, "tuesday": true, "wednesday": true,
	"thursday": true, "friday": true, "saturday": true, "sunday": true, "end": true, "eod": true, "eow": true,
}

// Fulfils reports whether statement says that obligation has been done:
// the obligation's action in the past or perfect tense, or a word for
// done, not denied, and at least one word of the thing the obligation
// names (a plural or another ending of it counts).
func Fulfils(obligation, statement string) bool {
	o := strings.ToLower(strings.TrimSpace(obligation))
	s := strings.ToLower(strings.TrimSpace(statement))
	if o == "" || s == "" || strings.HasSuffix(s, "?") {
		return false
	}
	m := obligationActionRe.FindStringSubmatch(o)
	if m == nil {
		if m = imperativeRe.FindStringSubmatch(o); m == nil {
			return false
		}
	}
	verb, object := m[1], m[2]
	tokens := strings.FieldsFunc(object, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r >= 0x80)
	})
	// The thing is the object's first phrase: "apply for the visa" (a
	// preposition first is skipped), "ship the hotfix for checkout" (it
	// ends at the next one), "send Ana the contract" (a word before a
	// determiner is whom it goes to, not the thing).
	if len(tokens) > 0 && objectPrep[tokens[0]] {
		tokens = tokens[1:]
	}
	if len(tokens) > 2 && !objectStop[tokens[0]] && determiner[tokens[1]] {
		tokens = tokens[1:]
	}
	var things []string
	for _, w := range tokens {
		if objectEnd[w] || objectPrep[w] {
			break
		}
		if len(w) >= 3 && !objectStop[w] {
			things = append(things, w)
		}
	}
	if len(things) == 0 {
		return false
	}
	words := strings.FieldsFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '\'' || r >= 0x80)
	})
	acted := -1
	forms := pastForms(verb)
	for i, w := range words {
		for _, f := range forms {
			if w == f {
				acted = i
			}
		}
	}
	if acted < 0 {
		if loc := doneRe.FindStringIndex(s); loc != nil {
			acted = len(strings.Fields(s[:loc[0]]))
		}
	}
	if acted < 0 {
		return false
	}
	// Denied: "haven't paid", "not sent yet", "still need to pay".
	before := strings.Join(words[max(0, acted-3):min(acted, len(words))], " ")
	if negatedRe.MatchString(before) || strings.Contains(s, " yet") && negatedRe.MatchString(s) {
		return false
	}
	for _, t := range things {
		stem := t
		if len(stem) > 5 {
			stem = stem[:len(stem)-2] // invoices: invoic, renewal: renew
		}
		for _, w := range words {
			if strings.HasPrefix(w, stem) {
				return true
			}
		}
	}
	return false
}
