package web

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/tenurehq/tenure/auth"
	"github.com/tenurehq/tenure/memory"
	"github.com/tenurehq/tenure/views/components"
	"github.com/tenurehq/tenure/views/pages"
)

const (
	runsPageSize       = 50
	chartRuns          = 15 // runs in the chart of what runs did
	runRejectionsShown = 50 // refusals listed on a run's page
	rejectionsPageSize = 50
	// manualRunTimeout bounds a "run now": the run goes on when the browser
	// gives up waiting, and stops cleanly (cancelled) at this bound.
	manualRunTimeout = 10 * time.Minute
)

// consolidationShow lists runs newest first, the chart of what the last
// runs did, and the scheduled jobs of this process.
func (s *Console) consolidationShow(c echo.Context) error {
	ctx := c.Request().Context()
	before, err := keysetBefore(c.QueryParams(), "run")
	if err != nil {
		return err
	}
	runs, err := s.store.ListRuns(ctx, before, runsPageSize+1)
	if err != nil {
		return err
	}
	view := pages.ConsolidationPage{Now: s.now(), CanRun: signedInAs(c, auth.RoleReviewer)}
	if len(runs) > runsPageSize {
		runs = runs[:runsPageSize]
		view.NextURL = "/consolidation?before=" + strconv.FormatInt(runs[len(runs)-1].ID, 10)
	}
	if before != 0 {
		view.FirstURL = "/consolidation"
	}
	for _, r := range runs {
		view.Runs = append(view.Runs, consRunRow(r))
	}

	recent := runs
	if before != 0 {
		if recent, err = s.store.ListRuns(ctx, 0, chartRuns); err != nil {
			return err
		}
	}
	view.Chart = runsChart(recent[:min(len(recent), chartRuns)], view.Now)

	view.Jobs = s.jobsView(ctx, view.Now)
	return s.page(c, http.StatusOK, "Consolidation", "consolidation", pages.Consolidation(view), nil)
}

// runsChart draws what each of runs (newest first) did, newest at the top:
// facts promoted, superseded and merged, rows refused and set aside, with
// how long the run took.
func runsChart(runs []memory.Run, now time.Time) components.RowBarChart {
	chart := components.RowBarChart{
		ID:    "runs-chart",
		Title: "What each consolidation run did",
		Description: fmt.Sprintf("One bar for each of the last %d runs, newest first: facts promoted, superseded and merged, "+
			"rows refused and set aside, with how long the run took.", len(runs)),
		EmptyText: "No consolidation run yet.",
		Series: []components.BarSeries{
			{Name: "promoted", Color: "var(--ok, #1a6e35)"},
			{Name: "superseded", Color: "var(--m-transient-fg, #8c3a0c)"},
			{Name: "merged", Color: "var(--d-permanent-fg, #4c2a9e)"},
			{Name: "refused", Color: "var(--danger, #b42328)"},
			{Name: "set aside", Color: "var(--m-expired-fg, #575f69)"},
		},
	}
	for _, r := range runs {
		row := consRunRow(r)
		chart.Rows = append(chart.Rows, components.RunBar{
			Label: "#" + strconv.FormatInt(r.ID, 10), Href: pages.RunURL(r.ID), Title: "Run " + strconv.FormatInt(r.ID, 10),
			Note:   pages.RunDuration(row, now),
			Values: []int{row.Promoted, row.Superseded, row.Merged, row.Refused(), row.SetAside},
		})
	}
	return chart
}

// consRunRow is the summary of a run that tables show.
func consRunRow(r memory.Run) pages.ConsRunRow {
	row := pages.ConsRunRow{
		ID: r.ID, Trigger: r.Trigger, Status: r.Status, StartedAt: r.StartedAt, FinishedAt: r.FinishedAt,
		Promoted:   r.Count(memory.PhasePromote, "promoted"),
		Reinforced: r.Count(memory.PhasePromote, "reinforced"),
		Superseded: r.Count(memory.PhasePromote, "superseded"),
		Decisions:  r.Count(memory.PhaseDecide, "decisions"),
		Merged:     r.Count(memory.PhaseMerge, "merged"),
		Pruned: r.Count(memory.PhaseCleanup, "pruned_expired") + r.Count(memory.PhaseCleanup, "pruned_transient") +
			r.Count(memory.PhaseCleanup, "pruned_ttl"),
		Transient: r.TransientRejected, Expired: r.ExpiredRejected, Locked: r.DecisionLocked, SetAside: r.SetAside,
		Error: r.Error,
	}
	if r.Phase != nil {
		row.Phase = phaseLabel(int(*r.Phase))
	}
	return row
}

// phaseLabel names a phase with its number, e.g. "10 · promote".
func phaseLabel(phase int) string {
	return strconv.Itoa(phase) + " · " + memory.PhaseName(phase)
}

// consolidationRun runs consolidation now, in this request, and shows the
// run's report. Another run in progress, here or on another replica, is
// answered with a message.
func (s *Console) consolidationRun(c echo.Context) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(c.Request().Context()), manualRunTimeout)
	defer cancel()
	run, err := s.store.Consolidate(ctx, memory.ConsolidateOptions{Trigger: memory.TriggerManual})
	if memory.ErrorCode(err) == memory.CodeBusy {
		return s.redirectWithFlash(c, "/consolidation", "error",
			"Not started: another run is in progress. Wait for it to finish, then look at its report below.")
	}
	if err != nil {
		if run.ID == 0 {
			return err
		}
		s.logger.Error("consolidation.manual_failed", "run_id", run.ID, "err", err)
		return s.redirectWithFlash(c, pages.RunURL(run.ID), "error",
			fmt.Sprintf("Run %d %s: %s", run.ID, run.Status, run.Error))
	}
	row := consRunRow(run)
	msg := fmt.Sprintf("Run %d finished in %s: %d promoted, %d reinforced, %d decisions, %d pruned, %d refused.",
		run.ID, runTook(run), row.Promoted, row.Reinforced, row.Decisions, row.Pruned, row.Refused())
	if run.SetAside > 0 {
		msg += fmt.Sprintf(" %d rows failed on their own and were set aside; the run went on without them.", run.SetAside)
	}
	return s.redirectWithFlash(c, pages.RunURL(run.ID), "ok", msg)
}

func runTook(r memory.Run) string {
	if r.FinishedAt == nil {
		return "-"
	}
	return r.FinishedAt.Sub(r.StartedAt).Round(time.Millisecond).String()
}

// phaseOutcomes are the outcomes each phase counts, in the order the run
// page lists them; a report may hold others, which follow.
var phaseOutcomes = map[int][]string{
	memory.PhaseDecay:   {"archived"},
	memory.PhasePromote: {"promoted", "reinforced", "superseded", "transient_rejected", "expired_rejected", "decision_locked", "set_aside"},
	memory.PhaseMerge:   {"merged", "near_duplicates", "repeated_moods", "transient_rejected", "expired_rejected", "set_aside"},
	memory.PhaseDecide:  {"decisions", "transient_rejected", "expired_rejected", "decision_locked", "set_aside"},
	memory.PhaseCleanup: {"pruned_expired", "pruned_transient", "pruned_ttl"},
}

// phaseDoes says what each phase does, for the run page.
var phaseDoes = map[int]string{
	memory.PhaseDecay:   "Archives facts whose effective confidence fell below the floor, or that expired.",
	memory.PhasePromote: "Turns durable rows into facts, or reinforces the identical fact; refuses transient and expired rows, and rows that would write on a locked decision.",
	memory.PhaseMerge:   "Merges exact duplicate facts; sends near duplicates and moods seen many times to the review queue.",
	memory.PhaseDecide:  "Turns decision rows into locked decisions; refuses transient and expired rows, and decisions on a locked key.",
	memory.PhaseCleanup: "Prunes expired rows, transient rows older than min(ttl, 1 h), and rows past their ttl, each leaving a tombstone; removes rows promoted more than 7 days ago.",
}

// runShow shows one run's report, phase by phase, and its first refusals.
func (s *Console) runShow(c echo.Context) error {
	ctx := c.Request().Context()
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	run, err := s.store.GetRun(ctx, id)
	if err != nil {
		return err
	}
	rejections, err := s.store.ListRejections(ctx, memory.RejectionFilter{RunID: id, Limit: runRejectionsShown})
	if err != nil {
		return err
	}
	view := pages.RunReportPage{
		Run: consRunRow(run), Now: s.now(), TotalRejections: run.TransientRejected + run.ExpiredRejected + run.DecisionLocked,
		LogURL: pages.RejectionLogURL(pages.RejectionLogFilter{Run: strconv.FormatInt(id, 10)}, 0),
	}
	for _, ph := range memory.PhaseOrder {
		counts, reached := run.Report[strconv.Itoa(ph)]
		p := pages.RunPhase{Number: ph, Name: memory.PhaseName(ph), Does: phaseDoes[ph],
			Last: !finishedEveryPhase(run.Status) && run.Status != memory.RunRunning && run.Phase != nil && int(*run.Phase) == ph}
		if reached || finishedEveryPhase(run.Status) {
			for _, o := range phaseOutcomes[ph] {
				p.Outcomes = append(p.Outcomes, pages.RunOutcome{Name: o, Count: counts[o]})
			}
			var extra []string
			for o := range counts {
				if !slices.Contains(phaseOutcomes[ph], o) {
					extra = append(extra, o)
				}
			}
			sort.Strings(extra)
			for _, o := range extra {
				p.Outcomes = append(p.Outcomes, pages.RunOutcome{Name: o, Count: counts[o]})
			}
		}
		view.Phases = append(view.Phases, p)
	}
	for _, r := range rejections {
		view.Rejections = append(view.Rejections, rejectionLogRow(r))
	}
	if run.SetAside > 0 {
		faults, err := s.store.ListFaults(ctx, memory.FaultFilter{RunID: id, Limit: runRejectionsShown})
		if err != nil {
			return err
		}
		view.SetAside = faultRows(faults)
	}
	return s.page(c, http.StatusOK, "Run "+strconv.FormatInt(id, 10), "consolidation", pages.RunReport(view), nil)
}

// finishedEveryPhase says whether a run with status ran all its phases.
func finishedEveryPhase(status string) bool {
	return status == memory.RunSucceeded || status == memory.RunPartial
}

// faultRows are set-aside rows as the console's tables show them.
func faultRows(faults []memory.Fault) []pages.FaultRow {
	rows := make([]pages.FaultRow, len(faults))
	for i, f := range faults {
		rows[i] = pages.FaultRow{NodeID: f.NodeID, Scope: f.Scope, Phase: phaseLabel(f.Phase), Error: f.Error,
			Attempts: f.Attempts, RetryAt: f.RetryAt, Content: f.Content}
	}
	return rows
}

func rejectionLogRow(r memory.Rejection) pages.RejectionLogRow {
	row := pages.RejectionLogRow{
		ID: r.ID, RunID: r.RunID, NodeID: r.NodeID, Scope: r.Scope, Reason: r.Reason, Source: r.Source,
		Content: r.Content, DecisionID: r.DecisionID, CreatedAt: r.CreatedAt,
	}
	if r.Phase != nil {
		row.Phase = phaseLabel(int(*r.Phase))
	}
	return row
}

// rejectionList shows the rejection log, newest first, filtered by run,
// phase, reason, scope and source, one keyset page at a time.
func (s *Console) rejectionList(c echo.Context) error {
	ctx := c.Request().Context()
	view, filter, err := parseRejectionLogFilter(c.QueryParams())
	if err != nil {
		return err
	}
	filter.Limit = rejectionsPageSize + 1
	rows, err := s.store.ListRejections(ctx, filter)
	if err != nil {
		return err
	}
	page := pages.RejectionLogPage{Filter: view, Now: s.now(), Reasons: memory.RejectionReasons(), Sources: memory.RejectionSources()}
	for _, ph := range memory.Phases() {
		page.Phases = append(page.Phases, pages.PhaseOption{Value: strconv.Itoa(ph), Label: phaseLabel(ph)})
	}
	if len(rows) > rejectionsPageSize {
		rows = rows[:rejectionsPageSize]
		page.NextURL = pages.RejectionLogURL(view, rows[len(rows)-1].ID)
	}
	if filter.BeforeID != 0 {
		page.FirstURL = pages.RejectionLogURL(view, 0)
	}
	for _, r := range rows {
		page.Rows = append(page.Rows, rejectionLogRow(r))
	}
	if isHTMX(c) {
		return s.page(c, http.StatusOK, "Rejection log", "consolidation", nil, pages.RejectionLogResults(page))
	}
	if page.Scopes, err = s.store.RejectionScopes(ctx); err != nil {
		return err
	}
	if view.Scope != "" && !slices.Contains(page.Scopes, view.Scope) {
		page.Scopes = append(page.Scopes, view.Scope)
		slices.Sort(page.Scopes)
	}
	return s.page(c, http.StatusOK, "Rejection log", "consolidation", pages.RejectionLog(page), nil)
}

// parseRejectionLogFilter reads the rejection log's filter from the URL. The
// engine validates reason, scope and source; run and phase are read here.
func parseRejectionLogFilter(v url.Values) (pages.RejectionLogFilter, memory.RejectionFilter, error) {
	view := pages.RejectionLogFilter{
		Run: strings.TrimSpace(v.Get("run")), Phase: strings.TrimSpace(v.Get("phase")),
		Reason: strings.TrimSpace(v.Get("reason")), Scope: strings.TrimSpace(v.Get("scope")),
		Source: strings.TrimSpace(v.Get("source")),
	}
	f := memory.RejectionFilter{Reason: view.Reason, Scope: view.Scope, Source: view.Source}
	if view.Run != "" {
		id, err := strconv.ParseInt(view.Run, 10, 64)
		if err != nil || id <= 0 {
			return view, f, memory.Invalidf("run", "invalid run %q: it must be a positive run id", view.Run)
		}
		f.RunID = id
	}
	if view.Phase != "" {
		ph, err := memory.ParsePhase(view.Phase)
		if err != nil {
			return view, f, err
		}
		f.Phase = ph
		view.Phase = strconv.Itoa(ph)
	}
	before, err := keysetBefore(v, "rejection")
	f.BeforeID = before
	return view, f, err
}
