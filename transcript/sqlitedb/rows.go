package sqlitedb

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/cortexmem/cortex/transcript/rawjson"
)

// Row is one row of a query: its table (as the caller names it), its rowid
// when the query selects one, and its columns' values as database/sql gives
// them (nil, int64, float64, string, []byte).
type Row struct {
	Table   string
	RowID   int64
	Columns []string
	Values  []any
}

// Value returns the value of the column name, nil when there is none.
func (r Row) Value(name string) any {
	if i := slices.Index(r.Columns, name); i >= 0 {
		return r.Values[i]
	}
	return nil
}

// Columns returns the columns of table, in order; none when the database has
// no such table.
func (d *DB) Columns(ctx context.Context, table string) ([]string, error) {
	rows, err := d.db.QueryContext(ctx, "SELECT name FROM pragma_table_info(?)", table)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", d.Path, Classify(err))
	}
	defer rows.Close()
	var cols []string
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			return nil, fmt.Errorf("read %s: %w", d.Path, Classify(err))
		}
		cols = append(cols, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", d.Path, Classify(err))
	}
	return cols, nil
}

// Query runs query on the copy and calls fn with each row, in the order the
// query gives them. A column named "rowid" (select it as such) becomes the
// row's RowID rather than one of its columns. It stops at fn's first error.
func (d *DB) Query(ctx context.Context, table, query string, args []any, fn func(Row) error) error {
	rows, err := d.db.QueryContext(ctx, query, args...)
	if err != nil {
		return fmt.Errorf("read %s: %w", d.Path, Classify(err))
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return fmt.Errorf("read %s: %w", d.Path, Classify(err))
	}
	ridIndex := slices.Index(cols, "rowid")
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return fmt.Errorf("read %s: %w", d.Path, Classify(err))
		}
		r := Row{Table: table}
		for i, c := range cols {
			if i == ridIndex {
				r.RowID, _ = vals[i].(int64)
				continue
			}
			r.Columns = append(r.Columns, c)
			r.Values = append(r.Values, normalize(vals[i]))
		}
		if err := fn(r); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read %s: %w", d.Path, Classify(err))
	}
	return nil
}

// normalize copies a scanned value (the driver may reuse a []byte) and turns
// the types a driver may give for declared dates back into text.
func normalize(v any) any {
	switch x := v.(type) {
	case []byte:
		return bytes.Clone(x)
	case time.Time:
		return x.Format(time.RFC3339Nano)
	case bool:
		if x {
			return int64(1)
		}
		return int64(0)
	}
	return v
}

// AppendJSON appends the row as one JSON line (without its newline):
// {"table":…,"rowid":…,"values":{…}}, the columns in order. jsonCols names
// the columns whose TEXT or BLOB holds a JSON document: such a value is
// written as that document, compacted, when it is valid JSON; any other
// value as null, a number, a string, or {"$blob": base64} for bytes (a BLOB,
// or TEXT that is not UTF-8).
func (r Row) AppendJSON(dst []byte, jsonCols ...string) []byte {
	dst = append(dst, `{"table":`...)
	dst = appendString(dst, r.Table)
	if r.RowID != 0 {
		dst = append(dst, `,"rowid":`...)
		dst = strconv.AppendInt(dst, r.RowID, 10)
	}
	dst = append(dst, `,"values":{`...)
	for i, c := range r.Columns {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendString(dst, c)
		dst = append(dst, ':')
		dst = appendValue(dst, r.Values[i], slices.Contains(jsonCols, c))
	}
	return append(dst, "}}"...)
}

func appendValue(dst []byte, v any, isJSON bool) []byte {
	switch x := v.(type) {
	case nil:
		return append(dst, "null"...)
	case int64:
		return strconv.AppendInt(dst, x, 10)
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return appendString(dst, strconv.FormatFloat(x, 'g', -1, 64))
		}
		return strconv.AppendFloat(dst, x, 'g', -1, 64)
	case string:
		return appendText(dst, []byte(x), isJSON)
	case []byte:
		if isJSON && json.Valid(x) {
			return appendCompact(dst, x)
		}
		return appendBlob(dst, x)
	}
	return appendString(dst, fmt.Sprint(v))
}

func appendText(dst, b []byte, isJSON bool) []byte {
	switch {
	case isJSON && json.Valid(b):
		return appendCompact(dst, b)
	case !utf8.Valid(b):
		return appendBlob(dst, b)
	}
	return appendString(dst, string(b))
}

func appendCompact(dst, b []byte) []byte {
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		return appendBlob(dst, b)
	}
	return append(dst, buf.Bytes()...)
}

// BlobKey is the member of the object a BLOB is written as.
const BlobKey = "$blob"

func appendBlob(dst, b []byte) []byte {
	dst = append(dst, `{"`+BlobKey+`":"`...)
	dst = base64.StdEncoding.AppendEncode(dst, b)
	return append(dst, `"}`...)
}

// appendString writes s as a JSON string: the escapes JSON requires and no
// others (no HTML escaping: the text stays readable).
func appendString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			dst = append(dst, c)
			i++
			continue
		}
		if c < utf8.RuneSelf {
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, `\ufffd`...)
		} else {
			dst = append(dst, s[i:i+size]...)
		}
		i += size
	}
	return append(dst, '"')
}

// Line is a row line read back: what AppendJSON wrote.
type Line struct {
	Table  string
	RowID  int64
	Values rawjson.Object
}

// ParseLine reads a row line (already validated as JSON); false when data is
// not one.
func ParseLine(data []byte) (Line, bool) {
	m, ok := rawjson.ParseObject(data)
	if !ok {
		return Line{}, false
	}
	return LineOf(m)
}

// LineOf reads a row line already split into its members.
func LineOf(m rawjson.Object) (Line, bool) {
	table, ok := rawjson.String(m.Get("table"))
	if !ok || table == "" {
		return Line{}, false
	}
	values, ok := rawjson.ParseObject(m.Get("values"))
	if !ok {
		return Line{}, false
	}
	l := Line{Table: table, Values: values}
	if rid := m.Get("rowid"); rid != nil {
		if !rawjson.IsNumber(rid) {
			return Line{}, false
		}
		l.RowID = rawjson.Int(rid)
	}
	return l, true
}

// Bytes returns the bytes a value holds: a BLOB ({"$blob": base64}) decoded,
// a string's UTF-8; false for other values.
func Bytes(v []byte) ([]byte, bool) {
	if rawjson.IsString(v) {
		s, ok := rawjson.String(v)
		return []byte(s), ok
	}
	if !rawjson.IsObject(v) {
		return nil, false
	}
	m, ok := rawjson.ParseObject(v)
	if !ok || len(m) != 1 || m[0].KeyString() != BlobKey {
		return nil, false
	}
	v = m[0].Value
	if rawjson.IsString(v) && len(v) >= 2 && bytes.IndexByte(v, '\\') < 0 {
		// Base64 written plainly (as AppendRow writes it): decoded from
		// the record's bytes, without a copy of the text first.
		enc := v[1 : len(v)-1]
		b := make([]byte, base64.StdEncoding.DecodedLen(len(enc)))
		n, err := base64.StdEncoding.Decode(b, enc)
		return b[:n], err == nil
	}
	s, ok := rawjson.String(v)
	if !ok {
		return nil, false
	}
	b, err := base64.StdEncoding.DecodeString(s)
	return b, err == nil
}
