package extract

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/tenurehq/tenure/memory"
)

// This file makes one entity of the names a text gives one person or thing,
// however they are spelled. Once the rule-based extractor has attributed
// every sentence, canonicalEntities rewrites the candidates' entities:
//
//   - A relation the text names ("my sister Maya", "Maya is my sister", "my
//     sister's name is Maya", "Maya, my sister, ...", "my manager is Tom
//     Reid": memory.NamedRelations) is that person: "Jordan's sister" becomes
//     Maya, whichever sentence comes first, unless the text names two
//     sisters or two speakers have one. "My sister's name is Maya" is
//     itself about Maya, not about the speaker.
//   - The spellings of one name that differ only in case, white space or
//     accents ("Zoë" and "Zoe", "ACME Robotics" and "Acme Robotics") are one
//     entity, spelled as the caller spells it (its speaker or entity), else
//     as the text first spells it with a capital, preferring a spelling that
//     is not shouted and one that keeps its accents. A system's name
//     ("billing-db", "db-2") keeps its lowercase.
//   - A first name alone is the one full name of the text that starts with
//     it: "Ana" is "Ana Ruiz" when the text names Ana Ruiz, as a subject, a
//     speaker's label or in passing, and no other Ana. Two full names that
//     share it ("Ana Ruiz" and "Ana Lopez") leave "Ana" alone, and so does a
//     name that reads as a product of the first ("GitHub Actions", "Google
//     Cloud").
//
// Otherwise the user (memory.UserEntity), the caller's speaker and entity
// and the empty entity are never rewritten. Each rewritten candidate's reason says
// which name it was and which it is now.

// foldName is the form in which two spellings of a name compare equal:
// lowercase, white space collapsed to single spaces, accents dropped ("Zoë"
// is "zoe", "Ñuñez" is "nunez") and curly apostrophes straightened. Letters
// that carry no separable accent are mapped to the letters people type for
// them: ø is o, ł is l, đ and ð are d, æ is ae, œ is oe, ß is ss and the
// dotless ı is i.
func foldName(s string) string {
	s = norm.NFD.String(strings.ToLower(s))
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		switch {
		case unicode.Is(unicode.Mn, r):
			continue
		case unicode.IsSpace(r):
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		switch r {
		case 'ø':
			b.WriteByte('o')
		case 'ł':
			b.WriteByte('l')
		case 'đ', 'ð':
			b.WriteByte('d')
		case 'æ':
			b.WriteString("ae")
		case 'œ':
			b.WriteString("oe")
		case 'ß':
			b.WriteString("ss")
		case 'ı':
			b.WriteByte('i')
		case '’', '‘':
			b.WriteByte('\'')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// productWords end a name that is a product, a service or a part of its
// first word's owner rather than a person's or a company's full name:
// "GitHub Actions" is not GitHub, "React Native" not React, "Google Cloud"
// not Google.
var productWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`actions pages workers functions lambda cloud drive docs sheets slides mail
		maps calendar meet chat teams team support status console dashboard portal platform api apis sdk cli
		app apps store service services server servers cluster db database gateway bot web mobile desktop
		native router query boot studio code framework hooks components kit script compose engine runtime
		registry hub monitor analytics insights manager operator agent connect checkout billing payments pay
		wallet ads search shell terminal editor notebook notebooks tests library toolkit suite os phone watch
		tv music play pro plus premium enterprise free edition beta alpha preview update release`) {
		m[w] = true
	}
	return m
}()

// Relation aliases: a relation of the speaker's and the name the text gives
// it. The name is one to three capitalised words.
const relName = `(\p{Lu}[\p{L}'’-]*(?: \p{Lu}[\p{L}'’-]*){0,2})`

var (
	// myRelNameRe: "my sister Maya", "my manager, Sam Lee".
	myRelNameRe = regexp.MustCompile(`\b[Mm]y ([\p{L}-]+),? ` + relName)
	// nameIsMyRelRe: "Maya is my sister", "Sam Lee is also my manager".
	nameIsMyRelRe = regexp.MustCompile(`\b` + relName + ` (?:is|was|'s|’s) (?:also |actually )?my ([\p{L}-]+)`)
	// myRelCalledRe: "my sister's name is Maya", "my sister is called Maya".
	myRelCalledRe = regexp.MustCompile(`\b[Mm]y ([\p{L}-]+)(?:(?:'s|’s) name is| is (?:called|named)) ` + relName)
)

// canonicalEntities rewrites the entities of cands, which the rule-based
// extractor found in text, so that one person or thing has one name (see
// above). speaker and entity are the caller's, kept as they are.
func canonicalEntities(cands []Candidate, text, speaker, entity string) []Candidate {
	if len(cands) == 0 {
		return cands
	}
	fixed := map[string]string{} // fold → the caller's spelling
	for _, n := range []string{speaker, entity} {
		if f := foldName(n); f != "" && n != memory.UserEntity {
			if _, ok := fixed[f]; !ok {
				fixed[f] = n
			}
		}
	}
	// final maps each entity of cands to its name; it starts as itself.
	final := make(map[string]string, len(cands))
	var order []string
	for _, c := range cands {
		if _, ok := final[c.Entity]; !ok {
			final[c.Entity] = c.Entity
			order = append(order, c.Entity)
		}
	}
	// Relations the text names.
	relations := relationNames(text)
	for _, e := range order {
		if !isRelationEntity(e) {
			continue
		}
		i := strings.LastIndex(e, "'s ")
		rel := strings.ToLower(e[i+3:])
		name, ok := relations[rel]
		if !ok || name == "" || !onlyRelation(order, rel) {
			continue
		}
		final[e] = name
	}

	// The spellings of each fold, in the order the text gives them.
	spellings := map[string][]string{}
	var folds []string
	addSpelling := func(n string) {
		f := foldName(n)
		if f == "" || utf8.RuneCountInString(n) > MaxEntity {
			return
		}
		if _, ok := spellings[f]; !ok {
			folds = append(folds, f)
		}
		spellings[f] = append(spellings[f], n)
	}
	for _, e := range order {
		if n := final[e]; !isRelationEntity(n) {
			addSpelling(n)
		}
	}
	for _, n := range namesIn(text) {
		addSpelling(n)
	}
	spelling := map[string]string{}
	for _, f := range folds {
		if n, ok := fixed[f]; ok {
			spelling[f] = n
		} else {
			spelling[f] = preferredSpelling(spellings[f])
		}
	}
	for f, n := range fixed {
		spelling[f] = n // the caller's, also when no candidate spells it
	}

	// The full names each first name may stand for.
	fullNames := map[string][]string{} // fold of the first word → folds of full names
	for _, f := range folds {
		words := strings.Fields(spelling[f])
		if len(words) < 2 || !fullName(words) {
			continue
		}
		first := foldName(words[0])
		fullNames[first] = append(fullNames[first], f)
	}
	for f, n := range fixed {
		if words := strings.Fields(n); len(words) >= 2 && fullName(words) && !slices.Contains(folds, f) {
			first := foldName(words[0])
			fullNames[first] = append(fullNames[first], f)
		}
	}

	// resolve is the name of n: its fold's spelling, or the one full name
	// that starts with it.
	resolve := func(n string) string {
		f := foldName(n)
		if s, ok := spelling[f]; ok {
			n = s
		}
		if _, kept := fixed[f]; !kept && !strings.Contains(n, " ") && nameWord(n) {
			if full := fullNames[f]; len(full) == 1 {
				n = spelling[full[0]]
			}
		}
		return n
	}
	for _, e := range order {
		if n := final[e]; n != "" && !isRelationEntity(n) && foldName(n) != memory.UserEntity {
			final[e] = resolve(n)
		}
	}

	out := make([]Candidate, len(cands))
	for i, c := range cands {
		n, note := final[c.Entity], ""
		// "My sister's name is Maya" is about Maya, not about the speaker.
		if m := myRelCalledRe.FindStringSubmatchIndex(c.Content); m != nil && m[0] == 0 &&
			isRelationWord(c.Content[m[2]:m[3]]) {
			if name := trimName(c.Content[m[4]:m[5]]); name != "" {
				n = resolve(name)
				note = "; about " + n + ", the speaker's " + strings.ToLower(c.Content[m[2]:m[3]])
			}
		}
		if n != c.Entity && n != "" {
			if note == "" {
				note = "; " + c.Entity + " is " + n
			}
			c.Reason += note
			c.Entity = n
		}
		out[i] = c
	}
	return out
}

// isRelationWord reports whether w, lowercase, is a relation of a person's
// that memory.SubjectOf knows ("sister", "manager").
func isRelationWord(w string) bool {
	return memory.SubjectOf("my "+strings.ToLower(w)+" is here").Kind == memory.SubjectRelation
}

// isRelationEntity reports whether e is a relation of a speaker's, such as
// "Jordan's sister".
func isRelationEntity(e string) bool {
	return strings.Contains(e, "'s ")
}

// onlyRelation reports whether one entity of order at most is a relation
// rel of a speaker's: when two speakers have a sister, a sister's name is
// not known to be either's.
func onlyRelation(order []string, rel string) bool {
	n := 0
	for _, e := range order {
		if isRelationEntity(e) && strings.EqualFold(e[strings.LastIndex(e, "'s ")+3:], rel) {
			n++
		}
	}
	return n <= 1
}

// relationNames finds the relations text names: "sister" → "Maya". A
// relation given two different names maps to "".
func relationNames(text string) map[string]string {
	out := map[string]string{}
	add := func(rel, name string) {
		name = trimName(name)
		if name == "" {
			return
		}
		rel = strings.ToLower(rel)
		if !isRelationWord(rel) {
			return
		}
		if prev, ok := out[rel]; ok && foldName(prev) != foldName(name) {
			out[rel] = ""
			return
		}
		if _, ok := out[rel]; !ok {
			out[rel] = name
		}
	}
	for _, m := range myRelNameRe.FindAllStringSubmatch(text, -1) {
		add(m[1], m[2])
	}
	for _, m := range myRelCalledRe.FindAllStringSubmatch(text, -1) {
		add(m[1], m[2])
	}
	// "Maria, my wife, ...", "my manager is Tom Reid", as consolidation
	// learns them (memory/relations.go).
	for _, m := range memory.NamedRelations(text) {
		if rel, ok := strings.CutPrefix(m.Alias, "my "); ok {
			add(rel, m.Name)
		}
	}
	for _, m := range nameIsMyRelRe.FindAllStringSubmatch(text, -1) {
		// The capitals before the name may start the sentence: "Yesterday
		// Maya is..." is not someone called Yesterday Maya.
		words := strings.Fields(m[1])
		for len(words) > 0 && !memory.IsName(words[0]) {
			words = words[1:]
		}
		add(m[2], strings.Join(words, " "))
	}
	return out
}

// trimName is name up to its first word that cannot be part of a name
// ("Maya Tomorrow" is Maya) and without a possessive ending ("Maya's" is
// Maya); "" when its first word cannot be part of a name.
func trimName(name string) string {
	var words []string
	for _, w := range strings.Fields(name) {
		w = apostrophes.Replace(w)
		base := strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "'")
		if !nameWord(base) {
			break
		}
		words = append(words, base)
		if base != w {
			break
		}
	}
	n := strings.Join(words, " ")
	if utf8.RuneCountInString(n) > MaxEntity {
		return ""
	}
	return n
}

// apostrophes straightens curly apostrophes.
var apostrophes = strings.NewReplacer("’", "'", "‘", "'")

// namesIn finds the names of two to four capitalised words a text gives,
// wherever they are (a subject, a speaker's label, a name in passing), and
// each of their endings of two words or more: "Called Ana Ruiz" gives
// "Called Ana Ruiz" and "Ana Ruiz". A name ends at punctuation, at a
// possessive and at the end of its line.
func namesIn(text string) []string {
	var out []string
	var run []string
	flush := func() {
		for i := 0; i+2 <= len(run); i++ {
			if len(run)-i <= 4 {
				out = append(out, strings.Join(run[i:], " "))
			}
		}
		run = run[:0]
	}
	for _, line := range strings.Split(text, "\n") {
		for _, f := range strings.Fields(line) {
			f = apostrophes.Replace(f)
			core := strings.TrimLeftFunc(f, func(r rune) bool { return !unicode.IsLetter(r) })
			if len(core) < len(f) {
				flush() // "(Ana", "-Ana": not the name before's
			}
			end := strings.TrimRightFunc(core, func(r rune) bool { return !unicode.IsLetter(r) })
			trail := core[len(end):]
			core = end
			possessive := strings.HasSuffix(core, "'s")
			if possessive {
				core = core[:len(core)-len("'s")]
			}
			if !nameWord(core) {
				flush()
				continue
			}
			run = append(run, core)
			if trail != "" || possessive {
				flush()
			}
		}
		flush()
	}
	return out
}

// nameWord reports whether w can be one word of a person's or a company's
// name: a capitalised word of letters (and apostrophes and hyphens inside)
// that is not a common word, and not an acronym.
func nameWord(w string) bool {
	if w == "" || !memory.IsName(w) {
		return false
	}
	for i, r := range w {
		if !unicode.IsLetter(r) && r != '\'' && r != '-' {
			return false
		}
		if next, _ := utf8.DecodeRuneInString(w[i+1:]); r == '\'' && unicode.IsLower(next) {
			return false // O'Brien, not OK'd
		}
	}
	return !(utf8.RuneCountInString(w) > 1 && strings.ToUpper(w) == w)
}

// fullName reports whether words, two or more, read as a person's or a
// company's full name rather than a product of its first word's owner.
func fullName(words []string) bool {
	for i, w := range words {
		w = strings.Trim(w, "'-")
		if i == 0 && !nameWord(w) {
			return false
		}
		if i > 0 && (productWords[strings.ToLower(w)] || !memory.IsName(w) ||
			utf8.RuneCountInString(w) > 1 && strings.ToUpper(w) == w) {
			return false // "Datadog APM" is no one's surname
		}
	}
	return true
}

// preferredSpelling is the spelling of one name to keep, of those a text
// gives in order: the first that starts with a capital and is not shouted
// in capitals over several words, preferring one with accents ("Zoë" over
// "Zoe", since nobody adds accents a name does not have). A system's name
// (a word with a digit, a hyphen, an underscore or a dot: "billing-db",
// "db-2") is kept in lowercase when the text writes it so: its capital is
// the sentence's ("Billing-db recovered").
func preferredSpelling(ns []string) string {
	best, bestScore := "", -1
	for _, n := range ns {
		score := 0
		if strings.ContainsFunc(n, func(r rune) bool { return unicode.IsDigit(r) || strings.ContainsRune("-_./", r) }) {
			if strings.ToLower(n) == n {
				score += 4
			}
		} else if r, _ := utf8.DecodeRuneInString(n); unicode.IsUpper(r) {
			score += 4
		}
		if !(strings.Contains(n, " ") && strings.ToUpper(n) == n) {
			score += 2
		}
		if norm.NFD.String(n) != n || strings.ContainsAny(n, "øØłŁđĐðÐæÆœŒß") {
			score++
		}
		if score > bestScore {
			best, bestScore = n, score
		}
	}
	return best
}
