// Package table owns the results table's schema and its Parquet/JSONL
// files (`compact eval|replay|simulate --table DIR`): one folder per
// table under DIR (probes, briefings, replays, simulations, compactions),
// each holding one Parquet file and one JSON Lines file per writer, with
// the same rows, so that DuckDB, Spark or BigQuery read a folder's
// *.parquet as one table however many shards wrote it.
//
// A writer's files are named part-<shard>-<key>.parquet and .jsonl.gz:
// <shard> is "all", or "shard-K-of-N" for --shard K/N; <key> is the first
// 8 hex digits of a SHA-256 of the command's inputs (the command, its
// paths and the options that choose the rows, and the shard), so the same
// command run again replaces its own files and two shards never share one.
// Each file is written under a temporary name beside it and renamed into
// place when complete. Rows are written in row groups of at most
// RowGroupRows rows as they come: memory is bounded by one row group's
// encoded pages, not by the number of bundles.
package table

import (
	"bufio"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/parquet-go/parquet-go"

	"github.com/compactlab/compact/internal/fsutil"
)

// SchemaVersion is the version of every table's columns, in the
// schema_version column of each row and the compact.schema_version key
// of each Parquet file's metadata. It changes when a column changes
// meaning or type, or goes; new columns may be added without it.
const SchemaVersion = 1

// The tables, each a folder under the table directory.
const (
	Probes      = "probes"      // eval: bundle × briefing × probe
	Briefings   = "briefings"   // eval: bundle × briefing
	Replays     = "replays"     // replay: bundle × run
	Simulations = "simulations" // simulate: history × strategy (× sweep value)
	Compactions = "compactions" // simulate: history × strategy × compaction
)

// RowGroupRows is how many rows a Parquet row group holds at most.
const RowGroupRows = 64 << 10

// batchRows is how many rows are handed to the Parquet writer at once.
const batchRows = 512

// Options say where a writer's files go and what names them.
type Options struct {
	// Dir is the table directory (--table DIR); the tables are folders
	// inside it.
	Dir string
	// Shard is the shard this run is, as --shard gives it ("3/8"), or
	// "" when the run is not sharded.
	Shard string
	// Inputs identify the run (the command, its paths and the options
	// that choose its rows); with the shard they make the part's key.
	Inputs []string
	// ToolVersion goes into each Parquet file's created_by.
	ToolVersion string
	// RowGroupRows bounds a row group (RowGroupRows when 0; tests).
	RowGroupRows int
}

// ShardLabel is the file name's form of a shard: "all" for none,
// "shard-3-of-8" for "3/8"; any other character than a letter, a digit,
// '.', '_' or '-' becomes '-'.
func ShardLabel(shard string) string {
	shard = strings.TrimSpace(shard)
	if shard == "" {
		return "all"
	}
	var b strings.Builder
	b.WriteString("shard-")
	for _, r := range strings.ReplaceAll(shard, "/", "-of-") {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
	}
	return b.String()
}

// Part is the name the writer's files share, without the extension:
// part-<shard label>-<key>.
func (o Options) Part() string {
	h := sha256.New()
	h.Write([]byte(fmt.Sprintf("schema %d\x00shard %s\x00", SchemaVersion, strings.TrimSpace(o.Shard))))
	for _, in := range o.Inputs {
		h.Write([]byte(in))
		h.Write([]byte{0})
	}
	return "part-" + ShardLabel(o.Shard) + "-" + hex.EncodeToString(h.Sum(nil))[:8]
}

// JSONLExt ends the name of each JSON Lines file: gzipped, because
// probe rows repeat their probe's text and plain files ran about a hundred
// times the Parquet's size (175 MB against 1.8 MB for 1,000 bundles).
const JSONLExt = ".jsonl.gz"

// File is one table's files as written.
type File struct {
	Table   string `json:"table"`
	Parquet string `json:"parquet"`
	JSONL   string `json:"jsonl"`
	Rows    int64  `json:"rows"`
	// Bytes are the Parquet file's size, JSONLBytes the JSON Lines'.
	Bytes      int64 `json:"bytes"`
	JSONLBytes int64 `json:"jsonlBytes"`
	// Leftovers counts the temporary files of a killed run of the same
	// part that were removed first.
	Leftovers int `json:"leftovers"`
}

// part writes one table's two files under temporary names; commit
// renames them into place, abort removes them.
type part[T any] struct {
	table                 string
	parquetPath, jsonPath string
	pf, jf                *os.File
	pw                    *parquet.GenericWriter[T]
	jz                    *gzip.Writer
	jb                    *bufio.Writer
	je                    *json.Encoder
	batch                 []T
	rows                  int64
	leftovers             int
	err                   error
}

// newPart opens table's files for the writer o names.
func newPart[T any](o Options, table string) (*part[T], error) {
	dir := filepath.Join(o.Dir, table)
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return nil, fmt.Errorf("table: %v", err)
	}
	name := o.Part()
	p := &part[T]{table: table, parquetPath: filepath.Join(dir, name+".parquet"), jsonPath: filepath.Join(dir, name+JSONLExt)}
	// Leftovers of a run of the same part that was killed.
	for _, final := range []string{p.parquetPath, p.jsonPath} {
		n, _ := fsutil.CleanStale(dir, fsutil.PartialPrefix(final))
		p.leftovers += n
	}
	var err error
	if p.pf, err = fsutil.CreateTemp(dir, fsutil.PartialPrefix(p.parquetPath), ""); err != nil {
		return nil, fmt.Errorf("table: %v", err)
	}
	if p.jf, err = fsutil.CreateTemp(dir, fsutil.PartialPrefix(p.jsonPath), ""); err != nil {
		p.pf.Close()
		os.Remove(p.pf.Name())
		return nil, fmt.Errorf("table: %v", err)
	}
	rg := int64(o.RowGroupRows)
	if rg <= 0 {
		rg = RowGroupRows
	}
	p.pw = parquet.NewGenericWriter[T](p.pf,
		parquet.Compression(&parquet.Zstd),
		parquet.MaxRowsPerRowGroup(rg),
		parquet.CreatedBy("compact", o.ToolVersion, ""),
		parquet.KeyValueMetadata("compact.schema_version", fmt.Sprint(SchemaVersion)),
		parquet.KeyValueMetadata("compact.table", table),
		parquet.KeyValueMetadata("compact.part", name),
		parquet.KeyValueMetadata("compact.shard", o.Shard),
	)
	// BestSpeed: about a tenth of the plain size for a few percent of
	// the CPU; DuckDB, Spark and BigQuery read gzipped JSON Lines as is.
	p.jz, _ = gzip.NewWriterLevel(p.jf, gzip.BestSpeed)
	p.jb = bufio.NewWriterSize(p.jz, 256<<10)
	p.je = json.NewEncoder(p.jb)
	p.je.SetEscapeHTML(false)
	p.batch = make([]T, 0, batchRows)
	return p, nil
}

// add writes one row (to the Parquet writer a batch at a time).
func (p *part[T]) add(row T) error {
	if p.err != nil {
		return p.err
	}
	if err := p.je.Encode(row); err != nil {
		p.err = fmt.Errorf("table: %s: %v", p.jsonPath, err)
		return p.err
	}
	p.batch = append(p.batch, row)
	p.rows++
	if len(p.batch) == cap(p.batch) {
		return p.flush()
	}
	return nil
}

func (p *part[T]) flush() error {
	if p.err != nil || len(p.batch) == 0 {
		return p.err
	}
	if _, err := p.pw.Write(p.batch); err != nil {
		p.err = fmt.Errorf("table: %s: %v", p.parquetPath, err)
		return p.err
	}
	clear(p.batch)
	p.batch = p.batch[:0]
	return nil
}

// commit completes both files and renames them into place.
func (p *part[T]) commit() (File, error) {
	f := File{Table: p.table, Parquet: p.parquetPath, JSONL: p.jsonPath, Rows: p.rows, Leftovers: p.leftovers}
	err := p.flush()
	if err == nil {
		if e := p.pw.Close(); e != nil {
			err = fmt.Errorf("table: %s: %v", p.parquetPath, e)
		}
	}
	if err == nil {
		if e := p.jb.Flush(); e != nil {
			err = fmt.Errorf("table: %s: %v", p.jsonPath, e)
		} else if e := p.jz.Close(); e != nil {
			err = fmt.Errorf("table: %s: %v", p.jsonPath, e)
		}
	}
	for _, x := range []*os.File{p.pf, p.jf} {
		if err == nil {
			err = x.Sync()
		}
		if e := x.Close(); err == nil && e != nil {
			err = e
		}
	}
	if err != nil {
		p.remove()
		return f, err
	}
	if st, e := os.Stat(p.pf.Name()); e == nil {
		f.Bytes = st.Size()
	}
	if st, e := os.Stat(p.jf.Name()); e == nil {
		f.JSONLBytes = st.Size()
	}
	if err := os.Rename(p.pf.Name(), p.parquetPath); err != nil {
		p.remove()
		return f, fmt.Errorf("table: %v", err)
	}
	fsutil.Release(p.pf.Name())
	if err := os.Rename(p.jf.Name(), p.jsonPath); err != nil {
		p.remove()
		return f, fmt.Errorf("table: %v", err)
	}
	fsutil.Release(p.jf.Name())
	return f, nil
}

// abort removes what was written.
func (p *part[T]) abort() {
	p.pf.Close()
	p.jf.Close()
	p.remove()
}

func (p *part[T]) remove() {
	for _, x := range []*os.File{p.pf, p.jf} {
		os.Remove(x.Name())
		fsutil.Release(x.Name())
	}
}

// closer is a part of any row type.
type closer interface {
	commit() (File, error)
	abort()
}

// commitAll commits every part; on the first error the rest are
// aborted.
func commitAll(parts ...closer) ([]File, error) {
	var files []File
	var errs []error
	for _, p := range parts {
		if len(errs) > 0 {
			p.abort()
			continue
		}
		f, err := p.commit()
		if err != nil {
			errs = append(errs, err)
			continue
		}
		files = append(files, f)
	}
	return files, errors.Join(errs...)
}
