-- +goose Up
-- What changed (the console's /changes, memory/changes.go) reads the audit
-- rows of the changes a person must be able to check and undo: facts
-- superseded (fulfilled and denied too), merged, archived (by hand or by
-- decay) and restored, and decisions recorded. They are few beside the rest
-- of the log (every push, every fact written), so each index below holds
-- only them, newest first as the page lists them.
--
-- Any time range, of every run and writer: (at, id), the page's order and
-- keyset.
CREATE INDEX audit_log_changes_idx ON audit_log (at DESC, id DESC)
    WHERE action IN ('fact.supersede', 'fact.fulfil', 'fact.deny', 'fact.merge', 'fact.archive',
                     'fact.decay', 'fact.restore', 'decision.create');

-- One scope's changes. A change audited in one row for many facts of
-- several scopes has no scope: the page reads those rows too and keeps their
-- facts of the scope.
CREATE INDEX audit_log_changes_scope_idx ON audit_log (scope, at DESC, id DESC)
    WHERE action IN ('fact.supersede', 'fact.fulfil', 'fact.deny', 'fact.merge', 'fact.archive',
                     'fact.decay', 'fact.restore', 'decision.create');

-- One consolidation run's changes: a run's rows carry its id in after.run_id.
CREATE INDEX audit_log_changes_run_idx ON audit_log ((after->>'run_id'), at DESC, id DESC)
    WHERE action IN ('fact.supersede', 'fact.fulfil', 'fact.deny', 'fact.merge', 'fact.archive',
                     'fact.decay', 'fact.restore', 'decision.create')
      AND after ? 'run_id';

-- +goose Down
DROP INDEX audit_log_changes_run_idx;
DROP INDEX audit_log_changes_scope_idx;
DROP INDEX audit_log_changes_idx;
