package memory

import (
	"bufio"
	"fmt"
	"os"
	"testing"
	"time"
)

func TestZZClsDump(t *testing.T) {
	f, err := os.Open("/tmp/clsx/in.txt")
	if err != nil {
		t.Skip()
	}
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		c := Classify(sc.Text(), now)
		dl := ""
		if c.Deadline != nil {
			dl = c.Deadline.Format(time.RFC3339)
		}
		fmt.Printf("%-60q %-10s %-11s key=%s dl=%s alts=%q why=%q | %s\n", sc.Text(), c.Durability, c.Category, c.Key, dl, c.Alternatives, c.Reasoning, c.Reason)
	}
}
