package memory

import (
	"slices"
	"strings"
	"testing"
)

// TestRecallExpandsToRelatedWords shows a question finding what was said
// in other words: "travel" reaches "went" (a form of go, its most related
// word), "purchase" reaches "bought".
func TestRecallExpandsToRelatedWords(t *testing.T) {
	rf := newRecallFixture(t)
	trip := rf.insert(t, recallFact{entity: "Jon", content: "I went to Portugal last month"})
	rf.insert(t, recallFact{entity: "Jon", content: "likes long walks on the beach"})
	rf.insert(t, recallFact{entity: "Jon", content: "is allergic to cats"})
	bike := rf.insert(t, recallFact{entity: "Mia", content: "bought a new bike"})
	rf.insert(t, recallFact{entity: "Mia", content: "rides to work on Mondays"})

	res := rf.recall(t, RecallQuery{Scope: "acme", Query: "Where did Jon travel?"})
	if got := resultIDs(res); len(got) == 0 || got[0] != trip {
		t.Errorf("Recall(Where did Jon travel?) = %v %q, want %d (I went to Portugal) first", got, contents(res), trip)
	}
	res = rf.recall(t, RecallQuery{Scope: "acme", Query: "What did Mia purchase?"})
	if got := resultIDs(res); len(got) == 0 || got[0] != bike {
		t.Errorf("Recall(What did Mia purchase?) = %v %q, want %d (bought a new bike) first", got, contents(res), bike)
	}
	// A word with nothing related in the scope adds nothing.
	if res := rf.recall(t, RecallQuery{Scope: "acme", Query: "purchase"}); len(res) != 1 || res[0].Fact.ID != bike {
		t.Errorf("Recall(purchase) = %v, want only %d", resultIDs(res), bike)
	}
}

// TestRecallExpansionNeverOutranksTheWord shows a fact that holds the
// question's word ranking above one that holds only a related word, even
// when the related word is the rarer one, and a fact holding two related
// words of one question word counting them once.
func TestRecallExpansionNeverOutranksTheWord(t *testing.T) {
	rf := newRecallFixture(t)
	// purchase is in three facts, bought in one: bought's own idf is higher.
	direct := rf.insert(t, recallFact{content: "purchased a red kayak"})
	rf.insert(t, recallFact{content: "purchased groceries at noon"})
	rf.insert(t, recallFact{content: "purchased tickets for friday"})
	related := rf.insert(t, recallFact{content: "bought a red kayak"})
	neither := rf.insert(t, recallFact{content: "sold a red kayak"})
	res := rf.recall(t, RecallQuery{Scope: "acme", Query: "purchase kayak"})
	got := resultIDs(res)
	if len(got) < 3 || got[0] != direct || got[1] != related || got[2] != neither {
		t.Fatalf("Recall(purchase kayak) = %v %q, want %d (purchased a red kayak), %d (bought a red kayak), then %d (sold a red kayak)",
			got, contents(res), direct, related, neither)
	}
	if res[1].Relevance >= res[0].Relevance {
		t.Errorf("relevance of the related match %.3f >= the direct match's %.3f", res[1].Relevance, res[0].Relevance)
	}

	// In the ranking itself: bought and buy both stand for purchase, and a
	// fact holding both counts the better one.
	r := newRanking([]string{"purchas"}, []int64{50}, 100, 500)
	if !r.expand("bought", 1, relatedWeight, "purchas") || !r.expand("buy", 1, relatedWeight, "purchas") {
		t.Fatal("expand refused a new lexeme")
	}
	if r.expand("purchas", 50, relatedWeight, "purchas") {
		t.Error("expand added a lexeme of the question again")
	}
	r.add(1, 1, 5, "'purchas':1")
	r.add(2, 1, 5, "'bought':1")
	r.add(3, 1, 5, "'bought':1 'buy':2")
	d, one, both := r.seen[1].relevance, r.seen[2].relevance, r.seen[3].relevance
	if !(one < d) || both != one {
		t.Errorf("relevance: direct %.3f, one related %.3f, two related %.3f; want direct > related = both", d, one, both)
	}
	if want := relatedWeight * r.terms[r.index["purchas"]].idf; r.terms[r.index["bought"]].idf != want {
		t.Errorf("idf of bought = %.3f, want %.3f: the weight of purchase's idf, the lesser", r.terms[r.index["bought"]].idf, want)
	}
}

// TestRecallReadsMisspellings shows a word that no fact holds, and that
// is no word the table knows, read as the scope's word most like it; a
// word spelled right is left as it is.
func TestRecallReadsMisspellings(t *testing.T) {
	rf := newRecallFixture(t)
	pg := rf.insert(t, recallFact{content: "we run postgres 15 in production"})
	rf.insert(t, recallFact{content: "the parcel came late"})
	rf.insert(t, recallFact{content: "lunch is at noon"})
	res := rf.recall(t, RecallQuery{Scope: "acme", Query: "postgrse"})
	if got := resultIDs(res); !slices.Equal(got, []int64{pg}) {
		t.Errorf("Recall(postgrse) = %v %q, want [%d] (postgres)", got, contents(res), pg)
	}
	res = rf.recall(t, RecallQuery{Scope: "acme", Query: "which postgrse version in production?"})
	if got := resultIDs(res); len(got) == 0 || got[0] != pg {
		t.Errorf("Recall(which postgrse version in production?) = %v, want %d first", got, pg)
	}
	// camera is a word: not read as came, which is as like it.
	if res := rf.recall(t, RecallQuery{Scope: "acme", Query: "camera"}); len(res) != 0 {
		t.Errorf("Recall(camera) = %q, want nothing", contents(res))
	}
}

// TestRecallExpandsNoQuotedPhrase shows the words of a quoted phrase taken
// as written: nothing is added for them, while a free word still expands.
func TestRecallExpandsNoQuotedPhrase(t *testing.T) {
	rf := newRecallFixture(t)
	rf.insert(t, recallFact{entity: "Jon", content: "travel plans for June: went nowhere"})
	rf.insert(t, recallFact{entity: "Jon", content: "travel plans for July: stayed home"})
	rf.insert(t, recallFact{entity: "Mia", content: "bought a tent"})
	lexemes := func(query string) []string {
		t.Helper()
		rf.recall(t, RecallQuery{Scope: "acme", Query: query})
		stmt := rf.sent.last(t, "-- name: RecallCandidates")
		for _, a := range stmt.Args {
			if l, ok := a.([]string); ok {
				return l
			}
		}
		t.Fatalf("RecallCandidates sent no lexemes: %v", stmt.Args)
		return nil
	}
	if got := lexemes(`"travel plans" Jon`); slices.Contains(got, "went") {
		t.Errorf(`Recall("travel plans" Jon) read the lexemes %v: went stands for the quoted travel`, got)
	}
	if got := lexemes(`"travel plans" purchase`); !slices.Contains(got, "bought") || slices.Contains(got, "went") {
		t.Errorf(`Recall("travel plans" purchase) read the lexemes %v, want bought (for the free purchase) and not went`, got)
	}
	if got := lexemes(`travel plans`); !slices.Contains(got, "went") {
		t.Errorf(`Recall(travel plans) read the lexemes %v, want went among them`, got)
	}
}

// TestExpandTable checks the generated table reads as recall needs it:
// stemmed keys, a word's irregular forms, and related words with theirs.
func TestExpandTable(t *testing.T) {
	table := relatedTable()
	if len(table) < 5000 {
		t.Fatalf("the table holds %d words, want thousands", len(table))
	}
	if e := table["go"]; !slices.Contains(e.forms, "went") {
		t.Errorf("go's forms = %v, want went", e.forms)
	}
	found := false
	for _, g := range table["purchas"].related {
		if g[0] == "buy" && slices.Contains(g, "bought") {
			found = true
		}
	}
	if !found {
		t.Errorf("purchas's related words = %v, want buy with bought", table["purchas"].related)
	}
	if _, ok := table["camera"]; !ok {
		t.Error("camera is not a known word")
	}
	for k, e := range table {
		if k == "" || strings.ContainsAny(k, " \t,=") {
			t.Fatalf("key %q", k)
		}
		for _, g := range e.related {
			if slices.Contains(g, k) || slices.Contains(g, "") {
				t.Fatalf("%s: related group %v holds the word itself or nothing", k, g)
			}
		}
	}
}
