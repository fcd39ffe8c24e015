package components

import "context"

type csrfKey struct{}

// WithCSRF returns a context carrying the session's CSRF token, which
// CSRFField puts into every form rendered with it.
func WithCSRF(ctx context.Context, token string) context.Context {
	return context.WithValue(ctx, csrfKey{}, token)
}

// CSRFToken returns the token WithCSRF stored, or "".
func CSRFToken(ctx context.Context) string {
	t, _ := ctx.Value(csrfKey{}).(string)
	return t
}
