// Package client is the Go client of Tenure's REST API (/api/v1), generated
// with oapi-codegen from the OpenAPI document api/openapi.json, which the
// server also serves at /api/openapi.json.
//
// client.gen.go holds a model for every schema of the document (Fact,
// Decision, Brief, Error, ...) and a ClientWithResponses whose methods, one
// per operation, answer typed responses: JSON200, JSON201 and the error
// answers (JSON400, JSON409, ...) decoded into the Error model.
// NewWithToken makes one that sends an API token:
//
//	c, err := client.NewWithToken("http://127.0.0.1:8080", token)
//	res, err := c.RecallWithResponse(ctx, "acme-support", &client.RecallParams{Query: &query})
//	for _, r := range res.JSON200.Results { fmt.Println(r.Fact.Content) }
//
// client.gen.go is generated, never edited: after a change to the document
// run
//
//	go generate ./client
//
// and commit the result. CI regenerates it and fails when it differs from
// the committed file, as does TestGeneratedCodeIsCurrent. The package's
// tests, the project's simulation (tenure simulate) and an end-to-end test
// talk to the real server through this client, so a document that no longer
// fits the server shows there.
package client

//go:generate go tool oapi-codegen -config oapi-codegen.yaml -o client.gen.go ../api/openapi.json
