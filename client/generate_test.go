package client_test

import (
	"bytes"
	"os"
	"os/exec"
	"testing"
)

// TestGeneratedCodeIsCurrent runs the generator as go generate does, with
// its output to stdout, and fails when it differs from the committed
// client.gen.go: the document changed and the client was not regenerated.
func TestGeneratedCodeIsCurrent(t *testing.T) {
	committed, err := os.ReadFile("client.gen.go")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "tool", "oapi-codegen", "-config", "oapi-codegen.yaml", "../api/openapi.json")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	generated, err := cmd.Output()
	if err != nil {
		t.Fatalf("oapi-codegen: %v\n%s", err, stderr.Bytes())
	}
	if !bytes.Equal(generated, committed) {
		t.Errorf("client/client.gen.go is stale: api/openapi.json changed since it was generated; run 'go generate ./client' and commit the result")
	}
}
