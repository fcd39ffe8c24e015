package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tenurehq/tenure/memory"
)

// Idempotency keys (memory/idempotency.go): a writing tool called with
// idempotency_key runs once; a repeat by the same token within 24 hours,
// with the same arguments (compared as JSON, the key left out), gets the
// first call's result again and writes nothing. The same key with other
// arguments, or with another tool, is refused, and so is a repeat while the
// first call still runs, to be retried. Keys belong to the API token, and
// the REST API's Idempotency-Key header draws on the same keys.
//
// What is kept is the call's result or its refusal (invalid arguments, a
// locked decision ...), which the same call would get again; a failure of
// Tenure, of its database or of an LLM endpoint, and a refusal that says to
// try again later, are not: the key is released and a retry runs the call.

// argIdempotencyKey is the argument that carries a key.
const argIdempotencyKey = "idempotency_key"

// idempotency is the idempotency_key argument, embedded in the input of
// each writing tool.
type idempotency struct {
	IdempotencyKey string `json:"idempotency_key,omitempty" jsonschema:"a key such as a UUID that makes the call safe to retry: a repeat with the same key and arguments within 24 hours returns the first result and writes nothing; with other arguments it is refused"`
}

func (i idempotency) idempotencyKey() string { return i.IdempotencyKey }

// keyed is the input of a tool that takes idempotency_key.
type keyed interface{ idempotencyKey() string }

// idempotencyKeySchema bounds the idempotency_key argument of s, when it
// has one, as memory.CheckIdempotencyKey does.
func idempotencyKeySchema(s *jsonschema.Schema) {
	if p := s.Properties[argIdempotencyKey]; p != nil {
		p.MinLength, p.MaxLength = intp(1), intp(memory.MaxIdempotencyKey)
		p.Pattern = "^[!-~]([ -~]*[!-~])?$"
	}
}

// storedCall is a call's result or refusal as stored with its key.
type storedCall struct {
	Result json.RawMessage `json:"result,omitempty"` // the handler's *mcp.CallToolResult, when it gave one
	Output json.RawMessage `json:"output,omitempty"`
	Error  *storedError    `json:"error,omitempty"`
}

type storedError struct {
	Code    memory.Code `json:"code"`
	Message string      `json:"message"` // the whole text the agent read
}

// Status of a stored call, in memory.IdempotentAnswer (which holds HTTP
// statuses for the REST API).
const (
	storedResult  = 200
	storedRefusal = 400
)

// runIdempotent runs call, the handler of tool with in, once per
// idempotency key when in carries one (see above); otherwise it runs it.
func runIdempotent[In, Out any](ctx context.Context, t *tools, tool string, c TokenInfo, req *mcp.CallToolRequest, in In,
	call func() (*mcp.CallToolResult, Out, error)) (*mcp.CallToolResult, Out, error) {
	var zero Out
	k, ok := any(in).(keyed)
	if !ok || k.idempotencyKey() == "" {
		return call()
	}
	key := k.idempotencyKey()
	if err := memory.CheckIdempotencyKey(argIdempotencyKey, key); err != nil {
		return nil, zero, err
	}
	args, err := argumentsWithoutKey(req)
	if err != nil {
		return nil, zero, err
	}
	claim, err := t.store.ClaimIdempotencyKey(ctx, memory.IdempotentRequest{
		TokenID: c.ID, Key: key, Method: "tools/call", Target: tool, Body: args, Lease: memory.LeaseFor(ctx),
	})
	if err != nil {
		return nil, zero, err
	}
	switch claim.Outcome {
	case memory.ClaimReplay:
		return replayCall[Out](claim.Answer)
	case memory.ClaimInProgress:
		return nil, zero, &memory.Error{Code: memory.CodeConflict, Field: argIdempotencyKey, Message: "a call with this " +
			"idempotency_key is in progress: retry in a moment, and it will return what that call returns"}
	case memory.ClaimReused:
		first := "tool " + claim.FirstTarget
		if claim.FirstMethod != "tools/call" {
			first = "the REST request " + claim.FirstMethod + " " + claim.FirstTarget
		}
		return nil, zero, &memory.Error{Code: memory.CodeConflict, Field: argIdempotencyKey, Message: fmt.Sprintf(
			"this idempotency_key was used at %s for another call (%s, or other arguments): a key stands for one call for "+
				"24 hours; repeat that call unchanged to get its result again, or use a new key",
			claim.FirstAt.UTC().Format(time.RFC3339), first)}
	}

	settled := false
	defer func() {
		if !settled {
			t.releaseKey(ctx, tool, claim)
		}
	}()
	res, out, err := call()
	stored := storedCall{}
	status := storedResult
	switch e := memory.AsError(err); {
	case err != nil && !keptRefusal(e):
		return res, out, err
	case err != nil:
		stored.Error, status = &storedError{Code: e.Code, Message: e.Error()}, storedRefusal
	default:
		if res != nil {
			if stored.Result, err = json.Marshal(res); err != nil {
				return nil, zero, err
			}
		}
		if stored.Output, err = json.Marshal(out); err != nil {
			return nil, zero, err
		}
	}
	body, merr := json.Marshal(stored)
	if merr != nil {
		return nil, zero, merr
	}
	settled = true
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), idempotencyStoreTimeout)
	defer cancel()
	ok, serr := t.store.CompleteIdempotencyKey(sctx, claim, memory.IdempotentAnswer{Status: status, Body: body})
	switch {
	case serr != nil:
		t.logger.Error("mcp.idempotency_store_failed", "tool", tool, "err", serr)
	case !ok:
		t.logger.Warn("mcp.idempotency_taken_over", "tool", tool)
	}
	if stored.Error != nil {
		return nil, zero, err
	}
	return res, out, nil
}

// idempotencyStoreTimeout bounds storing or releasing a key once the call
// is done, whatever is left of its deadline.
const idempotencyStoreTimeout = 10 * time.Second

// keptRefusal reports whether a call's refusal e is stored with its key:
// one of the call itself, not one to retry later (busy) nor an LLM
// endpoint's failure.
func keptRefusal(e *memory.Error) bool {
	if e == nil {
		return false
	}
	switch e.Code {
	case memory.CodeInvalid, memory.CodeNotFound, memory.CodeConflict, memory.CodeDecisionLocked, memory.CodeForbidden:
		return true
	}
	return false
}

// releaseKey forgets claim's key, so that a retry of the call runs.
func (t *tools) releaseKey(ctx context.Context, tool string, claim *memory.Claim) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), idempotencyStoreTimeout)
	defer cancel()
	if err := t.store.ReleaseIdempotencyKey(ctx, claim); err != nil {
		t.logger.Error("mcp.idempotency_release_failed", "tool", tool, "err", err)
	}
}

// replayCall returns a stored call's result or refusal again.
func replayCall[Out any](a memory.IdempotentAnswer) (*mcp.CallToolResult, Out, error) {
	var out Out
	var s storedCall
	if err := json.Unmarshal(a.Body, &s); err != nil {
		return nil, out, fmt.Errorf("read stored call: %w", err)
	}
	if s.Error != nil {
		// The message is the whole text of the first refusal.
		return nil, out, &memory.Error{Code: s.Error.Code, Message: s.Error.Message}
	}
	if err := json.Unmarshal(s.Output, &out); err != nil {
		return nil, out, fmt.Errorf("read stored call's output: %w", err)
	}
	if len(s.Result) == 0 {
		return nil, out, nil
	}
	res := &mcp.CallToolResult{}
	if err := json.Unmarshal(s.Result, res); err != nil {
		return nil, out, fmt.Errorf("read stored call's result: %w", err)
	}
	return res, out, nil
}

// argumentsWithoutKey are a call's arguments without idempotency_key, for
// its fingerprint.
func argumentsWithoutKey(req *mcp.CallToolRequest) ([]byte, error) {
	if req == nil || req.Params == nil || len(req.Params.Arguments) == 0 {
		return nil, nil
	}
	var args map[string]json.RawMessage
	if err := json.Unmarshal(req.Params.Arguments, &args); err != nil {
		return nil, memory.Invalidf("", "the arguments are not a JSON object: %v", err)
	}
	delete(args, argIdempotencyKey)
	return json.Marshal(args)
}
