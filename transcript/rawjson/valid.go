package rawjson

// maxDepth is how deeply encoding/json lets arrays and objects nest: Valid
// refuses deeper JSON as it does.
const maxDepth = 10000

// plain marks the bytes a string holds as they are: not a quote, a
// backslash or a control character.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// valid reports whether data is one JSON value, exactly as encoding/json's
// Valid does (the same grammar, bytes that are not UTF-8 accepted inside
// strings, the same nesting limit), at several times its speed: Valid is
// the first thing every record goes through, and encoding/json's scanner
// takes a function call per byte.
func valid(data []byte) bool {
	var buf [64]byte
	stack := buf[:0] // the open containers: '{' or '['
	i := SkipSpace(data, 0)
	for {
		// A value starts at i.
		if i >= len(data) {
			return false
		}
		switch c := data[i]; {
		case c == '{' || c == '[':
			if len(stack) >= maxDepth {
				return false
			}
			stack = append(stack, c)
			i = SkipSpace(data, i+1)
			if i < len(data) && data[i] == c+2 { // '}' or ']'
				stack = stack[:len(stack)-1]
				i++
			} else if c == '{' {
				if i = member(data, i); i < 0 {
					return false
				}
				continue
			} else {
				continue
			}
		case c == '"':
			i = validString(data, i)
		case c == '-' || '0' <= c && c <= '9':
			i = validNumber(data, i)
		case c == 't':
			i = literal(data, i, "true")
		case c == 'f':
			i = literal(data, i, "false")
		case c == 'n':
			i = literal(data, i, "null")
		default:
			return false
		}
		if i < 0 {
			return false
		}
		// A value ended at i: close containers until one goes on.
		for {
			i = SkipSpace(data, i)
			if len(stack) == 0 {
				return i == len(data)
			}
			if i >= len(data) {
				return false
			}
			top, c := stack[len(stack)-1], data[i]
			if c == top+2 {
				stack = stack[:len(stack)-1]
				i++
				continue
			}
			if c != ',' {
				return false
			}
			i = SkipSpace(data, i+1)
			if top == '{' {
				if i = member(data, i); i < 0 {
					return false
				}
			}
			break
		}
	}
}

// member reads an object member's key and colon at i, and returns where
// its value starts (-1 when they are not there).
func member(data []byte, i int) int {
	if i >= len(data) || data[i] != '"' {
		return -1
	}
	if i = validString(data, i); i < 0 {
		return -1
	}
	i = SkipSpace(data, i)
	if i >= len(data) || data[i] != ':' {
		return -1
	}
	return SkipSpace(data, i+1)
}

// validString returns the index after the string at data[i] (a quote), or
// -1 when it is not a valid one.
func validString(data []byte, i int) int {
	i++
	for {
		for i < len(data) && plain[data[i]] {
			i++
		}
		if i >= len(data) {
			return -1
		}
		switch data[i] {
		case '"':
			return i + 1
		case '\\':
			if i+1 >= len(data) {
				return -1
			}
			switch data[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if _, ok := hex4(data[i+2:]); !ok {
					return -1
				}
				i += 6
			default:
				return -1
			}
		default: // a control character
			return -1
		}
	}
}

// validNumber returns the index after the number at data[i], or -1 when it
// is not a valid one: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?.
func validNumber(data []byte, i int) int {
	if data[i] == '-' {
		i++
	}
	switch {
	case i < len(data) && data[i] == '0':
		i++
	case i < len(data) && '1' <= data[i] && data[i] <= '9':
		i = digits(data, i)
	default:
		return -1
	}
	if i < len(data) && data[i] == '.' {
		j := digits(data, i+1)
		if j == i+1 {
			return -1
		}
		i = j
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		j := digits(data, i)
		if j == i {
			return -1
		}
		i = j
	}
	return i
}

func digits(data []byte, i int) int {
	for i < len(data) && '0' <= data[i] && data[i] <= '9' {
		i++
	}
	return i
}

// literal returns the index after word at data[i], or -1 when it is not
// there.
func literal(data []byte, i int, word string) int {
	if len(data)-i < len(word) || string(data[i:i+len(word)]) != word {
		return -1
	}
	return i + len(word)
}
