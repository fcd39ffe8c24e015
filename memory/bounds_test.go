package memory

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"
)

// TestBoundsOfNumbers checks each bound at its edges and past them, and that
// its refusal names the field and says the allowed range.
func TestBoundsOfNumbers(t *testing.T) {
	for _, c := range []struct {
		b      Bound
		ok     []float64
		refuse []float64
		want   string
	}{
		{UnitBound, []float64{0, math.Copysign(0, -1), 0.001, 0.5, 1},
			[]float64{5e-324, 0.0009999, -0.001, 1.0000001, math.NaN(), math.Inf(1), math.Inf(-1)},
			"use 0, or a number from 0.001 to 1"},
		{TTLBound, []float64{1, 60, 31536000},
			[]float64{0, -1, 1.5, 31536001, 2147483648, math.NaN()},
			"use a whole number of seconds from 1 to 31536000 (365 days)"},
		{CountBound, []float64{1, math.MaxInt32}, []float64{0, math.MaxInt32 + 1, 2.5}, "from 1 to 2147483647"},
	} {
		for _, v := range c.ok {
			if err := c.b.Check("x", v); err != nil {
				t.Errorf("Check(%v) = %v, want it allowed", v, err)
			}
		}
		for _, v := range c.refuse {
			err := c.b.Check("rows[2].x", v)
			e := AsError(err)
			if e == nil || e.Code != CodeInvalid || e.Field != "rows[2].x" || !strings.Contains(e.Message, c.want) {
				t.Errorf("Check(%v) = %v, want an invalid error about rows[2].x saying %q", v, err, c.want)
			}
		}
	}
	if err := TTLBound.Check("ttl_seconds", 2147483648); err == nil || !strings.Contains(err.Error(), "2147483648 is out of range") {
		t.Errorf("a whole number is shown as written: %v", err)
	}
}

// TestCheckNumberLiterals checks JSON numbers as a request writes them,
// before any Go type holds them: the same sentence as the engine's for a
// bounded field, a named refusal for one no float holds.
func TestCheckNumberLiterals(t *testing.T) {
	for _, c := range []struct {
		path, name, literal string
		want                string // "" when allowed
	}{
		{"ttl_seconds", "ttl_seconds", "31536000", ""},
		{"ttl_seconds", "ttl_seconds", "2147483648", "ttl_seconds: 2147483648 is out of range: use a whole number of seconds from 1 to 31536000 (365 days)"},
		{"rows[3].ttl_seconds", "ttl_seconds", "1e30", "rows[3].ttl_seconds: 1e30 is out of range"},
		{"importance", "importance", "1e400", "importance: 1e400 is out of range: use 0, or a number from 0.001 to 1"},
		{"importance", "importance", "5e-324", "importance: 5e-324 is out of range"},
		{"importance", "importance", "1e-400", ""}, // read as 0, as JSON decoding reads it
		{"properties.confidence", "properties.confidence", "-0.5", "properties.confidence: -0.5 is out of range"},
		{"metadata.score", "metadata.score", "5e-324", ""},
		{"metadata.score", "metadata.score", "-1e400", "metadata.score: -1e400 is out of range: a number must lie between"},
		{"limit", "limit", "99999999999999999999", ""},
	} {
		err := CheckNumber(c.path, c.name, c.literal)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("CheckNumber(%s, %s) = %v, want it allowed", c.path, c.literal, err)
		case c.want != "" && (err == nil || !strings.HasPrefix(err.Error(), c.want) || AsError(err).Field != c.path):
			t.Errorf("CheckNumber(%s, %s) = %v, want %q", c.path, c.literal, err, c.want)
		}
	}

	decode := func(s string) any {
		dec := json.NewDecoder(bytes.NewReader([]byte(s)))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, c := range []struct{ body, field string }{
		{`{"rows": [{"content": "a"}, {"ttl_seconds": 2147483648}]}`, "rows[1].ttl_seconds"},
		{`{"properties": {"confidence": 5e-324}}`, "properties.confidence"},
		{`{"rows": [{"properties": {"confidence": 1e400}}]}`, "rows[0].properties.confidence"},
		{`{"metadata": {"a": [1, 2, 1e999]}}`, "metadata.a[2]"},
		{`{"confidence": 2}`, "confidence"},
	} {
		if e := AsError(CheckNumbers(decode(c.body))); e == nil || e.Field != c.field {
			t.Errorf("CheckNumbers(%s) = %v, want a refusal of %s", c.body, e, c.field)
		}
	}
	// Only the keys consolidation reads are bounded in free-form values.
	for _, body := range []string{
		`{"metadata": {"confidence": 7, "importance": -3}}`,
		`{"properties": {"score": {"confidence": 9}}, "content": "x"}`,
		`{"importance": 0, "ttl_seconds": 1, "properties": {"confidence": 1}}`,
	} {
		if err := CheckNumbers(decode(body)); err != nil {
			t.Errorf("CheckNumbers(%s) = %v, want it allowed", body, err)
		}
	}
}

// TestCheckTimes checks the time bounds, both ends included, whatever the
// zone and the fraction of a second.
func TestCheckTimes(t *testing.T) {
	plus14 := time.FixedZone("+14", 14*3600)
	for _, c := range []struct {
		at time.Time
		ok bool
	}{
		{MinTime, true},
		{MaxTime, true},
		{time.Date(2026, 12, 31, 17, 0, 0, 123456789, time.UTC), true},
		{time.Date(9000, 1, 1, 13, 59, 0, 0, plus14), true}, // 8999-12-31T23:59Z
		{time.Date(1970, 1, 1, 13, 0, 0, 0, plus14), false}, // 1969-12-31T23:00Z
		{MaxTime.Add(time.Nanosecond), false},
		{MinTime.Add(-time.Nanosecond), false},
		{time.Time{}, false},
		{time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC), false},
		{time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC), false},
	} {
		err := CheckTime("deadline", c.at)
		if c.ok != (err == nil) {
			t.Errorf("CheckTime(%v) = %v, want allowed %v", c.at, err, c.ok)
		}
		if err != nil && (AsError(err).Field != "deadline" || !strings.Contains(err.Error(), "from 1970-01-01T00:00:00Z to 9000-01-01T00:00:00Z")) {
			t.Errorf("CheckTime(%v) = %v, want it to name deadline and the range", c.at, err)
		}
	}
	if got := ClampTime(time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)); !got.Equal(MaxTime) {
		t.Errorf("ClampTime(9999) = %v", got)
	}
	for in, want := range map[string]string{
		"9999-12-31T23:59:59Z":      "9000-01-01T00:00:00Z",
		"0000-01-01T00:00:00Z":      "1970-01-01T00:00:00Z",
		"2026-12-31T17:00:00+02:00": "2026-12-31T15:00:00Z",
		"next friday":               "next friday",
		"":                          "",
	} {
		if got := rowDeadline(in); got != want {
			t.Errorf("rowDeadline(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestCheckBoundsWalksRequests checks a decoded request by its JSON names,
// in nested and embedded structs, slices and optional values.
func TestCheckBoundsWalksRequests(t *testing.T) {
	type row struct {
		TTL        *int32   `json:"ttl_seconds"`
		Importance *float64 `json:"importance"`
	}
	type inner struct {
		Deadline *time.Time `json:"deadline"`
	}
	type request struct {
		inner
		Rows      []row        `json:"rows"`
		DecidedAt optionalTime `json:"decided_at"`
		Count     int          `json:"count"`
	}
	far := time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		req   request
		field string
	}{
		{request{}, ""},
		{request{inner: inner{Deadline: &far}}, "deadline"},
		{request{Rows: []row{{}, {TTL: pointerTo(int32(0))}}}, "rows[1].ttl_seconds"},
		{request{Rows: []row{{Importance: pointerTo(5e-324)}}}, "rows[0].importance"},
		{request{DecidedAt: optionalTime{at: time.Time{}, set: true}}, "decided_at"},
		{request{DecidedAt: optionalTime{at: time.Time{}}}, ""},
		{request{Count: -5}, ""}, // no bound of its own
	} {
		err := CheckBounds(&c.req)
		if got := ""; err != nil {
			got = AsError(err).Field
			if got != c.field {
				t.Errorf("CheckBounds(%+v) = %v, want a refusal of %q", c.req, err, c.field)
			}
		} else if c.field != "" {
			t.Errorf("CheckBounds(%+v) = nil, want a refusal of %s", c.req, c.field)
		}
	}
}

type optionalTime struct {
	at  time.Time
	set bool
}

func (o optionalTime) OptionalValue() (any, bool) { return o.at, o.set }

// TestEngineHoldsTheBounds writes through every engine path a writer's
// numbers and times reach, past each bound and at it: each write past a
// bound is refused naming the field and the range, each at the bound is
// accepted and reads back.
func TestEngineHoldsTheBounds(t *testing.T) {
	fx := newFixture(t)
	ctx := context.Background()
	far := time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC)
	zero := time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC)

	refusals := []struct {
		name  string
		err   func() error
		field string
		want  string
	}{
		{"push importance 5e-324", func() error {
			_, err := fx.s.Push(ctx, bot, "acme", []NewNode{{Content: "a", Importance: pointerTo(5e-324)}})
			return err
		}, "importance", "0.001 to 1"},
		{"push ttl past 365 days", func() error {
			_, err := fx.s.Push(ctx, bot, "acme", []NewNode{{Content: "a", TTLSeconds: pointerTo(int32(MaxTTLSeconds + 1))}})
			return err
		}, "ttl_seconds", "31536000 (365 days)"},
		{"push confidence 5e-324", func() error {
			_, err := fx.s.Push(ctx, bot, "acme", []NewNode{{Content: "a"}, {Content: "b", Properties: map[string]any{"confidence": 5e-324}}})
			return err
		}, "nodes[1].properties.confidence", "0.001 to 1"},
		{"push deadline 9999", func() error {
			_, err := fx.s.Push(ctx, bot, "acme", []NewNode{{Content: "a", Properties: map[string]any{"deadline": "9999-12-31T23:59:59Z"}}})
			return err
		}, "properties.deadline", "9000-01-01T00:00:00Z"},
		{"push deadline 0000", func() error {
			_, err := fx.s.Push(ctx, bot, "acme", []NewNode{{Content: "a", Properties: map[string]any{"deadline": "0000-01-01T00:00:00Z"}}})
			return err
		}, "properties.deadline", "1970-01-01T00:00:00Z"},
		{"fact confidence 5e-324", func() error {
			_, _, err := fx.s.CreateFact(ctx, bot, NewFact{Scope: "acme", Entity: "Ann", Content: "x", Confidence: pointerTo(5e-324)})
			return err
		}, "confidence", "0.001 to 1"},
		{"fact deadline 9999", func() error {
			_, _, err := fx.s.CreateFact(ctx, bot, NewFact{Scope: "acme", Entity: "Ann", Content: "x", Category: CategoryObligation, Deadline: &far})
			return err
		}, "deadline", "9000-01-01T00:00:00Z"},
		{"fact deadline 0000", func() error {
			_, _, err := fx.s.CreateFact(ctx, bot, NewFact{Scope: "acme", Entity: "Ann", Content: "x", Category: CategoryObligation, Deadline: &zero})
			return err
		}, "deadline", "1970-01-01T00:00:00Z"},
		{"fact expires 9999", func() error {
			_, _, err := fx.s.CreateFact(ctx, bot, NewFact{Scope: "acme", Entity: "Ann", Content: "x", ExpiresAt: &far})
			return err
		}, "expires_at", "9000-01-01T00:00:00Z"},
		{"decision in the year 0", func() error {
			_, err := fx.s.RecordDecision(ctx, bot, NewDecision{Scope: "acme", Entity: "Ann", Key: "db", Decision: "PG", Reasoning: "r", DecidedAt: zero})
			return err
		}, "decided_at", "1970-01-01T00:00:00Z"},
		{"reinforce by 5e-324", func() error {
			f, _, err := fx.s.CreateFact(ctx, bot, NewFact{Scope: "acme", Entity: "Ann", Content: "reinforced"})
			if err != nil {
				return err
			}
			_, err = fx.s.ReinforceFact(ctx, bot, f.ID, 5e-324)
			return err
		}, "confidence", "0.001 to 1"},
		{"edit from version 0", func() error {
			_, err := fx.s.UpdateFact(ctx, reviewer, 1, 0, FactChanges{Importance: pointerTo(0.5)}, "")
			return err
		}, "version", "from 1 to 2147483647"},
	}
	for _, r := range refusals {
		e := wantError(t, r.name, r.err(), CodeInvalid, r.want)
		if e.Field != r.field {
			t.Errorf("%s: field %q, want %q", r.name, e.Field, r.field)
		}
	}

	// At the bounds: accepted, and every read of the scope answers.
	if _, err := fx.s.Push(ctx, bot, "acme", []NewNode{
		{Content: "Pay the rent", Importance: pointerTo(MinUnit), TTLSeconds: pointerTo(int32(MaxTTLSeconds)),
			Properties: map[string]any{"category": "obligation", "deadline": "9000-01-01T00:00:00Z", "confidence": MinUnit}},
		{Content: "Pay the gas", Importance: pointerTo(0.0), Properties: map[string]any{"category": "obligation", "deadline": "1970-01-01T00:00:00Z", "confidence": 0.0}},
	}); err != nil {
		t.Fatalf("push at the bounds: %v", err)
	}
	f, _, err := fx.s.CreateFact(ctx, bot, NewFact{Scope: "acme", Entity: "Ann", Content: "Renew the lease", Category: CategoryObligation,
		Deadline: pointerTo(MaxTime), Confidence: pointerTo(MinUnit), Importance: pointerTo(MinUnit)})
	if err != nil {
		t.Fatalf("fact at the bounds: %v", err)
	}
	if f.ForgetAt == nil || f.ForgetAt.After(MaxTime) {
		t.Errorf("forget_at of a fact due at the bound = %v, want at most %v", f.ForgetAt, MaxTime)
	}
	if _, err := fx.s.RecordDecision(ctx, bot, NewDecision{Scope: "acme", Entity: "Ann", Key: "db", Decision: "PG", Reasoning: "r", DecidedAt: MinTime}); err != nil {
		t.Fatalf("decision at the bound: %v", err)
	}
	run, err := fx.s.Consolidate(ctx, ConsolidateOptions{Trigger: TriggerTest})
	if err != nil || run.Status != "succeeded" {
		t.Fatalf("consolidate = %v, %v; want succeeded", run.Status, err)
	}
	readsAnswer(t, fx.s, "acme")
}

// TestPromotionBoundsOldRows promotes working rows stored before the bounds
// held (written here past the engine, as an older release wrote them): a
// deadline in the year 9999 or 0000, a confidence of 5e-324, and a text whose
// date the classifier reads as 9999-12-31. Every row is promoted (none is set
// aside), within the bounds, and the scope still answers every read.
func TestPromotionBoundsOldRows(t *testing.T) {
	fx := newFixture(t)
	ctx := context.Background()
	for _, r := range []struct{ content, props string }{
		{"Pay the rent", `{"category": "obligation", "entity": "Ann", "key": "rent", "deadline": "9999-12-31T23:59:59Z"}`},
		{"Pay the gas", `{"category": "obligation", "entity": "Ann", "key": "gas", "deadline": "0000-01-01T00:00:00Z"}`},
		{"Ann likes tea", `{"entity": "Ann", "key": "drink", "confidence": 5e-324}`},
		{"I must renew the passport by 9999-12-31", `{}`},
	} {
		if _, err := fx.pool.Exec(ctx, `INSERT INTO memory_nodes (scope, content, properties, created_at) VALUES ('acme', $1, $2, $3)`,
			r.content, r.props, fx.clock()); err != nil {
			t.Fatal(err)
		}
	}
	run, err := fx.s.Consolidate(ctx, ConsolidateOptions{Trigger: TriggerTest})
	if err != nil {
		t.Fatal(err)
	}
	if run.Status != "succeeded" || run.Count(PhasePromote, "promoted") != 4 {
		t.Fatalf("run = %s, report %v; want the 4 rows promoted, none set aside", run.Status, run.Report)
	}
	page, err := fx.s.ListFacts(ctx, FactFilter{Scope: "acme", Status: "all"})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range page.Facts {
		f, err := fx.s.GetFact(ctx, s.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, at := range []*time.Time{&f.ConfirmedAt, f.Deadline, f.ForgetAt, f.ExpiresAt} {
			if at != nil && CheckTime("t", *at) != nil {
				t.Errorf("fact %d %q holds %v, out of the bounds", f.ID, f.Content, *at)
			}
		}
		if !UnitBound.Contains(f.Confidence) {
			t.Errorf("fact %d %q has confidence %v", f.ID, f.Content, f.Confidence)
		}
	}
	readsAnswer(t, fx.s, "acme")
}

// readsAnswer checks that every read of scope answers and encodes as JSON.
func readsAnswer(t *testing.T, s *Store, scope string) {
	t.Helper()
	ctx := context.Background()
	page, err := s.ListFacts(ctx, FactFilter{Scope: scope, Status: "all"})
	if err != nil {
		t.Fatalf("list facts: %v", err)
	}
	if len(page.Facts) == 0 {
		t.Fatal("no facts in the scope")
	}
	recall, err := s.Recall(ctx, RecallQuery{Scope: scope, Query: "rent gas tea lease passport"})
	if err != nil {
		t.Fatalf("recall: %v", err)
	}
	brief, err := s.ContextBrief(ctx, BriefOptions{Scope: scope})
	if err != nil {
		t.Fatalf("brief: %v", err)
	}
	if strings.Contains(brief.Text(), "Nothing is remembered") {
		t.Errorf("brief = %q, want the scope's memories", brief.Text())
	}
	var exported []TransferFact
	if _, err := s.Export(ctx, scope, func(f TransferFact) error { exported = append(exported, f); return nil }); err != nil {
		t.Fatalf("export: %v", err)
	}
	for _, v := range []any{page, recall, brief, exported} {
		if _, err := json.Marshal(v); err != nil {
			t.Errorf("JSON of %T: %v", v, err)
		}
	}
}
