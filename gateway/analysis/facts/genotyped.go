package facts

import "github.com/nsip-tools/nsip-mcp/nsip/toolname"

// Whether an animal is genotyped (its EBVs genomically enhanced) is a
// member of NSIP's animal details in live answers ("50K Genotyped"). That
// search rows carry it too is only assumed, and what NSIP sends for an
// animal that is not genotyped has not been seen: so the status is shown
// exactly as sent, and where nothing was sent the answer says it was not
// stated rather than "not genotyped".

// GenotypedCell is the status as sent, nil where the record did not state it.
func GenotypedCell(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// GenotypedPtr is the status as sent, nil where the record did not state it.
func GenotypedPtr(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// GenotypedNote explains the null cells of a genotyped column: unstated of
// shown rows stated nothing. fromSearch says the rows are search rows,
// which are not known to carry the status at all.
func GenotypedNote(unstated, shown int, fromSearch bool) string {
	switch {
	case unstated == 0:
		return ""
	case fromSearch && unstated == shown:
		return "null: NSIP's search rows did not state it (only animal details are known to); " + toolname.CompareAnimals + " or " + toolname.GetAnimal + " show it"
	case fromSearch:
		return "as NSIP's search rows state it; null where a row did not, which is not 'not genotyped'"
	}
	return "as NSIP's record states it; null where it did not, which is not 'not genotyped'"
}
