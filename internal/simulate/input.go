package simulate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/compactlab/compact/internal/convo"
)

// ReadJSONL reads a generic JSONL history from path ("-": stdin), along
// the branch to leaf ("" the newest leaf). The warnings name the lines
// left out; when no line is usable, or the file cannot be read, the error
// is an InputError.
func ReadJSONL(path string, stdin io.Reader, leaf string) (*Input, []string, error) {
	var h *convo.History
	var err error
	jo := convo.JSONLOptions{Leaf: leaf}
	if path == "-" {
		h, err = convo.ReadJSONL(stdin, "stdin", jo)
	} else {
		h, err = convo.ReadJSONLFile(path, jo)
	}
	if err != nil {
		return nil, nil, &InputError{Err: err}
	}
	return checkHistory(h)
}

// ReadDB reads the chats of the stagewise database at path (every chat
// with messages, or those of chats), each with the context window of its
// model from windows (keys in lower case). The warnings name the chats
// left out. No chosen chat to simulate is an InputError; a database with
// no chat at all, or one that cannot be read, a plain error.
func ReadDB(ctx context.Context, path string, chats []string, windows map[string]int) ([]*Input, []string, error) {
	hs, problems, err := convo.ReadStagewise(ctx, path, convo.StagewiseOptions{ChatIDs: chats})
	var missing *convo.MissingChatsError
	if errors.As(err, &missing) {
		return nil, nil, inputErr("%v", err)
	}
	if err != nil {
		return nil, nil, err
	}
	var warnings []string
	for _, p := range problems {
		warnings = append(warnings, p.String())
	}
	if len(hs) == 0 {
		if len(chats) > 0 {
			return nil, warnings, inputErr("none of the chosen chats can be simulated")
		}
		return nil, warnings, fmt.Errorf("%s holds no chat with messages", path)
	}
	var out []*Input
	for _, h := range hs {
		in := &Input{History: h}
		if n, ok := windows[strings.ToLower(h.Model)]; ok && h.Model != "" {
			in.Window, in.WindowFrom = n, h.Model
		}
		out = append(out, in)
	}
	return out, warnings, nil
}
