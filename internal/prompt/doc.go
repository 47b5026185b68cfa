// Package prompt owns the prompts of the compression call: prompt packs (the
// system prompt plus the user-message template with its size hints), the
// rendering of the user message, the locale-dependent integer formatting that
// JavaScript's toLocaleString() applies to the hint numbers, the lookup of the
// process locale the way Node's ICU does it, and the import of an upstream
// prompt.ts module into a pack.
//
// # Prompt packs
//
// A pack is a directory holding two files. system-prompt.md is the system
// prompt, byte for byte: nothing is added or stripped (no trailing newline is
// appended when writing it). pack.json holds everything else, as one JSON
// object:
//
//	{
//	  "format": "compact-prompt-pack/1",
//	  "targetChars": 30000,
//	  "userMessage": {
//	    "prefix": "<chat-history>",
//	    "suffix": "</chat-history>",
//	    "separator": "\n\n",
//	    "closing": "…closing sentence…"
//	  },
//	  "hints": [
//	    {"when": "prev == 0",    "template": "…{target}…"},
//	    {"when": "ratio < 0.6",  "template": "…{target}…{prev}…{percent}…"},
//	    {"when": "ratio < 0.85", "template": "…"},
//	    {"when": "otherwise",    "template": "…"}
//	  ]
//	}
//
// The user message is
//
//	prefix + compactHistory + suffix + separator + HINT + separator + closing
//
// where HINT is the template of the first bucket whose condition holds, in
// file order. A condition is one of
//
//   - "prev == 0": the previous briefing's length is 0;
//   - "ratio < X": prev/targetChars, computed in float64 exactly as
//     JavaScript does, is below X (X is parsed as a float64, which gives the
//     same double as the JavaScript literal);
//   - "otherwise": always; it must be the last bucket, and there must be one.
//
// Templates are literal text with three placeholders:
//
//   - {target}: targetChars.toLocaleString() in the chosen locale;
//   - {prev}: the previous briefing's length, toLocaleString() likewise;
//   - {percent}: String(Math.round(ratio * 100)), which is never grouped.
//
// A literal brace is written doubled: "{{" for "{" and "}}" for "}". Any other
// use of a brace is an error when the pack is loaded.
//
// The pack named "default" is built in (see Builtin). Its wording is this
// project's own and follows the rules of the upstream prompt, not its text.
// The upstream wording can be brought in at run time with Import, which reads
// the user's own copy of prompt.ts.
//
// # Locale
//
// FormatInt reproduces Node's (full-ICU) toLocaleString() for integers for a
// table of locales; LocaleFromEnv and LocaleFromLookupEnv find the locale
// that Node would use by default. See their documentation for the ICU
// lookup order.
package prompt
