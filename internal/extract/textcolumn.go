package extract

import "github.com/compactlab/compact/internal/history"

// TextColumn is the JavaScript string the upstream script holds for the
// bytes s of a SQLite TEXT column. It reads the columns through the sqlite3
// CLI (json_object copies the bytes as they are) and decodes the output
// with Buffer.toString(), Node's UTF-8 decoder, which follows the WHATWG
// decoder: every maximal subpart of an ill-formed sequence (Unicode's
// "substitution of maximal subparts") becomes one U+FFFD. A surrogate
// encoded in UTF-8 (ED A0..BF xx) is ill-formed: ED is a subpart of its own,
// so such a triple gives three U+FFFD. Valid text is returned as it is.
//
// Go's strings.ToValidUTF8 (one U+FFFD for a whole run of bad bytes) and
// utf8.DecodeRune (one per byte) both differ from this.
func TextColumn(s string) string { return history.ToValidUTF8(s) }
