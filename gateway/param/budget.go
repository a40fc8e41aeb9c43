package param

// Budget is max_tokens, the view argument every tool takes: the token
// budget its answer is fitted to, within the server's cap. An argument
// struct embeds it last, so that max_tokens is the last of the tool's
// scalar arguments, and describes it with BudgetTable. Being a
// view argument (arg:"view"), it never keys an answer: every budget's
// answer is fitted from one cached answer.
type Budget struct {
	MaxTokens int `json:"max_tokens,omitempty" arg:"view"`
}

// BudgetTable describes Budget's field. Its bounds are the server's cap,
// checked where the configuration is known (the gateway); the tools'
// descriptions say what the argument does.
var BudgetTable = Of(func(b *Budget) Described { return Described{&b.MaxTokens: {Example: 4000}} })
