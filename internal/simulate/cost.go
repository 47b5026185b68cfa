package simulate

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/compactlab/compact/internal/cascade"
	"github.com/compactlab/compact/internal/history"
	"github.com/compactlab/compact/internal/strategy"
)

// The cost of a run: what its context costs at a model's prices with the
// provider's prompt cache, and what its summaries cost. Every step sends
// the context (ContextTokens); the part of it the previous step sent
// unchanged is read from the cache, the rest written to it (or, where the
// provider charges no write, sent at the input price). After a kept
// compaction only its kept prefix (StepReport.KeptPrefix: the system
// overhead and whatever the compaction left at the head of the view) is
// still in the cache: the rest of the view is written again, and those
// rewritten tokens are the cache's share of what the compaction costs.
// Each summarizer call, kept or not, costs its request (system prompt
// and user message) as input and its summary as output, at the
// summarizer's model's prices. Tokens here are characters / 4 for the
// summarizer's text and each strategy's own figures for the context (or
// --tokenizer's). The first step writes its whole context; the cache is
// taken to stay warm between steps.

// DefaultPriceModel prices a history whose model the model table does not
// know, when no --price-model is given.
const DefaultPriceModel = "claude-sonnet-4.6"

// CacheMultipliers are each provider's prompt-cache prices as multiples of
// its input price: a token written to the cache (or sent uncached), and a
// token read from it. Estimates from the providers' price pages, to be
// checked as the model table's prices are: Anthropic's five-minute cache
// writes cost 1.25 times the input price and reads 0.1; OpenAI and Gemini
// cache by themselves, charge nothing for writing and 0.1 for reading.
// A provider not listed has no cache (1 and 1).
var CacheMultipliers = map[string][2]float64{
	"anthropic": {1.25, 0.1},
	"openai":    {1, 0.1},
	"gemini":    {1, 0.1},
}

// Prices are one model's prices, as a run's cost needs them.
type Prices struct {
	Model    string `json:"model"`
	Provider string `json:"provider,omitempty"`
	// InPerMTok and OutPerMTok are USD per million tokens.
	InPerMTok  float64 `json:"inPerMTok"`
	OutPerMTok float64 `json:"outPerMTok"`
	// CacheWrite and CacheRead multiply InPerMTok for the tokens written
	// to the prompt cache and read from it.
	CacheWrite float64 `json:"cacheWrite"`
	CacheRead  float64 `json:"cacheRead"`
	// From says why these prices apply: "history" (the history's model),
	// "nearest" (the table's model nearest to the history's), "flag"
	// (--price-model), "summarizer" (--summarizer model:ID), "default".
	From string `json:"from"`
}

// Pricing is what prices a report's runs: the model table, and the
// models --price-model and --summarizer name.
type Pricing struct {
	Models cascade.Models
	// Model prices every history's context ("": each history's model when
	// the table knows it, else the nearest of its family, else
	// DefaultPriceModel).
	Model string
	// Summarizer prices the summarizer's calls ("": the context's model:
	// the agent summarizing its own context, as the agents do).
	Summarizer string
}

func pricesOf(m cascade.Model, from string) Prices {
	mult, ok := CacheMultipliers[m.Provider]
	if !ok {
		mult = [2]float64{1, 1}
	}
	return Prices{Model: m.ID, Provider: m.Provider, InPerMTok: m.PriceInPerMTok, OutPerMTok: m.PriceOutPerMTok,
		CacheWrite: mult[0], CacheRead: mult[1], From: from}
}

var dateSuffix = regexp.MustCompile(`-(\d{8}|\d{4}-\d{2}-\d{2}|latest)$`)

// normModel is a model name compared loosely: lower case, dots as dashes,
// without a date suffix (claude-sonnet-4-5-20250929 is claude-sonnet-4-5).
func normModel(s string) string {
	s = strings.ReplaceAll(strings.ToLower(strings.TrimSpace(s)), ".", "-")
	return dateSuffix.ReplaceAllString(s, "")
}

// lookup finds name in the table: by id or API name, loosely, else the
// model sharing the longest prefix with it that names a family (two
// dash-separated parts: "claude-opus-", "gpt-5-").
func (p Pricing) lookup(name string) (cascade.Model, string, bool) {
	if name == "" {
		return cascade.Model{}, "", false
	}
	if m, ok := p.Models.Lookup(name); ok {
		return m, "history", true
	}
	n := normModel(name)
	best, bestLen := -1, 0
	for i, m := range p.Models {
		if normModel(m.ID) == n || normModel(m.APIModel) == n {
			return m, "history", true
		}
		for _, cand := range []string{normModel(m.ID), normModel(m.APIModel)} {
			k := 0
			for k < len(n) && k < len(cand) && n[k] == cand[k] {
				k++
			}
			if strings.Count(n[:k], "-") >= 2 && k > bestLen {
				best, bestLen = i, k
			}
		}
	}
	if best >= 0 {
		return p.Models[best], "nearest", true
	}
	return cascade.Model{}, "", false
}

// resolve gives the prices of a history's context and of its summaries.
func (p Pricing) resolve(historyModel string) (ctx, sum Prices) {
	switch {
	case p.Model != "":
		if m, ok := p.Models.Lookup(p.Model); ok {
			ctx = pricesOf(m, "flag")
		}
	default:
		if m, from, ok := p.lookup(historyModel); ok {
			ctx = pricesOf(m, from)
		} else if m, ok := p.Models.Lookup(DefaultPriceModel); ok {
			ctx = pricesOf(m, "default")
		}
	}
	if ctx.Model == "" {
		ctx = Prices{Model: "none", CacheWrite: 1, CacheRead: 1, From: "default"}
	}
	sum = ctx
	if p.Summarizer != "" {
		if m, ok := p.Models.Lookup(p.Summarizer); ok {
			sum = pricesOf(m, "summarizer")
		}
	}
	return ctx, sum
}

// Cost is what one run (or, added up, one row) costs.
type Cost struct {
	Prices           Prices `json:"prices"`
	SummarizerPrices Prices `json:"summarizerPrices"`
	// CachedTokens were read from the prompt cache, WrittenTokens written
	// to it (or sent uncached); their sum is the tokens sent.
	CachedTokens  float64 `json:"cachedTokens"`
	WrittenTokens float64 `json:"writtenTokens"`
	// RewrittenTokens are the tokens of the views after the kept
	// compactions that the cache held before them: written again.
	RewrittenTokens float64 `json:"rewrittenTokens"`
	// SummarizerCalls, SummarizerIn and SummarizerOut: every summarizer
	// call, kept or not, its request and its summary (characters / 4).
	SummarizerCalls int     `json:"summarizerCalls"`
	SummarizerIn    float64 `json:"summarizerInputTokens"`
	SummarizerOut   float64 `json:"summarizerOutputTokens"`
	// RawTokens is what sending every message at every step would send,
	// by the strategy's own count.
	RawTokens float64 `json:"rawTokens"`
	// In USD: the context (cache reads and writes), of which CacheUSD the
	// rewrites; the summaries; their sum; and the context with no
	// compaction at all.
	ContextUSD float64 `json:"contextUSD"`
	CacheUSD   float64 `json:"cacheRewritesUSD"`
	SummaryUSD float64 `json:"summariesUSD"`
	TotalUSD   float64 `json:"totalUSD"`
	RawUSD     float64 `json:"noCompactionUSD"`
}

// callTokens are one summarizer call's tokens.
type callTokens struct{ in, out float64 }

// textTokens is the summarizer-side count of a text: characters / 4.
func textTokens(s string) float64 { return math.Ceil(float64(history.Len16(s)) / 4) }

// costOf is the cost of the timeline tl with the summarizer calls calls.
func costOf(tl *strategy.Timeline, calls []callTokens, ctxP, sumP Prices) *Cost {
	c := &Cost{Prices: ctxP, SummarizerPrices: sumP, SummarizerCalls: len(calls), RawTokens: tl.TokensRaw}
	in := ctxP.InPerMTok / 1e6
	prefix, rawPrev := 0.0, 0.0
	for i := range tl.Steps {
		s := &tl.Steps[i]
		cached := math.Min(s.ContextTokens, prefix)
		c.CachedTokens += cached
		c.WrittenTokens += s.ContextTokens - cached
		rc := math.Min(s.RawTokens, rawPrev)
		c.RawUSD += (rc*ctxP.CacheRead + (s.RawTokens-rc)*ctxP.CacheWrite) * in
		rawPrev = s.RawTokens
		prefix = s.ContextTokens
		if s.Compacted > 0 && s.Rejected == "" {
			c.RewrittenTokens += math.Max(0, s.AfterTokens-s.KeptPrefix)
			prefix = s.KeptPrefix
		}
	}
	c.ContextUSD = (c.CachedTokens*ctxP.CacheRead + c.WrittenTokens*ctxP.CacheWrite) * in
	c.CacheUSD = c.RewrittenTokens * ctxP.CacheWrite * in
	for _, k := range calls {
		c.SummarizerIn += k.in
		c.SummarizerOut += k.out
	}
	c.SummaryUSD = (c.SummarizerIn*sumP.InPerMTok + c.SummarizerOut*sumP.OutPerMTok) / 1e6
	c.TotalUSD = c.ContextUSD + c.SummaryUSD
	return c
}

// add adds o to c (prices kept when they agree, "mixed" otherwise).
func (c *Cost) add(o *Cost) {
	if c.Prices.Model == "" {
		c.Prices, c.SummarizerPrices = o.Prices, o.SummarizerPrices
	} else {
		if c.Prices.Model != o.Prices.Model {
			c.Prices = Prices{Model: "mixed"}
		}
		if c.SummarizerPrices.Model != o.SummarizerPrices.Model {
			c.SummarizerPrices = Prices{Model: "mixed"}
		}
	}
	c.CachedTokens += o.CachedTokens
	c.WrittenTokens += o.WrittenTokens
	c.RewrittenTokens += o.RewrittenTokens
	c.SummarizerCalls += o.SummarizerCalls
	c.SummarizerIn += o.SummarizerIn
	c.SummarizerOut += o.SummarizerOut
	c.RawTokens += o.RawTokens
	c.ContextUSD += o.ContextUSD
	c.CacheUSD += o.CacheUSD
	c.SummaryUSD += o.SummaryUSD
	c.TotalUSD += o.TotalUSD
	c.RawUSD += o.RawUSD
}

// fmtUSD writes a cost in dollars: cents from $1 on (with thousands
// separators), four decimals below.
func fmtUSD(v float64) string {
	v = cascade.RoundUSD(v)
	sign := ""
	if v < 0 {
		sign, v = "-", -v
	}
	switch {
	case v == 0:
		return "$0"
	case v >= 1:
		s := strconv.FormatFloat(v, 'f', 2, 64)
		whole, _ := strconv.ParseFloat(s[:len(s)-3], 64)
		return sign + "$" + fmtInt(whole) + s[len(s)-3:]
	}
	return sign + fmt.Sprintf("$%.4f", v)
}

// pricesText describes prices for the reader: "claude-sonnet-4.6 ($3 and
// $15 per million tokens in and out; cache writes 1.25×, reads 0.1× the
// input price)".
func pricesText(p Prices) string {
	switch p.Model {
	case "mixed":
		return "each history's model"
	case "none":
		return "no prices (the model table has none of these models)"
	}
	num := func(v float64) string { return "$" + fmtKnob(v) }
	cache := fmt.Sprintf("cache writes %s×, reads %s× the input price", fmtKnob(p.CacheWrite), fmtKnob(p.CacheRead))
	if p.CacheWrite == 1 && p.CacheRead == 1 {
		cache = "no prompt cache"
	}
	return fmt.Sprintf("%s (%s and %s per million tokens in and out; %s)", p.Model, num(p.InPerMTok), num(p.OutPerMTok), cache)
}
