package rawjson

// maxDepth is encoding/json's nesting limit: a value nested deeper is not
// valid to it, so it is not to Valid either.
const maxDepth = 10000

// Valid reports whether data is one valid JSON value, answering exactly as
// encoding/json's Valid does (RFC 8259 grammar, surrounding white space
// allowed, string bytes at or above 0x20 taken as they are, at most 10000
// levels of nesting) in one pass without a state machine call per byte:
// every record of every adapter goes through it, and encoding/json's
// scanner was a fifth of reading a Droid session.
func Valid(data []byte) bool {
	i := validValue(data, SkipSpace(data, 0), 0)
	return i >= 0 && SkipSpace(data, i) == len(data)
}

// validValue returns the index after the valid value starting at d[i], or
// -1. depth is the number of arrays and objects around it.
func validValue(d []byte, i, depth int) int {
	if i >= len(d) {
		return -1
	}
	switch c := d[i]; c {
	case '"':
		return validString(d, i)
	case '{':
		if depth >= maxDepth {
			return -1
		}
		i = SkipSpace(d, i+1)
		if i < len(d) && d[i] == '}' {
			return i + 1
		}
		for {
			if i >= len(d) || d[i] != '"' {
				return -1
			}
			if i = validString(d, i); i < 0 {
				return -1
			}
			if i = SkipSpace(d, i); i >= len(d) || d[i] != ':' {
				return -1
			}
			if i = validValue(d, SkipSpace(d, i+1), depth+1); i < 0 {
				return -1
			}
			if i = SkipSpace(d, i); i >= len(d) {
				return -1
			}
			switch d[i] {
			case ',':
				i = SkipSpace(d, i+1)
			case '}':
				return i + 1
			default:
				return -1
			}
		}
	case '[':
		if depth >= maxDepth {
			return -1
		}
		i = SkipSpace(d, i+1)
		if i < len(d) && d[i] == ']' {
			return i + 1
		}
		for {
			if i = validValue(d, i, depth+1); i < 0 {
				return -1
			}
			if i = SkipSpace(d, i); i >= len(d) {
				return -1
			}
			switch d[i] {
			case ',':
				i = SkipSpace(d, i+1)
			case ']':
				return i + 1
			default:
				return -1
			}
		}
	case 't':
		return validLiteral(d, i, "true")
	case 'f':
		return validLiteral(d, i, "false")
	case 'n':
		return validLiteral(d, i, "null")
	default:
		if c == '-' || c >= '0' && c <= '9' {
			return validNumber(d, i)
		}
		return -1
	}
}

func validLiteral(d []byte, i int, lit string) int {
	if len(d)-i < len(lit) || string(d[i:i+len(lit)]) != lit {
		return -1
	}
	return i + len(lit)
}

// validNumber returns the index after the number at d[i]:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func validNumber(d []byte, i int) int {
	if d[i] == '-' {
		i++
	}
	switch {
	case i >= len(d):
		return -1
	case d[i] == '0':
		i++
	case d[i] >= '1' && d[i] <= '9':
		i = digits(d, i+1)
	default:
		return -1
	}
	if i < len(d) && d[i] == '.' {
		j := digits(d, i+1)
		if j == i+1 {
			return -1
		}
		i = j
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		j := digits(d, i)
		if j == i {
			return -1
		}
		i = j
	}
	return i
}

func digits(d []byte, i int) int {
	for i < len(d) && d[i] >= '0' && d[i] <= '9' {
		i++
	}
	return i
}

// validString returns the index after the valid string whose opening quote
// is d[i], or -1: no control character, only JSON's escapes.
func validString(d []byte, i int) int {
	for i++; i < len(d); i++ {
		c := d[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		switch c {
		case '"':
			return i + 1
		case '\\':
			i++
			if i >= len(d) {
				return -1
			}
			switch d[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if len(d)-i <= 4 || !isHex(d[i+1]) || !isHex(d[i+2]) || !isHex(d[i+3]) || !isHex(d[i+4]) {
					return -1
				}
				i += 4
			default:
				return -1
			}
		default: // a control character
			return -1
		}
	}
	return -1
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}
