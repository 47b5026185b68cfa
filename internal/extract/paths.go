package extract

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Channels maps a release channel to the directory base the desktop app
// uses for it.
var Channels = map[string]string{
	"release":    "stagewise",
	"prerelease": "stagewise-prerelease",
	"nightly":    "stagewise-nightly",
	"dev":        "stagewise-dev",
}

// ChannelNames lists the channels in a stable order.
var ChannelNames = []string{"release", "prerelease", "nightly", "dev"}

// DefaultDBPath is where the desktop app of channel keeps its agent
// database on goos: <appData>/<base>/stagewise/agents/instances.sqlite, with
// appData as the upstream script computes it, except that XDG_CONFIG_HOME is
// honoured on Linux when set (the app, through Electron, honours it; the
// upstream script does not).
func DefaultDBPath(channel, goos string, getenv func(string) string) (string, error) {
	base, ok := Channels[channel]
	if !ok {
		return "", fmt.Errorf("unknown channel %q (want one of %s)", channel, strings.Join(ChannelNames, ", "))
	}
	home := getenv("HOME")
	var appData string
	switch goos {
	case "darwin":
		if home == "" {
			return "", fmt.Errorf("HOME is not set: pass --db PATH")
		}
		appData = filepath.Join(home, "Library", "Application Support")
	case "windows":
		appData = getenv("APPDATA")
		if appData == "" {
			if home = getenv("USERPROFILE"); home == "" {
				return "", fmt.Errorf("APPDATA and USERPROFILE are not set: pass --db PATH")
			}
			appData = filepath.Join(home, "AppData", "Roaming")
		}
	default:
		if x := getenv("XDG_CONFIG_HOME"); x != "" && filepath.IsAbs(x) {
			appData = x
		} else {
			if home == "" {
				return "", fmt.Errorf("HOME is not set: pass --db PATH")
			}
			appData = filepath.Join(home, ".config")
		}
	}
	return filepath.Join(appData, base, "stagewise", "agents", "instances.sqlite"), nil
}

// Slug is the upstream directory slug of a title: drop every character
// outside [a-zA-Z0-9 _-], turn each whitespace run into "-", lower-case, cut
// to 80. It can be empty.
func Slug(title string) string {
	b := make([]byte, 0, len(title))
	for i := 0; i < len(title); i++ {
		c := title[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == ' ' || c == '_' || c == '-' {
			b = append(b, c)
		}
	}
	// Only spaces are left as whitespace.
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] == ' ' {
			for i+1 < len(b) && b[i+1] == ' ' {
				i++
			}
			out = append(out, '-')
			continue
		}
		c := b[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		out = append(out, c)
	}
	if len(out) > 80 {
		out = out[:80]
	}
	return string(out)
}

// ChatDirName is pad3(k) + "-" + slug.
func ChatDirName(k int, title string) string {
	return fmt.Sprintf("%03d-%s", k, Slug(title))
}
