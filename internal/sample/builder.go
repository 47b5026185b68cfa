package sample

import (
	"strconv"
	"strings"
	"time"
)

// convo builds one chat's messages with a running clock.
type convo struct {
	r       *rng
	t       time.Time
	mount   string // mount prefix, e.g. "w1a2"
	wsPath  string // absolute workspace path
	callPfx string // "toolu_01" (Anthropic) or "call_" (OpenAI)
	msgs    []message
	session string // current shell session id
	tabs    Arr    // browser tabs of the environment snapshot
}

func newConvo(r *rng, start time.Time, mount, wsPath, model string) *convo {
	c := &convo{r: r, t: start, mount: mount, wsPath: wsPath, callPfx: "toolu_01"}
	if strings.HasPrefix(model, "gpt") {
		c.callPfx = "call_"
	}
	c.tabs = Arr{Obj{{"id", "t1"}, {"url", "http://localhost:5173/"}, {"title", "Recipe Box"}}}
	return c
}

func (c *convo) advance(d time.Duration) time.Time {
	c.t = c.t.Add(d)
	return c.t
}

// msgID returns an AI SDK style message id (16 alphanumerics).
func (c *convo) msgID() string { return c.r.id(16, alnum) }

func (c *convo) callID() string {
	if c.callPfx == "call_" {
		return "call_" + c.r.id(24, alnum)
	}
	return c.callPfx + c.r.id(22, alnum)
}

// p returns the mount-prefixed path of a workspace-relative path.
func (c *convo) p(rel string) string { return c.mount + "/" + rel }

// userOpt decorates a user message's metadata.
type userOpt func(*userMeta)

type userMeta struct {
	mentions, attachments Arr
}

func withAttachment(path, original string) userOpt {
	return func(m *userMeta) {
		a := Obj{{"path", path}}
		if original != "" {
			a = a.Set("originalFileName", original)
		}
		m.attachments = append(m.attachments, a)
	}
}

func withFileMention(c *convo, rel string) userOpt {
	return func(m *userMeta) {
		name := rel[strings.LastIndexByte(rel, '/')+1:]
		m.mentions = append(m.mentions, Obj{{"providerType", "file"}, {"mountedPath", c.p(rel)},
			{"relativePath", rel}, {"mountPrefix", c.mount}, {"fileName", name}})
	}
}

func withTabMention(tabID, url, title string) userOpt {
	return func(m *userMeta) {
		m.mentions = append(m.mentions, Obj{{"providerType", "tab"}, {"tabId", tabID}, {"url", url}, {"title", title}})
	}
}

func withWorkspaceMention(c *convo, name string) userOpt {
	return func(m *userMeta) {
		m.mentions = append(m.mentions, Obj{{"providerType", "workspace"}, {"prefix", c.mount}, {"name", name}, {"path", c.wsPath}})
	}
}

// user appends a user message; the clock moves a few minutes first.
func (c *convo) user(text string, opts ...userOpt) {
	c.userAfter(time.Duration(c.r.between(40, 400))*time.Second, text, opts...)
}

func (c *convo) userAfter(gap time.Duration, text string, opts ...userOpt) {
	at := c.advance(gap + time.Duration(c.r.intn(1000))*time.Millisecond)
	var um userMeta
	for _, o := range opts {
		o(&um)
	}
	meta := Obj{{"createdAt", Date(at)}, {"partsMetadata", Arr{}}}
	if um.mentions != nil {
		meta = meta.Set("mentions", um.mentions)
	}
	if um.attachments != nil {
		meta = meta.Set("attachments", um.attachments)
	}
	meta = meta.Set("environmentSnapshot", Obj{
		{"workspace", Obj{{"mounts", Arr{Obj{{"prefix", c.mount}, {"path", c.wsPath}}}}}},
		{"browser", Obj{{"activeTabId", "t1"}, {"tabs", c.tabs}}},
	})
	parts := Arr{Obj{{"type", "text"}, {"text", text}}}
	c.msgs = append(c.msgs, message{ID: c.msgID(), Role: "user", Parts: parts, Meta: meta})
}

// step is the parts of one model step; assistant puts a step-start
// before each.
type step []Obj

// assistant appends an assistant message made of steps. Each part gets a
// partsMetadata entry with its start and end time.
func (c *convo) assistant(steps ...step) {
	created := c.advance(time.Duration(c.r.between(900, 2500)) * time.Millisecond)
	var parts Arr
	var pm Arr
	for _, s := range steps {
		parts = append(parts, Obj{{"type", "step-start"}})
		pm = append(pm, c.timing(50, 120))
		for _, p := range s {
			parts = append(parts, p)
			lo, hi := 300, 2500
			if t, _ := p[0].V.(string); strings.HasPrefix(t, "tool-executeShellCommand") {
				lo, hi = 1500, 20000
			}
			pm = append(pm, c.timing(lo, hi))
		}
	}
	meta := Obj{{"createdAt", Date(created)}, {"partsMetadata", pm}}
	c.msgs = append(c.msgs, message{ID: c.msgID(), Role: "assistant", Parts: parts, Meta: meta})
}

func (c *convo) timing(lo, hi int) Obj {
	start := c.advance(time.Duration(c.r.between(5, 60)) * time.Millisecond)
	end := c.advance(time.Duration(c.r.between(lo, hi)) * time.Millisecond)
	return Obj{{"startedAt", Date(start)}, {"endedAt", Date(end)}}
}

// compress stores a briefing on message b, the way compressHistoryInternal
// does: the key is added last to the existing metadata.
func (c *convo) compress(b int, briefing string) {
	m := &c.msgs[b]
	for i, kv := range m.Meta {
		if kv.K == "compressedHistory" {
			m.Meta[i].V = briefing
			return
		}
	}
	m.Meta = m.Meta.Set("compressedHistory", briefing)
}

// ---- parts ----

func text(s string) Obj { return Obj{{"type", "text"}, {"text", s}, {"state", "done"}} }

func reasoning(s string) Obj { return Obj{{"type", "reasoning"}, {"text", s}, {"state", "done"}} }

func (c *convo) tool(name string, input Obj, output any) Obj {
	o := Obj{{"type", "tool-" + name}, {"toolCallId", c.callID()}, {"state", "output-available"}, {"input", input}}
	if output != nil {
		o = o.Set("output", output)
	}
	return o
}

func (c *convo) toolErr(name string, input Obj, errText string) Obj {
	return Obj{{"type", "tool-" + name}, {"toolCallId", c.callID()}, {"state", "output-error"}, {"input", input}, {"errorText", errText}}
}

func (c *convo) toolDenied(name string, input Obj, reason string) Obj {
	appr := Obj{{"id", "appr_" + c.r.id(10, alnum)}, {"approved", false}}
	if reason != "" {
		appr = appr.Set("reason", reason)
	}
	return Obj{{"type", "tool-" + name}, {"toolCallId", c.callID()}, {"state", "output-denied"}, {"input", input}, {"approval", appr}}
}

func (c *convo) read(rel, content string) Obj {
	lines := strings.Count(content, "\n") + 1
	return c.tool("read", Obj{{"path", c.p(rel)}}, Obj{{"message", "Successfully read file"},
		{"result", Obj{{"content", content}, {"totalLines", lines}, {"truncated", false}}}})
}

func (c *convo) readRange(rel, content string, start, end int) Obj {
	return c.tool("read", Obj{{"path", c.p(rel)}, {"start_line", start}, {"end_line", end}},
		Obj{{"message", "Successfully read file"}, {"result", Obj{{"content", content}, {"totalLines", end}, {"truncated", true}}}})
}

// edit is one old/new pair of a multiEdit.
type edit struct{ old, new string }

func (c *convo) multiEdit(rel string, edits ...edit) Obj {
	arr := make(Arr, len(edits))
	for i, e := range edits {
		arr[i] = Obj{{"old_string", e.old}, {"new_string", e.new}}
	}
	return c.tool("multiEdit", Obj{{"path", c.p(rel)}, {"edits", arr}},
		Obj{{"message", "Successfully applied " + strconv.Itoa(len(edits)) + " edits to " + rel}, {"result", Obj{{"editsApplied", len(edits)}}}})
}

func (c *convo) write(rel, content string, created bool) Obj {
	msg := "File written successfully"
	if created {
		msg = "File created successfully"
	}
	return c.tool("write", Obj{{"path", c.p(rel)}, {"content", content}}, Obj{{"message", msg}})
}

func (c *convo) copyFile(from, to string, move bool) Obj {
	msg := "Copied " + from + " to " + to
	if move {
		msg = "Moved " + from + " to " + to
	}
	return c.tool("copy", Obj{{"input_path", c.p(from)}, {"output_path", c.p(to)}, {"move", move}}, Obj{{"message", msg}})
}

func (c *convo) del(rel string) Obj {
	return c.tool("delete", Obj{{"path", c.p(rel)}}, Obj{{"message", "Successfully deleted " + rel}})
}

// newSession opens a shell session in the workspace root (or a sub-dir).
func (c *convo) newSession(sub string) Obj {
	c.session = c.r.id(8, "0123456789abcdef")
	cwd := c.mount
	if sub != "" {
		cwd += "/" + sub
	}
	return c.tool("createShellSession", Obj{{"cwd", cwd}}, Obj{{"session_id", c.session}, {"message", "Shell session started"}})
}

// sh runs a command in the current session; exit < 0 means it timed out.
func (c *convo) sh(explanation, command, out string, exit int) Obj {
	in := Obj{{"explanation", explanation}, {"command", command}, {"session_id", c.session}}
	o := Obj{{"session_id", c.session}, {"output", out}}
	if exit < 0 {
		o = append(o, KV{"exit_code", nil}, KV{"session_exited", false}, KV{"timed_out", true})
	} else {
		o = append(o, KV{"exit_code", exit}, KV{"session_exited", false}, KV{"timed_out", false})
	}
	return c.tool("executeShellCommand", in, o)
}

func (c *convo) shDenied(explanation, command, reason string) Obj {
	return c.toolDenied("executeShellCommand", Obj{{"explanation", explanation}, {"command", command}, {"session_id", c.session}}, reason)
}

// diag is one linting diagnostic.
type diag struct {
	line, col int
	severity  string // "error" | "warning"
	rule, msg string
}

func (c *convo) lint(rels []string, diags map[string][]diag) Obj {
	paths := make(Arr, len(rels))
	var files Arr
	errs, warns := 0, 0
	for i, rel := range rels {
		paths[i] = c.p(rel)
		ds := diags[rel]
		if len(ds) == 0 {
			continue
		}
		var arr Arr
		for _, d := range ds {
			if d.severity == "error" {
				errs++
			} else {
				warns++
			}
			arr = append(arr, Obj{{"line", d.line}, {"column", d.col}, {"severity", d.severity}, {"source", "eslint"}, {"code", d.rule}, {"message", d.msg}})
		}
		files = append(files, Obj{{"path", c.p(rel)}, {"diagnostics", arr}})
	}
	if files == nil {
		files = Arr{}
	}
	msg := "No issues found"
	if errs+warns > 0 {
		msg = "Found " + strconv.Itoa(errs+warns) + " issues"
	}
	return c.tool("getLintingDiagnostics", Obj{{"paths", paths}}, Obj{{"message", msg}, {"files", files},
		{"summary", Obj{{"totalFiles", len(rels)}, {"totalIssues", errs + warns}, {"errors", errs}, {"warnings", warns}, {"infos", 0}, {"hints", 0}}}})
}

// match is one grep hit.
type match struct {
	rel  string
	line int
	text string
}

func (c *convo) grep(query, include string, matches ...match) Obj {
	in := Obj{{"mount_prefix", c.mount}, {"query", query}, {"case_sensitive", false}}
	if include != "" {
		in = in.Set("include_file_pattern", include)
	}
	arr := Arr{}
	for _, m := range matches {
		arr = append(arr, Obj{{"path", c.p(m.rel)}, {"line", m.line}, {"preview", m.text}})
	}
	return c.tool("grepSearch", in, Obj{{"message", "Found " + strconv.Itoa(len(matches)) + " matches"},
		{"result", Obj{{"matches", arr}, {"totalMatches", len(matches)}, {"truncated", false}}}})
}

func (c *convo) glob(pattern string, rels ...string) Obj {
	arr := Arr{}
	for _, r := range rels {
		arr = append(arr, r)
	}
	return c.tool("glob", Obj{{"mount_prefix", c.mount}, {"pattern", pattern}},
		Obj{{"message", ""}, {"result", Obj{{"totalMatches", len(rels)}, {"relativePaths", arr}}}})
}

// field is one question of an askUserQuestions step.
type field struct {
	id, label, kind string
	options         []string
}

func (c *convo) ask(title string, steps [][]field, answers Obj, completed bool, cancelReason string) Obj {
	var st Arr
	for i, fs := range steps {
		var arr Arr
		for _, f := range fs {
			o := Obj{{"questionId", f.id}, {"label", f.label}, {"type", f.kind}}
			if len(f.options) > 0 {
				opts := Arr{}
				for _, x := range f.options {
					opts = append(opts, Obj{{"value", x}, {"label", x}})
				}
				o = o.Set("options", opts)
			}
			arr = append(arr, o)
		}
		st = append(st, Obj{{"title", "Step " + strconv.Itoa(i+1)}, {"fields", arr}})
	}
	out := Obj{{"completed", completed}, {"cancelled", !completed}}
	if !completed && cancelReason != "" {
		out = out.Set("cancelReason", cancelReason)
	}
	out = out.Set("answers", answers)
	out = out.Set("completedSteps", len(steps))
	return c.tool("askUserQuestions", Obj{{"title", title}, {"steps", st}}, out)
}

func (c *convo) listDocs(name string, libs ...[2]string) Obj {
	arr := Arr{}
	for _, l := range libs {
		arr = append(arr, Obj{{"libraryId", l[0]}, {"name", l[1]}})
	}
	return c.tool("listLibraryDocs", Obj{{"name", name}}, Obj{{"libraries", arr}})
}

func (c *convo) searchDocs(libraryID, topic, content string) Obj {
	return c.tool("searchInLibraryDocs", Obj{{"libraryId", libraryID}, {"topic", topic}}, Obj{{"content", content}})
}
