package memories

import (
	"time"
)

// Service runs the memory operations. The CLI and the MCP server hold one each and
// call nothing else.
type Service struct {
	backend  Backend
	now      func() time.Time
	ids      IDGen
	ranking  Ranking
	checks   Checks
	access   AccessLog
	importer Importer
	warn     func(string)
	// inbox and hooks report the parts of status outside the notes.
	inbox InboxReporter
	hooks HookReporter
}

// Option configures a Service.
type Option func(*Service)

// WithClock makes the service read the time from now.
func WithClock(now func() time.Time) Option { return func(s *Service) { s.now = now } }

// WithIDGen makes the service mint ids with g.
func WithIDGen(g IDGen) Option { return func(s *Service) { s.ids = g } }

// WithAccessLog records what recall returns in l and reads activation from it.
// Without one every activation is 0.
func WithAccessLog(l AccessLog) Option { return func(s *Service) { s.access = l } }

// WithWarn reports problems that do not fail an operation (an access log that
// cannot be written) to warn.
func WithWarn(warn func(string)) Option { return func(s *Service) { s.warn = warn } }

// WithRanking sets the recall ranking parameters.
func WithRanking(r Ranking) Option { return func(s *Service) { s.ranking = r } }

// NewService returns a service over b with the system clock, ULIDs and the default
// ranking unless options say otherwise.
func NewService(b Backend, opts ...Option) *Service {
	s := &Service{backend: b, now: time.Now, ids: NewULIDGen(nil), ranking: DefaultRanking(), checks: DefaultChecks(),
		warn: func(string) {}}
	for _, o := range opts {
		o(s)
	}
	return s
}

// eventTime is the time an audit event records: the clock's, to the second,
// when the change is made.
func (s *Service) eventTime() time.Time { return s.now().UTC().Truncate(time.Second) }

// stamper returns the event time of one operation: the clock is read once,
// on first use, so that a batch's events share one time.
func (s *Service) stamper() func() time.Time {
	var at time.Time
	return func() time.Time {
		if at.IsZero() {
			at = s.eventTime()
		}
		return at
	}
}
