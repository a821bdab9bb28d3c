//  Copyright (c) 2026 cortex authors.
//
// Licensed under the Apache License, Version 2.0 (the "License");
// you may not use this file except in compliance with the License.
// You may obtain a copy of the License at
//
// 		http://www.apache.org/licenses/LICENSE-2.0
//
// Unless required by applicable law or agreed to in writing, software
// distributed under the License is distributed on an "AS IS" BASIS,
// WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
// See the License for the specific language governing permissions and
// limitations under the License.

package zap

import (
	"bytes"

	"github.com/blevesearch/vellum"
)

// dictPipe builds a field's term dictionary (a vellum FST) on a goroutine of
// its own while the field's postings lists are written (cortex patch 0002).
// The terms are inserted in the order given, with the offsets given, so the
// dictionary's bytes are the same as an inline builder's; only the CPU work
// moves to another core. The caller gives terms with insert, takes the
// dictionary's bytes with finish (which waits for the builder), writes them,
// then calls reset before the next field's terms; stop ends the goroutine.
type dictPipe struct {
	builder *vellum.Builder
	buf     *bytes.Buffer
	// work takes full chunks to the builder's goroutine; a chunk marked last
	// closes the dictionary, and the builder's error (nil when it closed
	// well) is sent on closed.
	work   chan *dictChunk
	free   chan *dictChunk
	closed chan error
	exited chan struct{}
	cur    *dictChunk
	// err is the first insert error, kept by the goroutine until finish
	err error
}

// dictChunk is a run of terms for the builder: terms holds them end to end,
// ends where each ends, offs their postings offsets.
type dictChunk struct {
	terms []byte
	ends  []int
	offs  []uint64
	last  bool
}

// dictChunkTerms is how many terms a chunk carries; dictChunks is how many
// chunks there are, one being filled, the others queued or being inserted.
const (
	dictChunkTerms = 512
	dictChunks     = 4
)

// newDictPipe starts a pipe whose dictionaries are written to buf by
// builder, which is made when nil; an empty builder is reused as it is
// (a segment's builder is kept with its other buffers for the next one).
func newDictPipe(builder *vellum.Builder, buf *bytes.Buffer) (*dictPipe, error) {
	p := &dictPipe{
		builder: builder,
		buf:     buf,
		work:    make(chan *dictChunk, dictChunks),
		free:    make(chan *dictChunk, dictChunks),
		closed:  make(chan error, 1),
		exited:  make(chan struct{}),
	}
	if p.builder == nil {
		var err error
		p.builder, err = vellum.New(buf, nil)
		if err != nil {
			return nil, err
		}
	}
	for i := 0; i < dictChunks; i++ {
		p.free <- &dictChunk{
			ends: make([]int, 0, dictChunkTerms),
			offs: make([]uint64, 0, dictChunkTerms),
		}
	}
	p.cur = <-p.free
	go p.run()
	return p, nil
}

func (p *dictPipe) run() {
	defer close(p.exited)
	for c := range p.work {
		start := 0
		for i, end := range c.ends {
			if p.err == nil {
				p.err = p.builder.Insert(c.terms[start:end], c.offs[i])
			}
			start = end
		}
		if c.last {
			err := p.err
			if err == nil {
				err = p.builder.Close()
			}
			p.err = nil
			p.closed <- err
		}
		c.terms, c.ends, c.offs, c.last = c.terms[:0], c.ends[:0], c.offs[:0], false
		p.free <- c
	}
}

// insert adds term, with the offset of its postings list, to the dictionary
// being built. The term is copied.
func (p *dictPipe) insert(term []byte, off uint64) {
	p.cur.terms = append(p.cur.terms, term...)
	p.add(off)
}

// insertString is insert of a string term.
func (p *dictPipe) insertString(term string, off uint64) {
	p.cur.terms = append(p.cur.terms, term...)
	p.add(off)
}

func (p *dictPipe) add(off uint64) {
	c := p.cur
	c.ends = append(c.ends, len(c.terms))
	c.offs = append(c.offs, off)
	if len(c.ends) == dictChunkTerms {
		p.work <- c
		p.cur = <-p.free
	}
}

// finish closes the dictionary and returns its bytes, valid until reset.
func (p *dictPipe) finish() ([]byte, error) {
	c := p.cur
	c.last = true
	p.work <- c
	p.cur = <-p.free
	if err := <-p.closed; err != nil {
		return nil, err
	}
	return p.buf.Bytes(), nil
}

// reset readies the builder for the next dictionary, once finish returned
// and its bytes were written. The goroutine is idle until the next chunk.
func (p *dictPipe) reset() error {
	p.buf.Reset()
	return p.builder.Reset(p.buf)
}

// stop ends the goroutine, whatever it was doing, and waits for it.
func (p *dictPipe) stop() {
	close(p.work)
	<-p.exited
}
