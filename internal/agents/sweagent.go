package agents

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/compactlab/compact/internal/fsutil"
)

// A SWE-agent trajectory (.traj) is one JSON document: history, the
// messages the model was sent and wrote ({role, content, tool_calls,
// tool_call_ids, action, message_type}), trajectory (each step's action,
// observation and state, working_dir among it), and info.model_stats
// (tokens sent and received, calls, cost over the whole run).
//
// ReadSWEAgent reads the history. An assistant message with tool_calls
// (function calling) keeps them; one without, whose action is a command,
// gets one call for it (named by the command's first word, its arguments
// {"command": action}), answered by the observation that follows. SWE-agent
// records no usage per step and no compaction.

type sweDoc struct {
	History    []sweMessage `json:"history"`
	Trajectory []struct {
		State json.RawMessage `json:"state"`
	} `json:"trajectory"`
	Info *struct {
		ModelStats *struct {
			InstanceCost   float64 `json:"instance_cost"`
			TokensSent     int64   `json:"tokens_sent"`
			TokensReceived int64   `json:"tokens_received"`
			APICalls       int64   `json:"api_calls"`
		} `json:"model_stats"`
	} `json:"info"`
	Environment string `json:"environment"`
}

type sweMessage struct {
	Role        string          `json:"role"`
	Content     json.RawMessage `json:"content"`
	Thought     string          `json:"thought"`
	Action      *string         `json:"action"`
	MessageType string          `json:"message_type"`
	Agent       string          `json:"agent"`
	ToolCalls   []struct {
		ID       string `json:"id"`
		Function struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
	ToolCallIDs []string `json:"tool_call_ids"`
	IsDemo      bool     `json:"is_demo"`
}

// MaxTrajBytes bounds a trajectory file, read whole.
const MaxTrajBytes = 1 << 30

// ReadSWEAgentFile reads the SWE-agent trajectory at path.
func ReadSWEAgentFile(path string) (*Session, error) {
	f, err := fsutil.OpenInputMax(path, MaxTrajBytes)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadSWEAgent(f, path)
}

// ReadSWEAgent reads one SWE-agent trajectory. The error is an I/O error
// or a document that is not a trajectory (not JSON, no history); bad
// messages are Problems (their line is 0: the document is one value).
func ReadSWEAgent(r io.Reader, name string) (*Session, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxTrajBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(data) > MaxTrajBytes {
		return nil, fmt.Errorf("%s is larger than %d MiB: not a trajectory compact reads", name, MaxTrajBytes>>20)
	}
	var doc sweDoc
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: not a SWE-agent trajectory: %s", name, strings.TrimSuffix(jsonProblem(data, err), "; left out"))
	}
	if doc.History == nil {
		return nil, fmt.Errorf("%s: not a SWE-agent trajectory: no history", name)
	}
	s := &Session{Agent: SWEAgent, Path: name, Problems: []Problem{}, Compactions: []Compaction{}}
	s.ID = strings.TrimSuffix(filepath.Base(name), filepath.Ext(name))
	for _, st := range doc.Trajectory {
		var state struct {
			WorkingDir string `json:"working_dir"`
		}
		raw := st.State
		var inner string
		if json.Unmarshal(raw, &inner) == nil {
			raw = json.RawMessage(inner) // older versions store the state as text
		}
		if json.Unmarshal(raw, &state) == nil && state.WorkingDir != "" {
			s.Cwd = state.WorkingDir
			break
		}
	}
	if doc.Info != nil && doc.Info.ModelStats != nil {
		ms := doc.Info.ModelStats
		s.Stats = &Stats{TokensSent: ms.TokensSent, TokensReceived: ms.TokensReceived, APICalls: ms.APICalls, CostUSD: ms.InstanceCost}
	}
	pending := "" // the synthesized call the next observation answers
	for i, hm := range doc.History {
		id := fmt.Sprintf("h%d", i)
		text, ok := textOrParts(hm.Content)
		if !ok {
			s.problem(0, "history[%d]: content is neither text nor a list of parts; left out", i)
			continue
		}
		switch hm.Role {
		case "system":
			s.Messages = append(s.Messages, Message{ID: id, Role: RoleSystem, Text: text})
		case "assistant":
			m := Message{ID: id, Role: RoleAssistant, Text: text}
			for k, tc := range hm.ToolCalls {
				args := string(bytes.TrimSpace(tc.Function.Arguments))
				var inner string
				if json.Unmarshal(tc.Function.Arguments, &inner) == nil {
					args = inner
				}
				cid := tc.ID
				if cid == "" {
					cid = fmt.Sprintf("%s/%d", id, k)
				}
				m.ToolCalls = append(m.ToolCalls, ToolCall{ID: cid, Name: tc.Function.Name, Input: args})
			}
			pending = ""
			if len(m.ToolCalls) == 0 && hm.Action != nil && strings.TrimSpace(*hm.Action) != "" {
				action := strings.TrimSpace(*hm.Action)
				nameOf := strings.Fields(action)[0]
				args, _ := json.Marshal(map[string]string{"command": action})
				pending = id + "/action"
				m.ToolCalls = []ToolCall{{ID: pending, Name: nameOf, Input: string(args)}}
				if hm.Thought != "" {
					m.Text = hm.Thought
				}
			}
			s.Messages = append(s.Messages, m)
		case "tool":
			if len(hm.ToolCallIDs) == 0 {
				s.problem(0, "history[%d]: tool message without tool_call_ids; left out", i)
				continue
			}
			tm := Message{ID: id, Role: RoleTool, Text: text, ToolCallID: hm.ToolCallIDs[0]}
			s.Messages = append(s.Messages, tm)
		case "user":
			if hm.IsDemo {
				// A demonstration in the prompt, not the run's own
				// history: a user message as written.
				pending = ""
				s.Messages = append(s.Messages, Message{ID: id, Role: RoleUser, Text: text})
				continue
			}
			if pending != "" && (hm.MessageType == "observation" || hm.MessageType == "") {
				s.Messages = append(s.Messages, Message{ID: id, Role: RoleTool, Text: text, ToolCallID: pending})
				pending = ""
				continue
			}
			pending = ""
			s.Messages = append(s.Messages, Message{ID: id, Role: RoleUser, Text: text})
		default:
			s.problem(0, "history[%d]: role %q; left out", i, hm.Role)
		}
	}
	s.capProblems()
	return s, nil
}
