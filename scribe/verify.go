package scribe

import (
	"context"
	"errors"

	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/transcript"
)

// VerifyOptions says how Verify reads and checks files.
type VerifyOptions struct {
	// As names the tool of every file, over what each File says.
	As string
	// ResumePoints is how many record boundaries resumption is checked
	// at, spread over each file (0: every one).
	ResumePoints int
	// Strict stops Verify at a file it cannot read for a reason other
	// than the file's being invalid (missing, a folder, of no tool cortex
	// reads) — for files a person named; otherwise every such file is
	// skipped.
	Strict bool
}

// Check refuses options Verify cannot follow.
func (o VerifyOptions) Check() error {
	if o.ResumePoints < 0 {
		return &memories.ArgError{Arg: "--resume-points", Rule: "must be 0 or more"}
	}
	return nil
}

// Verified is what Verify found of one file: its report, or why it was
// skipped.
type Verified struct {
	Path   string
	Report transcript.Report
	// Err, when set, is why the file was skipped, unread.
	Err error
}

// VerifyResult is what Verify found of all the files.
type VerifyResult struct {
	Transcripts []transcript.Report `json:"transcripts"`
	Skipped     []transcript.Skip   `json:"skipped"`
	OK          int                 `json:"ok"`
	// Failed counts the files skipped and those breaking an invariant.
	Failed int `json:"failed"`
}

// Verify checks the invariants every adapter keeps (transcript.Verify) on
// each file in order, handing fn what it found as it goes. Files without an
// Adapter are recognised from their content.
func Verify(ctx context.Context, files []File, opt VerifyOptions, fn func(Verified) error) (*VerifyResult, error) {
	if err := opt.Check(); err != nil {
		return nil, err
	}
	res := &VerifyResult{Transcripts: []transcript.Report{}, Skipped: []transcript.Skip{}}
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		v := Verified{Path: f.Path}
		v.Report, v.Err = verifyFile(f, opt)
		switch {
		case v.Err != nil && opt.Strict && !errors.Is(v.Err, memories.ErrInvalid):
			return nil, v.Err
		case v.Err != nil:
			res.Skipped = append(res.Skipped, transcript.Skip{Path: f.Path, Reason: v.Err.Error()})
			res.Failed++
		case v.Report.OK():
			res.Transcripts = append(res.Transcripts, v.Report)
			res.OK++
		default:
			res.Transcripts = append(res.Transcripts, v.Report)
			res.Failed++
		}
		if fn != nil {
			if err := fn(v); err != nil {
				return nil, err
			}
		}
	}
	return res, nil
}

// verifyFile opens and reads f and checks the invariants on it.
func verifyFile(f File, opt VerifyOptions) (transcript.Report, error) {
	t, err := open(f, opt.As)
	if err != nil {
		return transcript.Report{}, err
	}
	defer t.Close()
	data, err := t.Bytes()
	if err != nil {
		return transcript.Report{}, err
	}
	return transcript.Verify(t.Adapter, t.Path, data, transcript.VerifyOptions{ResumePoints: opt.ResumePoints}), nil
}
