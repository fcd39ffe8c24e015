package bench

import (
	"context"
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/tenurehq/tenure/internal/pgtest"
)

// TestConversationStem checks the stemmer on the examples of Porter's paper
// and on the words the corpus's questions rely on.
func TestConversationStem(t *testing.T) {
	for word, want := range map[string]string{
		"caresses": "caress", "ponies": "poni", "ties": "ti", "caress": "caress", "cats": "cat",
		"feed": "feed", "agreed": "agre", "plastered": "plaster", "motoring": "motor", "sing": "sing",
		"conflated": "conflat", "hopping": "hop", "falling": "fall", "filing": "file", "happy": "happi",
		"relational": "relat", "generalization": "gener", "hopefulness": "hope", "goodness": "good",
		"adoption": "adopt", "adopted": "adopt", "researching": "research", "lessons": "lesson",
		"running": "run", "binged": "bing", "binge": "bing", "a1": "a1", "p99": "p99", "são": "são",
	} {
		if got := Stem(word); got != want {
			t.Errorf("Stem(%q) = %q, want %q", word, got, want)
		}
	}
	got := Terms("Caroline: I've been researching adoption agencies, don't laugh!")
	want := []string{"carolin", "research", "adopt", "agenc", "laugh"}
	if !slices.Equal(got, want) {
		t.Errorf("Terms = %q, want %q", got, want)
	}
}

// TestConversationBM25 checks BM25's ranking against scores computed by
// hand, and that stopwords alone find nothing.
func TestConversationBM25(t *testing.T) {
	docs := []string{
		"Jon: I went to Portugal last month.",      // go, portug, last, month
		"Gina: We adopted a dog from the shelter!", // gina, adopt, dog, shelter
		"Jon: The dog keeps barking at the dog next door, dogs everywhere.",
		"Gina: Nice.",
	}
	ix := NewBM25(docs)
	// Document lengths in terms: 5 (jon went portug last month), 4, 9
	// (jon dog keep bark dog next door dog everywher), 2; mean 5.
	if ix.avgLen != 5 {
		t.Fatalf("avgLen = %v, want 5", ix.avgLen)
	}
	idf := func(df int) float64 { return math.Log(1 + (4-float64(df)+0.5)/(float64(df)+0.5)) }
	part := func(tf, dl float64) float64 { return tf * 2.2 / (tf + 1.2*(0.25+0.75*dl/5)) }
	scores := ix.Scores("Who adopted the dog?")
	want := []float64{0, idf(1)*part(1, 4) + idf(2)*part(1, 4), idf(2) * part(3, 9), 0}
	for i := range want {
		if math.Abs(scores[i]-want[i]) > 1e-9 {
			t.Errorf("score of doc %d = %v, want %v", i, scores[i], want[i])
		}
	}
	if got := ix.Search("Who adopted the dog?", 10); !slices.Equal(got, []int{1, 2}) {
		t.Errorf("Search = %v, want [1 2]", got)
	}
	if got := ix.Search("Which country did Jon visit?", 1); !slices.Equal(got, []int{0}) {
		t.Errorf("Search for Jon, one result = %v, want [0] (the shorter document first)", got)
	}
	if got := ix.Search("what did they do?", 10); len(got) != 0 {
		t.Errorf("a query of stopwords found %v", got)
	}
}

// TestConversationCorpus checks that the generator is deterministic, that
// the corpus has the shape it promises, and that every question names turns
// that hold its answer as its kind says.
func TestConversationCorpus(t *testing.T) {
	o := CorpusOptions{Conversations: 5, Seed: 3}
	a, _ := json.Marshal(GenerateCorpus(o))
	b, _ := json.Marshal(GenerateCorpus(o))
	if string(a) != string(b) {
		t.Fatal("two corpora generated with the same options differ")
	}
	other, _ := json.Marshal(GenerateCorpus(CorpusOptions{Conversations: 5, Seed: 4}))
	if string(a) == string(other) {
		t.Fatal("the seed does not change the corpus")
	}
	c := GenerateCorpus(o)
	kinds := map[string]int{}
	words := map[string]bool{}
	for _, conv := range c.Conversations {
		if len(conv.Sessions) < 15 || len(conv.Sessions) > 30 || len(conv.Speakers) < 2 {
			t.Errorf("%s: %d sessions, %d speakers", conv.Scope, len(conv.Sessions), len(conv.Speakers))
		}
		next := 0
		for si, s := range conv.Sessions {
			if s.First != next || s.Count < 10 || s.Count > 40 {
				t.Errorf("%s session %d: first turn %d (want %d), %d turns", conv.Scope, si, s.First, next, s.Count)
			}
			next += s.Count
			if si > 0 && s.Date <= conv.Sessions[si-1].Date {
				t.Errorf("%s session %d is dated %s, not after %s", conv.Scope, si, s.Date, conv.Sessions[si-1].Date)
			}
		}
		if next != len(conv.Turns) {
			t.Errorf("%s: sessions hold %d turns of %d", conv.Scope, next, len(conv.Turns))
		}
		for _, turn := range conv.Turns {
			if strings.ContainsAny(turn.Text, "{}") || turn.Text == "" {
				t.Errorf("%s: turn %q", conv.Scope, turn.Text)
			}
			for _, w := range Tokens(turn.Text) {
				words[w] = true
			}
		}
		if len(conv.Questions) < 100 {
			t.Errorf("%s: %d questions", conv.Scope, len(conv.Questions))
		}
		for _, q := range conv.Questions {
			kinds[q.Kind]++
			want := 1
			if q.Kind == MultiHop {
				want = 2
			}
			if len(q.Turns) != want || strings.ContainsAny(q.Text, "{}") || q.Answer == "" {
				t.Errorf("%s: %s question %+v", conv.Scope, q.Kind, q)
				continue
			}
			turn := conv.Turns[q.Turns[0]]
			switch q.Kind {
			case SingleHop, Temporal:
				if len(sharedWords(q.Text, turn.Content(), turn.Speaker)) == 0 {
					t.Errorf("%s: %s question %q shares no word with %q", conv.Scope, q.Kind, q.Text, turn.Content())
				}
			case Paraphrase:
				if s := sharedWords(q.Text, turn.Content(), turn.Speaker); len(s) > 0 {
					t.Errorf("%s: paraphrase %q shares %q with %q", conv.Scope, q.Text, s, turn.Content())
				}
			case MultiHop:
				if q.Turns[0] == q.Turns[1] || strings.Contains(q.Text, turn.Speaker) {
					t.Errorf("%s: multi-hop %q on turns %v names the speaker", conv.Scope, q.Text, q.Turns)
				}
			}
			if q.Kind == Temporal && !strings.Contains(q.Answer, "20") {
				t.Errorf("%s: temporal %q answers %q", conv.Scope, q.Text, q.Answer)
			}
		}
	}
	for _, k := range QuestionKinds {
		if kinds[k] < 60 {
			t.Errorf("%d %s questions in %v", kinds[k], k, kinds)
		}
	}
	if len(words) < 800 {
		t.Errorf("the corpus uses %d distinct words", len(words))
	}
}

// TestConversationWorkload runs the workload on two conversations against a
// real database: the report has every method and kind, every turn has a
// fate, and BM25 finds most single-hop answers (so the questions can be
// answered from the text); paraphrase questions share no PostgreSQL lexeme
// with their answering turn but the speaker's name.
func TestConversationWorkload(t *testing.T) {
	pool := pgtest.NewPool(t)
	ctx := context.Background()
	o := ConversationOptions{Corpus: CorpusOptions{Conversations: 2, Seed: 5}}
	rep, err := RunConversation(ctx, pool, o)
	if err != nil {
		t.Fatalf("RunConversation = %v", err)
	}
	corpus := GenerateCorpus(o.Corpus)
	c := rep.Corpus
	if c.Conversations != 2 || c.Turns == 0 || c.Questions != len(corpus.Conversations[0].Questions)+len(corpus.Conversations[1].Questions) {
		t.Errorf("corpus stats %+v", c)
	}
	if rep.ConsolidateStatus != "succeeded" {
		t.Errorf("consolidation ended %q", rep.ConsolidateStatus)
	}
	for _, f := range []TurnFates{rep.AllTurns, rep.AnswerTurns} {
		if f.Active+f.Superseded+f.Archived+f.Folded+f.NotPromoted != f.Turns || f.Turns == 0 || f.Active == 0 {
			t.Errorf("fates %+v do not add up", f)
		}
	}
	if rep.AllTurns.Turns != c.Turns {
		t.Errorf("fates of %d turns, want %d", rep.AllTurns.Turns, c.Turns)
	}
	var methods []string
	for _, m := range rep.Methods {
		methods = append(methods, m.Method)
		var kinds []string
		for _, r := range m.Recall {
			kinds = append(kinds, r.Kind)
			if r.At5 > r.At10 || r.At10 > r.At25 || r.At25 > 1 || r.Questions == 0 {
				t.Errorf("%s %s: %+v", m.Method, r.Kind, r)
			}
			if (r.Ceiling != nil) != (m.Method == MethodTenure) {
				t.Errorf("%s %s: ceiling %v", m.Method, r.Kind, r.Ceiling)
			}
		}
		if !slices.Equal(kinds, recallRows) {
			t.Errorf("%s rows %q, want %q", m.Method, kinds, recallRows)
		}
		if m.Errors > 0 || (m.Method != MethodBM25 && m.P95 <= 0) || m.P50 > m.P95 {
			t.Errorf("%s: %d errors, latency %v / %v ms", m.Method, m.Errors, m.P50, m.P95)
		}
		if m.Recall[0].Questions != c.Questions {
			t.Errorf("%s counts %d questions, want %d", m.Method, m.Recall[0].Questions, c.Questions)
		}
	}
	if !slices.Equal(methods, []string{MethodTenure, MethodBM25, MethodOR}) {
		t.Fatalf("methods %q", methods)
	}
	bm := rep.Methods[1].Recall[1]
	if bm.Kind != SingleHop || bm.At25 < 0.8 || bm.At10 < 0.7 {
		t.Errorf("BM25 finds %.2f of the single-hop answers in the top 10, %.2f in the top 25: want most", bm.At10, bm.At25)
	}
	if para := rep.Methods[1].Recall[5]; para.At25 >= bm.At25 {
		t.Errorf("BM25 finds paraphrase answers (%.2f) as well as single-hop ones (%.2f)", para.At25, bm.At25)
	}

	for _, conv := range corpus.Conversations {
		for _, q := range conv.Questions {
			if q.Kind != Paraphrase {
				continue
			}
			turn := conv.Turns[q.Turns[0]]
			words := contentWords(q.Text, turn.Speaker)
			var shared bool
			err := pool.QueryRow(ctx, `SELECT to_tsvector('english', $1) @@ to_tsquery('english', $2)`,
				turn.Content(), strings.Join(words, " | ")).Scan(&shared)
			if err != nil {
				t.Fatal(err)
			}
			if shared {
				t.Errorf("paraphrase %q shares a lexeme with %q", q.Text, turn.Content())
			}
		}
	}

	var b strings.Builder
	if err := WriteConversationTable(&b, rep); err != nil {
		t.Fatal(err)
	}
	table := b.String()
	for _, want := range []string{"| questions, recall @5 / @10 / @25 | Tenure | BM25 | PostgreSQL OR |", "| single-hop (",
		"| multi-hop (", "both answering turns |", "| paraphrase (", "| latency p50 / p95 |", "Answering turns without an active fact"} {
		if !strings.Contains(table, want) {
			t.Errorf("table lacks %q:\n%s", want, table)
		}
	}
	t.Log("\n" + table)
}
