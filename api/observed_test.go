package api_test

import (
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tenurehq/tenure/auth"
)

// TestPushObservedAt: a pushed row, one or each of a batch, keeps the time
// its statement was observed; without one it is observed when written, and
// only a given time is stored.
func TestPushObservedAt(t *testing.T) {
	f := newAPIFixture(t)
	tok := f.newToken(t, "acme", "agent", auth.TokenWriter)
	past := f.clock.now().Add(-13 * 24 * time.Hour)

	one := f.call(t, http.MethodPost, "/api/v1/scopes/acme/nodes", tok,
		map[string]any{"content": "Ann moved to Porto.", "observed_at": past.Format(time.RFC3339)})
	one.wantStatus(t, http.StatusCreated)
	batch := f.call(t, http.MethodPost, "/api/v1/scopes/acme/nodes", tok, map[string]any{"rows": []any{
		map[string]any{"content": "Ann is tired.", "observed_at": past.Add(time.Hour).Format(time.RFC3339)},
		map[string]any{"content": "Ann drinks tea."},
		// A few minutes ahead of the server's clock is skew, not the future.
		map[string]any{"content": "Ann is on a call.", "observed_at": f.clock.now().Add(4 * time.Minute).Format(time.RFC3339)},
	}})
	batch.wantStatus(t, http.StatusCreated)

	if n := f.count(t, `SELECT count(*) FROM memory_nodes WHERE observed_at = $1`, past); n != 1 {
		t.Errorf("rows observed at %s = %d, want the single push", past, n)
	}
	if n := f.count(t, `SELECT count(*) FROM memory_nodes WHERE observed_at = $1`, past.Add(time.Hour)); n != 1 {
		t.Errorf("batch row observed an hour later = %d, want 1", n)
	}
	if n := f.count(t, `SELECT count(*) FROM memory_nodes WHERE content = 'Ann drinks tea.' AND observed_at IS NULL`); n != 1 {
		t.Errorf("a row without observed_at stores none (it is observed when written): %d", n)
	}

	var list struct {
		Items []struct {
			Content    string    `json:"content"`
			CreatedAt  time.Time `json:"created_at"`
			ObservedAt time.Time `json:"observed_at"`
		} `json:"items"`
	}
	res := f.call(t, http.MethodGet, "/api/v1/scopes/acme/nodes", tok, nil)
	res.wantStatus(t, http.StatusOK)
	res.decode(t, &list)
	if len(list.Items) != 4 {
		t.Fatalf("listed %d rows, want 4: %s", len(list.Items), res.body)
	}
	for _, it := range list.Items {
		want := it.CreatedAt
		switch it.Content {
		case "Ann moved to Porto.":
			want = past
		case "Ann is tired.":
			want = past.Add(time.Hour)
		case "Ann is on a call.":
			want = f.clock.now().Add(4 * time.Minute)
		}
		if !it.ObservedAt.Equal(want) {
			t.Errorf("%q observed_at = %s, want %s", it.Content, it.ObservedAt, want)
		}
	}
}

// TestPushObservedAtRefused: a time more than five minutes ahead of the
// server's clock, before 1970 or not RFC 3339 is refused with 400 naming
// the row's field, and nothing of the batch is written.
func TestPushObservedAtRefused(t *testing.T) {
	f := newAPIFixture(t)
	tok := f.newToken(t, "acme", "agent", auth.TokenWriter)
	ahead := f.clock.now().Add(6 * time.Minute).Format(time.RFC3339)
	for _, tt := range []struct {
		name, value, field, says string
	}{
		{"ahead of the clock", ahead, "rows[2].observed_at", "ahead of the server's clock"},
		{"before 1970", "1969-12-31T23:59:59Z", "rows[2].observed_at", "1970"},
		{"not RFC 3339", "last Tuesday", "rows[2].observed_at", "RFC 3339"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := f.call(t, http.MethodPost, "/api/v1/scopes/acme/nodes", tok, map[string]any{"rows": []any{
				map[string]any{"content": "one"}, map[string]any{"content": "two", "observed_at": "2026-01-01T00:00:00Z"},
				map[string]any{"content": "three", "observed_at": tt.value},
			}})
			e := res.wantError(t, http.StatusBadRequest, "invalid")
			if e.Error.Field != tt.field || !strings.Contains(e.Error.Message, tt.says) {
				t.Errorf("refusal = %+v, want field %s saying %q", e.Error, tt.field, tt.says)
			}
		})
	}
	res := f.call(t, http.MethodPost, "/api/v1/scopes/acme/nodes", tok, map[string]any{"content": "one", "observed_at": ahead})
	if e := res.wantError(t, http.StatusBadRequest, "invalid"); e.Error.Field != "observed_at" {
		t.Errorf("single row refusal field = %q, want observed_at", e.Error.Field)
	}
	if n := f.count(t, `SELECT count(*) FROM memory_nodes`); n != 0 {
		t.Errorf("%d rows written by refused pushes, want none", n)
	}
}

// TestFactObservedAt: a fact written through the API is confirmed when it
// was observed and has decayed from then; one from the future is refused.
func TestFactObservedAt(t *testing.T) {
	f := newAPIFixture(t)
	tok := f.newToken(t, "acme", "agent", auth.TokenWriter)
	observed := f.clock.now().Add(-10 * 24 * time.Hour) // one short-term half-life ago
	res := f.call(t, http.MethodPost, "/api/v1/scopes/acme/facts", tok, map[string]any{
		"entity": "billing-db", "key": "replication_lag", "content": "billing-db replication lag is 4 s",
		"durability": "short_term", "category": "state", "confidence": 0.8, "observed_at": observed.Format(time.RFC3339)})
	res.wantStatus(t, http.StatusCreated)
	var got struct {
		Fact struct {
			ConfirmedAt         time.Time `json:"confirmed_at"`
			EffectiveConfidence float64   `json:"effective_confidence"`
			ForgetAt            time.Time `json:"forget_at"`
		} `json:"fact"`
	}
	res.decode(t, &got)
	if !got.Fact.ConfirmedAt.Equal(observed) {
		t.Errorf("confirmed_at = %s, want the observation time %s", got.Fact.ConfirmedAt, observed)
	}
	if math.Abs(got.Fact.EffectiveConfidence-0.4) > 1e-6 {
		t.Errorf("effective confidence = %v, want 0.4 (0.8 halved over one half-life since it was observed)", got.Fact.EffectiveConfidence)
	}
	if want := observed.Add(30 * 24 * time.Hour); got.Fact.ForgetAt.Sub(want).Abs() > time.Second {
		t.Errorf("forget_at = %s, want %s (three half-lives after the observation)", got.Fact.ForgetAt, want)
	}

	res = f.call(t, http.MethodPost, "/api/v1/scopes/acme/facts", tok, map[string]any{
		"entity": "billing-db", "content": "later", "observed_at": f.clock.now().Add(time.Hour).Format(time.RFC3339)})
	if e := res.wantError(t, http.StatusBadRequest, "invalid"); e.Error.Field != "observed_at" {
		t.Errorf("refusal field = %q, want observed_at", e.Error.Field)
	}
}

// TestExtractObservedAt: extraction reads the text's dates relative to when
// it was said and stores the rows observed then; a time from the future is
// refused before anything is extracted.
func TestExtractObservedAt(t *testing.T) {
	f := newAPIFixture(t)
	tok := f.newToken(t, "acme", "agent", auth.TokenWriter)
	said := time.Date(2025, 5, 1, 9, 0, 0, 0, time.UTC)
	res := f.call(t, http.MethodPost, "/api/v1/scopes/acme/extract", tok,
		map[string]any{"text": extractText, "entity": "Ann", "store": true, "observed_at": said.Format(time.RFC3339)})
	res.wantStatus(t, http.StatusCreated)
	if n := f.count(t, `SELECT count(*) FROM memory_nodes WHERE observed_at = $1`, said); n != 4 {
		t.Errorf("rows observed when the text was said = %d, want the 4 candidates", n)
	}
	if n := f.count(t, `SELECT count(*) FROM memory_nodes WHERE properties->>'category' = 'obligation'
		AND properties->>'deadline' LIKE '2025-06-10T%'`); n != 1 {
		t.Errorf("the obligation's June 10 is not read as the June 10 after the text was said")
	}
	res = f.call(t, http.MethodPost, "/api/v1/scopes/acme/extract", tok,
		map[string]any{"text": extractText, "store": true, "observed_at": f.clock.now().Add(time.Hour).Format(time.RFC3339)})
	if e := res.wantError(t, http.StatusBadRequest, "invalid"); e.Error.Field != "observed_at" {
		t.Errorf("refusal field = %q, want observed_at", e.Error.Field)
	}
	if n := f.count(t, `SELECT count(*) FROM memory_nodes`); n != 4 {
		t.Errorf("%d rows after the refused extraction, want the 4 of the first", n)
	}
}

// TestImportObservedAt: an import line's observed_at is when its fact was
// confirmed; one from the future, or one that contradicts confirmed_at, is
// refused with the line named, and nothing is written.
func TestImportObservedAt(t *testing.T) {
	f := newAPIFixture(t)
	tok := f.newToken(t, "acme", "agent", auth.TokenWriter)
	res := f.postImport(t, "", tok,
		`{"scope":"acme","entity":"Ann","key":"home","content":"Ann lives in Porto.","durability":"long_term","category":"identity","observed_at":"2025-11-02T08:00:00Z"}`+"\n")
	res.wantStatus(t, http.StatusCreated)
	if n := f.count(t, `SELECT count(*) FROM entity_facts WHERE confirmed_at = '2025-11-02T08:00:00Z' AND created_at = '2025-11-02T08:00:00Z'`); n != 1 {
		t.Errorf("imported fact not confirmed (and created) when observed: %d", n)
	}
	ahead := f.clock.now().Add(time.Hour).Format(time.RFC3339)
	res = f.postImport(t, "", tok,
		`{"scope":"acme","entity":"Bo","content":"Bo is here.","durability":"long_term","category":"observation"}`+"\n"+
			`{"scope":"acme","entity":"Bo","content":"Bo left.","durability":"long_term","category":"observation","observed_at":"`+ahead+`"}`+"\n"+
			`{"scope":"acme","entity":"Bo","content":"Bo is back.","durability":"long_term","category":"observation","observed_at":"2025-01-01T00:00:00Z","confirmed_at":"2025-02-01T00:00:00Z"}`+"\n")
	var refusal importRefusal
	res.decode(t, &refusal)
	if res.status != http.StatusBadRequest || len(refusal.Error.Lines) != 2 ||
		refusal.Error.Lines[0].Line != 2 || refusal.Error.Lines[0].Field != "observed_at" ||
		!strings.Contains(refusal.Error.Lines[0].Message, "ahead of the server's clock") ||
		refusal.Error.Lines[1].Line != 3 || refusal.Error.Lines[1].Field != "observed_at" {
		t.Errorf("refusal = %d %s", res.status, res.body)
	}
	if n := f.count(t, `SELECT count(*) FROM entity_facts`); n != 1 {
		t.Errorf("%d facts after the refused import, want the first import's one", n)
	}
}

// TestPushNotesForgotten: a row observed so long ago that its fact is
// already past its forget date is pushed with a note that says when it was
// forgotten; strict refuses such a batch naming the row's observed_at.
func TestPushNotesForgotten(t *testing.T) {
	f := newAPIFixture(t)
	tok := f.newToken(t, "acme", "agent", auth.TokenWriter)
	old := f.clock.now().Add(-20 * 24 * time.Hour).Format(time.RFC3339)
	rows := []any{
		map[string]any{"content": "Ann is so tired", "observed_at": old, "properties": map[string]any{"entity": "Ann", "category": "mood"}},
		map[string]any{"content": "Ann lives in Porto.", "observed_at": old, "properties": map[string]any{"entity": "Ann", "key": "home", "category": "identity"}},
	}
	res := f.call(t, http.MethodPost, "/api/v1/scopes/acme/nodes", tok, map[string]any{"rows": rows})
	res.wantStatus(t, http.StatusCreated)
	var got struct {
		Notes []struct {
			Row      int        `json:"row"`
			Code     string     `json:"code"`
			Message  string     `json:"message"`
			ForgetAt *time.Time `json:"forget_at"`
		} `json:"notes"`
	}
	res.decode(t, &got)
	if len(got.Notes) != 1 || got.Notes[0].Row != 0 || got.Notes[0].Code != "forgotten" || got.Notes[0].ForgetAt == nil ||
		!got.Notes[0].ForgetAt.Before(f.clock.now()) || !strings.Contains(got.Notes[0].Message, "ephemeral mood") {
		t.Errorf("notes = %+v, want the 20-day-old mood noted forgotten", got.Notes)
	}
	res = f.call(t, http.MethodPost, "/api/v1/scopes/acme/nodes", tok, map[string]any{"rows": rows, "strict": true})
	if e := res.wantError(t, http.StatusConflict, "conflict"); e.Error.Field != "rows[0].observed_at" {
		t.Errorf("strict refusal field = %q, want rows[0].observed_at", e.Error.Field)
	}
}

// TestRecallSinceUntilParams: recall takes since and until on observation
// time, and refuses a time that is not RFC 3339, or an until before since,
// naming the parameter.
func TestRecallSinceUntilParams(t *testing.T) {
	f := newAPIFixture(t)
	tok := f.newToken(t, "acme", "agent", auth.TokenWriter)
	for _, d := range []int{-40, -20, -5} {
		at := f.clock.now().Add(time.Duration(d) * 24 * time.Hour).Format(time.RFC3339)
		f.call(t, http.MethodPost, "/api/v1/scopes/acme/facts", tok, map[string]any{
			"entity": "Melanie", "content": "Melanie painted picture " + strings.TrimPrefix(time.Duration(-d).String(), "-"),
			"observed_at": at}).wantStatus(t, http.StatusCreated)
	}
	since := f.clock.now().Add(-25 * 24 * time.Hour).Format(time.RFC3339)
	until := f.clock.now().Add(-10 * 24 * time.Hour).Format(time.RFC3339)
	var got struct {
		Results []struct {
			Fact struct {
				Content     string    `json:"content"`
				ConfirmedAt time.Time `json:"confirmed_at"`
			} `json:"fact"`
		} `json:"results"`
	}
	res := f.call(t, http.MethodGet, "/api/v1/scopes/acme/recall?query=Melanie+painted&since="+since+"&until="+until, tok, nil)
	res.wantStatus(t, http.StatusOK)
	res.decode(t, &got)
	if len(got.Results) != 1 || !got.Results[0].Fact.ConfirmedAt.Equal(f.clock.now().Add(-20*24*time.Hour)) {
		t.Errorf("recall since/until = %s, want the painting observed 20 days ago", res.body)
	}
	for _, tt := range []struct{ query, field string }{
		{"since=yesterday", "since"},
		{"until=2026-13-01T00:00:00Z", "until"},
		{"since=" + until + "&until=" + since, "until"},
	} {
		res := f.call(t, http.MethodGet, "/api/v1/scopes/acme/recall?query=Melanie&"+tt.query, tok, nil)
		if e := res.wantError(t, http.StatusBadRequest, "invalid"); e.Error.Field != tt.field {
			t.Errorf("recall?%s refusal field = %q, want %s", tt.query, e.Error.Field, tt.field)
		}
	}
}
