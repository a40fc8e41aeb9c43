// Package rank is the breed ranking: by weights over EBVs, read from
// NSIP's sorted pages until the trait ranges prove no unread animal can
// enter, or by one of NSIP's own indexes, read whole; optionally for a set
// of ewes, judged by the inbreeding of their lambs. Its answer types and
// the scan that ranks a page's rows are here, beside the analysis.
package rank
