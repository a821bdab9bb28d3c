package otlp

// The export request as this package reads it: the fields of OTLP's
// LogsData (opentelemetry/proto/logs/v1/logs.proto and the common and
// resource protos it uses) that a Record keeps. The decoders check the
// fields they skip as the protobuf runtime would (types, UTF-8), so a body is
// refused exactly when the official bindings refuse it; they are written
// here, not generated, because the protobuf runtime and the generated
// bindings cost every start of the program about half a millisecond of
// initialisation and 9 MB of binary, for a command that seldom runs.

// logsData is LogsData (the wire form of ExportLogsServiceRequest).
type logsData struct {
	resourceLogs []resourceLogs
}

// resourceLogs is ResourceLogs; its schema_url is checked and dropped.
type resourceLogs struct {
	resource  resource
	scopeLogs []scopeLogs
}

// resource is Resource; its dropped_attributes_count and entity_refs are
// checked and dropped.
type resource struct {
	attributes []keyValue
}

// scopeLogs is ScopeLogs; its schema_url is checked and dropped.
type scopeLogs struct {
	scope      scope
	logRecords []logRecord
}

// scope is InstrumentationScope; its dropped_attributes_count is checked
// and dropped.
type scope struct {
	name, version string
	attributes    []keyValue
}

// logRecord is LogRecord.
type logRecord struct {
	timeUnixNano, observedTimeUnixNano uint64
	severityNumber                     int32
	severityText                       string
	// body is nil when the record has none.
	body         *anyValue
	attributes   []keyValue
	droppedCount uint32
	flags        uint32
	traceID      []byte
	spanID       []byte
	eventName    string
}

// keyValue is KeyValue; value is nil when unset.
type keyValue struct {
	key   string
	value *anyValue
}

// valueKind says which member of AnyValue's oneof is set.
type valueKind uint8

const (
	kindNone valueKind = iota
	kindString
	kindBool
	kindInt
	kindDouble
	kindArray
	kindKvlist
	kindBytes
)

// anyValue is AnyValue: kind says which of the other fields holds the value.
type anyValue struct {
	kind    valueKind
	str     string
	boolean bool
	integer int64
	double  float64
	bytes   []byte
	array   []*anyValue
	kvlist  []keyValue
}

// Field numbers, from the protos.
const (
	fLogsDataResourceLogs = 1

	fResourceLogsResource  = 1
	fResourceLogsScopeLogs = 2
	fResourceLogsSchemaURL = 3

	fResourceAttributes   = 1
	fResourceDropped      = 2
	fResourceEntityRefs   = 3
	fEntityRefSchemaURL   = 1
	fEntityRefType        = 2
	fEntityRefIDKeys      = 3
	fEntityRefDescription = 4

	fScopeLogsScope      = 1
	fScopeLogsLogRecords = 2
	fScopeLogsSchemaURL  = 3

	fScopeName       = 1
	fScopeVersion    = 2
	fScopeAttributes = 3
	fScopeDropped    = 4

	fRecordTime           = 1
	fRecordSeverityNumber = 2
	fRecordSeverityText   = 3
	fRecordBody           = 5
	fRecordAttributes     = 6
	fRecordDropped        = 7
	fRecordFlags          = 8
	fRecordTraceID        = 9
	fRecordSpanID         = 10
	fRecordObservedTime   = 11
	fRecordEventName      = 12

	fKeyValueKey   = 1
	fKeyValueValue = 2

	fAnyString = 1
	fAnyBool   = 2
	fAnyInt    = 3
	fAnyDouble = 4
	fAnyArray  = 5
	fAnyKvlist = 6
	fAnyBytes  = 7

	// fListValues is the one field of ArrayValue and KeyValueList.
	fListValues = 1
)

// severityNames are the names of SeverityNumber's values, by number, which
// OTLP/JSON may send instead of the numbers. (An array, not a map: a map
// would be built at every start of the program.)
var severityNames = [...]string{
	"SEVERITY_NUMBER_UNSPECIFIED",
	"SEVERITY_NUMBER_TRACE", "SEVERITY_NUMBER_TRACE2", "SEVERITY_NUMBER_TRACE3", "SEVERITY_NUMBER_TRACE4",
	"SEVERITY_NUMBER_DEBUG", "SEVERITY_NUMBER_DEBUG2", "SEVERITY_NUMBER_DEBUG3", "SEVERITY_NUMBER_DEBUG4",
	"SEVERITY_NUMBER_INFO", "SEVERITY_NUMBER_INFO2", "SEVERITY_NUMBER_INFO3", "SEVERITY_NUMBER_INFO4",
	"SEVERITY_NUMBER_WARN", "SEVERITY_NUMBER_WARN2", "SEVERITY_NUMBER_WARN3", "SEVERITY_NUMBER_WARN4",
	"SEVERITY_NUMBER_ERROR", "SEVERITY_NUMBER_ERROR2", "SEVERITY_NUMBER_ERROR3", "SEVERITY_NUMBER_ERROR4",
	"SEVERITY_NUMBER_FATAL", "SEVERITY_NUMBER_FATAL2", "SEVERITY_NUMBER_FATAL3", "SEVERITY_NUMBER_FATAL4",
}

// severityNumber is the number of a SeverityNumber name.
func severityNumber(name string) (int32, bool) {
	for i, n := range severityNames {
		if n == name {
			return int32(i), true
		}
	}
	return 0, false
}

// recursionLimit is how deeply messages may nest, as in the protobuf
// runtime (protowire.DefaultRecursionLimit).
const recursionLimit = 10000
