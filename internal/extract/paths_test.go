package extract

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestSlug(t *testing.T) {
	tests := []struct {
		name, title, want string
	}{
		{"upstream example", "Fix Button color (v2)!", "fix-button-color-v2"},
		{"punctuation dropped", "Hello, world. What's up?", "hello-world-whats-up"},
		{"upper case lowered", "ABC Def", "abc-def"},
		{"digits underscore and hyphen kept", "snake_case-name 42", "snake_case-name-42"},
		{"accented letters dropped", "Café déjà vu", "caf-dj-vu"},
		{"non-Latin letters dropped", "Übersicht 日本語 test", "bersicht-test"},
		{"symbols only give an empty slug", "!!!?→✓()", ""},
		{"empty title", "", ""},
		{"whitespace run becomes one hyphen", "a    b", "a-b"},
		{"leading and trailing spaces become hyphens", "  x  ", "-x-"},
		{"tabs dropped before spaces join", " \tleading\tand trailing \t", "-leadingand-trailing-"},
		{"newlines and carriage returns dropped", "line\none\r\ntwo", "lineonetwo"},
		{"no-break space dropped", "a\u00a0b", "ab"},
		{"slash path separators dropped", "../../etc/passwd", "etcpasswd"},
		{"backslash path separators dropped", `..\..\windows\system32`, "windowssystem32"},
		{"dot-dot only is empty", "..", ""},
		{"longer than 80 cut to 80", strings.Repeat("a", 100), strings.Repeat("a", 80)},
		{"cut after hyphenation", strings.Repeat("ab ", 40), strings.Repeat("ab-", 26) + "ab"},
		{"cut after dropping", strings.Repeat("é", 50) + strings.Repeat("b", 90), strings.Repeat("b", 80)},
		{"exactly 80 kept", strings.Repeat("z", 80), strings.Repeat("z", 80)},
		{"lone surrogate-ish bytes dropped", "a\xed\xa0\x80b", "ab"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Slug(tt.title)
			if got != tt.want {
				t.Errorf("Slug(%q) = %q, want %q", tt.title, got, tt.want)
			}
			if len(got) > 80 {
				t.Errorf("Slug(%q) is %d bytes, want at most 80", tt.title, len(got))
			}
			if strings.ContainsAny(got, `/\.`) {
				t.Errorf("Slug(%q) = %q holds a path character", tt.title, got)
			}
		})
	}
}

func TestChatDirName(t *testing.T) {
	tests := []struct {
		name  string
		k     int
		title string
		want  string
	}{
		{"first chat", 1, "Fix Button color (v2)!", "001-fix-button-color-v2"},
		{"symbols only keep the hyphen", 4, "→✓!", "004-"},
		{"path traversal stays one name", 1, "../../etc", "001-etc"},
		{"two digits padded", 12, "x", "012-x"},
		{"three digits", 999, "x", "999-x"},
		{"more than three digits not cut", 1000, "x", "1000-x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ChatDirName(tt.k, tt.title)
			if got != tt.want {
				t.Errorf("ChatDirName(%d, %q) = %q, want %q", tt.k, tt.title, got, tt.want)
			}
			if filepath.Base(got) != got || got == "." || got == ".." {
				t.Errorf("ChatDirName(%d, %q) = %q is not a single path element", tt.k, tt.title, got)
			}
		})
	}
}

func TestDefaultDBPath(t *testing.T) {
	const tail = "stagewise/agents/instances.sqlite"
	join := func(parts ...string) string { return filepath.Join(append(parts, filepath.FromSlash(tail))...) }
	tests := []struct {
		name    string
		channel string
		goos    string
		env     map[string]string
		want    string
		wantErr string
	}{
		{"linux uses HOME/.config", "prerelease", "linux", map[string]string{"HOME": "/home/u"},
			join("/home/u/.config", "stagewise-prerelease"), ""},
		{"linux honours absolute XDG_CONFIG_HOME", "prerelease", "linux", map[string]string{"HOME": "/home/u", "XDG_CONFIG_HOME": "/xdg"},
			join("/xdg", "stagewise-prerelease"), ""},
		{"linux ignores relative XDG_CONFIG_HOME", "prerelease", "linux", map[string]string{"HOME": "/home/u", "XDG_CONFIG_HOME": "rel/cfg"},
			join("/home/u/.config", "stagewise-prerelease"), ""},
		{"linux ignores empty XDG_CONFIG_HOME", "release", "linux", map[string]string{"HOME": "/home/u", "XDG_CONFIG_HOME": ""},
			join("/home/u/.config", "stagewise"), ""},
		{"linux XDG_CONFIG_HOME without HOME", "dev", "linux", map[string]string{"XDG_CONFIG_HOME": "/xdg"},
			join("/xdg", "stagewise-dev"), ""},
		{"linux without HOME fails", "prerelease", "linux", map[string]string{}, "", "HOME is not set"},
		{"other unix like linux", "prerelease", "freebsd", map[string]string{"HOME": "/home/u"},
			join("/home/u/.config", "stagewise-prerelease"), ""},
		{"darwin uses Application Support", "release", "darwin", map[string]string{"HOME": "/Users/u"},
			join("/Users/u/Library/Application Support", "stagewise"), ""},
		{"darwin ignores XDG_CONFIG_HOME", "release", "darwin", map[string]string{"HOME": "/Users/u", "XDG_CONFIG_HOME": "/xdg"},
			join("/Users/u/Library/Application Support", "stagewise"), ""},
		{"darwin without HOME fails", "release", "darwin", map[string]string{}, "", "HOME is not set"},
		{"windows uses APPDATA", "prerelease", "windows", map[string]string{"APPDATA": `C:\Users\u\AppData\Roaming`, "USERPROFILE": `D:\other`},
			join(`C:\Users\u\AppData\Roaming`, "stagewise-prerelease"), ""},
		{"windows falls back to USERPROFILE", "prerelease", "windows", map[string]string{"USERPROFILE": `C:\Users\u`},
			join(`C:\Users\u`, "AppData", "Roaming", "stagewise-prerelease"), ""},
		{"windows ignores HOME and XDG", "dev", "windows", map[string]string{"APPDATA": `C:\A`, "HOME": "/home/u", "XDG_CONFIG_HOME": "/xdg"},
			join(`C:\A`, "stagewise-dev"), ""},
		{"windows without APPDATA and USERPROFILE fails", "prerelease", "windows", map[string]string{"HOME": "/home/u"}, "", "APPDATA and USERPROFILE"},
		{"nightly is a channel", "nightly", "linux", map[string]string{"HOME": "/home/u"},
			join("/home/u/.config", "stagewise-nightly"), ""},
		{"unknown channel fails", "beta", "linux", map[string]string{"HOME": "/home/u"}, "", `unknown channel "beta"`},
		{"channel names are case-sensitive", "Release", "linux", map[string]string{"HOME": "/home/u"}, "", "unknown channel"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DefaultDBPath(tt.channel, tt.goos, func(k string) string { return tt.env[k] })
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("DefaultDBPath = %q, %v; want an error containing %q", got, err, tt.wantErr)
				}
				if tt.channel != "beta" && tt.channel != "Release" && !strings.Contains(err.Error(), "--db") {
					t.Errorf("error %q does not point at --db", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("DefaultDBPath(%q, %q) = %q, want %q", tt.channel, tt.goos, got, tt.want)
			}
		})
	}
}

func TestChannelBases(t *testing.T) {
	want := map[string]string{
		"release":    "stagewise",
		"prerelease": "stagewise-prerelease",
		"nightly":    "stagewise-nightly",
		"dev":        "stagewise-dev",
	}
	if len(Channels) != len(want) || len(ChannelNames) != len(want) {
		t.Fatalf("Channels %v, ChannelNames %v; want exactly %v", Channels, ChannelNames, want)
	}
	for _, ch := range ChannelNames {
		if Channels[ch] != want[ch] {
			t.Errorf("channel %s: base %q, want %q", ch, Channels[ch], want[ch])
		}
		p, err := DefaultDBPath(ch, "linux", func(k string) string { return map[string]string{"HOME": "/h"}[k] })
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(p, string(filepath.Separator)+want[ch]+string(filepath.Separator)) {
			t.Errorf("channel %s: path %q does not use base %q", ch, p, want[ch])
		}
	}
}
