package frontmatter

import "testing"

// TestMatter: a few of gray-matter's rules. The expected values are what
// gray-matter 4.0.3 under Node 20 gives (the skills vectors of
// testdata/upstream and TestSkillsAgainstOracle in internal/serialize
// hold many more).
func TestMatter(t *testing.T) {
	tests := []struct {
		name, text       string
		wantName         string // "" none
		wantDesc         string
		wantContent      string
		wantErr, wantUns bool
	}{
		{"yaml", "---\nname: A\ndescription: d\n---\nbody", "A", "d", "body", false, false},
		{"bom and crlf", "\ufeff---\r\nname: A\r\ndescription: d\r\n---\r\nbody\r\n", "A", "d", "body\r\n", false, false},
		{"no frontmatter", "\ufeffjust text", "", "", "just text", false, false},
		{"four dashes", "----\nname: A\n----\nbody", "", "", "----\nname: A\n----\nbody", false, false},
		{"no closing", "---\nname: A\ndescription: d\nbody", "", "", "", true, false},
		{"comments only", "---\n# just\n  # comments\n---\nbody", "", "", "body", false, false},
		{"json", "---json\n{\"name\": \"A\", \"description\": \"d\"}\n---\nbody", "A", "d", "body", false, false},
		{"unknown language", "---toml\nname = 'A'\n---\nbody", "", "", "", true, false},
		{"js template", "---js\n{name: `a\\nb`, description: \"d\"}\n---\nbody", "a\nb", "d", "body", false, false},
		{"js parenthesized", "---js\n({name: \"A\", description: \"d\"})\n---\nbody", "A", "d", "body", false, false},
		{"js __proto__", "---js\n{__proto__: {name: \"P\"}, description: \"d\"}\n---\nbody", "P", "d", "body", false, false},
		{"js escapes", "---js\n{name: \"\\u{1F600}\\x41\\\r\nz\", description: \"d\"}\n---\nb", "😀Az", "d", "b", false, false},
		{"js falsy", "---js\n0\n---\nbody", "", "", "body", false, false},
		{"js statement", "---js\nconst x = 1; x\n---\nbody", "", "", "", true, true},
		{"excerpt separator that cannot be a string", "---\nname: A\ndescription: d\nexcerpt_separator: {toString: 1}\n---\nbody", "", "", "", true, false},
		{"tab-indented key", "---\nname: A\ndescription: d\n\tx: 1\n---\nbody", "A", "d", "body", false, false},
		{"close followed by text", "---\nname: A\ndescription: d\n---x\nbody", "A", "d", "x\nbody", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Matter(tt.text)
			if (err != nil) != tt.wantErr || (err == ErrUnsupported) != tt.wantUns {
				t.Fatalf("err %v", err)
			}
			if err != nil {
				return
			}
			name, _ := r.String("name")
			desc, _ := r.String("description")
			if name != tt.wantName || desc != tt.wantDesc || r.Content != tt.wantContent {
				t.Errorf("name %q description %q content %q", name, desc, r.Content)
			}
		})
	}
}
