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
// token counts for the caller's _meta; the payload never does.
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
// the API pages by page*page_size, so page and page_size are chosen to start
// at the first row not shown (other arguments are those of the call).
//
// animal_details: lpn_id, breed, breed_id, sire, dam, total_progeny,
// status, dob, gender, contact (every non-empty field of flock, farm, name,
// phone, email, address, city, state, zip), top_traits as
// [{"code","value","accuracy"}]. Other fields are left out.
//
//	{"summary":true,"kind":"animal_details","lpn_id":"6402382024NCS310","breed":"Katahdin",
//	 "breed_id":640,"sire":"…","dam":"…","total_progeny":25,"status":"CURRENT","dob":"2/13/2024",
//	 "gender":"Male","contact":{"farm":"…","phone":"…",…},"top_traits":[{"code":"BWT","value":-0.227,"accuracy":80},…]}
//
// search_results: total_count, page, page_size, page_rows (rows on this
// page), shown (rows in the summary, always the first ones), next, then
// columns ["lpn_id","sire","dam","top_traits"], trait_cell
// ["code","value","accuracy"] naming the members of each top_traits cell,
// and rows.
//
//	{"summary":true,"kind":"search_results","total_count":1523,"page":0,"page_size":100,"page_rows":100,
//	 "shown":34,"next":{"tool":"nsip_search_animals","arguments":{"breed_id":640,"page":1,"page_size":34}},
//	 "columns":["lpn_id","sire","dam","top_traits"],"trait_cell":["code","value","accuracy"],
//	 "rows":[["6402382024NCS310","6400462020VPI007","6402382022NCS087",[["BWT",-0.227,80],…]],…]}
//
// progeny: as search_results, plus lpn_id (the parent), sex (Male, Female
// and other counts over the page; NSIP's codes "1"/"2" and M/F count as
// Male/Female) and trait_stats, a table of code, n, mean (rounded to
// 0.001), min and max over the page's rows for each trait present, values
// without accuracy included. Rows are ["lpn_id","sex","dob","top_trait"],
// sex spelled Male or Female, dob as YYYY-MM-DD, top_trait one cell or null. When the statistics leave no room for rows they are left out
// and "omitted":["trait_stats"] says so. next calls nsip_get_progeny with
// lpn_id, page and page_size.
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
// contact included), sire and dam (as in lineage), progeny (the progeny
// block without the parent's lpn_id). Offspring rows give way first, then
// the progeny statistics, then the parents' details, which "omitted" names
// together with the tool that has them.
//
// generic (any other answer, and the fallback of the others, which then
// adds "of": the kind it stands in for): "data" is the answer with every
// array and object cut to the widest width that fits. A cut array ends
// with {"_truncated":{"shown":k,"total":n}}; a cut object gains the member
// "_truncated":{"shown":k,"total":n}. Scalar members whose names suggest
// an identifier or a count (id, lpn, name, code, count, total, …) are kept
// before the others. Past a depth limit, arrays show only the note and
// objects only their scalar members.
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
