package mdtext

import "testing"

func TestPathLink(t *testing.T) {
	tests := []struct{ in, want string }{
		{"w1/src/a.ts", "[](path:w1/src/a.ts)"},
		{"w1/src/", "[](path:w1/src/)"},
		{"w1/My Docs/a.md", "[](path:w1/My%20Docs/a.md)"},
		{"w1/a(b).ts", "[](path:w1/a%28b%29.ts)"},
		{"w1/a\tb\nc\rd\fe\vf", "[](path:w1/a%09b%0Ac%0Dd%0Ce%0Bf)"},
		{"w1/100%.txt", "[](path:w1/100%.txt)"},
		{"/home/me/a.ts", "[](path:/home/me/a.ts)"},
	}
	for _, tt := range tests {
		if got := PathLink(tt.in); got != tt.want {
			t.Errorf("PathLink(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestLinkPath(t *testing.T) {
	tests := []struct {
		target string
		want   string
		ok     bool
	}{
		{"path:w1/src/a.ts", "w1/src/a.ts", true},
		{"path:w1/src/", "w1/src", true},
		{"path:w1/src//", "w1/src", true},
		{"wsfile:w1/a.ts", "w1/a.ts", true},
		{"path:w1/My%20Docs", "w1/My%20Docs", true},
		{"path:", "", false},
		{"path:/", "", false},
		{"slash:command:say", "", false},
		{"https://example.com/a", "", false},
		{"PATH:w1/a", "", false},
	}
	for _, tt := range tests {
		got, ok := LinkPath(tt.target)
		if got != tt.want || ok != tt.ok {
			t.Errorf("LinkPath(%q) = %q, %v; want %q, %v", tt.target, got, ok, tt.want, tt.ok)
		}
	}
}
