package backup

import (
	"context"
	"flag"
	"io"
	"log/slog"
	"os"
	"testing"

	"github.com/tenurehq/tenure/internal/pgtest"
	"github.com/tenurehq/tenure/migrations"
)

var update = flag.Bool("update", false, "rewrite schema.txt from the migrations")

// TestSchemaObjects: schema.txt, the objects a restore accepts at each
// migration version, is what pg_dump finds in a database migrated to that
// version one migration at a time. With -update it is written afresh;
// after adding a migration, run go test ./backup/ -run TestSchemaObjects -update.
func TestSchemaObjects(t *testing.T) {
	ctx := context.Background()
	url := pgtest.NewEmptyURL(t)
	m, err := migrations.New(pgtest.Connect(t, url), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	pending, err := m.Pending(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := map[int64]map[string]bool{}
	for range pending {
		res, err := m.UpByOne(ctx)
		if err != nil {
			t.Fatal(err)
		}
		got[res.Source.Version] = schemaObjects(t, url)
	}
	if *update {
		if err := os.WriteFile("schema.txt", []byte(writeSchema(got)), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := parseSchema(schemaText)
	if err != nil {
		t.Fatal(err)
	}
	for v, objects := range got {
		if want[v] == nil {
			t.Errorf("schema.txt lacks version %d: run go test ./backup/ -run TestSchemaObjects -update", v)
			continue
		}
		for k := range objects {
			if !want[v][k] {
				t.Errorf("version %d: schema.txt lacks %s: run go test ./backup/ -run TestSchemaObjects -update", v, k)
			}
		}
		for k := range want[v] {
			if !objects[k] {
				t.Errorf("version %d: schema.txt has %s, which the migrations do not make: run go test ./backup/ -run TestSchemaObjects -update", v, k)
			}
		}
	}
	for v := range want {
		if got[v] == nil {
			t.Errorf("schema.txt has version %d, which no migration has", v)
		}
	}
}

// schemaObjects lists the objects of the database at url as a restore
// names them.
func schemaObjects(t *testing.T, url string) map[string]bool {
	t.Helper()
	out, err := schemaOf(context.Background(), url, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatal("the schema holds no object")
	}
	return out
}
