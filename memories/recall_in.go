package memories

import "context"

// RecallIn is Recall answered from snap, a snapshot the caller holds (inside
// its own Backend.View): a caller that makes several recalls for one answer
// — context assembly makes four — looks at the store once, not once per
// recall. The results are Recall's for the same store.
func (s *Service) RecallIn(ctx context.Context, snap Snapshot, req RecallRequest) (*RecallResult, error) {
	p, res, err := s.startRecall(&req)
	if err != nil {
		return nil, err
	}
	if err := s.recall(ctx, snap, p, res); err != nil {
		return nil, err
	}
	if !req.NoAccess {
		s.recordAccess(ctx, res.Results, p.source)
	}
	return res, nil
}
