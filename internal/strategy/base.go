package strategy

// Strategy names, as registered.
const (
	NameStagewise      = "stagewise"
	NameOnyx           = "onyx"
	NameSlidingWindow  = "sliding-window"
	NameSelectivePrune = "selective-prune"
	NameSummaryBuffer  = "summary-buffer"
)

// ExtraKnobs are the Config.Extra names the strategies read, with what
// they set. Any other name is ignored.
var ExtraKnobs = map[string]string{
	"kept_fraction": "stagewise: kept budget share of the context window (0.2)",
	"kept_cap":      "stagewise: kept budget cap in tokens (40000)",
	"hard_cap":      "stagewise: trigger hard cap in tokens (200000 at e3e, 100000 at head)",
	"min_floor":     "stagewise: lower bound of the walk's message floor (5)",
}

// base holds what every strategy of this package shares.
type base struct {
	cfg      Config
	hold     bool
	counter  *counter // nil: the strategy's own estimator
	overhead float64  // Config.SystemOverhead
	window   int
	upto     int // the last history index appended to the state (-1)
}

func newBase(cfg Config) (base, error) {
	c, err := newCounter(cfg.Tokenizer)
	if err != nil {
		return base{}, err
	}
	w := cfg.ContextWindow
	if w <= 0 {
		w = DefaultContextWindow
	}
	return base{cfg: cfg, counter: c, overhead: float64(cfg.SystemOverhead), window: w, upto: -1}, nil
}

// SetHold implements Guarded.
func (b *base) SetHold(h bool) { b.hold = h }

// intOr is v, or def when v is 0.
func intOr(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}

func floatOr(v, def float64) float64 {
	if v == 0 {
		return def
	}
	return v
}
