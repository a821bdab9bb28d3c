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

// timeFields names the four fields of a time's terms.
type timeFields struct{ stamp, day, month, year string }

// memoryUpdated are the fields of a memory's update time, to the second
// (notes hold seconds); the stamp's are sorted on.
var memoryUpdated = timeFields{fieldUpdated, fieldUpdatedDay, fieldUpdatedMonth, fieldUpdatedYear}

// transcriptTime are the fields of the time an exchange began, to the
// nanosecond.
var transcriptTime = timeFields{tfTime, tfTimeDay, tfTimeMonth, tfTimeYear}

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

// add gives add each of the four terms of stamp s with its field.
func (f timeFields) add(s string, add func(field, term string)) {
	add(f.stamp, s)
	add(f.day, s[:8])
	add(f.month, s[:6])
	add(f.year, s[:4])
}

// since matches the documents whose stamp is s or later: the stamps from s
// to the end of its day (whose last stamp is dayEnd's suffix after the
// day), the days after it to the end of its month, the months after it to
// the end of its year, and the years after it. Most of what a wide range
// matches is in the few terms of its coarsest part.
func (f timeFields) since(s, dayEnd string) query.Query {
	day, month, year := s[:8], s[:6], s[:4]
	yes, no := true, false
	ranges := []*query.TermRangeQuery{
		bleve.NewTermRangeInclusiveQuery(s, day+dayEnd, &yes, &yes),
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

// updatedSince matches the memories updated at or after since, which the
// index knows to the second, as notes and the catalog do: those whose
// second is since's or later, rounded up.
func updatedSince(since time.Time) query.Query {
	if c := since.Truncate(time.Second); c.Before(since) {
		since = c.Add(time.Second)
	}
	return memoryUpdated.since(stampOf(since), "235959")
}
