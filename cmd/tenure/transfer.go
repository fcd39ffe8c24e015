package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tenurehq/tenure/api"
	"github.com/tenurehq/tenure/memory"
	"github.com/tenurehq/tenure/moving"
)

const (
	exportUsage = "usage: tenure export [--scope S] [--json] > file.jsonl"
	importUsage = "usage: tenure import FILE.jsonl [--dry-run] [--json]   (FILE - reads standard input; progress goes to standard error)\n" +
		"       tenure import --from nova --scope S postgres://USER@HOST/NOVA_DB [--dry-run] [--json]\n" +
		"       tenure import --from mem0 (--scope S | --scope-per-user) FILE.json [--dry-run] [--json]"
)

// runExport writes every fact (of one scope with --scope), archived ones
// included, as JSON Lines to standard output: one object per fact with
// every field needed to restore it exactly, and its decision if it is one.
func runExport(ctx context.Context, env *environment, args []string) error {
	var cfg baseConfig
	var scope string
	var asJSON bool
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	cfg.register(fs, env.getenv)
	fs.StringVar(&scope, "scope", "", "export only the facts of this scope (default: every scope)")
	fs.BoolVar(&asJSON, "json", false, "report progress as JSON lines on standard error, even on a terminal")
	if err := parseFlags(fs, args, 0); err != nil {
		return err
	}
	scope = strings.TrimSpace(scope)
	if scope != "" {
		if _, err := memory.ParseScope(scope); err != nil {
			return usagef("export: %v\n%s", err, exportUsage)
		}
	}
	if err := cfg.validate(); err != nil {
		return err
	}
	db, store, err := openStore(ctx, env, &cfg, 0)
	if err != nil {
		return err
	}
	defer db.close()
	total, err := store.CountExport(ctx, scope)
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	prog := newProgress(env, "export", asJSON)
	prog.set("write", "facts", 0, int64(total), nil)
	w := bufio.NewWriterSize(env.stdout, 64<<10)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	done := int64(0)
	n, err := store.Export(ctx, scope, func(f memory.TransferFact) error {
		done++
		prog.set("write", "facts", done, max(int64(total), done), nil)
		return enc.Encode(f)
	})
	prog.finish()
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	fmt.Fprintf(env.stderr, "exported %d facts\n", n)
	return nil
}

// The sources tenure import reads (--from).
const (
	importFromFile = "file"
	importFromNova = "nova"
	importFromMem0 = "mem0"
)

// runImport imports memory from another store. By default (--from file) it
// imports a JSON Lines file of facts, as tenure export writes them (legacy
// rows may give data_type), in one transaction: any bad line refuses the
// whole file, naming every bad line, and nothing is written (exit status
// 1). --from nova reads a NOVA database, read-only, into one scope, all or
// nothing too; --from mem0 pushes the memories of Mem0's get_all as working
// rows (see package moving). --dry-run validates and reports without
// writing.
func runImport(ctx context.Context, env *environment, args []string) error {
	var cfg baseConfig
	var from, scope string
	var dryRun, asJSON, scopePerUser bool
	fs := flag.NewFlagSet("import", flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	cfg.register(fs, env.getenv)
	fs.StringVar(&from, "from", importFromFile, "what to import: file (a JSON Lines file of facts), nova (a NOVA database URL) or mem0 (the JSON of Mem0's get_all)")
	fs.StringVar(&scope, "scope", "", "--from nova and mem0: the Tenure scope the memories go to")
	fs.BoolVar(&scopePerUser, "scope-per-user", false, "--from mem0: one scope per Mem0 user id instead of --scope")
	fs.BoolVar(&dryRun, "dry-run", false, "validate against the database and report, writing nothing")
	fs.BoolVar(&asJSON, "json", false, "print the report (or the bad lines) as JSON")
	// The source may come before or after the flags: tenure import f.jsonl --dry-run.
	var sources []string
	for {
		if err := parseFlags(fs, args, 1<<30); err != nil {
			return err
		}
		if fs.NArg() == 0 {
			break
		}
		sources = append(sources, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if len(sources) > 1 {
		return usagef("import: unexpected arguments: %s\n%s", strings.Join(sources[1:], " "), importUsage)
	}
	scope = strings.TrimSpace(scope)
	switch from {
	case importFromFile:
		if len(sources) == 0 {
			return usagef("import: name the file to import\n%s", importUsage)
		}
		if scope != "" || scopePerUser {
			return usagef("import: --scope and --scope-per-user are for --from nova and mem0: the lines of a file name their own scopes\n%s", importUsage)
		}
	case importFromNova:
		if len(sources) == 0 {
			return usagef("import: --from nova needs the NOVA database's URL, such as postgres://nova@db.example.com/nova\n%s", importUsage)
		}
		if scopePerUser {
			return usagef("import: --scope-per-user is for --from mem0: NOVA's facts all go to the scope --scope names\n%s", importUsage)
		}
		if scope == "" {
			return usagef("import: --from nova needs --scope, the Tenure scope NOVA's facts go to (NOVA has no scopes)\n%s", importUsage)
		}
	case importFromMem0:
		if len(sources) == 0 {
			return usagef("import: --from mem0 needs the file of Mem0's get_all JSON (- reads standard input)\n%s", importUsage)
		}
		if scope == "" && !scopePerUser {
			return usagef("import: --from mem0 needs --scope, the Tenure scope the memories go to, or --scope-per-user for one scope per Mem0 user\n%s", importUsage)
		}
		if scope != "" && scopePerUser {
			return usagef("import: give --scope or --scope-per-user, not both\n%s", importUsage)
		}
	default:
		return usagef("import: unknown --from %q: allowed values are file, nova, mem0\n%s", from, importUsage)
	}
	if scope != "" {
		if _, err := memory.ParseScope(scope); err != nil {
			return usagef("import: --scope: %s\n%s", memory.AsError(err).Message, importUsage)
		}
	}
	if err := cfg.validate(); err != nil {
		return err
	}
	switch from {
	case importFromNova:
		return importNova(ctx, env, &cfg, sources[0], scope, dryRun, asJSON)
	case importFromMem0:
		return importMem0(ctx, env, &cfg, sources[0], moving.Mem0Options{Scope: scope, ScopePerUser: scopePerUser, DryRun: dryRun}, asJSON)
	}
	return importFile(ctx, env, &cfg, sources[0], dryRun, asJSON)
}

// importFile imports a JSON Lines file of facts (- for standard input).
func importFile(ctx context.Context, env *environment, cfg *baseConfig, file string, dryRun, asJSON bool) error {
	in, size, closeIn, err := openInput(env, file)
	if err != nil {
		return err
	}
	defer closeIn()
	db, store, err := openStore(ctx, env, cfg, 0)
	if err != nil {
		return err
	}
	defer db.close()
	read := &countingReader{r: in}
	prog := newProgress(env, "import", asJSON)
	opts := memory.ImportOptions{DryRun: dryRun, Progress: importProgress(prog, read, size)}
	report, err := store.ImportStream(ctx, memory.System(memory.SourceImport), api.ReadImport(read), opts)
	prog.finish()
	if ie := memory.AsError(err); ie != nil && ie.Problems != nil {
		if asJSON {
			if perr := printJSON(env.stdout, map[string]any{"error": ie.Message, "lines": ie.Problems}); perr != nil {
				return perr
			}
		}
		return fmt.Errorf("import %s: %w", file, ie)
	}
	if err != nil {
		return fmt.Errorf("import %s: %w", file, err)
	}
	if asJSON {
		return printJSON(env.stdout, report)
	}
	printImportReport(env.stdout, report)
	return nil
}

// importNova imports the facts of the NOVA database at url into scope, in
// one transaction of Tenure's, reading NOVA in one read-only transaction.
func importNova(ctx context.Context, env *environment, cfg *baseConfig, url, scope string, dryRun, asJSON bool) error {
	nova, err := moving.ReadNova(ctx, url, scope)
	if err != nil {
		return fmt.Errorf("import from nova: %w", err)
	}
	defer nova.Close()
	db, store, err := openStore(ctx, env, cfg, 0)
	if err != nil {
		return err
	}
	defer db.close()
	prog := newProgress(env, "import", asJSON)
	opts := memory.ImportOptions{DryRun: dryRun, Progress: novaProgress(prog, nova.Facts())}
	report, err := nova.Import(ctx, store, memory.System(memory.SourceImport), opts)
	prog.finish()
	if r, ok := errors.AsType[*moving.NovaRefusal](err); ok {
		if asJSON {
			if perr := printJSON(env.stdout, map[string]any{"error": r.Message, "rows": r.Problems}); perr != nil {
				return perr
			}
		}
		return fmt.Errorf("import from nova: %w", r)
	}
	if err != nil {
		return fmt.Errorf("import from nova %s: %w", nova.Where(), err)
	}
	if asJSON {
		return printJSON(env.stdout, report)
	}
	printNovaReport(env.stdout, report)
	return nil
}

// novaProgress turns the engine's progress into prog's: the read phase in
// NOVA's rows (of total), the later phases in facts.
func novaProgress(prog *progress, total int) func(memory.ImportProgress) {
	return func(ip memory.ImportProgress) {
		extra := map[string]int64{"rows": int64(ip.Lines)}
		switch ip.Phase {
		case memory.ImportPhaseRead:
			prog.set(ip.Phase, "rows", int64(ip.Lines), int64(max(total, ip.Lines)), extra)
		case memory.ImportPhaseCheck:
			prog.set(ip.Phase, "rows", int64(ip.Lines), int64(ip.Lines), extra)
		default:
			prog.set(ip.Phase, "facts", int64(ip.Done), int64(ip.Total), extra)
		}
	}
}

// importMem0 pushes the memories of a Mem0 get_all file (- for standard
// input) as working rows, reading the file one memory at a time. A file is
// read twice: first, with no database, to check and count every memory
// (moving.CheckMem0), so that a file that cannot be imported is refused
// before one is opened and the push knows its total; then to classify and
// push them. Standard input is read once, as it is pushed: a memory it
// refuses rolls the push back.
func importMem0(ctx context.Context, env *environment, cfg *baseConfig, file string, opts moving.Mem0Options, asJSON bool) error {
	in, size, closeIn, err := openInput(env, file)
	if err != nil {
		return err
	}
	defer closeIn()
	now := time.Now().UTC()
	prog := newProgress(env, "import", asJSON)
	defer prog.finish()
	if seeker, ok := in.(io.Seeker); ok && size >= 0 {
		read := &countingReader{r: in}
		n := 0
		for _, err := range moving.CheckMem0(moving.StreamMem0(read), opts) {
			if err != nil {
				prog.finish()
				return fmt.Errorf("import %s from mem0: %w", file, err)
			}
			if n++; n%mem0ProgressEvery == 0 {
				prog.set("read", "bytes", read.n, max(size, read.n), map[string]int64{"memories": int64(n)})
			}
		}
		prog.set("read", "bytes", read.n, max(size, read.n), map[string]int64{"memories": int64(n)})
		if _, err := seeker.Seek(0, io.SeekStart); err != nil {
			return fmt.Errorf("import %s from mem0: %w", file, err)
		}
		opts.Total = n
	}
	db, store, err := openStore(ctx, env, cfg, 0)
	if err != nil {
		return err
	}
	defer db.close()
	opts.Progress = func(done, total int) { prog.set("push", "rows", int64(done), int64(total), nil) }
	rows := moving.PlanMem0Stream(moving.StreamMem0(in), opts, now)
	report, err := moving.ImportMem0Stream(ctx, store, memory.System(memory.SourceImport), rows, opts)
	prog.finish()
	if err != nil {
		return fmt.Errorf("import %s from mem0: %w", file, err)
	}
	if asJSON {
		return printJSON(env.stdout, report)
	}
	printMem0Report(env.stdout, report)
	return nil
}

// mem0ProgressEvery is how many memories the first read of a Mem0 file
// checks between two progress reports.
const mem0ProgressEvery = 10000

// openInput opens the file to import, or standard input for "-", and
// tells its size when it is a regular file (-1 otherwise).
func openInput(env *environment, name string) (io.Reader, int64, func(), error) {
	if name == "-" {
		return env.stdin, -1, func() {}, nil
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, 0, nil, fmt.Errorf("import: %w", err)
	}
	size := int64(-1)
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
		size = st.Size()
	}
	return f, size, func() { f.Close() }, nil
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// importProgress turns the engine's progress into prog's: the read phase
// in bytes of the file (of size bytes, -1 when unknown), the later phases
// in facts; every record carries the lines read.
func importProgress(prog *progress, read *countingReader, size int64) func(memory.ImportProgress) {
	return func(ip memory.ImportProgress) {
		extra := map[string]int64{"lines": int64(ip.Lines)}
		switch ip.Phase {
		case memory.ImportPhaseRead:
			total := size
			if total >= 0 && read.n > total {
				total = read.n
			}
			prog.set(ip.Phase, "bytes", read.n, total, extra)
		case memory.ImportPhaseCheck:
			prog.set(ip.Phase, "lines", int64(ip.Lines), int64(ip.Lines), extra)
		case memory.ImportPhaseIndex:
			prog.set(ip.Phase, "indexes", int64(ip.Done), int64(ip.Total), extra)
		default:
			prog.set(ip.Phase, "facts", int64(ip.Done), int64(ip.Total), extra)
		}
	}
}

// printJSON writes v as indented JSON.
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func printImportReport(w io.Writer, r memory.ImportReport) {
	verb := "Imported"
	if r.DryRun {
		verb = "Dry run, nothing written: would import"
	}
	fmt.Fprintf(w, "%s %d lines: %d facts (%d decisions), %d new entities, %d already present.\n",
		verb, r.Lines, r.Facts, r.Decisions, r.EntitiesCreated, r.AlreadyPresent)
	if r.IndexesRebuilt {
		fmt.Fprintln(w, "The facts table held fewer facts than the file: its indexes were built again after the write.")
	}
	fmt.Fprintln(w, "Lines by mapping:")
	printCounts(w, r.ByMapping)
	printForgotten(w, r.DryRun, r.Forgotten, r.ForgottenLines, "line")
}

// printForgotten lists the facts an import brought in already past their
// forget date, written archived.
func printForgotten(w io.Writer, dryRun bool, n int, lines []memory.ImportForgotten, unit string) {
	if n == 0 {
		return
	}
	verb := "were"
	if dryRun {
		verb = "would be"
	}
	fmt.Fprintf(w, "%d facts %s imported archived: already past their forget date (restore one to keep it):\n", n, verb)
	for _, f := range lines {
		where := fmt.Sprintf("%s %d", unit, f.Line)
		if f.Where != "" {
			where = f.Where
		}
		fmt.Fprintf(w, "  %s: %s [%s / %s] %q, last confirmed %s, forgotten %s\n", where, f.Scope, f.Entity, f.Key, f.Content,
			f.ConfirmedAt.Format(time.DateOnly), f.ForgetAt.Format(time.DateOnly))
	}
	if n > len(lines) {
		fmt.Fprintf(w, "  ... and %d more\n", n-len(lines))
	}
}

func printNovaReport(w io.Writer, r moving.NovaReport) {
	verb := "Imported"
	if r.DryRun {
		verb = "Dry run, nothing written: would import"
	}
	fmt.Fprintf(w, "%s %d rows of NOVA database %s (axes from %s) into scope %s: %d facts (%d decisions), %d new entities, %d already present.\n",
		verb, r.Lines, r.Source, r.Layout, r.Scope, r.Facts, r.Decisions, r.EntitiesCreated, r.AlreadyPresent)
	fmt.Fprintln(w, "Rows by mapping:")
	printCounts(w, r.ByMapping)
	printForgotten(w, r.DryRun, r.Forgotten, r.ForgottenLines, "row")
}

func printMem0Report(w io.Writer, r moving.Mem0Report) {
	pushes := "pushes"
	if r.Batches == 1 {
		pushes = "push"
	}
	if r.DryRun {
		fmt.Fprintf(w, "Dry run, nothing written: would push %d Mem0 memories as working rows in %d %s.\n", r.Rows, r.Batches, pushes)
	} else {
		fmt.Fprintf(w, "Pushed %d Mem0 memories as working rows in %d %s; consolidation decides which become facts.\n", r.Rows, r.Batches, pushes)
	}
	fmt.Fprintln(w, "Rows by scope:")
	printCounts(w, r.Scopes)
	fmt.Fprintln(w, "Rows by durability:")
	printCounts(w, r.ByDurability)
	fmt.Fprintln(w, "Rows by category:")
	printCounts(w, r.ByCategory)
	fmt.Fprintln(w, "Rows by marker (durable: promoted by consolidation; transient and expired: refused, never a fact):")
	printCounts(w, r.ByMarker)
	if len(r.Notes) > 0 {
		fmt.Fprintln(w, "Push notes (duplicate: reinforces a live fact; decision_locked: refused by a locked decision; forgotten: already past its forget date):")
		printCounts(w, r.Notes)
	}
	if n := r.Notes[memory.NoteForgotten]; n > 0 {
		fmt.Fprintf(w, "%d memories were observed so long ago that their facts are already past their forget date: consolidation promotes each and archives it as decayed at once (restore one to keep it):\n", n)
		for _, f := range r.Forgotten {
			fmt.Fprintf(w, "  %s: %s %q, observed %s, forgotten %s\n", f.Memory, f.Scope, f.Text,
				f.ObservedAt.Format(time.DateOnly), f.ForgetAt.Format(time.DateOnly))
		}
		if n > len(r.Forgotten) {
			fmt.Fprintf(w, "  ... and %d more\n", n-len(r.Forgotten))
		}
	}
	fmt.Fprintf(w, "Atomicity: %s.\n", r.Atomicity)
}

// printCounts writes counts sorted by name, one per line, the counts
// aligned in a column at least 24 characters from the names' start.
func printCounts(w io.Writer, counts map[string]int) {
	keys := make([]string, 0, len(counts))
	width := 24
	for k := range counts {
		keys = append(keys, k)
		width = max(width, utf8.RuneCountInString(k))
	}
	slices.Sort(keys)
	for _, k := range keys {
		fmt.Fprintf(w, "  %-*s %d\n", width, k, counts[k])
	}
}
