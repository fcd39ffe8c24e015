package classify

import (
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// text is a text prepared for matching: norm is the normalised copy and
// off maps each byte of norm to the byte of orig it came from, so that
// extracted phrases keep the writer's spelling and case.
type text struct {
	orig string
	norm string
	off  []int32 // len(norm)+1 entries

	flags    flags
	dateDone bool // the date below has been looked for
	dateOK   bool
	date     date
	bareDone bool // isBare has been worked out (bare)
	isBare   bool
}

// find is re.FindStringIndex on the text when it holds a trigger of f.
func (t *text) find(f flags, re *regexp.Regexp) []int {
	if !t.has(f) {
		return nil
	}
	return re.FindStringIndex(t.norm)
}

// findSub is re.FindStringSubmatchIndex on the text when it holds a trigger of f.
func (t *text) findSub(f flags, re *regexp.Regexp) []int {
	if !t.has(f) {
		return nil
	}
	return re.FindStringSubmatchIndex(t.norm)
}

// has reports whether the text holds a trigger word of any of f's families.
func (t *text) has(f flags) bool { return t.flags&f != 0 }

// findDate is scanDate, computed once per text.
func (t *text) findDate(now time.Time) (date, bool) {
	if !t.has(fDate) {
		return date{}, false
	}
	if !t.dateDone {
		t.date, t.dateOK = scanDate(t, now)
		t.dateDone = true
	}
	return t.date, t.dateOK
}

// normalize lowercases s, straightens quotes, turns dashes into commas,
// drops invisible format characters and collapses whitespace.
func normalize(s string) text {
	if len(s) > maxBytes {
		cut := maxBytes
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut]
	}
	var b strings.Builder
	b.Grow(len(s))
	off := make([]int32, 0, len(s)+1)
	space := -1 // offset in s of a pending run of whitespace
	var buf [utf8.UTFMax]byte
	for i, r := range s {
		if r < utf8.RuneSelf {
			c := byte(r)
			switch {
			case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' || c < 0x20 || c == 0x7f:
				if space < 0 {
					space = i
				}
				continue
			case c >= 'A' && c <= 'Z':
				c += 'a' - 'A'
			case c == '`':
				c = '\''
			}
			if space >= 0 && b.Len() > 0 {
				b.WriteByte(' ')
				off = append(off, int32(space))
			}
			space = -1
			b.WriteByte(c)
			off = append(off, int32(i))
			continue
		}
		var rep string
		switch {
		case r == utf8.RuneError || unicode.IsSpace(r) || unicode.IsControl(r):
			if space < 0 {
				space = i
			}
			continue
		case unicode.Is(unicode.Cf, r):
			continue // zero-width joiners, soft hyphens, direction marks
		case r == '\u2018' || r == '\u2019' || r == '\u201b' || r == '\u02bc' || r == '\u2032' || r == '\u00b4':
			rep = "'"
		case r == '\u201c' || r == '\u201d' || r == '\u201e' || r == '\u00ab' || r == '\u00bb':
			rep = `"`
		case r == '\u2012' || r == '\u2013' || r == '\u2014' || r == '\u2015':
			rep = ","
		default:
			n := utf8.EncodeRune(buf[:], unicode.ToLower(r))
			rep = string(buf[:n])
		}
		if space >= 0 && b.Len() > 0 {
			b.WriteByte(' ')
			off = append(off, int32(space))
		}
		space = -1
		b.WriteString(rep)
		for range len(rep) {
			off = append(off, int32(i))
		}
	}
	off = append(off, int32(len(s)))
	if space >= 0 && len(off) > 1 {
		// The trailing whitespace was never written: end the text where it began.
		off[len(off)-1] = int32(space)
	}
	norm := b.String()
	return text{orig: s, norm: norm, off: off, flags: scan(norm)}
}

// span returns the original text behind norm[a:b], trimmed.
func (t *text) span(a, b int) string {
	if a < 0 {
		a = 0
	}
	if b > len(t.norm) {
		b = len(t.norm)
	}
	if a >= b {
		return ""
	}
	v := strings.TrimSpace(t.orig[t.off[a]:t.off[b]])
	if !utf8.ValidString(v) {
		// Extracted text is stored as PostgreSQL text, which refuses bad bytes.
		v = strings.ToValidUTF8(v, "\uFFFD")
	}
	return v
}

// quote is a matched phrase for a Reason, in the writer's spelling.
func (t *text) quote(a, b int) string {
	s := t.span(a, b)
	if len(s) > 60 {
		cut := 60
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return strconv.Quote(s)
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '\'' || c == '_' || c == '-' || c >= 0x80
}

func isSentenceEnd(s string, i int) bool {
	switch s[i] {
	case '!', '?', ';', '\n':
		return true
	case '.':
		return i+1 == len(s) || s[i+1] == ' '
	}
	return false
}

// wordsBefore fills out with the words that precede pos in s, nearest
// first, without crossing the end of a sentence, and returns how many.
func wordsBefore(s string, pos int, out []string) int {
	n, i := 0, pos
	for n < len(out) {
		for i > 0 && !isWordByte(s[i-1]) {
			if isSentenceEnd(s, i-1) {
				return n
			}
			i--
		}
		if i == 0 {
			return n
		}
		j := i
		for j > 0 && (isWordByte(s[j-1]) || j > 1 && j < i && s[j-1] == '.' && isWordByte(s[j-2])) {
			j--
		}
		out[n] = strings.Trim(s[j:i], "'-")
		n++
		i = j
	}
	return n
}

// sentenceStart is where the sentence holding pos begins.
func sentenceStart(s string, pos int) int {
	for i := pos - 1; i >= 0; i-- {
		if isSentenceEnd(s, i) {
			return i + 1
		}
	}
	return 0
}

// sentenceEnd is where the sentence holding pos ends.
func sentenceEnd(s string, pos int) int {
	for i := pos; i < len(s); i++ {
		if isSentenceEnd(s, i) {
			return i
		}
	}
	return len(s)
}

// nextWord returns the word that starts at or after pos (skipping spaces
// only) and where it ends. A dot inside a word is kept ("3.13", "node.js").
func nextWord(s string, pos int) (string, int) {
	for pos < len(s) && s[pos] == ' ' {
		pos++
	}
	j := pos
	for j < len(s) && (isWordByte(s[j]) || j > pos && s[j] == '.' && j+1 < len(s) && isWordByte(s[j+1])) {
		j++
	}
	return s[pos:j], j
}

func isNegation(w string) bool {
	switch w {
	case "not", "never", "no", "nothing", "nor", "cannot", "longer", "yet", "if", "whether", "undecided":
		return true
	}
	return strings.HasSuffix(w, "n't")
}

// slug turns s into a key: lowercase ASCII letters and digits joined by
// single underscores, at most 64 bytes.
func slug(s string) string {
	var b strings.Builder
	under := false
	for i := 0; i < len(s) && b.Len() < 64; i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' {
			if under && b.Len() > 0 {
				b.WriteByte('_')
			}
			under = false
			b.WriteByte(c)
			continue
		}
		under = true
	}
	return strings.TrimRight(b.String(), "_")
}

// hasPhrase reports whether s holds phrase as whole words.
func hasPhrase(s, phrase string) bool {
	for from := 0; from < len(s); {
		i := strings.Index(s[from:], phrase)
		if i < 0 {
			return false
		}
		a, b := from+i, from+i+len(phrase)
		if (a == 0 || !isWordByte(s[a-1])) && (b == len(s) || !isWordByte(s[b])) {
			return true
		}
		from = a + 1
	}
	return false
}

// scanWords calls f with each word of s, trimmed of quotes and dashes, and
// the offset where that trimmed word starts, until f returns false.
func scanWords(s string, f func(at int, w string) bool) {
	for i := 0; i < len(s); {
		if !isWordByte(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && isWordByte(s[j]) {
			j++
		}
		left := strings.TrimLeft(s[i:j], "'-")
		if w := strings.TrimRight(left, "'-"); w != "" {
			if !f(j-len(left), w) {
				return
			}
		}
		i = j
	}
}

// eachWord calls f with each word of s, trimmed of quotes, dashes and a
// possessive 's, until f returns false.
func eachWord(s string, f func(string) bool) {
	scanWords(s, func(_ int, w string) bool { return f(strings.TrimSuffix(w, "'s")) })
}

// firstClauseEnd is where the first clause of t's first sentence ends: at
// the end of the sentence, or where a comma, a semicolon or a conjunction
// opens a clause with a subject of its own ("My timezone is CET and I work
// 8 to 4": at "and"), or a comma and a conjunction open one ("Priya owns
// the rollout, and Priya wants a dry run": at the comma). A rule that reads one clause of a text that says more
// reads this one, what the text is about.
func (t *text) firstClauseEnd() int {
	s := t.norm
	end := sentenceEnd(s, 0)
	joint, at := false, -1
	for i := 0; i < end; {
		if !isWordByte(s[i]) {
			if s[i] == ',' || s[i] == ';' {
				joint, at = true, i
			}
			i++
			continue
		}
		w, e := nextWord(s, i)
		start := i
		i = max(e, i+1)
		switch w = strings.Trim(w, "'-"); {
		case joint && startsClause(w) && w != "the":
			return at
		case w == "and" || w == "but" || w == "so" || w == "while" || w == "whereas" || w == "because":
			if joint {
				return at // ", and Priya wants ...": a comma and a conjunction open a clause
			}
			joint, at = true, start
			continue
		}
		joint = false
	}
	return end
}
