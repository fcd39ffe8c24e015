package mcpserver

import (
	"testing"
	"time"
)

func TestAge(t *testing.T) {
	for d, want := range map[time.Duration]string{
		10 * time.Second:         "just now",
		5 * time.Minute:          "5 min ago",
		3 * time.Hour:            "3 h ago",
		72 * time.Hour:           "3 d ago",
		90 * 24 * time.Hour:      "3 mo ago",
		3 * 365 * 24 * time.Hour: "3 y ago",
	} {
		if got := age(d); got != want {
			t.Errorf("age(%v) = %q, want %q", d, got, want)
		}
	}
}
