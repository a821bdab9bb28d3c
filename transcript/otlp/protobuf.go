package otlp

import (
	"errors"
	"math"
	"unicode/utf8"
)

// The binary protobuf decoder, with the rules of the official runtime
// (google.golang.org/protobuf's proto.Unmarshal): fields in any order, the
// last of a repeated scalar wins, a message sent twice is merged, a known
// field with the wrong wire type is skipped as an unknown one, strings must
// be UTF-8 (the protos are proto3), field numbers are 1 to 2^29-1, messages
// nest at most recursionLimit deep.

// Wire types.
const (
	wireVarint     = 0
	wireFixed64    = 1
	wireBytes      = 2
	wireStartGroup = 3
	wireEndGroup   = 4
	wireFixed32    = 5
)

// maxFieldNumber is the largest valid field number.
const maxFieldNumber = 1<<29 - 1

var (
	errTruncated  = errors.New("truncated")
	errOverflow   = errors.New("variable length integer overflow")
	errFieldNum   = errors.New("invalid field number")
	errWireType   = errors.New("invalid wire type")
	errEndGroup   = errors.New("mismatching end group marker")
	errDepth      = errors.New("exceeded maximum recursion depth")
	errInvalidUTF = errors.New("string field contains invalid UTF-8")
)

// varint reads a base-128 varint: at most ten bytes, the tenth 0 or 1.
func varint(b []byte) (uint64, int, error) {
	var v uint64
	for i := 0; i < 10; i++ {
		if i >= len(b) {
			return 0, 0, errTruncated
		}
		c := b[i]
		v |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			if i == 9 && c > 1 {
				return 0, 0, errOverflow
			}
			return v, i + 1, nil
		}
	}
	return 0, 0, errOverflow
}

// pbField is one field of a message being read: its number, its wire type,
// and its value (the varint or fixed value in num, the bytes in data).
type pbField struct {
	num  int32
	typ  int
	u    uint64
	data []byte
}

// pbMessage walks the fields of one message's bytes.
type pbMessage struct {
	b []byte
}

// next reads the next field; ok is false at the end. A group (an unknown
// field, since OTLP has none) is skipped whole and returned with typ
// wireStartGroup.
func (m *pbMessage) next() (f pbField, ok bool, err error) {
	if len(m.b) == 0 {
		return f, false, nil
	}
	tag, n, err := varint(m.b)
	if err != nil {
		return f, false, err
	}
	m.b = m.b[n:]
	if tag>>3 < 1 || tag>>3 > maxFieldNumber {
		return f, false, errFieldNum
	}
	f.num, f.typ = int32(tag>>3), int(tag&7)
	n, err = fieldValue(&f, m.b, recursionLimit)
	if err != nil {
		return f, false, err
	}
	m.b = m.b[n:]
	return f, true, nil
}

// fieldValue reads the value of a field of wire type f.typ at the start of
// b into f and returns its length.
func fieldValue(f *pbField, b []byte, depth int) (int, error) {
	switch f.typ {
	case wireVarint:
		v, n, err := varint(b)
		f.u = v
		return n, err
	case wireFixed32:
		if len(b) < 4 {
			return 0, errTruncated
		}
		f.u = uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24
		return 4, nil
	case wireFixed64:
		if len(b) < 8 {
			return 0, errTruncated
		}
		for i := 7; i >= 0; i-- {
			f.u = f.u<<8 | uint64(b[i])
		}
		return 8, nil
	case wireBytes:
		l, n, err := varint(b)
		if err != nil {
			return 0, err
		}
		if l > uint64(len(b)-n) {
			return 0, errTruncated
		}
		f.data = b[n : n+int(l)]
		return n + int(l), nil
	case wireStartGroup:
		return skipGroup(f.num, b, depth)
	case wireEndGroup:
		return 0, errEndGroup
	}
	return 0, errWireType
}

// skipGroup skips the fields of the group num up to its end marker, as
// protowire.ConsumeFieldValue does (field numbers inside up to 2^31-1).
func skipGroup(num int32, b []byte, depth int) (int, error) {
	if depth < 0 {
		return 0, errDepth
	}
	n0 := len(b)
	for {
		tag, n, err := varint(b)
		if err != nil {
			return 0, err
		}
		b = b[n:]
		if tag>>3 < 1 || tag>>3 > math.MaxInt32 {
			return 0, errFieldNum
		}
		inner := pbField{num: int32(tag >> 3), typ: int(tag & 7)}
		if inner.typ == wireEndGroup {
			if inner.num != num {
				return 0, errEndGroup
			}
			return n0 - len(b), nil
		}
		n, err = fieldValue(&inner, b, depth-1)
		if err != nil {
			return 0, err
		}
		b = b[n:]
	}
}

// pbString is a string field's value, refused when it is not UTF-8.
func pbString(f pbField) (string, error) {
	if !utf8.Valid(f.data) {
		return "", errInvalidUTF
	}
	return string(f.data), nil
}

// decodeProtobuf decodes a LogsData in binary protobuf.
func decodeProtobuf(b []byte) (*logsData, error) {
	var d logsData
	err := pbWalk(b, recursionLimit-1, func(f pbField, depth int) error {
		if f.num == fLogsDataResourceLogs && f.typ == wireBytes {
			d.resourceLogs = append(d.resourceLogs, resourceLogs{})
			return pbResourceLogs(f.data, depth, &d.resourceLogs[len(d.resourceLogs)-1])
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &d, nil
}

// pbWalk calls field for each field of the message b, which sits depth
// levels below the limit; the nested messages field reads get depth-1.
func pbWalk(b []byte, depth int, field func(f pbField, depth int) error) error {
	if depth < 0 {
		return errDepth
	}
	m := pbMessage{b: b}
	for {
		f, ok, err := m.next()
		if err != nil || !ok {
			return err
		}
		if err := field(f, depth-1); err != nil {
			return err
		}
	}
}

// pbCheckString refuses a string field (one that is not kept) that is not
// UTF-8.
func pbCheckString(f pbField) error {
	_, err := pbString(f)
	return err
}

func pbResourceLogs(b []byte, depth int, rl *resourceLogs) error {
	return pbWalk(b, depth, func(f pbField, depth int) error {
		if f.typ != wireBytes {
			return nil
		}
		switch f.num {
		case fResourceLogsResource:
			return pbResource(f.data, depth, &rl.resource)
		case fResourceLogsScopeLogs:
			rl.scopeLogs = append(rl.scopeLogs, scopeLogs{})
			return pbScopeLogs(f.data, depth, &rl.scopeLogs[len(rl.scopeLogs)-1])
		case fResourceLogsSchemaURL:
			return pbCheckString(f)
		}
		return nil
	})
}

func pbResource(b []byte, depth int, r *resource) error {
	return pbWalk(b, depth, func(f pbField, depth int) error {
		if f.typ != wireBytes {
			return nil
		}
		switch f.num {
		case fResourceAttributes:
			kv, err := pbKeyValue(f.data, depth)
			r.attributes = append(r.attributes, kv)
			return err
		case fResourceEntityRefs:
			return pbWalk(f.data, depth, func(f pbField, _ int) error {
				switch f.num {
				case fEntityRefSchemaURL, fEntityRefType, fEntityRefIDKeys, fEntityRefDescription:
					if f.typ == wireBytes {
						return pbCheckString(f)
					}
				}
				return nil
			})
		}
		return nil
	})
}

func pbScopeLogs(b []byte, depth int, sl *scopeLogs) error {
	return pbWalk(b, depth, func(f pbField, depth int) error {
		if f.typ != wireBytes {
			return nil
		}
		switch f.num {
		case fScopeLogsScope:
			return pbScope(f.data, depth, &sl.scope)
		case fScopeLogsLogRecords:
			sl.logRecords = append(sl.logRecords, logRecord{})
			return pbLogRecord(f.data, depth, &sl.logRecords[len(sl.logRecords)-1])
		case fScopeLogsSchemaURL:
			return pbCheckString(f)
		}
		return nil
	})
}

func pbScope(b []byte, depth int, s *scope) error {
	return pbWalk(b, depth, func(f pbField, depth int) error {
		if f.typ != wireBytes {
			return nil
		}
		var err error
		switch f.num {
		case fScopeName:
			s.name, err = pbString(f)
		case fScopeVersion:
			s.version, err = pbString(f)
		case fScopeAttributes:
			var kv keyValue
			kv, err = pbKeyValue(f.data, depth)
			s.attributes = append(s.attributes, kv)
		}
		return err
	})
}

func pbLogRecord(b []byte, depth int, lr *logRecord) error {
	return pbWalk(b, depth, func(f pbField, depth int) error {
		var err error
		switch {
		case f.num == fRecordTime && f.typ == wireFixed64:
			lr.timeUnixNano = f.u
		case f.num == fRecordObservedTime && f.typ == wireFixed64:
			lr.observedTimeUnixNano = f.u
		case f.num == fRecordSeverityNumber && f.typ == wireVarint:
			lr.severityNumber = int32(f.u)
		case f.num == fRecordSeverityText && f.typ == wireBytes:
			lr.severityText, err = pbString(f)
		case f.num == fRecordBody && f.typ == wireBytes:
			if lr.body == nil {
				lr.body = &anyValue{}
			}
			err = pbAnyValue(f.data, depth, lr.body)
		case f.num == fRecordAttributes && f.typ == wireBytes:
			var kv keyValue
			kv, err = pbKeyValue(f.data, depth)
			lr.attributes = append(lr.attributes, kv)
		case f.num == fRecordDropped && f.typ == wireVarint:
			lr.droppedCount = uint32(f.u)
		case f.num == fRecordFlags && f.typ == wireFixed32:
			lr.flags = uint32(f.u)
		case f.num == fRecordTraceID && f.typ == wireBytes:
			lr.traceID = append([]byte(nil), f.data...)
		case f.num == fRecordSpanID && f.typ == wireBytes:
			lr.spanID = append([]byte(nil), f.data...)
		case f.num == fRecordEventName && f.typ == wireBytes:
			lr.eventName, err = pbString(f)
		}
		return err
	})
}

// pbKeyValue reads a KeyValue; a value sent twice is merged.
func pbKeyValue(b []byte, depth int) (keyValue, error) {
	var kv keyValue
	err := pbWalk(b, depth, func(f pbField, depth int) error {
		if f.typ != wireBytes {
			return nil
		}
		var err error
		switch f.num {
		case fKeyValueKey:
			kv.key, err = pbString(f)
		case fKeyValueValue:
			if kv.value == nil {
				kv.value = &anyValue{}
			}
			err = pbAnyValue(f.data, depth, kv.value)
		}
		return err
	})
	return kv, err
}

// pbAnyValue merges an AnyValue into v: a scalar member replaces what v
// held, an array or key-value list member is merged into one of its kind
// and replaces another.
func pbAnyValue(b []byte, depth int, v *anyValue) error {
	return pbWalk(b, depth, func(f pbField, depth int) error {
		var err error
		switch {
		case f.num == fAnyString && f.typ == wireBytes:
			var s string
			if s, err = pbString(f); err == nil {
				*v = anyValue{kind: kindString, str: s}
			}
		case f.num == fAnyBool && f.typ == wireVarint:
			*v = anyValue{kind: kindBool, boolean: f.u != 0}
		case f.num == fAnyInt && f.typ == wireVarint:
			*v = anyValue{kind: kindInt, integer: int64(f.u)}
		case f.num == fAnyDouble && f.typ == wireFixed64:
			*v = anyValue{kind: kindDouble, double: math.Float64frombits(f.u)}
		case f.num == fAnyBytes && f.typ == wireBytes:
			*v = anyValue{kind: kindBytes, bytes: append([]byte{}, f.data...)}
		case f.num == fAnyArray && f.typ == wireBytes:
			if v.kind != kindArray {
				*v = anyValue{kind: kindArray}
			}
			err = pbWalk(f.data, depth, func(f pbField, depth int) error {
				if f.num != fListValues || f.typ != wireBytes {
					return nil
				}
				e := &anyValue{}
				v.array = append(v.array, e)
				return pbAnyValue(f.data, depth, e)
			})
		case f.num == fAnyKvlist && f.typ == wireBytes:
			if v.kind != kindKvlist {
				*v = anyValue{kind: kindKvlist}
			}
			err = pbWalk(f.data, depth, func(f pbField, depth int) error {
				if f.num != fListValues || f.typ != wireBytes {
					return nil
				}
				kv, err := pbKeyValue(f.data, depth)
				v.kvlist = append(v.kvlist, kv)
				return err
			})
		}
		return err
	})
}
