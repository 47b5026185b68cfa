package table

// The rows of each table. A column's name is its parquet and json tag;
// a pointer is a column that may be null (null in JSON Lines too). Every
// row starts with schema_version, part and shard: which writer wrote it.
// docs/commands.md lists every column with its meaning.

// ProbeRow is one probe of one briefing of one bundle (eval, the probes
// table): whether the briefing kept it.
type ProbeRow struct {
	SchemaVersion int32  `parquet:"schema_version" json:"schema_version"`
	Part          string `parquet:"part" json:"part"`
	Shard         string `parquet:"shard" json:"shard"`
	Bundle        string `parquet:"bundle" json:"bundle"`
	Chat          string `parquet:"chat" json:"chat"`
	ChatID        string `parquet:"chat_id" json:"chat_id"`
	Compaction    int32  `parquet:"compaction" json:"compaction"`
	Agent         string `parquet:"agent" json:"agent"`
	Run           string `parquet:"run" json:"run"`
	BriefingKind  string `parquet:"briefing_kind" json:"briefing_kind"`
	RepeatOf      string `parquet:"repeat_of" json:"repeat_of"`
	RepeatIndex   int32  `parquet:"repeat_index" json:"repeat_index"`
	Measure       string `parquet:"measure" json:"measure"`
	ProbeIndex    int32  `parquet:"probe_index" json:"probe_index"`
	ProbeID       string `parquet:"probe_id" json:"probe_id"`
	ProbeKind     string `parquet:"probe_kind" json:"probe_kind"`
	ProbeMatch    string `parquet:"probe_match" json:"probe_match"`
	ProbeSource   string `parquet:"probe_source" json:"probe_source"`
	ProbeMessage  int32  `parquet:"probe_message" json:"probe_message"`
	ProbeQuestion string `parquet:"probe_question" json:"probe_question"`
	ProbeAnswer   string `parquet:"probe_answer" json:"probe_answer"`
	Kept          bool   `parquet:"kept" json:"kept"`
	How           string `parquet:"how" json:"how"`
}

// BriefingRow is one briefing of one bundle (eval, the briefings table):
// its scores, size, and what the replay that wrote it cost.
type BriefingRow struct {
	SchemaVersion int32  `parquet:"schema_version" json:"schema_version"`
	Part          string `parquet:"part" json:"part"`
	Shard         string `parquet:"shard" json:"shard"`
	Bundle        string `parquet:"bundle" json:"bundle"`
	Chat          string `parquet:"chat" json:"chat"`
	ChatID        string `parquet:"chat_id" json:"chat_id"`
	Compaction    int32  `parquet:"compaction" json:"compaction"`
	Agent         string `parquet:"agent" json:"agent"`
	Run           string `parquet:"run" json:"run"`
	BriefingKind  string `parquet:"briefing_kind" json:"briefing_kind"`
	RepeatOf      string `parquet:"repeat_of" json:"repeat_of"`
	RepeatIndex   int32  `parquet:"repeat_index" json:"repeat_index"`

	Model            *string `parquet:"model" json:"model"`
	Provider         *string `parquet:"provider" json:"provider"`
	Pack             *string `parquet:"pack" json:"pack"`
	PackSystemSHA256 *string `parquet:"pack_system_sha256" json:"pack_system_sha256"`

	Chars          int64   `parquet:"chars" json:"chars"`
	TokensEstimate int64   `parquet:"tokens_estimate" json:"tokens_estimate"`
	Target         int64   `parquet:"target" json:"target"`
	OverTarget     float64 `parquet:"over_target" json:"over_target"`

	Grounded       *float64 `parquet:"grounded" json:"grounded"`
	GroundedRecall *float64 `parquet:"grounded_recall" json:"grounded_recall"`
	SizeCharge     *float64 `parquet:"size_charge" json:"size_charge"`
	GroundedProbes int32    `parquet:"grounded_probes" json:"grounded_probes"`
	GroundedKept   int32    `parquet:"grounded_kept" json:"grounded_kept"`
	Coverage       *float64 `parquet:"coverage" json:"coverage"`
	CoverageProbes int32    `parquet:"coverage_probes" json:"coverage_probes"`
	CoverageKept   int32    `parquet:"coverage_kept" json:"coverage_kept"`
	ReReads        int32    `parquet:"rereads" json:"rereads"`
	ReReadNamed    int32    `parquet:"reread_named" json:"reread_named"`
	Judged         *float64 `parquet:"judged" json:"judged"`
	Baseline       string   `parquet:"baseline" json:"baseline"`
	Verdict        *string  `parquet:"verdict" json:"verdict"`

	InputTokens       *int64   `parquet:"input_tokens" json:"input_tokens"`
	OutputTokens      *int64   `parquet:"output_tokens" json:"output_tokens"`
	CachedInputTokens *int64   `parquet:"cached_input_tokens" json:"cached_input_tokens"`
	CostUSD           *float64 `parquet:"cost_usd" json:"cost_usd"`
	LatencyMs         *int64   `parquet:"latency_ms" json:"latency_ms"`
	CacheHit          *bool    `parquet:"cache_hit" json:"cache_hit"`
	ReplayedAt        *string  `parquet:"replayed_at" json:"replayed_at"`
	ToolVersion       *string  `parquet:"tool_version" json:"tool_version"`
}

// ReplayRow is one bundle replayed in one run (replay, the replays
// table).
type ReplayRow struct {
	SchemaVersion int32  `parquet:"schema_version" json:"schema_version"`
	Part          string `parquet:"part" json:"part"`
	Shard         string `parquet:"shard" json:"shard"`
	Bundle        string `parquet:"bundle" json:"bundle"`
	Chat          string `parquet:"chat" json:"chat"`
	ChatID        string `parquet:"chat_id" json:"chat_id"`
	Compaction    int32  `parquet:"compaction" json:"compaction"`
	Agent         string `parquet:"agent" json:"agent"`
	Run           string `parquet:"run" json:"run"`
	RepeatOf      string `parquet:"repeat_of" json:"repeat_of"`
	RepeatIndex   int32  `parquet:"repeat_index" json:"repeat_index"`

	Status            string   `parquet:"status" json:"status"`
	Models            string   `parquet:"models" json:"models"`
	Model             *string  `parquet:"model" json:"model"`
	Provider          *string  `parquet:"provider" json:"provider"`
	Attempts          int32    `parquet:"attempts" json:"attempts"`
	InputTokens       int64    `parquet:"input_tokens" json:"input_tokens"`
	OutputTokens      int64    `parquet:"output_tokens" json:"output_tokens"`
	CachedInputTokens int64    `parquet:"cached_input_tokens" json:"cached_input_tokens"`
	CostUSD           float64  `parquet:"cost_usd" json:"cost_usd"`
	LatencyMs         int64    `parquet:"latency_ms" json:"latency_ms"`
	CacheHit          bool     `parquet:"cache_hit" json:"cache_hit"`
	OutputChars       int64    `parquet:"output_chars" json:"output_chars"`
	OutputTruncated   bool     `parquet:"output_truncated" json:"output_truncated"`
	Pack              *string  `parquet:"pack" json:"pack"`
	PackSystemSHA256  *string  `parquet:"pack_system_sha256" json:"pack_system_sha256"`
	UserSHA256        *string  `parquet:"user_sha256" json:"user_sha256"`
	Temperature       *float64 `parquet:"temperature" json:"temperature"`
	Error             *string  `parquet:"error" json:"error"`
	StartedAt         *string  `parquet:"started_at" json:"started_at"`
	FinishedAt        *string  `parquet:"finished_at" json:"finished_at"`
	ToolVersion       *string  `parquet:"tool_version" json:"tool_version"`
}

// SimulationRow is one history through one strategy (simulate, the
// simulations table).
type SimulationRow struct {
	SchemaVersion int32    `parquet:"schema_version" json:"schema_version"`
	Part          string   `parquet:"part" json:"part"`
	Shard         string   `parquet:"shard" json:"shard"`
	History       string   `parquet:"history" json:"history"`
	Source        string   `parquet:"source" json:"source"`
	Title         string   `parquet:"title" json:"title"`
	Model         string   `parquet:"model" json:"model"`
	Strategy      string   `parquet:"strategy" json:"strategy"`
	Summarizer    string   `parquet:"summarizer" json:"summarizer"`
	SweepKnob     string   `parquet:"sweep_knob" json:"sweep_knob"`
	SweepValue    *float64 `parquet:"sweep_value" json:"sweep_value"`

	ContextWindow   int64   `parquet:"context_window" json:"context_window"`
	SystemOverhead  int64   `parquet:"system_overhead" json:"system_overhead"`
	Steps           int32   `parquet:"steps" json:"steps"`
	Compactions     int32   `parquet:"compactions" json:"compactions"`
	SummarizerCalls int32   `parquet:"summarizer_calls" json:"summarizer_calls"`
	Rejected        int32   `parquet:"rejected" json:"rejected"`
	TokensSent      float64 `parquet:"tokens_sent" json:"tokens_sent"`
	TokensRaw       float64 `parquet:"tokens_raw" json:"tokens_raw"`
	PeakContext     float64 `parquet:"peak_context" json:"peak_context"`
	KeptAtEnd       int32   `parquet:"kept_at_end" json:"kept_at_end"`
	MustKeepItems   *int32  `parquet:"must_keep_items" json:"must_keep_items"`
	MustKeepKept    *int32  `parquet:"must_keep_kept" json:"must_keep_kept"`

	Scored             int32    `parquet:"scored" json:"scored"`
	CoverageProbes     int32    `parquet:"coverage_probes" json:"coverage_probes"`
	CoverageKept       int32    `parquet:"coverage_kept" json:"coverage_kept"`
	Grounded           *float64 `parquet:"grounded" json:"grounded"`
	GroundedMeasurable int32    `parquet:"grounded_measurable" json:"grounded_measurable"`
	GroundedProbes     int32    `parquet:"grounded_probes" json:"grounded_probes"`
	GroundedKept       int32    `parquet:"grounded_kept" json:"grounded_kept"`

	SummarizerInputTokens  *float64 `parquet:"summarizer_input_tokens" json:"summarizer_input_tokens"`
	SummarizerOutputTokens *float64 `parquet:"summarizer_output_tokens" json:"summarizer_output_tokens"`
	CachedTokens           *float64 `parquet:"cached_tokens" json:"cached_tokens"`
	WrittenTokens          *float64 `parquet:"written_tokens" json:"written_tokens"`
	RewrittenTokens        *float64 `parquet:"rewritten_tokens" json:"rewritten_tokens"`
	ContextUSD             *float64 `parquet:"context_usd" json:"context_usd"`
	CacheRewritesUSD       *float64 `parquet:"cache_rewrites_usd" json:"cache_rewrites_usd"`
	SummariesUSD           *float64 `parquet:"summaries_usd" json:"summaries_usd"`
	TotalUSD               *float64 `parquet:"total_usd" json:"total_usd"`
	NoCompactionUSD        *float64 `parquet:"no_compaction_usd" json:"no_compaction_usd"`
}

// CompactionRow is one compaction a simulation kept, scored offline
// (simulate, the compactions table).
type CompactionRow struct {
	SchemaVersion int32    `parquet:"schema_version" json:"schema_version"`
	Part          string   `parquet:"part" json:"part"`
	Shard         string   `parquet:"shard" json:"shard"`
	History       string   `parquet:"history" json:"history"`
	Source        string   `parquet:"source" json:"source"`
	Strategy      string   `parquet:"strategy" json:"strategy"`
	SweepKnob     string   `parquet:"sweep_knob" json:"sweep_knob"`
	SweepValue    *float64 `parquet:"sweep_value" json:"sweep_value"`
	Index         int32    `parquet:"compaction" json:"compaction"`
	Step          int32    `parquet:"step" json:"step"`
	Message       int32    `parquet:"message" json:"message"`
	Replaced      string   `parquet:"replaced" json:"replaced"`
	Compacted     int32    `parquet:"compacted" json:"compacted"`
	SummaryChars  int64    `parquet:"summary_chars" json:"summary_chars"`

	CoverageProbes     int32 `parquet:"coverage_probes" json:"coverage_probes"`
	CoverageKept       int32 `parquet:"coverage_kept" json:"coverage_kept"`
	ArtifactProbes     int32 `parquet:"artifact_probes" json:"artifact_probes"`
	ArtifactKept       int32 `parquet:"artifact_kept" json:"artifact_kept"`
	RecallProbes       int32 `parquet:"recall_probes" json:"recall_probes"`
	RecallKept         int32 `parquet:"recall_kept" json:"recall_kept"`
	DecisionProbes     int32 `parquet:"decision_probes" json:"decision_probes"`
	DecisionKept       int32 `parquet:"decision_kept" json:"decision_kept"`
	ContinuationProbes int32 `parquet:"continuation_probes" json:"continuation_probes"`
	ContinuationKept   int32 `parquet:"continuation_kept" json:"continuation_kept"`

	Grounded             *float64 `parquet:"grounded" json:"grounded"`
	GroundedRecall       *float64 `parquet:"grounded_recall" json:"grounded_recall"`
	SizeCharge           *float64 `parquet:"size_charge" json:"size_charge"`
	GroundedTarget       int64    `parquet:"grounded_target" json:"grounded_target"`
	GroundedProbes       int32    `parquet:"grounded_probes" json:"grounded_probes"`
	GroundedKept         int32    `parquet:"grounded_kept" json:"grounded_kept"`
	FileUsedProbes       int32    `parquet:"file_used_probes" json:"file_used_probes"`
	FileUsedKept         int32    `parquet:"file_used_kept" json:"file_used_kept"`
	CommandRerunProbes   int32    `parquet:"command_rerun_probes" json:"command_rerun_probes"`
	CommandRerunKept     int32    `parquet:"command_rerun_kept" json:"command_rerun_kept"`
	NameUsedProbes       int32    `parquet:"name_used_probes" json:"name_used_probes"`
	NameUsedKept         int32    `parquet:"name_used_kept" json:"name_used_kept"`
	RequestCarriedProbes int32    `parquet:"request_carried_probes" json:"request_carried_probes"`
	RequestCarriedKept   int32    `parquet:"request_carried_kept" json:"request_carried_kept"`
}
