package memory

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/tenurehq/tenure/queries"
)

// Relations learned from text. A row that names a relation of the speaker
// together with a name ("my wife Maria", "Maria, my wife,", "my boss, Dana
// Whitfield", "Dana Whitfield is my boss", "my manager is Tom Reid", "our
// CTO Priya Nair") teaches the scope that the relation is that person:
// consolidation records "my wife" as an alias of Maria's entity (creating
// it if needed), audited as an alias added by consolidation. Later rows
// about "my wife" ("My wife started a new job", the entity "my wife", the
// extractor's "user's wife") then land on Maria through the aliases, as
// every alias does (entities.go). An alias already there, or an entity
// already called "my wife", is never changed: a person edits aliases in
// the console.
//
// Only relations that name one person are learned (wife, boss, CTO, ...):
// "my colleague", "my friend", "my kids" or "my team" name one of several
// people or a group, and teach nothing. Relations are the speaker's; a
// scope holds what its user says, so its rows are taken to have one
// speaker, and an alias is the scope's ("my wife" is the scope user's
// wife). A transcript of several speakers pushed into one scope would mix
// their relations: give each speaker a scope of their own.

// NamedRelation is a relation of the speaker a text names together with
// the person it is: Alias "my wife", Name "Maria".
type NamedRelation struct {
	Alias string // "my wife", "our CTO": the possessive and the relation as written
	Name  string // the person's name, as written ("Maria", "Dana Whitfield")
}

// singleRelations are the relations of a speaker that name one person.
// Relations that name one of several people (colleague, friend, cousin,
// kid) or a group (kids, team, parents) are not here.
var singleRelations = relationSet(`wife husband spouse partner boyfriend girlfriend fiance fiancee fiancé fiancée
	hubby ex-wife ex-husband ex-boyfriend ex-girlfriend ex-partner
	mother mom mum mommy mummy mama father dad daddy papa stepmother stepfather stepmom stepmum stepdad
	mother-in-law father-in-law son daughter stepson stepdaughter son-in-law daughter-in-law
	brother sister stepbrother stepsister brother-in-law sister-in-law half-brother half-sister twin
	grandmother grandma granny gran nana nan grandfather grandpa granddad grandad
	godmother godfather godson goddaughter
	boss manager supervisor mentor ceo cto cfo coo cio cmo cpo ciso chairman chairwoman`)

// twoWordRelations are the relations written in two words.
var twoWordRelations = relationSet(`line_manager team_lead tech_lead team_leader best_friend direct_manager
	engineering_manager product_manager`)

// relationLeads may stand between "my" and the relation it names without
// changing who it is: "my new boss, Dana".
var relationLeads = relationSet(`new current`)

// compoundHeads after a relation make it part of a thing of the speaker's:
// "my mother tongue", "my father's side".
var compoundHeads = relationSet(`tongue tongues language languages maiden land country figure side`)

// notPersonNames are capitalised words that name no person after "my
// wife" or "is": titles, nationalities, beliefs and a few adjectives ("my
// wife is French", "my boss is Catholic").
var notPersonNames = relationSet(`mr mrs ms mx miss dr prof sir madam dame lord lady
	american canadian mexican german french dutch irish british english scottish welsh spanish italian
	portuguese chinese japanese korean indian brazilian russian polish swedish danish norwegian finnish greek
	turkish jewish muslim christian catholic protestant mormon hindu buddhist sikh atheist agnostic australian
	african asian european latino latina hispanic swiss thai vietnamese filipino nigerian kenyan egyptian
	iranian persian arab ukrainian israeli pakistani argentinian chilean colombian peruvian cuban jamaican
	belgian austrian czech hungarian romanian lebanese moroccan taiwanese vegan vegetarian gay lesbian trans
	queer deaf blind christmas easter thanksgiving halloween`)

// functionWords are words that are never part of a name, capitalised or
// not.
var functionWords = relationSet(`about above across after against along among around at before behind below
	beside between beyond by despite during except for from in inside into like near of off on onto out
	outside over past since through to toward towards under unlike until up upon with within without and or
	but nor so yet the a an is was are were be`)

func relationSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[strings.ReplaceAll(w, "_", " ")] = true
	}
	return m
}

// maxRelationTokens bounds how far into a row NamedRelations reads.
const maxRelationTokens = 2000

// relationAt is the relation of a speaker that starts at toks[i] (a single
// person's, or one SubjectOf knows, such as "friend"), in lower case, and
// the number of words it takes; "" when there is none. A relation with a
// possessive ending ("my wife's") is none.
func relationAt(toks []subjectToken, i int) (string, int) {
	if i >= len(toks) {
		return "", 0
	}
	if i+1 < len(toks) && toks[i].trail == "" {
		if two := toks[i].lower + " " + toks[i+1].lower; twoWordRelations[two] {
			return two, 2
		}
	}
	if w := toks[i].lower; singleRelations[w] || isRelation(w) {
		return w, 1
	}
	return "", 0
}

// relationAlias is the alias of the relation toks (after "my" or "our"):
// the possessive in lower case and the relation as written, in lower case
// but for an acronym ("our CTO").
func relationAlias(possessive string, toks []subjectToken) string {
	parts := []string{possessive}
	for _, t := range toks {
		w := t.core
		if utf8.RuneCountInString(w) < 2 || strings.ToUpper(w) != w {
			w = t.lower
		}
		parts = append(parts, w)
	}
	return strings.Join(parts, " ")
}

// personWord reports whether w, a word's core, can be part of a person's
// name: a capitalised word of letters (and hyphens or apostrophes inside)
// that is not an English word SubjectOf knows, a relation, a title, a
// nationality, a function word or an acronym.
func personWord(w string) bool {
	if w == "" || !IsName(w) || strings.ToUpper(w) == w && utf8.RuneCountInString(w) > 1 {
		return false
	}
	for i, r := range w {
		switch {
		case unicode.IsLetter(r), r == '-':
		case r == '\'':
			// O'Brien, D'Angelo; not OK'd.
			if next, _ := utf8.DecodeRuneInString(w[i+1:]); !unicode.IsUpper(next) {
				return false
			}
		default:
			return false
		}
	}
	l := strings.ToLower(w)
	return !singleRelations[l] && !isRelation(l) && !notPersonNames[l] && !functionWords[l]
}

// personName is the name of a person that starts at toks[i]: up to
// maxNameWords capitalised words, ending at punctuation or at a possessive
// ("Maria's", which ends it and is left out). It returns "" when none
// starts there, or when the capitalised words run on past maxNameWords.
func personName(toks []subjectToken, i int) (name string, end int, possessive bool) {
	var parts []string
	j := i
	for j < len(toks) && len(parts) < maxNameWords {
		t := toks[j]
		base := possessiveBase(t.core)
		if !personWord(base) {
			break
		}
		parts = append(parts, base)
		j++
		if base != t.core {
			possessive = true
			break
		}
		if t.trail != "" {
			break
		}
	}
	if len(parts) == 0 {
		return "", i, false
	}
	if len(parts) == maxNameWords && !possessive && toks[j-1].trail == "" && j < len(toks) &&
		isCapitalized(toks[j].core) {
		return "", i, false
	}
	return strings.Join(parts, " "), j, possessive
}

// closedAt reports whether a name that ends before toks[end] is complete:
// punctuation follows it, or the text ends, or a word that joins clauses.
func closedAt(toks []subjectToken, end int) bool {
	if end >= len(toks) || toks[end-1].trail != "" {
		return true
	}
	switch toks[end].lower {
	case "and", "but", "who", "so", "because", "too", "now", "though", "although":
		return true
	}
	return false
}

// endsSentence reports whether t ends its sentence.
func endsSentence(t subjectToken) bool { return strings.ContainsAny(t.trail, ".!?;") }

// NamedRelations finds the relations of the speaker text names together
// with a name, in the order it names them:
//
//	"my wife Maria", "my boss, Dana Whitfield,"   my REL NAME
//	"Maria, my wife, ...", "lunch with Dana, my boss."  NAME, my REL
//	"Maria is my wife", "Tom Reid's also my manager"    NAME is my REL
//	"my manager is Tom Reid.", "my wife is called Maria", "my wife's name is Maria"
//
// and the same with "our" ("our CTO Priya Nair"). Only relations that name
// one person count (see singleRelations): "my kids Leo and Mia" names no
// one alias. A name is one to four capitalised words that are no English
// word, title or nationality ("my wife is French" names no one).
func NamedRelations(text string) []NamedRelation {
	if lower := strings.ToLower(text); !strings.Contains(lower, "my ") && !strings.Contains(lower, "our ") {
		return nil // most rows: no word to read
	}
	toks := tokensUpTo(text, maxRelationTokens)
	var out []NamedRelation
	add := func(possessive string, rel []subjectToken, name string) {
		if name == "" || utf8.RuneCountInString(name) > maxEntityName {
			return
		}
		out = append(out, NamedRelation{Alias: relationAlias(possessive, rel), Name: name})
	}
	for k, t := range toks {
		if t.lower != "my" && t.lower != "our" || t.trail != "" {
			continue
		}
		r := k + 1
		if r < len(toks) && relationLeads[toks[r].lower] && toks[r].trail == "" {
			r++ // "my new boss"
		}
		// "my wife's name is Maria"
		if r+2 < len(toks) && strings.HasSuffix(toks[r].lower, "'s") && toks[r].trail == "" &&
			singleRelations[possessiveBase(toks[r].lower)] && toks[r+1].lower == "name" && toks[r+2].lower == "is" {
			rel := toks[r]
			rel.core, rel.lower = possessiveBase(rel.core), possessiveBase(rel.lower)
			if name, end, poss := personName(toks, r+3); !poss && closedAt(toks, end) {
				add(t.lower, []subjectToken{rel}, name)
			}
			continue
		}
		rel, n := relationAt(toks, r)
		if rel == "" || !singleRelations[rel] && !twoWordRelations[rel] {
			continue
		}
		relToks, after := toks[r:r+n], r+n
		last := toks[after-1]
		switch {
		case last.trail == "" && after < len(toks) && toks[after].lower == "is":
			// "my manager is Tom Reid", "my wife is called Maria"
			at := after + 1
			if at < len(toks) && (toks[at].lower == "called" || toks[at].lower == "named") {
				at++
			}
			if name, end, poss := personName(toks, at); !poss && closedAt(toks, end) {
				add(t.lower, relToks, name)
			}
			continue
		case last.trail == "":
			// "my wife Maria is a nurse", "my son Leo's school"
			if name, _, _ := personName(toks, after); name != "" {
				add(t.lower, relToks, name)
				continue
			}
		case strings.HasPrefix(last.trail, ","):
			// "my boss, Dana Whitfield, moved", "I told my boss, Dana."
			if name, end, poss := personName(toks, after); name != "" && !poss && closedAt(toks, end) &&
				(end >= len(toks) || toks[end-1].trail != "") {
				add(t.lower, relToks, name)
				continue
			}
		}
		// A name before: "Maria, my wife, ..." (the relation closed by
		// punctuation or the end), "Maria is my wife now" (not part of a
		// thing: "my mother tongue").
		closed := after >= len(toks) || last.trail != "" && !strings.HasPrefix(last.trail, "'")
		if !closed && (last.trail != "" || compoundHeads[toks[after].lower]) {
			continue
		}
		if name := nameBefore(toks, k, closed); name != "" {
			add(t.lower, relToks, name)
		}
	}
	return out
}

// nameBefore is the name that the words before toks[k] ("my") give the
// relation after it: "Maria, my wife," when closed (the relation ends at
// punctuation or at the end), or "Maria is my wife" / "Maria's my wife".
func nameBefore(toks []subjectToken, k int, closed bool) string {
	e := k - 1 // the last word of the name
	switch {
	case e < 0:
		return ""
	case strings.HasPrefix(toks[e].trail, ","):
		if !closed {
			return "" // "Unlike Maria, my wife hates jazz"
		}
	default:
		if toks[e].trail != "" {
			return ""
		}
		if w := toks[e].lower; w == "also" || w == "actually" || w == "still" || w == "now" {
			e--
		}
		switch {
		case e >= 0 && toks[e].lower == "is":
			e--
		case e >= 0 && strings.HasSuffix(toks[e].lower, "'s") && toks[e].trail == "":
			// "Maria's my wife": the name's last word holds the verb.
		default:
			return ""
		}
		if e < 0 || toks[e].trail != "" && !strings.HasSuffix(toks[e].lower, "'s") {
			return ""
		}
	}
	s := e
	for s > 0 && e-s+1 < maxNameWords && toks[s-1].trail == "" && personWord(toks[s-1].core) {
		s--
	}
	// A capitalised verb that starts the sentence is no part of the name:
	// "Met Dana, my boss."
	if s < e && (s == 0 || endsSentence(toks[s-1])) && predicateStart(toks[s].lower) {
		s++
	}
	parts := make([]string, 0, e-s+1)
	for i := s; i <= e; i++ {
		w := toks[i].core
		if i == e {
			w = possessiveBase(w)
		}
		if !personWord(w) {
			return ""
		}
		parts = append(parts, w)
	}
	return strings.Join(parts, " ")
}

// relationSubject reads a sentence that starts with a relation of the
// speaker ("My wife started a new job", "Our CTO approved the budget"): it
// returns the relation as an alias would name it ("my wife", "our CTO").
// It returns speaker true, and no relation, when the words are the
// speaker's own fact: the relation only reports on the speaker ("My boss
// gave me a raise", "My wife and I moved to Leeds"), is part of a thing of
// theirs ("my mother tongue") or is identified ("My manager is Tom Reid").
// A sentence that names the relation's person ("My wife Maria is a nurse")
// is about that person, and gives neither.
func relationSubject(sentence string) (relation string, speaker bool) {
	toks := subjectTokens(sentence)
	i := skipOpeners(toks)
	if i >= len(toks) || toks[i].lower != "my" && toks[i].lower != "our" || toks[i].trail != "" {
		return "", false
	}
	mine := toks[i].lower == "my"
	lead := 0
	if i+1 < len(toks) && relationLeads[toks[i+1].lower] && toks[i+1].trail == "" {
		lead = 1 // "my new boss"
	}
	rel, n := relationAt(toks, i+1+lead)
	if rel == "" {
		return "", false
	}
	after := i + 1 + lead + n
	if name, _, _ := personName(toks, after); name != "" {
		return "", false
	}
	if after < len(toks) && toks[after-1].trail == "" {
		next := toks[after].lower
		if compoundHeads[next] {
			return "", mine
		}
		if next == "is" {
			if name, end, _ := personName(toks, after+1); name != "" && closedAt(toks, end) {
				return "", mine
			}
		}
	}
	for _, t := range toks[after:] {
		if isFirstPerson(t.lower) || t.lower == "my" {
			return "", mine
		}
		if endsSentence(t) {
			break
		}
	}
	return relationAlias(toks[i].lower, toks[i+1+lead:after]), false
}

// relationEntity is the relation of the speaker that an entity a writer
// named stands for: the extractor names the speaker's wife "user's wife"
// (UserEntity's), or "Jordan's wife" when told Jordan speaks, which is
// "my wife" when the row's own text says so. "" for any other entity.
func relationEntity(entity, content string) string {
	i := strings.LastIndex(entity, "'s ")
	if i <= 0 {
		return ""
	}
	owner := strings.TrimSpace(entity[:i])
	toks := subjectTokens(entity[i+3:])
	if rel, n := relationAt(toks, 0); rel == "" || n != len(toks) {
		return ""
	}
	alias := relationAlias("my", toks)
	if strings.EqualFold(owner, UserEntity) {
		return alias
	}
	if rel, _ := relationSubject(content); strings.EqualFold(rel, alias) {
		return rel
	}
	return ""
}

// aliasedEntities returns, for each (scopes[i], names[i]), the entity an
// alias names, or "" when the name reads as no other entity than itself.
func aliasedEntities(ctx context.Context, q *queries.Queries, scopes, names []string) ([]string, error) {
	found, err := canonicalEntities(ctx, q, scopes, names)
	if err != nil {
		return nil, err
	}
	for i := range found {
		if sameName(found[i], names[i]) {
			found[i] = ""
		}
	}
	return found, nil
}

// sameName reports whether a and b are one name but for case and white
// space.
func sameName(a, b string) bool {
	return strings.EqualFold(strings.Join(strings.Fields(a), " "), strings.Join(strings.Fields(b), " "))
}

// relationKey is a relation of one scope.
type relationKey struct{ scope, relation string }

// naming is a relation a working row names.
type naming struct {
	row queries.PeekPendingNodesRow
	rel NamedRelation
}

// namings are the relations the durable rows among rows name
// (NamedRelations), the earliest-observed naming of each relation of a
// scope only: a later one would change nothing.
func namings(rows []queries.PeekPendingNodesRow) []naming {
	var durable []queries.PeekPendingNodesRow
	for _, row := range rows {
		if Marker(row.Marker) == MarkerDurable {
			durable = append(durable, row)
		}
	}
	slices.SortStableFunc(durable, func(a, b queries.PeekPendingNodesRow) int {
		return cmp.Or(a.ObservedAt.Compare(b.ObservedAt), cmp.Compare(a.ID, b.ID))
	})
	var out []naming
	seen := map[relationKey]bool{}
	for _, row := range durable {
		for _, m := range NamedRelations(row.Content) {
			k := relationKey{row.Scope, strings.ToLower(m.Alias)}
			if !seen[k] {
				seen[k] = true
				out = append(out, naming{row, m})
			}
		}
	}
	return out
}

// learnNamings records each naming as an alias (learnRelation), made by
// consolidation, and logs those it recorded.
func (r *runner) learnNamings(ctx context.Context, q *queries.Queries, ns []naming) error {
	for _, n := range ns {
		learned, err := r.s.learnRelation(ctx, q, System("consolidation"), n.row.Scope, n.rel, n.row.ID)
		if err != nil {
			return err
		}
		if learned != "" {
			r.log.Info("consolidation.alias_learned", "scope", n.row.Scope, "alias", n.rel.Alias,
				"entity", learned, "node_id", n.row.ID)
		}
	}
	return nil
}

// learnRelations records the relations a batch's rows name as aliases
// (namings), in a transaction of its own before the batch is split among
// the workers, so that every part of the batch reads them. It returns the
// entity each relation the batch's rows are about now names, so that rows
// on one entity go to one worker; the map is never nil once learned.
func (r *runner) learnRelations(ctx context.Context, rows []queries.PeekPendingNodesRow) (map[relationKey]string, error) {
	var durable []queries.PeekPendingNodesRow
	for _, row := range rows {
		if Marker(row.Marker) == MarkerDurable {
			durable = append(durable, row)
		}
	}
	var about []relationKey
	for _, p := range r.plans.plan(durable, r.now) {
		if p.err == nil && p.relation != "" {
			about = append(about, relationKey{p.scope, p.relation})
		}
	}
	ns := namings(durable)
	out := map[relationKey]string{}
	if len(ns) == 0 && len(about) == 0 {
		return out, nil
	}
	err := r.s.tx(ctx, func(q *queries.Queries, _ pgx.Tx) error {
		if err := r.learnNamings(ctx, q, ns); err != nil || len(about) == 0 {
			return err
		}
		scopes, names := make([]string, len(about)), make([]string, len(about))
		for i, k := range about {
			scopes[i], names[i] = k.scope, k.relation
		}
		found, err := aliasedEntities(ctx, q, scopes, names)
		if err != nil {
			return err
		}
		for i, k := range about {
			if found[i] != "" {
				out[k] = found[i]
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("learn relations: %w", err)
	}
	return out, nil
}

// learnRelation records rel.Alias as an alias of the entity rel.Name names
// in scope (creating it if needed), made and audited as actor's, and
// returns that entity's name; nodeID is the working row that named it (0
// for none). It changes nothing, and returns "", when an alias of that
// spelling is already there (whichever entity it names), when an entity is
// called so, or when the name is the scope's user or its default entity.
func (s *Store) learnRelation(ctx context.Context, q *queries.Queries, actor Actor, scope string, rel NamedRelation, nodeID int64) (string, error) {
	fold, err := q.EntityFold(ctx, rel.Alias)
	if err != nil {
		return "", fmt.Errorf("fold: %w", err)
	}
	if fold == "" {
		return "", nil
	}
	if _, err := q.AliasByFold(ctx, queries.AliasByFoldParams{Scope: scope, Fold: fold}); err == nil {
		return "", nil // never taken from the entity it names
	} else if !isNoRows(err) {
		return "", fmt.Errorf("alias %q: %w", rel.Alias, err)
	}
	called, err := q.LiveEntitiesOfFold(ctx, queries.LiveEntitiesOfFoldParams{Scope: scope, Fold: fold})
	if err != nil {
		return "", fmt.Errorf("entities named %q: %w", rel.Alias, err)
	}
	if len(called) > 0 {
		return "", nil
	}
	name, err := canonicalEntity(ctx, q, scope, rel.Name)
	if err != nil {
		return "", err
	}
	if sameName(name, UserEntity) || sameName(name, defaultEntity) || sameName(name, rel.Alias) {
		return "", nil
	}
	if _, err := parseEntity(name); err != nil {
		return "", nil
	}
	now := s.Now()
	ents, err := q.EnsureEntities(ctx, queries.EnsureEntitiesParams{Scopes: []string{scope}, Names: []string{name}, Now: now})
	if err != nil || len(ents) == 0 {
		return "", fmt.Errorf("entity %q: %w", name, err)
	}
	id := ents[0].ID
	if _, err := q.InsertAlias(ctx, queries.InsertAliasParams{
		Scope: scope, Alias: rel.Alias, EntityID: id, CreatedBy: actor.String(), Now: now,
	}); isNoRows(err) {
		return "", nil // another writer recorded it meanwhile
	} else if err != nil {
		return "", fmt.Errorf("alias %q: %w", rel.Alias, err)
	}
	after := map[string]any{"alias": rel.Alias, "entity": name, "learned_from": rel.Name}
	reason := fmt.Sprintf("learned that %q is %s", rel.Alias, name)
	if nodeID != 0 {
		after["node_id"] = nodeID
		reason += " from working row " + strconv.FormatInt(nodeID, 10)
	}
	return name, s.audit(ctx, q, auditEntry{
		actor: actor, action: "entity.alias_add", targetType: "entity", targetID: strconv.FormatInt(id, 10),
		scope: scope, after: after, reason: reason,
	})
}
