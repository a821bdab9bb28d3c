package index

import (
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"
)

// A time is indexed as keyword terms, each a prefix of its stamp (UTC,
// "20061102150405", see stampOf): the whole stamp, its day, its month and
// its year, each in a field of its own. Bleve's date field is sixteen terms
// a document, most of them unique: 43% of the terms of a real-shaped
// vault's index. A range from a time on is a union of four term ranges
// (timeFields.since), of at most the distinct terms of a day, a month, a
// year and the index's years.

// timeFields names the four fields of a time's terms; nanos says the stamp
// is to the nanosecond (nanoStampOf), else to the second (stampOf).
type timeFields struct {
	stamp, day, month, year string
	nanos                   bool
}

// memoryUpdated are the fields of a memory's update time, to the second
// (notes hold seconds); the stamp's are sorted on.
var memoryUpdated = timeFields{fieldUpdated, fieldUpdatedDay, fieldUpdatedMonth, fieldUpdatedYear, false}

// transcriptTime are the fields of the time an exchange began, to the
// nanosecond.
var transcriptTime = timeFields{tfTime, tfTimeDay, tfTimeMonth, tfTimeYear, true}

// stampOf is t in UTC as "20061102150405". A time before year 0 or after
// 9999 is written as the first or last second of that span, so that every
// stamp has the width that keeps the terms' order the times'.
func stampOf(t time.Time) string {
	t = t.UTC()
	switch {
	case t.Year() < 0:
		return "00000101000000"
	case t.Year() > 9999:
		return "99991231235959"
	}
	return t.Format("20060102150405")
}

// nanoStampOf is stampOf(t) to the nanosecond, "20061102150405.000000000":
// a transcript's times are finer than a second.
func nanoStampOf(t time.Time) string {
	t = t.UTC()
	switch {
	case t.Year() < 0:
		return stampOf(t) + ".000000000"
	case t.Year() > 9999:
		return stampOf(t) + ".999999999"
	}
	return t.Format("20060102150405.000000000")
}

// stampOf is t's stamp as f's fields hold it.
func (f timeFields) stampOf(t time.Time) string {
	if f.nanos {
		return nanoStampOf(t)
	}
	return stampOf(t)
}

// add gives add each of the four terms of t with its field.
func (f timeFields) add(t time.Time, add func(field, term string)) {
	s := f.stampOf(t)
	add(f.stamp, s)
	add(f.day, s[:8])
	add(f.month, s[:6])
	add(f.year, s[:4])
}

// since matches the documents whose time is at or after t. Held to the
// second, a time is since t when its second is t's or later, rounded up (as
// notes and the catalog compare them). It is a union of term ranges on the
// prefixes of t's stamp: the stamps from t to the end of its day, the days
// after it to the end of its month, the months after it to the end of its
// year, and the years after it. Most of what a wide range matches is in the
// few terms of its coarsest part.
func (f timeFields) since(t time.Time) query.Query {
	if c := t.Truncate(time.Second); !f.nanos && c.Before(t) {
		t = c.Add(time.Second)
	}
	s := f.stampOf(t)
	day, month, year := s[:8], s[:6], s[:4]
	dayEnd := day + "235959" // the day's last stamp
	if f.nanos {
		dayEnd += ".999999999"
	}
	yes, no := true, false
	ranges := []*query.TermRangeQuery{
		bleve.NewTermRangeInclusiveQuery(s, dayEnd, &yes, &yes),
		bleve.NewTermRangeInclusiveQuery(day, month+"99", &no, &yes),
		bleve.NewTermRangeInclusiveQuery(month, year+"99", &no, &yes),
		bleve.NewTermRangeInclusiveQuery(year, "9999", &no, &yes),
	}
	anyOf := make([]query.Query, len(ranges))
	for i, name := range []string{f.stamp, f.day, f.month, f.year} {
		ranges[i].SetField(name)
		ranges[i].SetBoost(0)
		anyOf[i] = ranges[i]
	}
	return bleve.NewDisjunctionQuery(anyOf...)
}
