package zed

import (
	"slices"

	"github.com/cortexmem/cortex/transcript/rawjson"
)

// tree indexes the objects and arrays of a thread's JSON in one pass, so
// that reading the thread (its messages, their contents, their items) looks
// up members already found instead of scanning the same bytes again at
// each level: rawjson.AsObject skips every member's value to find the next,
// and a thread read level by level was scanned six or seven times.
//
// obj and arr give what rawjson.AsObject and rawjson.AsArray give, the
// same members in the same order; for bytes that are not a container of
// the indexed JSON they are those functions. Its buffers serve every
// thread of a stream: what they return is valid until the next index.
type tree struct {
	src   []byte
	nodes []node // the containers, in the order they open (by start)
	next  int    // the node after the last one found
	mems  []rawjson.Member
	elems [][]byte
	// The members and elements of the containers still open.
	openMems  []rawjson.Member
	openElems [][]byte
}

// node is a container of src: src[start:end], its members mems[from:to]
// (an object) or its elements elems[from:to] (an array).
type node struct {
	start, end, from, to int
}

// index reads src (valid JSON). Should it not be valid, the tree holds
// nothing and its look-ups are rawjson's.
func (t *tree) index(src []byte) {
	t.src, t.nodes, t.mems, t.elems, t.next = src, t.nodes[:0], t.mems[:0], t.elems[:0], 0
	t.openMems, t.openElems = t.openMems[:0], t.openElems[:0]
	i := rawjson.SkipSpace(src, 0)
	if i >= len(src) || t.value(i) < 0 {
		t.nodes = t.nodes[:0]
	}
}

// value indexes the value at src[i] and returns the index after it (as
// rawjson.SkipValue gives it), or -1 when src is not valid there.
func (t *tree) value(i int) int {
	src := t.src
	switch src[i] {
	case '{':
		n := len(t.nodes)
		t.nodes = append(t.nodes, node{start: i})
		base := len(t.openMems)
		i = rawjson.SkipSpace(src, i+1)
		for i < len(src) && src[i] == '"' {
			kend := rawjson.SkipString(src, i)
			if kend < 0 {
				return -1
			}
			key := src[i+1 : kend-1]
			if i = rawjson.SkipSpace(src, kend); i >= len(src) || src[i] != ':' {
				return -1
			}
			if i = rawjson.SkipSpace(src, i+1); i >= len(src) {
				return -1
			}
			vend := t.value(i)
			if vend < 0 {
				return -1
			}
			t.openMems = append(t.openMems, rawjson.Member{Key: key, Value: src[i:vend]})
			if i = rawjson.SkipSpace(src, vend); i < len(src) && src[i] == ',' {
				i = rawjson.SkipSpace(src, i+1)
			}
		}
		if i >= len(src) || src[i] != '}' {
			return -1
		}
		from := len(t.mems)
		t.mems = append(t.mems, t.openMems[base:]...)
		t.openMems = t.openMems[:base]
		t.nodes[n].end, t.nodes[n].from, t.nodes[n].to = i+1, from, len(t.mems)
		return i + 1
	case '[':
		n := len(t.nodes)
		t.nodes = append(t.nodes, node{start: i})
		base := len(t.openElems)
		i = rawjson.SkipSpace(src, i+1)
		for i < len(src) && src[i] != ']' {
			vend := t.value(i)
			if vend < 0 {
				return -1
			}
			t.openElems = append(t.openElems, src[i:vend])
			if i = rawjson.SkipSpace(src, vend); i < len(src) && src[i] == ',' {
				i = rawjson.SkipSpace(src, i+1)
			}
		}
		if i >= len(src) {
			return -1
		}
		from := len(t.elems)
		t.elems = append(t.elems, t.openElems[base:]...)
		t.openElems = t.openElems[:base]
		t.nodes[n].end, t.nodes[n].from, t.nodes[n].to = i+1, from, len(t.elems)
		return i + 1
	}
	// A scalar; none is empty (a closing bracket where a value should be
	// would otherwise be read as one, again and again, by the array loop).
	if end := rawjson.SkipValue(src, i); end > i {
		return end
	}
	return -1
}

// find returns the container that v is (the same bytes of src, not a copy
// of them).
func (t *tree) find(v []byte) (node, bool) {
	if len(v) == 0 || len(t.nodes) == 0 {
		return node{}, false
	}
	// v is a slice of src when it shares its array: its offset is then the
	// difference of their capacities.
	off := cap(t.src) - cap(v)
	if off < 0 || off >= len(t.src) || &t.src[off] != &v[0] {
		return node{}, false
	}
	// Containers are mostly read in the order they open: the one after the
	// last found is tried first.
	k := t.next
	if k >= len(t.nodes) || t.nodes[k].start != off {
		var found bool
		if k, found = slices.BinarySearchFunc(t.nodes, off, func(n node, off int) int { return n.start - off }); !found {
			return node{}, false
		}
	}
	if t.nodes[k].end-off != len(v) {
		return node{}, false
	}
	t.next = k + 1
	return t.nodes[k], true
}

// obj is rawjson.AsObject(v).
func (t *tree) obj(v []byte) rawjson.Object {
	if n, ok := t.find(v); ok && v[0] == '{' {
		if n.from == n.to {
			return rawjson.Object{}
		}
		return t.mems[n.from:n.to:n.to]
	}
	return rawjson.AsObject(v)
}

// arr is rawjson.AsArray(v).
func (t *tree) arr(v []byte) [][]byte {
	if n, ok := t.find(v); ok && v[0] == '[' {
		if n.from == n.to {
			return [][]byte{}
		}
		return t.elems[n.from:n.to:n.to]
	}
	return rawjson.AsArray(v)
}

// path is o.Path(keys...): the value at keys, through nested objects.
func (t *tree) path(o rawjson.Object, keys ...string) []byte {
	var v []byte
	for i, k := range keys {
		if i > 0 {
			o = t.obj(v)
		}
		if v = o.Get(k); v == nil {
			return nil
		}
	}
	return v
}
