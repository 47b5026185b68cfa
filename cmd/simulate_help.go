package cmd

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/compactlab/compact/internal/cascade"
	"github.com/compactlab/compact/internal/strategy"
)

// The help text and the completion of compact simulate.

// strategyHelp lists the strategies for --help, each with what it does
// and where its defaults come from.
func strategyHelp() string {
	var b strings.Builder
	b.WriteString("Strategies:")
	for _, name := range strategy.Names() {
		line := "  " + name + ":"
		for _, word := range strings.Fields(strategy.About[name]) {
			if len(line)+1+len(word) > 78 {
				b.WriteString("\n" + line)
				line = "     "
			}
			line += " " + word
		}
		b.WriteString("\n" + line)
	}
	return b.String()
}

// wrapList is head followed by items, comma-separated, wrapped at 78
// columns, ending with a full stop.
func wrapList(head string, items []string) string {
	var b strings.Builder
	line := head
	for i, it := range items {
		word := it + ","
		if i == len(items)-1 {
			word = it + "."
		}
		if len(line)+1+len(word) > 78 && line != head {
			b.WriteString(strings.TrimRight(line, " ") + "\n")
			line = ""
		}
		if line != "" && line != head {
			line += " "
		}
		line += word
	}
	b.WriteString(line)
	return b.String()
}

// completeStrategyList completes the last name of a comma-separated list
// of strategies.
func completeStrategyList(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	done, _ := cutLast(toComplete, ",")
	var out []string
	for _, n := range strategy.Names() {
		if !strings.Contains(","+done+",", ","+n+",") {
			out = append(out, done+n)
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
}

// cutLast splits s after its last sep: "a,b,c" gives "a,b," and "c".
func cutLast(s, sep string) (string, string) {
	i := strings.LastIndex(s, sep)
	if i < 0 {
		return "", s
	}
	return s[:i+len(sep)], s[i+len(sep):]
}

// summarizerValues are the --summarizer values: the fixed ones and
// model:ID for every model the configuration knows.
func summarizerValues(f *Factory) []string {
	out := []string{"builtin", "recorded", "cascade"}
	st, err := completionConfig(f)
	if err != nil {
		return out
	}
	if ms, err := cascade.LoadModels(st); err == nil {
		for _, id := range ms.IDs() {
			out = append(out, "model:"+id)
		}
	}
	return out
}
