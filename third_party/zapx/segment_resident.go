package zap

// DropResident takes the pages of the segment's file mapping out of the
// process's resident memory: they stay in the page cache and are mapped
// again from it where they are next read. A long-lived process that keeps
// the segment open calls it to bound what the reads of many searches leave
// mapped (a fault maps a large page of the file at a time). A segment
// closed, or not mapped, is left alone.
func (s *Segment) DropResident() {
	s.m.Lock()
	defer s.m.Unlock()
	if s.refs > 0 && len(s.mm) > 0 {
		dropResident(s.mm)
	}
}
