package diversity

import "github.com/nsip-tools/nsip-mcp/gateway/analysis"

// DiversityAnswer is nsip_breed_diversity: the animals asked about (the
// breed, narrowed by flock_id and birth years) and what their pedigree
// says of the breed's diversity. Each figure says how it was computed and
// what the pedigree could not prove.
type DiversityAnswer struct {
	BreedID  int    `json:"breed_id"`
	FlockID  string `json:"flock_id,omitempty"`
	BornFrom int    `json:"born_from,omitempty"`
	BornTo   int    `json:"born_to,omitempty"`
	Animals  int    `json:"animals"`
	// Founders have both parents unknown; OneParentKnown, one.
	Founders       int `json:"founders"`
	OneParentKnown int `json:"one_parent_known"`
	// COIByYear is the mean and largest COI of the animals born each year.
	COIByYear    YearTable     `json:"coi_by_birth_year"`
	Completeness Completeness  `json:"completeness"`
	DeltaF       Figure        `json:"delta_f"`
	Ne           Figure        `json:"ne"`
	Reference    Reference     `json:"reference"`
	Fe           Figure        `json:"fe"`
	Fa           Figure        `json:"fa"`
	TopAncestors AncestorTable `json:"top_ancestors"`
	Computed     Computed      `json:"computed"`
}

// YearTable is rows of birth_year, n, mean_coi and max_coi.
type YearTable struct {
	Columns  []string `json:"columns"`
	Rows     [][]any  `json:"rows"`
	Method   string   `json:"method"`
	Unproven string   `json:"unproven"`
	// UnknownYear counts the animals whose birth year neither a date nor
	// the LPN ID gives, left out of the rows.
	UnknownYear int `json:"unknown_year,omitempty"`
	// LeftOut says which of the oldest years were left out to fit the
	// answer's budget (the CSV link has their animals).
	LeftOut string `json:"left_out,omitempty"`
}

// Completeness is how deep the pedigree goes: the mean equivalent
// complete generations of the animals asked about and of the reference
// population.
type Completeness struct {
	MeanECG          float64 `json:"mean_equivalent_generations"`
	ReferenceMeanECG float64 `json:"reference_mean_equivalent_generations"`
	Method           string  `json:"method"`
}

// Figure is one number with how it was computed and what it cannot
// prove; Value is null when it could not be computed (Unproven says why).
type Figure struct {
	Value    *float64 `json:"value"`
	N        int      `json:"n,omitempty"` // the animals, founders or ancestors it is computed over
	Method   string   `json:"method"`
	Unproven string   `json:"unproven,omitempty"`
}

// Reference is the population f_e, f_a, ΔF and the ancestors are of: the
// animals asked about born in the last two birth years recorded.
type Reference struct {
	BirthYears []int `json:"birth_years"`
	Animals    int   `json:"animals"`
}

// AncestorTable is rows of lpn_id, marginal and raw: the ancestors with
// the largest marginal contributions to the reference population, in the
// order chosen for f_a.
type AncestorTable struct {
	Columns []string `json:"columns"`
	Rows    [][]any  `json:"rows"`
}

// Computed is how the answer was read.
type Computed struct {
	BreedPass  string            `json:"breed_pass"`
	Evaluation string            `json:"evaluation"`
	COI        string            `json:"coi"`
	Whole      string            `json:"whole"`
	Cuts       int               `json:"cycle_links_cut,omitempty"`
	Upstream   analysis.Upstream `json:"upstream"`
}

// PendingAnswer is nsip_breed_diversity while the breed's pass is not
// kept: what became of it, and the task that reads it when there is one.
type PendingAnswer struct {
	BreedID   int               `json:"breed_id"`
	BreedPass string            `json:"breed_pass"`
	TaskID    string            `json:"task_id,omitempty"`
	Next      string            `json:"next"`
	Upstream  analysis.Upstream `json:"upstream"`
}
