package analysistest

type RankAnswer struct {
	Columns  []string `json:"columns"`
	Top      [][]any  `json:"top"`
	Warnings []string `json:"warnings"`
	Unranked string   `json:"unranked"`
	Computed struct {
		SortedBy     string `json:"sorted_by"`
		Exact        bool   `json:"exact"`
		Stopped      string `json:"stopped"`
		AnimalsRead  int    `json:"animals_read"`
		Population   int    `json:"population"`
		WithoutIndex int    `json:"without_index"`
		Pages        int    `json:"pages"`
		Sort         string `json:"sort"`
	} `json:"computed"`
}

type RankIndexAnswer struct {
	Columns   []string `json:"columns"`
	Index     string   `json:"index"`
	Top       [][]any  `json:"top"`
	Genotyped string   `json:"genotyped"`
	Unranked  string   `json:"unranked"`
	Computed  struct {
		Exact        bool   `json:"exact"`
		Stopped      string `json:"stopped"`
		AnimalsRead  int    `json:"animals_read"`
		Population   int    `json:"population"`
		WithoutIndex int    `json:"without_index"`
		Pages        int    `json:"pages"`
		Limit        string `json:"limit"`
		Paging       string `json:"paging"`
	} `json:"computed"`
}

type MatingAnswer struct {
	COI             *float64 `json:"coi"`
	Rating          string   `json:"rating"`
	Basis           string   `json:"basis"`
	CommonAncestors struct {
		Count    int `json:"count"`
		NotShown int `json:"not_shown"`
		Top      []struct {
			LPNID        string   `json:"lpn_id"`
			Paths        [][3]int `json:"paths"`
			AncestorCOI  float64  `json:"ancestor_coi"`
			Contribution float64  `json:"contribution"`
		} `json:"top"`
	} `json:"common_ancestors"`
	Midparent map[string]struct {
		EBV    float64  `json:"ebv"`
		DamAcc *float64 `json:"dam_acc"`
	} `json:"midparent_ebvs"`
	MidparentUnknown []string `json:"midparent_unknown"`
	Warnings         []string `json:"warnings"`
	Notes            []string `json:"notes"`
	Computed         struct {
		LineagesRead int `json:"lineages_read"`
	} `json:"computed"`
}

type FlockAnswer struct {
	Animals  int            `json:"animals"`
	BySex    map[string]int `json:"by_sex"`
	ByStatus map[string]int `json:"by_status"`
	ByYear   map[string]int `json:"by_birth_year"`
	Traits   []struct {
		Trait   string   `json:"trait"`
		N       int      `json:"n"`
		Mean    float64  `json:"mean"`
		SD      float64  `json:"sd"`
		Min     float64  `json:"min"`
		MinIDs  []string `json:"min_lpn_ids"`
		MinMore int      `json:"min_more"`
		BySex   map[string]struct {
			N        int
			Mean, SD float64
		} `json:"by_sex"`
		Max    float64  `json:"max"`
		MaxIDs []string `json:"max_lpn_ids"`
	} `json:"traits"`
	LeftOut struct {
		LPNIDs []string `json:"lpn_ids"`
	} `json:"left_out"`
	Note     string `json:"note"`
	Computed struct {
		AnimalsRead int    `json:"animals_read"`
		Pages       int    `json:"pages"`
		Complete    bool   `json:"complete"`
		Incomplete  string `json:"incomplete"`
	} `json:"computed"`
}

type PlanAnswer struct {
	Columns    []string            `json:"columns"`
	ByRam      map[string][][]any  `json:"by_ram"`
	Mated      int                 `json:"mated"`
	MaxCOI     float64             `json:"max_coi"`
	Total      float64             `json:"total_lamb_index"`
	Unassigned map[string][]string `json:"unassigned"`
	NoIndex    struct {
		LPNIDs []string `json:"lpn_ids"`
	} `json:"ewes_without_index"`
	LambEBVs   string   `json:"lamb_ebvs"`
	Warnings   []string `json:"warnings"`
	UnknownN   int      `json:"unknown_coi_pairs"`
	Unresolved struct {
		Animals []string `json:"animals"`
		Pairs   int      `json:"pairs"`
	} `json:"unresolved"`
}

// RamOf reads which ram each ewe went to from the answer.
func (a PlanAnswer) RamOf() map[string]string {
	out := map[string]string{}
	for ram, rows := range a.ByRam {
		for _, r := range rows {
			out[r[0].(string)] = ram
		}
	}
	return out
}

type CompareAnswer struct {
	Traits  []string `json:"traits"`
	Animals []struct {
		LPNID string        `json:"lpn_id"`
		Sire  string        `json:"sire"`
		EBV   []*[2]float64 `json:"ebv"`
	} `json:"animals"`
	Best      map[string][]string `json:"best"`
	NotRanked struct {
		Traits []string `json:"traits"`
	} `json:"not_ranked"`
	Unknown []string `json:"unknown"`
}

// PctAnswer is what the percentile tests read of an answer: its animals'
// top_percent and the percentiles block, the breed pass's part included.
type PctAnswer struct {
	Traits  []string `json:"traits"`
	Animals []struct {
		LPNID      string     `json:"lpn_id"`
		TopPercent []*float64 `json:"top_percent"`
	} `json:"animals"`
	Percentiles struct {
		Lookups    int               `json:"lookups"`
		Unproven   map[string]string `json:"unproven"`
		Evaluation *string           `json:"evaluation"`
		EvalNote   string            `json:"evaluation_note"`
		EvalChange string            `json:"evaluation_changed"`
		Via        string            `json:"via"`
		BreedPass  map[string]string `json:"breed_pass"`
		Method     string            `json:"method"`
	} `json:"percentiles"`
}
