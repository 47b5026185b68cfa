package cmd

import "github.com/compactlab/compact/internal/bundle"

// evalLong is compact eval's help.
const evalLong = "Scores every briefing of each bundle: the app's " + bundle.FileActual + "\n" +
	"(\"actual\") and each replay run's output.md, two ways.\n\n" +
	"The headline is grounded in what the agent did next. " + bundle.FileContinuation + "\n" +
	"(written by extract beside the five upstream files) holds what the session\n" +
	"did after the compaction; the grounded probes are what it used there that\n" +
	"only the compacted part held: files it went back to (file-used), project\n" +
	"commands it ran again (command-rerun), identifiers, error names and values\n" +
	"it wrote before anyone gave them again (name-used), the request it carried\n" +
	"on with (request-carried). The grounded score is the share of them the\n" +
	"briefing holds in its first --target characters (what lies past the\n" +
	"target does not count), lowered past the target: each character over it\n" +
	"is charged against one within it, down to 0 at twice the target. A\n" +
	"bundle without a continuation, or whose continuation used nothing of the\n" +
	"compacted part, is not measurable (n/a), never 1.\n\n" +
	"Coverage is the second measure: probes mined from compact-history.xml\n" +
	"alone, in four kinds: artifact (the files read, created, changed, moved,\n" +
	"deleted), recall (failed commands and whether they were fixed, error\n" +
	"identifiers, attachments, numbers and identifiers the user gave),\n" +
	"decision (the user's decisions and constraints, form answers) and\n" +
	"continuation (the last request, a question left open). Copying the\n" +
	"history raises it: it says what a briefing kept, not whether it is good.\n" +
	"Both are offline: an answer is present when the briefing holds it as\n" +
	"written, with case, white space and punctuation aside, as the same file\n" +
	"written another way, or for a sentence as most of its content words in\n" +
	"one window. The re-read tax: the files the agent read again after the\n" +
	"compaction that it had read before, and how many of them the briefing named.\n\n" +
	"The report: per briefing the grounded score, size, share over the target,\n" +
	"coverage and its kinds; the baseline (--baseline, default actual) against\n" +
	"every run and run against run on the grounded score, with wins and losses\n" +
	"per bundle, a 95% paired bootstrap interval on the mean difference (fixed\n" +
	"seed) and the sizes (\"better but 2.1 times larger\"); the bundles worst\n" +
	"first with what each briefing lost. --json writes every probe and answer.\n\n" +
	"--validate checks the measures instead: from each recorded briefing it\n" +
	"builds a ladder (sentences dropped 25, 50, 75%, headings only, another\n" +
	"bundle's briefing of the same length, a dump of the history) and prints how\n" +
	"often each measure orders the ladder as its degradation does and whether a\n" +
	"dump well over the target ever scores at or above the recorded briefing.\n" +
	"--calibrate FILE compares the measures (and the judge's grades, if any)\n" +
	"with human grades: Kendall's tau-b and Cohen's kappa.\n\n" +
	"A --fail-on gate is MEASURE<VALUE (or <=, >, >=, =); MEASURE is overall\n" +
	"(the grounded score), a grounded kind, coverage or a coverage kind (mean\n" +
	"shares, 0 to 1), regressed (bundles whose grounded score is below the\n" +
	"baseline's) or lost (coverage probes not answered).\n\n" +
	"With --judge MODEL the probes are also put, as questions, to that model\n" +
	"seeing only one briefing, and the same model grades every answer 0 to 5\n" +
	"on accuracy, context awareness, artifact trail, completeness,\n" +
	"continuity and instruction following (the answer sets of a bundle's\n" +
	"briefings shown together, in an order shuffled by their content). The\n" +
	"prompts are a judge pack (--write-judge-pack DIR writes the built-in one\n" +
	"to edit, --judge-pack DIR uses it). Answers and grades are written to\n" +
	"<bundle>/judge/<run>.json with each call's tokens and cost; every answer\n" +
	"is cached by a hash of what was sent (cache.dir), so a rerun costs\n" +
	"nothing. Gates: judged (the mean grade) or a dimension, e.g.\n" +
	"judged<3.5 or artifact_trail<3. The same model answers and grades\n" +
	"differently from one call to the next: --judge-repeat K judges each\n" +
	"bundle K times, each repeat a request of its own (cached apart), as the\n" +
	"records <run>, <run>@2, …, <run>@K; the scores are the first repeat's,\n" +
	"and the report adds the spread of each briefing's mean judged score over\n" +
	"the repeats (min, median, max, sd).\n\n" +
	"With --batch the judge's calls go through the provider's batch API\n" +
	"instead (half price, answered within 24 hours): the first run submits\n" +
	"every answer request and returns; compact batch collect (or this command\n" +
	"again) collects the answers and submits the grades built from them; the\n" +
	"collect after that writes the records, and this command then reports\n" +
	"the judged scores. The run's state is <dir>/.batches/judge-<run>/.\n\n" +
	"--otel FILE also writes every score as an OpenTelemetry event, the GenAI\n" +
	"semantic conventions' gen_ai.evaluation.result (semantic conventions\n" +
	"v1.41.0): one per bundle, briefing and measure (compact.grounded,\n" +
	"compact.coverage, compact.judged), with gen_ai.evaluation.score.value,\n" +
	".score.label (baseline for the baseline's briefing; better, worse or same\n" +
	"against it on the bundle; not_measurable) and .explanation. The file is\n" +
	"OTLP JSON logs, one request per line, as the collector's otlpjsonfile\n" +
	"receiver reads them. A bundle extracted from traces (--from otel) names\n" +
	"the span of the model call that wrote its summary: its events carry that\n" +
	"trace and span id, so a trace viewer shows them on that call; other\n" +
	"bundles' events carry gen_ai.conversation.id (the chat or session id).\n\n" +
	"Exit status: 0 done; 1 a --fail-on gate held, or some bundles could not\n" +
	"be read or judged (the others are still scored); 2 usage or input error,\n" +
	"or nothing to evaluate (no bundles, no probes, no briefing); 130\n" +
	"interrupted while judging."
