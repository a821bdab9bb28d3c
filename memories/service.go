package memories

import (
	"time"
)

// Service runs the memory operations. The CLI and the MCP server hold one each and
// call nothing else.
type Service struct {
	backend Backend
	now     func() time.Time
	ids     IDGen
	ranking Ranking
	checks  Checks
}

// Option configures a Service.
type Option func(*Service)

// WithClock makes the service read the time from now.
func WithClock(now func() time.Time) Option { return func(s *Service) { s.now = now } }

// WithIDGen makes the service mint ids with g.
func WithIDGen(g IDGen) Option { return func(s *Service) { s.ids = g } }

// WithRanking sets the recall ranking parameters.
func WithRanking(r Ranking) Option { return func(s *Service) { s.ranking = r } }

// NewService returns a service over b with the system clock, ULIDs and the default
// ranking unless options say otherwise.
func NewService(b Backend, opts ...Option) *Service {
	s := &Service{backend: b, now: time.Now, ids: NewULIDGen(nil), ranking: DefaultRanking(), checks: DefaultChecks()}
	for _, o := range opts {
		o(s)
	}
	return s
}
