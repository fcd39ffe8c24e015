package server_test

import (
	"testing"

	"github.com/tenurehq/tenure/internal/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }
