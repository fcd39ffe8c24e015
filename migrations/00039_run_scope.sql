-- +goose Up
-- A consolidation run started by an API token consolidates the token's scope
-- only; scope records it. NULL is a run of every scope (scheduled, console,
-- command line), and every run before this migration was one.
ALTER TABLE consolidation_runs ADD COLUMN scope text;

-- +goose Down
ALTER TABLE consolidation_runs DROP COLUMN scope;
