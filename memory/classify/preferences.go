package classify

import (
	"regexp"
	"strings"
)

var preferenceRe = regexp.MustCompile(`\b(?:(prefers?|preferred|preferring|preferences? (?:is|are|for)|would rather|'d rather|(?:always|never|only) (?:uses|use|orders|order|picks|pick|chooses|choose|asks for|drinks|wears|books|flies|wants|reads|watches|listens to|goes for|sits))|(favou?rites?)|(likes|liked|i like|we like|they like|you like|really likes?|loves|i love|we love|they love|really loves?|absolutely loves?|enjoys|i enjoy|we enjoy|enjoyed|(?:is|am|are|'m|'re|'s) (?:a )?(?:big |huge )?fan of|fond of|an? (?:[a-z0-9]+ ){0,2}fan)|(dislikes?|disliked|hates|hated|(?:can't|cannot|can not) stand|loathes|detests|(?:doesn't|does not|don't|do not|didn't|never) (?:like|enjoy)|(?:is|am|are|'m|'re|'s) not (?:a )?(?:big )?fan of|not a fan of|no fan of))\b`)

var preferenceKeys = [...]string{"prefers", "favourite", "likes", "dislikes"}

func (t *text) preference() (Classification, bool) {
	m := t.findSub(fPreference, preferenceRe)
	if m == nil {
		return Classification{}, false
	}
	key := "prefers"
	for g := range preferenceKeys {
		if m[2+2*g] >= 0 {
			key = preferenceKeys[g]
			break
		}
	}
	return Classification{Durability: LongTerm, Category: CategoryPreference, Key: key,
		Reason: "preference " + t.quote(m[0], m[1])}, true
}

// preferenceObject is a key made of what a preference is about: "hates
// cilantro" and "loves cilantro" give cilantro, "a huge Arsenal fan" arsenal,
// "favourite colour is blue" favourite_colour.
func (t *text) preferenceObject() string {
	m := t.findSub(fPreference, preferenceRe)
	if m == nil {
		return ""
	}
	s, marker := t.norm, t.norm[m[0]:m[1]]
	if strings.HasSuffix(marker, "fan") && !strings.HasSuffix(marker, " fan of") {
		// "a huge Arsenal fan": the object sits between the article and "fan".
		var parts []string
		eachWord(marker, func(w string) bool {
			switch w {
			case "a", "an", "big", "huge", "massive", "great", "real", "true", "die-hard", "diehard", "lifelong", "fan":
			default:
				parts = append(parts, w)
			}
			return true
		})
		return slug(strings.Join(parts, "_"))
	}
	if next, _ := nextWord(s, m[1]); next == "your" {
		return "" // "I love your painting!" praises; it is no taste to keep
	}
	words := objectWords(s, m[1], 3)
	if strings.HasPrefix(marker, "favou") {
		if len(words) == 0 {
			return ""
		}
		return slug("favourite_" + words[0])
	}
	return slug(strings.Join(words, "_"))
}

// objectWords are up to n words of the object that starts at pos:
// leading articles, possessives and auxiliaries skipped, up to the first
// punctuation, conjunction or preposition ("on" and "of" may join words:
// put_on_hold, formula_1).
func objectWords(s string, pos, n int) []string {
	var out []string
	for i := pos; i < len(s) && len(out) < n; {
		for i < len(s) && s[i] == ' ' {
			i++
		}
		if i >= len(s) || !isWordByte(s[i]) {
			break
		}
		w, e := nextWord(s, i)
		if e <= i {
			break
		}
		i = e
		w = strings.Trim(w, "'-")
		switch w {
		case "to", "be", "being", "the", "a", "an", "her", "his", "their", "my", "our", "your", "its", "some", "it",
			"them", "having", "getting", "more", "really", "very", "much", "just", "also", "always", "never", "only",
			"usually", "all", "any":
			if len(out) == 0 {
				continue
			}
			if w == "to" && len(out) == 1 && isMotion(out[0]) {
				out = out[:0] // "going to the coffee shop": the object is where
				continue
			}
			if w == "to" || w == "be" || w == "being" {
				return out
			}
			continue
		case "on", "of":
			if len(out) == 0 {
				continue
			}
			next, _ := nextWord(s, e)
			switch next {
			case "", "the", "a", "an", "my", "her", "his", "their", "our", "your":
				return out
			}
			out = append(out, w)
			continue
		case "and", "or", "but", "not", "because", "since", "over", "than", "instead", "rather", "when", "if", "while",
			"so", "for", "with", "by", "via", "at", "in", "during", "from", "after", "before", "as", "is", "are", "was",
			"were", "that", "which", "who", "unless", "until", "about", "like", "these", "days", "anymore", "too":
			if len(out) > 0 && (out[len(out)-1] == "on" || out[len(out)-1] == "of") {
				out = out[:len(out)-1]
			}
			return out
		}
		out = append(out, w)
	}
	if len(out) > 0 && (out[len(out)-1] == "on" || out[len(out)-1] == "of") {
		out = out[:len(out)-1]
	}
	return out
}

// isMotion reports whether w is a verb of going somewhere, whose object is
// where ("going to the coffee shop").
func isMotion(w string) bool {
	switch w {
	case "going", "getting", "heading", "travelling", "traveling", "driving", "walking", "coming", "moving", "flying":
		return true
	}
	return false
}
