// Package summarize keeps tool results inside a token budget (FR-005,
// FR-015, SC-002). Tokens are cl100k_base tokens, counted by Counter with
// the rank table compiled into the binary, so counting never touches the
// network.
//
// # The policy
//
// Summarizer.Fit takes the upstream JSON and its decoded nsip model. The
// JSON is compacted (same value: nothing added, dropped, renamed or
// reordered). If it has at most Budget tokens (DefaultBudget, 2000, when
// zero) it is the result, unchanged. Otherwise the result is a summary of
// at most Budget tokens and at most 30% of the original's tokens. Both are
// hard limits: the shape-aware summary gives way to the structural one, and
// that to a short note, rather than exceed them. Fit never fails, never
// panics, and gives the same bytes for the same input. Result carries the
// token counts for the caller's _meta, and for search and progeny pages
// where the page sits and the call for the rows after it; the payload never
// does.
//
// A Request may carry the caller's view: Requested (the budget was asked
// for), Traits (the codes every row carries, exactly) and Skip (rows of the
// page already seen). With any of them the 30% rule does not apply; with
// Traits or Skip the answer is always the summary's table.
//
// # Summary formats
//
// Every summary is compact JSON whose first members are "summary":true and
// "kind". Strings longer than 256 bytes (less when the budget is tight)
// end in "…(+N chars)" saying how much was cut. Accuracies are percent,
// rounded to 0.01. Top traits are the three most accurate traits whose
// accuracy is at least 50 (FR-005a/b); a trait without an accuracy never
// qualifies. A table gives its column names once, then one array per row.
// Where rows are cut, "next" is the exact tool call that returns the rest:
// the same page with "skip" set to the rows seen (the cache answers it), or
// once a page is shown whole the next page of the same size. A page gives
// way traits first and rows last, so a default page arrives whole. A
// search sorted by a trait its trait_ranges bound offers no call that
// starts past the first row beyond the bound, in the order the page's rows
// show (sortstop.go); next_withheld then says why.
//
// animal_details: lpn_id, breed, breed_id, sire, dam, total_progeny,
// status, dob, gender, genotyped (as sent, or "not stated by NSIP"),
// contact (every non-empty field of flock, farm, name,
// phone, email, address, city, state, zip), top_traits as
// [{"code","value","accuracy"}]. Other fields are left out.
//
//	{"summary":true,"kind":"animal_details","lpn_id":"6402382024NCS310","breed":"Katahdin",
//	 "breed_id":640,"sire":"…","dam":"…","total_progeny":25,"status":"CURRENT","dob":"2/13/2024",
//	 "gender":"Male","contact":{"farm":"…","phone":"…",…},"top_traits":[{"code":"BWT","value":-0.227,"accuracy":80},…]}
//
// search_results: total_count, page, page_size, page_rows (rows on this
// page), shown, shown_from and shown_to (1-based positions of the rows
// shown in the whole result set), page_to (where the page ends), next,
// breed (when every row has the same one), then columns, trait_cell
// ["value","accuracy"], top_trait_cell ["code","value","accuracy"] and rows.
// Columns are lpn_id, sex (M or F from any of NSIP's spellings), dob,
// status, genotyped (only when a row states it; "" where one does not, and
// the member genotyped says what that means, or that no row stated it),
// breed (only when the page spans breeds), sire, dam, one column per
// trait the call is about (the sort trait, then the trait_ranges traits)
// whose cell is [value, accuracy] or null, and top_traits: the row's most
// accurate other traits (3, or fewer when that keeps the page whole). With
// Traits, the trait columns are exactly those and sire, dam and top_traits
// are left out.
//
//	{"summary":true,"kind":"search_results","total_count":1523,"page":0,"page_size":100,"page_rows":100,
//	 "shown":44,"shown_from":1,"shown_to":44,"page_to":100,
//	 "next":{"tool":"nsip_search_animals","arguments":{"breed_id":640,"page":0,"page_size":100,"skip":44}},
//	 "breed":"640","columns":["lpn_id","sex","dob","status","sire","dam","WWT","top_traits"],
//	 "trait_cell":["value","accuracy"],"top_trait_cell":["code","value","accuracy"],
//	 "rows":[["6402382024NCS310","M","2/13/2024","CURRENT","…","…",[3.1,72],[["BWT",-0.227,80]]],…]}
//
// Rows that contradict the call's criteria (search: breed_id, gender,
// status, flock_id, born_after, born_before, a trait_ranges bound, where
// the row shows the field; progeny: the parent listed as its own
// offspring) are evidence NSIP ignored a criterion and are left out of a
// summary: contradicting_criteria gives count, by_criterion (each row under
// the first criterion it breaks), lpn_ids (20 at most, each with what it
// shows against what was asked, the rest in not_named) and effect.
// Positions and next calls still count NSIP's rows, so paging skips the
// left-out rows and reaches every other once. A pass-through keeps them,
// being NSIP's answer byte for byte; Paging.Contradicting then says so for
// the caller's _meta, and does for every summary too.
//
// progeny: as search_results without breed, plus lpn_id (the parent),
// stats_over (what sex and trait_stats count: "this page only, 100
// offspring at 1-100 of 240, not all 240", or "all 25 offspring"), sex
// (M, F and other counts over the page) and trait_stats: per trait code, n,
// mean (rounded to 0.001), max, max_lpn_id, max_accuracy, min, min_lpn_id
// and min_accuracy over every row of the page, shown or not (the first
// holder when several tie; accuracy null when NSIP gave none), then n_f,
// mean_f, n_m and mean_m, the same count and mean over the daughters and
// the sons (a mean null where none of that sex has the trait). Rows are
// lpn_id, sex, dob and one [value, accuracy] column per trait: every trait
// on the page when that fits, otherwise the most accurate over the page
// (Traits: exactly those). Layouts are tried richest first: all traits with
// and without the statistics, then fewer traits with the statistics, then
// fewer without; a page too long for any of them shows as many rows as fit
// with the statistics and three traits. When the statistics are left out,
// "omitted":["trait_stats"] says so. next calls nsip_get_progeny with
// lpn_id, page, page_size (and skip, traits, max_tokens as called).
//
// lineage: subject, sire and dam as {lpn_id, farm, dob, sex, status,
// indexes:{name:value}}, generations (the deepest in the answer; parents
// are 1), then ancestors beyond the parents as rows under
// ancestor_columns ["path","lpn_id"] or ["path","lpn_id","farm"]. A path
// spells the way up from the subject, S for sire and D for dam, so "SD" is
// the sire's dam and its length is the generation. When room is short the
// farms give way first, then the deepest generation (and the farms of the
// others come back if they then fit), and so on; omitted_generations and
// omitted_ancestors report what was dropped, and next is then
// nsip_get_lineage for an ancestor of the deepest generation shown.
//
// animal_profile (nsip_search_by_lpn): animal (the animal_details block,
// contact and top traits included), ebvs (the other traits, most accurate
// first, as [code, value, accuracy] under ebv_cell; only the requested ones
// with Traits), indexes {name: value}, sire and dam (as in lineage),
// grandparents as [path, lpn_id] rows, and progeny (the progeny block
// without the parent's lpn_id). Offspring give way first (traits, then
// statistics, then rows), then the grandparents, the other EBVs and the
// parents' details. Every part left out is listed in "omitted" as
// {"part","count","call"}, call being the exact tool call that returns it
// (ebvs: nsip_get_animal; grandparents, older ancestors and the parents'
// details: nsip_get_lineage; offspring: nsip_get_progeny).
//
// generic (any other answer, and the fallback of the others, which then
// adds "of": the kind it stands in for): "data" is the answer with every
// array and object cut to the widest width that fits. A cut array ends
// with {"_truncated":{"shown":k,"total":n}}; a cut object gains the member
// "_truncated":{"shown":k,"total":n}. Scalar members whose names suggest
// an identifier or a count (id, lpn, name, code, count, total, …) are kept
// before the others. Past a depth limit, arrays show only the note and
// objects only their scalar members. A call the answer offers (an object
// with a "tool" member) keeps its "set" and "arguments" whole, as a call
// cut short would fail.
//
// When nothing else fits, the summary is a note such as
// {"summary":true,"kind":"search_results","note":"…ask for less…"}.
//
// # Limits
//
// A summary must fit 30% of an original just over the budget, so very
// small budgets leave room for little: below about 300 tokens a search or
// progeny page of one row (200 to 280 tokens upstream) can neither pass
// through nor be summarized with its row, and following the hints then
// stalls at that row. Budgets from 300 up page through every row.
package summarize
