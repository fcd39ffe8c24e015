package client

import (
	"context"
	"net/http"
)

// NewWithToken returns a client of the API at server (such as
// http://127.0.0.1:8080) that sends token, an API token (tnr_...), as its
// bearer credential on every request. opts come after, so WithHTTPClient
// and more request editors can be added.
func NewWithToken(server, token string, opts ...ClientOption) (*ClientWithResponses, error) {
	bearer := WithRequestEditorFn(func(_ context.Context, req *http.Request) error {
		req.Header.Set("Authorization", "Bearer "+token)
		return nil
	})
	return NewClientWithResponses(server, append([]ClientOption{bearer}, opts...)...)
}
