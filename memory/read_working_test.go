package memory

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestListNodesStates: the working rows read model filters by scope, marker
// and state, newest first, and tells a stored marker from an absent one.
func TestListNodesStates(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	plain := e.push(t, "acme", NewNode{Content: "Ann lives in Lyon"})[0]
	durable := e.push(t, "acme", NewNode{Content: "Ann likes tea", Durability: "durable"})[0]
	transient := e.push(t, "acme", NewNode{Content: "Deploy is running", Durability: "transient"})[0]
	other := e.push(t, "home", NewNode{Content: "Bob likes coffee"})[0]
	e.consolidate(t)
	pending := e.push(t, "acme", NewNode{Content: "Ann moved to Paris"})[0]
	// A row consolidation set aside after a failure of its own.
	if _, err := e.pool.Exec(ctx, `INSERT INTO consolidation_faults (node_id, scope, phase, error, first_failed_at, last_failed_at)
		VALUES ($1, 'acme', 10, 'boom', now(), now())`, pending); err != nil {
		t.Fatal(err)
	}

	ids := func(f NodeFilter) []int64 {
		t.Helper()
		rows, err := e.store.ListNodes(ctx, f)
		if err != nil {
			t.Fatalf("ListNodes(%+v) error = %v", f, err)
		}
		var out []int64
		for _, r := range rows {
			out = append(out, r.ID)
		}
		return out
	}
	tests := []struct {
		name   string
		filter NodeFilter
		want   []int64
	}{
		{"every row", NodeFilter{}, []int64{pending, other, transient, durable, plain}},
		{"scope", NodeFilter{Scope: "home"}, []int64{other}},
		{"pending", NodeFilter{State: NodesPending}, []int64{pending, transient}},
		{"pending only", NodeFilter{PendingOnly: true}, []int64{pending, transient}},
		{"pending only and pending", NodeFilter{PendingOnly: true, State: NodesPending}, []int64{pending, transient}},
		{"promoted", NodeFilter{State: NodesPromoted, Scope: "acme"}, []int64{durable, plain}},
		{"set aside", NodeFilter{State: NodesSetAside}, []int64{pending}},
		{"durable finds rows without a marker", NodeFilter{Marker: "durable", Scope: "acme"}, []int64{pending, durable, plain}},
		{"transient", NodeFilter{Marker: "transient"}, []int64{transient}},
		{"page", NodeFilter{Limit: 2, BeforeID: transient}, []int64{durable, plain}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ids(tt.filter); !slices.Equal(got, tt.want) {
				t.Errorf("ListNodes(%+v) = %v, want %v", tt.filter, got, tt.want)
			}
		})
	}

	rows, err := e.store.ListNodes(ctx, NodeFilter{Scope: "acme", State: NodesPromoted})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		switch r.ID {
		case plain:
			if r.Marker != MarkerDurable || r.MarkerExplicit || r.PromotedFactID == nil || r.PromotedAt == nil {
				t.Errorf("row without a marker = %+v, want durable, not explicit, promoted", r)
			}
		case durable:
			if r.Marker != MarkerDurable || !r.MarkerExplicit {
				t.Errorf("row marked durable = %+v, want durable, explicit", r)
			}
		}
	}
}

// TestListNodesRefusals: a bad filter is refused, naming the filter.
func TestListNodesRefusals(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	tests := []struct {
		filter NodeFilter
		field  string
		msg    string
	}{
		{NodeFilter{Limit: 501}, "limit", "limit 501 is too large: at most 500"},
		{NodeFilter{Scope: "Bad Scope"}, "scope", "invalid scope"},
		{NodeFilter{Marker: "forever"}, "durability", `invalid durability "forever"`},
		{NodeFilter{State: "archived"}, "state", `unknown state "archived"`},
		{NodeFilter{State: NodesPromoted, PendingOnly: true}, "state", "contradicts pending only"},
		{NodeFilter{BeforeID: -3}, "before", "invalid page cursor -3"},
	}
	for _, tt := range tests {
		_, err := e.store.ListNodes(ctx, tt.filter)
		if me := wantError(t, "ListNodes", err, CodeInvalid, tt.msg); me.Field != tt.field {
			t.Errorf("ListNodes(%+v) field = %q, want %q", tt.filter, me.Field, tt.field)
		}
	}
}

// TestListPendingCountsAndScopes: pending rows counted by scope and marker,
// and the scopes that hold working rows.
func TestListPendingCountsAndScopes(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	e.push(t, "work", NewNode{Content: "Deploy is running", Durability: "transient"})
	e.push(t, "acme", NewNode{Content: "Ann lives in Lyon"}, NewNode{Content: "Ann likes tea", Durability: "durable"},
		NewNode{Content: "Build is red", Durability: "expired"})
	counts, err := e.store.CountPendingNodes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []PendingCount{{"acme", MarkerDurable, 2}, {"acme", MarkerExpired, 1}, {"work", MarkerTransient, 1}}
	if !slices.Equal(counts, want) {
		t.Errorf("CountPendingNodes() = %v, want %v", counts, want)
	}
	scopes, err := e.store.NodeScopes(ctx)
	if err != nil || !slices.Equal(scopes, []string{"acme", "work"}) {
		t.Errorf("NodeScopes() = %v, %v, want [acme work]", scopes, err)
	}
}

// TestPendingCountsFollowWrites: the pending counts of the working page and
// the overview, read from the counts triggers keep, equal a count of the
// rows themselves after pushes, marker changes, a consolidation run, deletes,
// a fold of the counts and a truncate.
func TestPendingCountsFollowWrites(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	check := func(when string) {
		t.Helper()
		got, err := e.store.CountPendingNodes(ctx)
		if err != nil {
			t.Fatal(err)
		}
		rows, err := e.pool.Query(ctx, `SELECT scope, marker, count(*) FROM memory_nodes
			WHERE promoted_at IS NULL GROUP BY 1, 2 ORDER BY 1, 2`)
		if err != nil {
			t.Fatal(err)
		}
		want, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (PendingCount, error) {
			var c PendingCount
			err := r.Scan(&c.Scope, &c.Marker, &c.Rows)
			return c, err
		})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: CountPendingNodes() = %v, counted %v", when, got, want)
		}
		v, err := e.store.Overview(ctx, OverviewOptions{})
		if err != nil {
			t.Fatal(err)
		}
		byMarker := map[Marker]int64{}
		for _, c := range want {
			byMarker[c.Marker] += c.Rows
		}
		if !maps.Equal(v.Pending, byMarker) {
			t.Errorf("%s: overview pending = %v, counted %v", when, v.Pending, byMarker)
		}
	}
	check("empty")
	ids := e.push(t, "acme", NewNode{Content: "Ann lives in Lyon"}, NewNode{Content: "Deploy is running", Durability: "transient"},
		NewNode{Content: "Build is red", Durability: "expired"}, NewNode{Content: "Bob likes tea"})
	e.push(t, "work", NewNode{Content: "Standup moved to ten"})
	check("after pushes")
	if _, err := e.pool.Exec(ctx, `UPDATE memory_nodes SET properties = properties || '{"durability": "expired"}' WHERE id = $1`, ids[0]); err != nil {
		t.Fatal(err)
	}
	check("after a marker change")
	e.consolidate(t)
	check("after a consolidation run")
	e.push(t, "acme", NewNode{Content: "Release is tomorrow", Durability: "transient"})
	if _, err := e.pool.Exec(ctx, `DELETE FROM memory_nodes WHERE scope = 'work'`); err != nil {
		t.Fatal(err)
	}
	check("after a delete")
	for i := range foldPendingAt + 5 {
		e.push(t, "bulk", NewNode{Content: fmt.Sprintf("note %d", i), Durability: []string{"durable", "transient"}[i%2]})
	}
	check("before the fold")
	check("after the fold")
	var parts int
	if err := e.pool.QueryRow(ctx, `SELECT count(*) FROM pending_node_counts`).Scan(&parts); err != nil {
		t.Fatal(err)
	}
	if parts > 10 {
		t.Errorf("pending_node_counts holds %d rows after the fold, want one per scope and marker", parts)
	}
	if _, err := e.pool.Exec(ctx, `TRUNCATE memory_nodes CASCADE`); err != nil {
		t.Fatal(err)
	}
	check("after a truncate")
}
