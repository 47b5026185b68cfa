package cmd

import (
	"bufio"
	"context"
	"errors"
	"io"
	"strings"
	"sync"

	"github.com/compactlab/compact/internal/fsutil"
	"github.com/compactlab/compact/internal/history"
)

// readInput reads the file named by args[0], or stdin when there is none
// or it is "-". Every caller decodes superjson, which starts with '{' after
// white space: an input that starts otherwise is returned up to its first
// byte that cannot start JSON, so decoding fails there at once instead of
// after an endless stream (/dev/zero) is read. The rest is read up to the
// most a JavaScript string can hold (fsutil.MaxJSStringBytes).
func readInput(f *Factory, args []string) (text, name string, err error) {
	name = "stdin"
	var r io.Reader = f.IO.In
	if len(args) > 0 && args[0] != "-" {
		name = args[0]
		if st, err := fsutil.CheckInput(name); err == nil && st.IsDir() {
			return "", name, usageErr("%s is a directory: give a file of superjson text, or - for stdin", name)
		}
		// A named pipe, a socket or a device is refused before it is
		// opened: opening a named pipe waits for a writer.
		file, err := fsutil.OpenInput(name)
		if err != nil {
			return "", name, usageErr("%v", err)
		}
		defer file.Close()
		r = file
	}
	br := bufio.NewReader(r)
	var head []byte
	for {
		c, err := br.ReadByte()
		if err != nil {
			break // EOF or a read error: ReadLimit below reports the error
		}
		head = append(head, c)
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		case '{', '[':
			// a JSON container: read the rest
		default:
			return string(head), name, nil
		}
		break
	}
	rest, err := fsutil.ReadLimit(br, name, fsutil.MaxJSStringBytes-int64(len(head)))
	if err != nil {
		var big *fsutil.TooLargeError
		if errors.As(err, &big) {
			big.Max = fsutil.MaxJSStringBytes
		}
		return "", name, usageErr("%v", err)
	}
	return string(head) + string(rest), name, nil
}

// decodeInput decodes superjson text; bad input is a usage error (exit 2).
func decodeInput(text, name string) (history.Value, error) {
	v, err := history.DecodeSuperJSON(text)
	if err != nil {
		if len(text) == 0 {
			return v, usageErr("%s is empty: expected superjson text such as {\"json\":[…]}", name)
		}
		return v, usageErr("%s: %v", name, err)
	}
	return v, nil
}

// decodeMessages decodes a superjson message array.
func decodeMessages(text, name string) ([]history.Value, error) {
	v, err := decodeInput(text, name)
	if err != nil {
		return nil, err
	}
	if v.Kind() != history.Array {
		return nil, usageErr("%s holds %s, not a message array (superjson {\"json\":[…]})", name, describeTop(v))
	}
	return v.Elems(), nil
}

func describeTop(v history.Value) string {
	if v.IsUndefined() {
		return "no \"json\" value"
	}
	k := v.Kind().String()
	if strings.ContainsRune("aeiouAEIOU", rune(k[0])) {
		return "an " + k
	}
	return "a " + k
}

// writeText writes s as Node would write it: lone surrogates as U+FFFD.
func writeText(w io.Writer, s string) error {
	_, err := io.WriteString(w, history.ToWellFormed(s))
	return err
}

// interruptible is r whose reads end, with ctx's error, as soon as ctx is
// done, even while a read of r waits for input that does not come (a
// terminal, a pipe whose writer waits): a command that catches Ctrl-C
// and SIGTERM to clean up would otherwise not end on them while it reads
// stdin. r is read from another goroutine, started at the first read
// only; it is left behind, blocked, when ctx ends the reading.
func interruptible(ctx context.Context, r io.Reader) io.Reader {
	return &ctxReader{ctx: ctx, r: r}
}

type ctxReader struct {
	ctx  context.Context
	r    io.Reader
	once sync.Once
	pr   *io.PipeReader
}

func (c *ctxReader) Read(p []byte) (int, error) {
	c.once.Do(func() {
		pr, pw := io.Pipe()
		c.pr = pr
		go func() {
			_, err := io.Copy(pw, c.r)
			pw.CloseWithError(err)
		}()
		context.AfterFunc(c.ctx, func() { pr.CloseWithError(c.ctx.Err()) })
	})
	return c.pr.Read(p)
}
