package vscodecopilot

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"

	"github.com/cortexmem/cortex/transcript/rawjson"
)

// The mutation log changes the session document at a path (an array of
// keys and indices) as VS Code's ObjectMutationLog applies it: set a value
// (replacing it; delete is a set to nothing), or push values onto an array
// after cutting it at an index. These functions do that to JSON held as
// bytes, rebuilding only the containers on the path, so the values nobody
// touched stay byte for byte as the log wrote them. Every input is valid
// JSON (the record was validated), so every output is.

// modify returns doc with f applied to the value at path (nil when the last
// key is absent); f returns the new value, nil to remove it. It reports
// false when the path does not lead through containers doc has, as VS
// Code's own reader fails on such an entry.
func modify(doc []byte, path [][]byte, f func(old []byte) []byte) ([]byte, bool) {
	if len(path) == 0 {
		v := f(doc)
		return v, v != nil
	}
	key := path[0]
	switch {
	case rawjson.IsString(key):
		obj, ok := rawjson.ParseObject(doc)
		if !ok {
			return nil, false
		}
		name := rawjson.AsString(key)
		at := -1
		for i := range obj {
			if keyIs(obj[i].Key, name) {
				at = i
			}
		}
		var child []byte
		if at >= 0 {
			child = obj[at].Value
		}
		var v []byte
		if len(path) == 1 {
			v = f(child)
		} else {
			if child == nil {
				return nil, false
			}
			if v, ok = modify(child, path[1:], f); !ok {
				return nil, false
			}
		}
		return rebuildObject(obj, at, key, v), true
	case rawjson.IsNumber(key):
		arr, ok := rawjson.ParseArray(doc)
		if !ok {
			return nil, false
		}
		n := rawjson.Int(key)
		if n < 0 || n > int64(len(arr)) || n == int64(len(arr)) && len(path) > 1 {
			return nil, false
		}
		var child []byte
		if n < int64(len(arr)) {
			child = arr[n]
		}
		var v []byte
		if len(path) == 1 {
			v = f(child)
		} else if v, ok = modify(child, path[1:], f); !ok {
			return nil, false
		}
		if v == nil {
			v = []byte("null") // a removed element leaves a hole, as in JavaScript
		}
		if n == int64(len(arr)) {
			arr = append(arr, v)
		} else {
			arr[n] = v
		}
		return rebuildArray(arr), true
	}
	return nil, false
}

// keyIs reports whether a member's key (as written) decodes to name,
// without decoding the plain keys (every entry rebuilds its request's
// objects, key by key).
func keyIs(key []byte, name string) bool {
	if bytes.IndexByte(key, '\\') < 0 && utf8.Valid(key) {
		return string(key) == name
	}
	return rawjson.Member{Key: key}.KeyString() == name
}

// setIn sets (or, with val nil, removes) the value at path.
func setIn(doc []byte, path [][]byte, val []byte) ([]byte, bool) {
	return modify(doc, path, func([]byte) []byte { return val })
}

// pushIn appends vals to the array at path (a missing one is empty), after
// cutting it to cut elements when cut is 0 or more.
func pushIn(doc []byte, path [][]byte, vals [][]byte, cut int) ([]byte, bool) {
	bad := false
	out, ok := modify(doc, path, func(old []byte) []byte {
		var arr [][]byte
		if rawjson.Value(old) != nil {
			a, isArr := rawjson.ParseArray(old)
			if !isArr {
				bad = true
				return old
			}
			arr = a
		}
		if cut >= 0 && cut < len(arr) {
			arr = arr[:cut]
		}
		return rebuildArray(append(arr, vals...))
	})
	return out, ok && !bad
}

func rebuildObject(obj rawjson.Object, at int, key, v []byte) []byte {
	var b bytes.Buffer
	size := len(v) + len(key) + 8
	for _, m := range obj {
		size += len(m.Key) + len(m.Value) + 4
	}
	b.Grow(size)
	b.WriteByte('{')
	n := 0
	write := func(k, val []byte, quoted bool) {
		if n > 0 {
			b.WriteByte(',')
		}
		n++
		if quoted {
			b.Write(k) // already a JSON string
		} else {
			b.WriteByte('"')
			b.Write(k)
			b.WriteByte('"')
		}
		b.WriteByte(':')
		b.Write(val)
	}
	for i, m := range obj {
		switch {
		case i != at:
			write(m.Key, m.Value, false)
		case v != nil:
			write(m.Key, v, false)
		}
	}
	if at < 0 && v != nil {
		name, _ := json.Marshal(rawjson.AsString(key))
		write(name, v, true)
	}
	b.WriteByte('}')
	return b.Bytes()
}

func rebuildArray(arr [][]byte) []byte {
	var b bytes.Buffer
	size := 2
	for _, v := range arr {
		size += len(v) + 1
	}
	b.Grow(size)
	b.WriteByte('[')
	for i, v := range arr {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(v)
	}
	b.WriteByte(']')
	return b.Bytes()
}
