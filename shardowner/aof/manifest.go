package aof

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/corekv/corekv/resp"
)

// Kinds of files a manifest names, by Redis's letters.
const (
	TypeBase    = 'b' // the snapshot the incremental files start from
	TypeHistory = 'h' // a file a rewrite replaced, deleted once the new manifest is in place
	TypeIncr    = 'i' // commands, appended
)

// FileInfo is one line of a manifest.
type FileInfo struct {
	Name string
	Seq  int64
	Type byte
	// Shard and Shards: the file is the stream of shard Shard of a corekv
	// of Shards shards; Shards 0 for a file of one stream (Redis's).
	Shard, Shards int
}

// Manifest is the list of an AOF directory's files, in the order they
// load: the base, then the incremental files.
type Manifest struct {
	Base    *FileInfo
	Incr    []FileInfo
	History []FileInfo
}

// ManifestError is a manifest that does not parse; the text is Redis's.
type ManifestError struct {
	Line int // 0: the file as a whole
	Text string
	Msg  string
}

func (e *ManifestError) Error() string {
	if e.Line == 0 {
		return e.Msg
	}
	return fmt.Sprintf("%s (line %d: %q)", e.Msg, e.Line, e.Text)
}

// maxManifestLine is the longest line Redis's parser reads.
const maxManifestLine = 1024

// ParseManifest reads a manifest as Redis 7.0 does: one file per line as
// key-value pairs (file, seq, type; other keys are kept for later
// versions and skipped, but for corekv's shard), '#' lines skipped.
func ParseManifest(data []byte) (*Manifest, error) {
	m := &Manifest{}
	if len(data) == 0 {
		return nil, &ManifestError{Msg: "Found an empty AOF manifest"}
	}
	var maxSeq int64
	for n := 1; len(data) > 0; n++ {
		line := data
		nl := bytes.IndexByte(data, '\n')
		if nl >= 0 {
			line, data = data[:nl+1], data[nl+1:]
		} else {
			data = nil
		}
		if line[0] == '#' {
			continue
		}
		if nl < 0 || len(line) > maxManifestLine {
			return nil, &ManifestError{n, string(line), "The AOF manifest file contains too long line"}
		}
		text := strings.Trim(string(line), " \t\r\n")
		fail := func(msg string) (*Manifest, error) { return nil, &ManifestError{n, text, msg} }
		args, ok := resp.SplitWords(text)
		if text == "" || !ok || len(args) < 6 || len(args)%2 != 0 {
			return fail("Invalid AOF manifest file format")
		}
		fi := FileInfo{}
		for i := 0; i < len(args); i += 2 {
			v := args[i+1]
			switch strings.ToLower(args[i]) {
			case "file":
				if filepath.Base(v) != v || v == "." || v == ".." {
					return fail("File can't be a path, just a filename")
				}
				fi.Name = v
			case "seq":
				fi.Seq = atoll(v)
			case "type":
				if v != "" {
					fi.Type = v[0]
				}
			case "shard":
				fi.Shard, fi.Shards, ok = parseShard(v)
				if !ok {
					return fail("Invalid AOF manifest file format")
				}
			}
		}
		if fi.Name == "" || fi.Seq == 0 || fi.Type == 0 {
			return fail("Invalid AOF manifest file format")
		}
		switch fi.Type {
		case TypeBase:
			if m.Base != nil {
				return fail("Found duplicate base file information")
			}
			b := fi
			m.Base = &b
		case TypeHistory:
			m.History = append(m.History, fi)
		case TypeIncr:
			if fi.Seq <= maxSeq {
				return fail("Found a non-monotonic sequence number")
			}
			maxSeq = fi.Seq
			m.Incr = append(m.Incr, fi)
		default:
			return fail("Unknown AOF file type")
		}
	}
	if m.Base == nil && len(m.Incr) == 0 && len(m.History) == 0 {
		return nil, &ManifestError{Msg: "Found an empty AOF manifest"}
	}
	return m, nil
}

// atoll reads a leading decimal number as C's atoll does: 0 when there is
// none.
func atoll(s string) int64 {
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	j := i
	if j < len(s) && (s[j] == '-' || s[j] == '+') {
		j++
	}
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	n, _ := strconv.ParseInt(s[i:j], 10, 64)
	return n
}

// parseShard reads "<shard>/<shards>".
func parseShard(v string) (shard, shards int, ok bool) {
	a, b, found := strings.Cut(v, "/")
	s1, err1 := strconv.Atoi(a)
	s2, err2 := strconv.Atoi(b)
	if !found || err1 != nil || err2 != nil || s2 < 1 || s1 < 0 || s1 >= s2 {
		return 0, 0, false
	}
	return s1, s2, true
}

// Format writes the manifest as Redis does, base first, then history,
// then the incremental files; a name with odd bytes is quoted.
func (m *Manifest) Format() []byte {
	var b []byte
	line := func(fi FileInfo) {
		b = append(b, "file "...)
		b = appendName(b, fi.Name)
		b = append(b, " seq "...)
		b = strconv.AppendInt(b, fi.Seq, 10)
		b = append(b, " type "...)
		b = append(b, fi.Type)
		if fi.Shards > 0 {
			b = append(b, " shard "...)
			b = strconv.AppendInt(b, int64(fi.Shard), 10)
			b = append(b, '/')
			b = strconv.AppendInt(b, int64(fi.Shards), 10)
		}
		b = append(b, '\n')
	}
	if m.Base != nil {
		line(*m.Base)
	}
	for _, fi := range m.History {
		line(fi)
	}
	for _, fi := range m.Incr {
		line(fi)
	}
	return b
}

// appendName appends a file name, quoted when it holds a byte that would
// not read back as one word.
func appendName(b []byte, name string) []byte {
	plain := name != ""
	for i := 0; i < len(name); i++ {
		if c := name[i]; c <= ' ' || c == '"' || c == '\'' || c == '\\' || c >= 0x7f {
			plain = false
		}
	}
	if plain {
		return append(b, name...)
	}
	b = append(b, '"')
	for i := 0; i < len(name); i++ {
		switch c := name[i]; {
		case c == '\\' || c == '"':
			b = append(b, '\\', c)
		case c == '\n':
			b = append(b, `\n`...)
		case c == '\r':
			b = append(b, `\r`...)
		case c == '\t':
			b = append(b, `\t`...)
		case c < ' ' || c >= 0x7f:
			b = append(b, fmt.Sprintf(`\x%02x`, c)...)
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}

// Names of an AOF directory's files, as Redis names them after
// appendfilename.
func ManifestName(prefix string) string { return prefix + ".manifest" }

// BaseName is the name of base file seq: an RDB, or commands when the
// base is not written as a snapshot (aof-use-rdb-preamble no).
func BaseName(prefix string, seq int64, rdb bool) string {
	if rdb {
		return prefix + "." + strconv.FormatInt(seq, 10) + ".base.rdb"
	}
	return prefix + "." + strconv.FormatInt(seq, 10) + ".base.aof"
}

// IncrName is the name of incremental file seq.
func IncrName(prefix string, seq int64) string {
	return prefix + "." + strconv.FormatInt(seq, 10) + ".incr.aof"
}

// ReadManifest reads dir's manifest for prefix; a missing directory or
// manifest is os.ErrNotExist.
func ReadManifest(dir, prefix string) (*Manifest, error) {
	data, err := os.ReadFile(filepath.Join(dir, ManifestName(prefix)))
	if err != nil {
		return nil, err
	}
	return ParseManifest(data)
}

// WriteManifest puts m in place as dir's manifest for prefix: a temporary
// file, fsync, rename over the old one, fsync of the directory, so that a
// crash leaves the old manifest or the new one, whole.
func WriteManifest(dir, prefix string, m *Manifest) error {
	name := ManifestName(prefix)
	tmp := filepath.Join(dir, "temp-"+name)
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(m.Format())
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, filepath.Join(dir, name))
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	return SyncDir(dir)
}

// SyncDir makes dir's entries (a rename, a new file) durable.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// LastSeq is the highest sequence number m uses.
func (m *Manifest) LastSeq() int64 {
	var s int64
	if m.Base != nil {
		s = m.Base.Seq
	}
	for _, fi := range m.Incr {
		s = max(s, fi.Seq)
	}
	for _, fi := range m.History {
		s = max(s, fi.Seq)
	}
	return s
}

// ShardFiles returns the incremental files of the last set of shards
// shards, one per shard in shard order, when m ends with such a set: the
// files a corekv of shards shards appends to and replays in parallel.
func (m *Manifest) ShardFiles(shards int) ([]FileInfo, bool) {
	if len(m.Incr) < shards {
		return nil, false
	}
	set := m.Incr[len(m.Incr)-shards:]
	for i, fi := range set {
		if fi.Shards != shards || fi.Shard != i {
			return nil, false
		}
	}
	return set, true
}
