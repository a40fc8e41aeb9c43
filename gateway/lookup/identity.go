package lookup

import (
	"fmt"
	"strings"

	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/nsip"
)

// WrongAnimal checks that an answer of a lookup with the validated
// arguments args is about the animal asked for. An upstream (or a cache
// or proxy before it) that answers with another animal's record would
// otherwise have that record cached under the asked ID for an hour, and
// served as the asked animal's genetics. An answer that names no animal
// cannot be checked and passes; progeny pages do not name their parent.
func WrongAnimal(args param.Valid, value any) error {
	var asked, got string
	switch v := value.(type) {
	case *nsip.AnimalDetails:
		asked, _ = args.String(Animal.Args.Name("SearchString"))
		got = v.LPNID
		// The search string may be a registration number instead.
		if got == "" || strings.EqualFold(asked, got) || strings.EqualFold(asked, v.RegistrationNumber) {
			return nil
		}
	case *nsip.Lineage:
		asked, _ = args.String(Lineage.Args.Name("LPNID"))
		got = v.Subject.LPNID
		if got == "" || strings.EqualFold(asked, got) {
			return nil
		}
	default:
		return nil
	}
	return &nsip.Error{
		Kind:   nsip.KindUnexpectedResponse,
		Reason: fmt.Sprintf("NSIP answered about animal %q when asked about %q; the answer was not used or cached", got, asked),
	}
}
