package replica

import (
	"database/sql/driver"
	"fmt"
	"strconv"
	"strings"
)

// LSN is a position in PostgreSQL's write-ahead log, the value of the type
// pg_lsn: a byte offset written as two hexadecimal halves, "16/B374D848".
// Later positions compare greater. The zero LSN precedes every position, so
// as a minimum it asks for nothing.
//
// LSN scans from a pg_lsn column or a text value (database/sql.Scanner; use
// *LSN for a NULL one), is sent as a query parameter in text form
// (driver.Valuer), and marshals to text (cookies, JSON).
type LSN uint64

// ParseLSN parses the text form of a pg_lsn, "16/B374D848".
func ParseLSN(s string) (LSN, error) {
	hi, lo, ok := strings.Cut(s, "/")
	if !ok || !isHex32(hi) || !isHex32(lo) {
		return 0, fmt.Errorf("replica: invalid LSN %q, want two hexadecimal numbers such as 16/B374D848", s)
	}
	h, _ := strconv.ParseUint(hi, 16, 32)
	l, _ := strconv.ParseUint(lo, 16, 32)
	return LSN(h<<32 | l), nil
}

// isHex32 reports whether s is one to eight hexadecimal digits.
func isHex32(s string) bool {
	if len(s) == 0 || len(s) > 8 {
		return false
	}
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// String returns the LSN as PostgreSQL writes it, "16/B374D848".
func (l LSN) String() string { return fmt.Sprintf("%X/%X", uint32(l>>32), uint32(l)) }

// MarshalText returns the LSN's text form.
func (l LSN) MarshalText() ([]byte, error) { return []byte(l.String()), nil }

// UnmarshalText parses the LSN's text form.
func (l *LSN) UnmarshalText(b []byte) error {
	v, err := ParseLSN(string(b))
	if err != nil {
		return err
	}
	*l = v
	return nil
}

// Scan reads a pg_lsn in text form, as a string or bytes. NULL is an
// error: scan into a **LSN (or *LSN field of a row) to allow it.
func (l *LSN) Scan(src any) error {
	switch v := src.(type) {
	case string:
		return l.UnmarshalText([]byte(v))
	case []byte:
		return l.UnmarshalText(v)
	case nil:
		return fmt.Errorf("replica: cannot scan NULL into LSN")
	default:
		return fmt.Errorf("replica: cannot scan %T into LSN", src)
	}
}

// Value returns the LSN's text form, which PostgreSQL reads as a pg_lsn.
func (l LSN) Value() (driver.Value, error) { return l.String(), nil }
