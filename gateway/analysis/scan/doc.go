// Package scan reads NSIP's search pages as every analysis that pages
// reads them: a page at a time or several ahead, checked for consistency
// (full pages, an unchanged count, no animal twice), bracketed by NSIP's
// evaluation date so that no answer mixes two evaluations, and served from
// a kept breed pass where one answers the question. What a scan proves is
// said the same way in every answer that rests on one.
package scan
