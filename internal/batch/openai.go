package batch

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"os"
	"strings"

	openai "github.com/sashabaranov/go-openai"

	"github.com/compactlab/compact/internal/cascade"
)

// openaiService speaks OpenAI's Batch API: the requests are a JSONL file
// uploaded to /v1/files (purpose batch), then POST /v1/batches with its
// id; GET /v1/batches/{id} polls (validating, in_progress, finalizing,
// completed, expired, cancelling, cancelled, failed); the results are the
// JSONL files output_file_id and error_file_id, one line per request:
// {id, custom_id, response: {status_code, request_id, body}, error}.
type openaiService struct {
	pc     cascade.ProviderConfig
	hc     *http.Client
	client *openai.Client
	window string
}

func newOpenAIService(pc cascade.ProviderConfig, hc *http.Client, window string) *openaiService {
	cc := openai.DefaultConfig(pc.APIKey)
	cc.BaseURL = openaiAPIBase(pc.BaseURL)
	cc.HTTPClient = hc
	return &openaiService{pc: pc, hc: hc, client: openai.NewClientWithConfig(cc), window: window}
}

// openaiAPIBase is go-openai's BaseURL: the server root and /v1, unless
// it already ends in /v1 (as the interactive provider does).
func openaiAPIBase(base string) string {
	b := strings.TrimRight(base, "/")
	if u, err := url.Parse(b); err == nil && strings.HasSuffix(u.Path, "/v1") {
		return b
	}
	return b + "/v1"
}

func (o *openaiService) format() uploadFormat { return uploadFormat{sep: "\n", suffix: "\n"} }

// openaiLine is one request of the input file. The body is written here
// rather than as go-openai's ChatCompletionRequest, whose Temperature
// float32 has omitempty (0 would not be sent): it is the body the
// interactive provider sends, max_completion_tokens and all.
type openaiLine struct {
	CustomID string     `json:"custom_id"`
	Method   string     `json:"method"`
	URL      string     `json:"url"`
	Body     openaiBody `json:"body"`
}

type openaiBody struct {
	Model               string          `json:"model"`
	Messages            []openaiMessage `json:"messages"`
	MaxCompletionTokens int             `json:"max_completion_tokens,omitempty"`
	Temperature         *float64        `json:"temperature,omitempty"`
}

type openaiMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

func (o *openaiService) encode(customID string, br cascade.BatchRequest) ([]byte, error) {
	r := br.Request
	return json.Marshal(openaiLine{CustomID: customID, Method: http.MethodPost, URL: string(openai.BatchEndpointChatCompletions),
		Body: openaiBody{Model: r.Model, MaxCompletionTokens: r.MaxOutputTokens, Temperature: r.Temperature,
			Messages: []openaiMessage{{Role: openai.ChatMessageRoleSystem, Content: r.System}, {Role: openai.ChatMessageRoleUser, Content: r.User}}}})
}

func (o *openaiService) create(ctx context.Context, tier Tier, f *os.File, size int64, n int, label string) (string, error) {
	var fileID string
	err := retry(ctx, func(ctx context.Context) error {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return err
		}
		id, err := o.upload(ctx, f, size)
		fileID = id
		return err
	})
	if err != nil {
		return "", fmt.Errorf("upload of the input file (%s): %w", plural(n, "request"), err)
	}
	var b openai.BatchResponse
	err = retry(ctx, func(ctx context.Context) error {
		ctx, cancel := context.WithTimeout(ctx, apiTimeout)
		defer cancel()
		var err error
		b, err = o.client.CreateBatch(ctx, openai.CreateBatchRequest{
			InputFileID: fileID, Endpoint: openai.BatchEndpointChatCompletions,
			CompletionWindow: o.window, Metadata: map[string]any{"compact_run": label},
		})
		return err
	})
	if err != nil {
		return "", fmt.Errorf("create batch of file %s: %w", fileID, err)
	}
	return b.ID, nil
}

// upload sends the input file to POST /v1/files as multipart/form-data
// (purpose=batch, file=…). Not go-openai's CreateFile or CreateFileBytes:
// both build the whole multipart body in memory, and an input file may
// be 200 MB; this streams it from disk.
func (o *openaiService) upload(ctx context.Context, f *os.File, size int64) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, transferTimeout)
	defer cancel()
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	go func() {
		err := mw.WriteField("purpose", string(openai.PurposeBatch))
		if err == nil {
			var part io.Writer
			part, err = mw.CreateFormFile("file", "batchinput.jsonl")
			if err == nil {
				_, err = io.Copy(part, f)
			}
		}
		if err == nil {
			err = mw.Close()
		}
		pw.CloseWithError(err)
	}()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, openaiAPIBase(o.pc.BaseURL)+"/files", pr)
	if err != nil {
		pr.Close()
		return "", err
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Authorization", "Bearer "+o.pc.APIKey)
	resp, err := o.hc.Do(req)
	if err != nil {
		pr.CloseWithError(err)
		return "", err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode/100 != 2 {
		var e struct {
			Error struct{ Message string } `json:"error"`
		}
		msg := strings.TrimSpace(string(body))
		if json.Unmarshal(body, &e) == nil && e.Error.Message != "" {
			msg = e.Error.Message
		}
		return "", &httpError{Status: resp.StatusCode, Msg: msg}
	}
	var file openai.File
	if err := json.Unmarshal(body, &file); err != nil || file.ID == "" {
		return "", fmt.Errorf("the file upload's answer has no file id: %.200s", body)
	}
	return file.ID, nil
}

func (o *openaiService) poll(ctx context.Context, id string) (poll, error) {
	var b openai.BatchResponse
	err := retry(ctx, func(ctx context.Context) error {
		ctx, cancel := context.WithTimeout(ctx, apiTimeout)
		defer cancel()
		var err error
		b, err = o.client.RetrieveBatch(ctx, id)
		return err
	})
	if err != nil {
		return poll{}, err
	}
	p := poll{Status: b.Status, openai: &b.Batch}
	rc := b.RequestCounts
	p.Counts = Counts{Total: rc.Total, Succeeded: rc.Completed, Failed: rc.Failed, Pending: max(0, rc.Total-rc.Completed-rc.Failed)}
	switch b.Status {
	case "completed":
		p.Ended = true
	case "expired":
		p.Ended, p.Expired, p.Why = true, true, "the batch expired before answering it"
	case "cancelled":
		p.Ended, p.Why = true, "the batch was cancelled"
	case "failed":
		p.Ended, p.Why = true, "the batch failed"
		if b.Errors != nil && len(b.Errors.Data) > 0 {
			p.Why += ": " + b.Errors.Data[0].Message
		}
	}
	return p, nil
}

// openaiResult is one line of an output or error file.
type openaiResult struct {
	CustomID string `json:"custom_id"`
	Response *struct {
		StatusCode int             `json:"status_code"`
		RequestID  string          `json:"request_id"`
		Body       json.RawMessage `json:"body"`
	} `json:"response"`
	Error *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// maxResultLine bounds one line of a results file: an answer is capped at
// cascade.max_answer_bytes (4 MiB), escaped in JSON.
const maxResultLine = 64 << 20

func (o *openaiService) results(ctx context.Context, id string, p poll, each func(result) error) error {
	if p.openai == nil {
		return nil
	}
	for _, fid := range []*string{p.openai.OutputFileID, p.openai.ErrorFileID} {
		if fid == nil || *fid == "" {
			continue
		}
		if err := o.file(ctx, *fid, each); err != nil {
			return fmt.Errorf("results file %s: %w", *fid, err)
		}
	}
	return nil
}

// file streams one results file through go-openai's GetFileContent, line
// by line.
func (o *openaiService) file(ctx context.Context, fileID string, each func(result) error) error {
	ctx, cancel := context.WithTimeout(ctx, transferTimeout)
	defer cancel()
	var raw openai.RawResponse
	err := retry(ctx, func(ctx context.Context) error {
		var err error
		raw, err = o.client.GetFileContent(ctx, fileID)
		return err
	})
	if err != nil {
		return err
	}
	defer raw.Close()
	return eachLine(raw, func(line []byte) error {
		var r openaiResult
		if err := json.Unmarshal(line, &r); err != nil {
			return fmt.Errorf("a line is not a batch result: %v", err)
		}
		return each(openaiToResult(r))
	})
}

func openaiToResult(r openaiResult) result {
	res := result{CustomID: r.CustomID, Outcome: cascade.OutcomeError}
	switch {
	case r.Response != nil && r.Response.StatusCode == http.StatusOK:
		var c openai.ChatCompletionResponse
		if err := json.Unmarshal(r.Response.Body, &c); err != nil {
			res.Status, res.Error = r.Response.StatusCode, "the answer is not a chat completion: "+err.Error()
			return res
		}
		res.OK = true
		res.Answer = cascade.BatchAnswer{HTTPStatus: r.Response.StatusCode, RequestID: r.Response.RequestID,
			Usage: cascade.Usage{InputTokens: int64(c.Usage.PromptTokens), OutputTokens: int64(c.Usage.CompletionTokens)}}
		if res.Answer.RequestID == "" {
			res.Answer.RequestID = c.ID
		}
		if d := c.Usage.PromptTokensDetails; d != nil {
			res.Cached = int64(d.CachedTokens)
		}
		if len(c.Choices) > 0 {
			res.Answer.Text = c.Choices[0].Message.Content
			res.Answer.FinishReason = string(c.Choices[0].FinishReason)
		}
	case r.Response != nil:
		res.Status = r.Response.StatusCode
		var e struct {
			Error struct{ Message, Type, Code string } `json:"error"`
		}
		res.Error = fmt.Sprintf("status %d", r.Response.StatusCode)
		if json.Unmarshal(r.Response.Body, &e) == nil && e.Error.Message != "" {
			res.Error += ": " + e.Error.Message
		}
	case r.Error != nil:
		res.Error = r.Error.Code + ": " + r.Error.Message
		if r.Error.Code == "batch_expired" {
			res.Outcome = cascade.OutcomeTimeout
		}
	default:
		res.Error = "no response and no error in the results file"
	}
	return res
}

func (o *openaiService) cancel(ctx context.Context, id string) error {
	return retry(ctx, func(ctx context.Context) error {
		ctx, cancel := context.WithTimeout(ctx, apiTimeout)
		defer cancel()
		_, err := o.client.CancelBatch(ctx, id)
		return err
	})
}

// eachLine calls fn with every non-empty line of r (without its end).
func eachLine(r io.Reader, fn func([]byte) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxResultLine)
	for sc.Scan() {
		line := sc.Bytes()
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if err := fn(line); err != nil {
			return err
		}
	}
	return sc.Err()
}
