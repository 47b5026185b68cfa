// Package bundle owns the playground bundle's layout on disk: the five upstream files, the replay runs under replays/<run>/, the judge's records under judge/, the metadata schema, finding bundles under paths, listing runs with their status, and reading and writing each file.
//
// A bundle is one compression event, in a directory of its own
// (compression-NNN under a chat's directory under a channel's):
//
//	system-prompt.md     the system prompt the app sent (FileSystemPrompt)
//	user-message.md      the user message, the compact history in the pack's template (FileUserMessage)
//	compact-history.xml  the history the briefing replaces (FileCompact)
//	actual-output.md     the briefing the app stored (FileActual)
//	metadata.json        the event's figures (FileMetadata; Metadata)
//	replays/<run>/       a replay's answer, output.md, and its record, replay.json (DirReplays, FileOutput, FileRecord)
//	judge/<run>.json     the model judge's record of a run of compact eval --judge (DirJudge)
//
// Names starting with a dot are a writer's temporary files, never part of
// the layout. Every other package names these files through the constants
// and helpers here, so that a change of layout is one change.
package bundle
