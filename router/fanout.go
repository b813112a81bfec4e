package router

import (
	"bytes"
	"encoding/hex"
	"math"
	"math/rand/v2"
	"strconv"

	"github.com/corekv/corekv/resp"
	"github.com/corekv/corekv/shardowner"
)

// Commands that plans send to shards, resolved once.
var (
	cmdDel     = LookupString("del")
	cmdExists  = LookupString("exists")
	cmdMSet    = LookupString("mset")
	cmdDump    = LookupString("corekv.dump")
	cmdTake    = LookupString("corekv.take")
	cmdRestore = LookupString("corekv.restore")
	cmdRandom  = LookupString("corekv.randomkey")
	cmdLock    = LookupString("corekv.lock")
	cmdUnlock  = LookupString("corekv.unlock")
)

var (
	wordNX       = []byte("nx")
	wordRename   = []byte("rename")
	wordRenameNX = []byte("renamenx")
	wordCopy     = []byte("copy")
	wordCopyNX   = []byte("copynx")
)

// plan is the state of one command split over shards: its own copy of the
// client's arguments, the shard of every key, the parts in flight, and the
// phase it is in. Commands that need two rounds (MSETNX, RENAME, COPY) move to
// the next phase when every part of the current one has replied.
type plan struct {
	cmd      *Command
	own      *shardowner.Shard // the home core's shard, in a script's gathered run
	db       int
	proto    int
	args     []byte
	argEnd   []int
	argv     [][]byte
	keyPos   []int // positions of the keys in argv
	keyShard []int // shard of each key, same order as keyPos
	parts    []*Slot
	pending  int
	phase    int
	copyDB   int    // COPY: destination database
	replace  bool   // COPY: REPLACE given
	failed   []byte // RENAME: the destination's error, answered once the source is back
	sub      [][]byte
	led      bool // a part that stands for the plan in the slow log was sent

	// A gathering plan's keys and values (gather.go) and its reply.
	gkeys   []gatherKey
	gbuf    []byte
	newBuf  []byte
	gevents [][]byte // the keys' events, class/event pairs in evBuf
	evBuf   []byte
	reply   []byte
	script  scriptPlan // when the command is a script (scriptplan.go)
}

// StartSplit runs cmd, whose keys live on more than one shard (or, for
// RouteAll commands, on every shard), as a plan whose combined reply fills s.
// Unless s is already a part of a transaction, the plan runs as one: it
// holds its keys (or, for RouteAll, the shards) on every shard it touches
// while it runs, so no client sees it half done.
func StartSplit(ex Exec, s *Slot, cmd *Command, db, proto int, argv [][]byte) {
	if cmd.RunAs != nil && !s.held {
		startScriptSplit(ex, s, cmd, db, proto, argv)
		return
	}
	if s.held || !AtomicSplit(cmd) || (cmd.Step == 2 && len(argv)%2 == 0) {
		startPlan(ex, s, cmd, db, proto, argv)
		return
	}
	if s.split == nil {
		s.split = new(splitTxn)
	}
	b := s.split
	n := ex.Shards()
	b.Begin(s.Client, proto, n, s)
	if cmd.Flags&FlagWrite != 0 {
		b.Writes()
	}
	b.cmd, b.db = cmd, db
	b.args.Set(argv)
	if cmd.Route == RouteAll {
		for sh := 0; sh < n; sh++ {
			b.LockShard(sh)
		}
	} else {
		b.keyPos = cmd.KeyIndexes(b.keyPos[:0], argv)
		for _, k := range b.keyPos {
			b.LockKey(ShardOf(argv[k], n), db, argv[k])
		}
		if to, ok := copyTarget(cmd, argv, ex.Databases()); ok && to != db {
			b.LockKey(ShardOf(argv[2], n), to, argv[2])
		}
	}
	if MultiRound(cmd) {
		b.RunEarly(true)
	} else {
		b.RunAtOnce(true)
	}
	b.Start(ex, b)
}

// AtomicSplit reports whether a split of cmd runs as a transaction. The
// slow log, RANDOMKEY and the statistics gain nothing from seeing every
// shard at one instant.
func AtomicSplit(cmd *Command) bool {
	switch cmd.Combine {
	case CombineSlowlog, CombineRandomKey, CombinePublish, CombineHome:
		return cmd.Route == RouteKey
	}
	return true
}

// copyTarget returns the database COPY's DB option names, if any.
func copyTarget(cmd *Command, argv [][]byte, databases int) (int, bool) {
	if cmd.Name != "copy" {
		return 0, false
	}
	for i := 3; i+1 < len(argv); i++ {
		if resp.EqualFold(argv[i], "db") {
			if n, err := shardowner.DBIndex(argv[i+1], databases); err == "" {
				return n, true
			}
		}
	}
	return 0, false
}

// splitTxn is the transaction of a split command: once its keys are held it
// runs the command's plan as a part and answers the plan's reply.
type splitTxn struct {
	Txn
	cmd    *Command
	db     int
	args   Args
	keyPos []int
	inner  *Slot
}

func (b *splitTxn) Run(ex Exec, t *Txn, touched bool) {
	b.inner = t.NewPart(ex)
	startPlan(ex, b.inner, b.cmd, b.db, t.proto, b.args.Argv())
	if !t.done && !MultiRound(b.cmd) {
		// One round: every part is sent.
		t.ReleaseLast(ex)
	}
}

func (b *splitTxn) PartDone(ex Exec, t *Txn, s *Slot) {
	b.inner = nil
	t.Finish(ex, s.Reply)
	ex.FreeSlot(s)
}

// startPlan runs cmd's plan on s without taking locks: s is a transaction's
// part, or the command needs none.
func startPlan(ex Exec, s *Slot, cmd *Command, db, proto int, argv [][]byte) {
	p := newPlan(ex, s, cmd, db, proto, argv)
	if cmd.Step == 2 && len(argv)%2 == 0 {
		// A key without a value: Redis answers the arity error.
		p.done(ex, s, errReply(resp.ErrWrongArgs(cmd.Name)))
		return
	}

	switch {
	case cmd.Split == SplitGather:
		p.gather(ex, s)
	case cmd.Route == RouteAll:
		part := cmd
		if cmd.Combine == CombineRandomKey {
			// Each shard answers its key count with its key.
			part = cmdRandom
			p.argv = append(p.argv[:0], cmdRandom.NameBytes())
		}
		p.begin()
		for sh := range ex.Shards() {
			if cmd.Combine == CombinePublish && !ex.HasSubscribers(sh, cmd.FirstKey != 0) {
				continue
			}
			p.send(ex, s, sh, part, p.db, p.argv)
		}
		p.partDone(ex, s)
	case cmd.Split == SplitMoveKey:
		if cmd.Name == "copy" && !p.copyOptions(ex, s) {
			return
		}
		p.moveStep(ex, s, nil)
	case cmd.Split == SplitMSETNX:
		p.perShard(ex, s, cmdExists, false)
	default:
		p.perShard(ex, s, cmd, cmd.Split == SplitPairsOK)
	}
}

// newPlan readies s's plan for cmd: its own copy of the arguments, the
// shard of every key, no part in flight.
func newPlan(ex Exec, s *Slot, cmd *Command, db, proto int, argv [][]byte) *plan {
	if s.mem == nil {
		s.mem = new(plan)
	}
	p := s.mem
	s.plan = p
	p.cmd, p.db, p.proto, p.phase, p.led = cmd, db, proto, 0, false
	p.script.extra.Reset()
	p.script.missing.Reset()
	p.script.retry, p.script.otherDB = false, false
	p.args, p.argEnd = p.args[:0], p.argEnd[:0]
	for _, a := range argv {
		p.args = append(p.args, a...)
		p.argEnd = append(p.argEnd, len(p.args))
	}
	p.argv = p.argv[:0]
	start := 0
	for _, end := range p.argEnd {
		p.argv = append(p.argv, p.args[start:end])
		start = end
	}
	n := ex.Shards()
	p.keyPos = cmd.KeyIndexes(p.keyPos[:0], argv)
	p.keyShard = p.keyShard[:0]
	for _, k := range p.keyPos {
		p.keyShard = append(p.keyShard, ShardOf(p.argv[k], n))
	}
	if cap(p.parts) < n {
		p.parts = make([]*Slot, n)
	}
	p.parts = p.parts[:n]
	clear(p.parts)
	return p
}

// MultiRound reports whether a split of cmd takes more than one round
// (check, then write; gather, then write back): within a transaction, what
// follows it must wait for it, or it could overtake its later rounds.
func MultiRound(cmd *Command) bool {
	return cmd.Split == SplitMSETNX || cmd.Split == SplitMoveKey || cmd.Split == SplitGather
}

// begin opens a round; the extra pending count keeps a part that completes
// synchronously (a local shard) from finishing the round before every part is
// sent.
func (p *plan) begin() { p.pending = 1 }

func (p *plan) send(ex Exec, s *Slot, shard int, cmd *Command, db int, argv [][]byte) {
	child := ex.NewSlot()
	child.parent = s
	child.Client = s.Client
	child.held = s.held
	child.seq = s.seq
	child.NoTouch, child.Track = s.NoTouch, s.Track
	// The first part of a one-round plan, running the client's own command,
	// is the one the slow log shows.
	child.lead = !p.led && cmd == p.cmd && !MultiRound(p.cmd)
	p.led = p.led || child.lead
	p.parts[shard] = child
	p.pending++
	ex.Submit(shard, cmd, db, p.proto, argv, child)
}

// perShard sends cmd to every shard that owns some of the keys, with those
// keys (and their values when pairs is set) in their original order.
func (p *plan) perShard(ex Exec, s *Slot, cmd *Command, pairs bool) {
	p.begin()
	name := cmd.NameBytes()
	for sh := range p.parts {
		p.parts[sh] = nil
		p.sub = append(p.sub[:0], name)
		for i, k := range p.keyPos {
			if p.keyShard[i] != sh {
				continue
			}
			p.sub = append(p.sub, p.argv[k])
			if pairs {
				p.sub = append(p.sub, p.argv[k+1])
			}
		}
		if len(p.sub) > 1 {
			p.send(ex, s, sh, cmd, p.db, p.sub)
		}
	}
	p.partDone(ex, s)
}

// partDone counts a finished part and, after the last one, combines.
func (p *plan) partDone(ex Exec, s *Slot) {
	p.pending--
	if p.pending > 0 {
		return
	}
	if p.cmd.Split == SplitGather {
		p.gatherStep(ex, s)
		return
	}
	if p.cmd.Split == SplitMoveKey {
		var r []byte
		for _, c := range p.parts {
			if c != nil {
				r = c.Reply
			}
		}
		p.moveStep(ex, s, r)
		return
	}
	if p.cmd.Split == SplitMSETNX && p.phase == 0 {
		if e := p.firstError(); e != nil {
			p.done(ex, s, e)
			return
		}
		if p.sumInts() > 0 {
			p.done(ex, s, []byte(":0\r\n"))
			return
		}
		p.release(ex)
		p.phase = 1
		p.perShard(ex, s, cmdMSet, true)
		return
	}
	p.combine(ex, s)
}

// combine builds the client's reply from the parts of the last round.
func (p *plan) combine(ex Exec, s *Slot) {
	out := s.Reply[:0]
	if e := p.firstError(); e != nil {
		p.done(ex, s, e)
		return
	}
	rule := p.cmd.Combine
	if p.cmd.Route == RouteKey {
		switch p.cmd.Split {
		case SplitSumInt:
			rule = CombineSumInt
		case SplitPairsOK:
			rule = CombineOK
		case SplitPerKey:
			out = p.interleave(out)
			s.Reply = out
			p.release(ex)
			finish(ex, s)
			return
		case SplitMSETNX:
			p.done(ex, s, []byte(":1\r\n"))
			return
		}
	}
	switch rule {
	case CombineSumInt, CombinePublish:
		out = append(out, ':')
		out = strconv.AppendInt(out, p.sumInts(), 10)
		out = append(out, '\r', '\n')
	case CombineOK:
		out = append(out, "+OK\r\n"...)
	case CombineConcatArray:
		total := 0
		for _, c := range p.parts {
			if c != nil {
				n, _ := arrayHeader(c.Reply)
				total += n
			}
		}
		w := resp.Writer{B: out, Proto: p.proto}
		w.Array(total)
		out = w.B
		for _, c := range p.parts {
			if c != nil {
				_, h := arrayHeader(c.Reply)
				out = append(out, c.Reply[h:]...)
			}
		}
	case CombineRandomKey:
		out = p.randomKey(out)
	case CombineSlowlog:
		out = p.slowlog(out, ex.Slowlog())
	case CombineHome, CombineCut:
		out = ex.HomeReply(out, p.cmd, p.proto, p.argv)
	case CombineDigest:
		out = p.digest(out)
	case CombineFirst:
		for _, c := range p.parts {
			if c != nil {
				out = append(out, c.Reply...)
				break
			}
		}
	}
	s.Reply = out
	p.release(ex)
	finish(ex, s)
}

// digest appends DEBUG DIGEST's or DIGEST-VALUE's reply: the XOR of the
// shards' digests (each part a bulk of 20-byte digests), in hex, one
// status for the dataset or an array of one per key.
func (p *plan) digest(out []byte) []byte {
	var sum []byte
	for _, c := range p.parts {
		if c == nil {
			continue
		}
		b := bulkBody(c.Reply)
		if sum == nil {
			sum = make([]byte, len(b))
		}
		for i := range min(len(b), len(sum)) {
			sum[i] ^= b[i]
		}
	}
	line := func(d []byte) {
		out = append(out, '+')
		out = hex.AppendEncode(out, d)
		out = append(out, '\r', '\n')
	}
	if len(p.argv) == 1 {
		line(sum)
		return out
	}
	w := resp.Writer{B: out, Proto: p.proto}
	w.Array(len(p.argv) - 1)
	out = w.B
	for i := 0; i+20 <= len(sum); i += 20 {
		line(sum[i : i+20])
	}
	return out
}

// slowlog appends SLOWLOG's reply: GET merges the shards' entries newest
// first (IDs grow in the order entries are logged on any shard) up to the
// count, LEN sums the shards' lengths, RESET and HELP answer as every shard
// does. Each shard keeps up to slowlog-max-len entries; the newest that many
// over all shards are the log, as in Redis.
func (p *plan) slowlog(out []byte, cfg *shardowner.SlowlogConfig) []byte {
	sub := p.argv[1]
	maxLen := int64(math.MaxInt64)
	if cfg != nil {
		maxLen = cfg.MaxLen.Load()
	}
	if resp.EqualFold(sub, "len") {
		out = append(out, ':')
		out = strconv.AppendInt(out, min(p.sumInts(), maxLen), 10)
		return append(out, '\r', '\n')
	}
	if !resp.EqualFold(sub, "get") {
		for _, c := range p.parts {
			if c != nil {
				return append(out, c.Reply...)
			}
		}
		return out
	}
	count, _ := shardowner.SlowlogCount(p.argv)
	type cursor struct {
		r    []byte
		left int
	}
	var curs [64]cursor
	cs := curs[:0]
	total := 0
	for _, c := range p.parts {
		if c != nil {
			n, h := arrayHeader(c.Reply)
			cs = append(cs, cursor{c.Reply[h:], n})
			total += n
		}
	}
	if count >= 0 {
		total = min(total, int(count))
	}
	total = int(min(int64(total), maxLen))
	w := resp.Writer{B: out, Proto: p.proto}
	w.Array(total)
	out = w.B
	for ; total > 0; total-- {
		best, bestID, bestLen := -1, int64(-1), 0
		for i := range cs {
			if cs[i].left == 0 {
				continue
			}
			if id, n := slowEntry(cs[i].r); id > bestID {
				best, bestID, bestLen = i, id, n
			}
		}
		out = append(out, cs[best].r[:bestLen]...)
		cs[best].r = cs[best].r[bestLen:]
		cs[best].left--
	}
	return out
}

// slowEntry reads the ID and the length of the slow log entry r starts
// with: [id, time, usec, [args...], addr, name].
func slowEntry(r []byte) (id int64, n int) {
	line := func(i int) int { return i + bytes.IndexByte(r[i:], '\n') + 1 }
	i := line(0)
	e := line(i)
	id, _ = resp.ParseInt(r[i+1 : e-2])
	i = line(line(e))
	k, h := arrayHeader(r[i:])
	i += h
	for j := 0; j < k+2; j++ {
		i += elemLen(r[i:])
	}
	return id, i
}

// randomKey appends RANDOMKEY's reply: the key of a shard chosen with a
// chance proportional to its key count, so that every key of the database is
// about as likely as any other, or nil when no shard has a key.
func (p *plan) randomKey(out []byte) []byte {
	var total uint64
	for _, c := range p.parts {
		n, _ := randomPart(c)
		total += n
	}
	if total == 0 {
		w := resp.Writer{B: out, Proto: p.proto}
		w.Null()
		return w.B
	}
	r := rand.Uint64N(total)
	for _, c := range p.parts {
		n, key := randomPart(c)
		if r < n {
			return append(out, key...)
		}
		r -= n
	}
	// Not reached: r < total, the sum of the counts.
	w := resp.Writer{B: out, Proto: p.proto}
	w.Null()
	return w.B
}

// randomPart reads a shard's corekv.randomkey reply: its key count and its
// key as a bulk reply. A shard without a live key counts 0.
func randomPart(c *Slot) (uint64, []byte) {
	if c == nil {
		return 0, nil
	}
	_, h := arrayHeader(c.Reply)
	r := c.Reply[h:]
	end := bytes.IndexByte(r, '\r')
	if h == 0 || len(r) == 0 || r[0] != ':' || end < 0 {
		return 0, nil
	}
	n, _ := resp.ParseInt(r[1:end])
	key := r[end+2:]
	if isNull(key) {
		return 0, nil
	}
	return uint64(max(n, 1)), key
}

// interleave puts MGET's per-shard replies back into the order of the keys.
func (p *plan) interleave(out []byte) []byte {
	w := resp.Writer{B: out, Proto: p.proto}
	w.Array(len(p.keyPos))
	out = w.B
	var offs [64]int
	off := offs[:0]
	for _, c := range p.parts {
		n := 0
		if c != nil {
			_, n = arrayHeader(c.Reply)
		}
		off = append(off, n)
	}
	for _, sh := range p.keyShard {
		r := p.parts[sh].Reply
		n := elemLen(r[off[sh]:])
		out = append(out, r[off[sh]:off[sh]+n]...)
		off[sh] += n
	}
	return out
}

// moveStep advances RENAME, RENAMENX and COPY between two shards. last is the
// reply of the previous step (nil before the first).
func (p *plan) moveStep(ex Exec, s *Slot, last []byte) {
	src, dst := p.argv[1], p.argv[2]
	srcShard, dstShard := p.keyShard[0], p.keyShard[1]
	name := p.cmd.Name
	step := p.phase
	p.phase++
	switch step {
	case 0: // read (RENAME: and remove) the source
		cmd := cmdDump
		if name == "rename" {
			cmd = cmdTake
		}
		p.begin()
		p.sub = append(p.sub[:0], cmd.NameBytes(), src)
		p.send(ex, s, srcShard, cmd, p.db, p.sub)
		p.partDone(ex, s)
	case 1: // write the destination
		if isErr(last) {
			p.done(ex, s, last)
			return
		}
		if isNull(last) {
			if name == "copy" {
				p.done(ex, s, []byte(":0\r\n"))
			} else {
				p.done(ex, s, errReply(resp.ErrNoSuchKey))
			}
			return
		}
		blob := bulkBody(last)
		// The modes that also publish the destination's event.
		mode, db := wordRename, p.db
		switch {
		case name == "renamenx":
			mode = wordRenameNX
		case name == "copy" && p.replace:
			mode = wordCopy
		case name == "copy":
			mode = wordCopyNX
		}
		if name == "copy" {
			db = p.copyDB
		}
		// blob lives in a part's slot, which is kept until send reuses
		// p.parts; copy it into sub's backing via args first.
		p.args = append(p.args, blob...)
		blob = p.args[len(p.args)-len(blob):]
		p.release(ex)
		p.begin()
		p.sub = append(p.sub[:0], cmdRestore.NameBytes(), dst, blob, mode)
		p.send(ex, s, dstShard, cmdRestore, db, p.sub)
		p.partDone(ex, s)
	case 2: // RENAMENX wrote the destination: remove the source
		if isErr(last) && name == "rename" {
			// The destination had no room, and the source is already
			// taken: put it back (unless written since), then answer.
			p.failed = append(p.failed[:0], last...)
			p.release(ex)
			p.begin()
			p.sub[1], p.sub[3] = src, wordNX
			p.send(ex, s, srcShard, cmdRestore, p.db, p.sub)
			p.partDone(ex, s)
			return
		}
		if isErr(last) {
			p.done(ex, s, last)
			return
		}
		switch name {
		case "rename":
			p.done(ex, s, []byte("+OK\r\n"))
		case "copy":
			p.done(ex, s, last)
		default:
			if string(last) == ":0\r\n" {
				p.done(ex, s, last)
				return
			}
			// Taken rather than deleted: the source's event is
			// rename_from.
			p.release(ex)
			p.begin()
			p.sub = append(p.sub[:0], cmdTake.NameBytes(), src)
			p.send(ex, s, srcShard, cmdTake, p.db, p.sub)
			p.partDone(ex, s)
		}
	default:
		if name == "rename" {
			p.done(ex, s, p.failed)
			return
		}
		p.done(ex, s, []byte(":1\r\n"))
	}
}

// copyOptions parses COPY's DB and REPLACE options; on a bad option it
// answers the error and reports false.
func (p *plan) copyOptions(ex Exec, s *Slot) bool {
	p.copyDB, p.replace = p.db, false
	for i := 3; i < len(p.argv); i++ {
		a := p.argv[i]
		switch {
		case resp.EqualFold(a, "replace"):
			p.replace = true
		case resp.EqualFold(a, "db") && i+1 < len(p.argv):
			n, err := shardowner.DBIndex(p.argv[i+1], ex.Databases())
			if err != "" {
				p.done(ex, s, errReply(err))
				return false
			}
			p.copyDB = n
			i++
		default:
			p.done(ex, s, errReply(resp.ErrSyntax))
			return false
		}
	}
	return true
}

// done answers reply (copied) and ends the plan.
func (p *plan) done(ex Exec, s *Slot, reply []byte) {
	s.Reply = append(s.Reply[:0], reply...)
	p.release(ex)
	finish(ex, s)
}

// release recycles the part slots of the last round.
func (p *plan) release(ex Exec) {
	for i, c := range p.parts {
		if c != nil {
			ex.FreeSlot(c)
			p.parts[i] = nil
		}
	}
}

func (p *plan) firstError() []byte {
	for _, c := range p.parts {
		if c != nil && isErr(c.Reply) {
			return c.Reply
		}
	}
	return nil
}

func (p *plan) sumInts() int64 {
	var sum int64
	for _, c := range p.parts {
		if c != nil && len(c.Reply) > 3 && c.Reply[0] == ':' {
			n, _ := resp.ParseInt(c.Reply[1 : len(c.Reply)-2])
			sum += n
		}
	}
	return sum
}

func errReply(e resp.Error) []byte {
	w := resp.Writer{}
	w.Err(e)
	return w.B
}

func isErr(r []byte) bool { return len(r) > 0 && r[0] == '-' }

func isNull(r []byte) bool {
	return string(r) == "$-1\r\n" || string(r) == "_\r\n" || string(r) == "*-1\r\n"
}

// arrayHeader returns the element count of an array reply and the length of
// its header line.
func arrayHeader(r []byte) (n, hdr int) {
	if len(r) == 0 || (r[0] != '*' && r[0] != '~') {
		return 0, 0
	}
	i := 1
	for i < len(r) && r[i] != '\r' {
		n = n*10 + int(r[i]-'0')
		i++
	}
	return n, i + 2
}

// bulkBody returns the payload of a bulk string reply.
func bulkBody(r []byte) []byte {
	i := 1
	n := 0
	for i < len(r) && r[i] != '\r' {
		n = n*10 + int(r[i]-'0')
		i++
	}
	return r[i+2 : i+2+n]
}

// elemLen returns the length of the first element of r, which is a bulk
// string or a null (the elements of MGET's reply).
func elemLen(r []byte) int {
	if r[0] == '_' {
		return 3
	}
	i := 1
	n := 0
	neg := false
	for i < len(r) && r[i] != '\r' {
		if r[i] == '-' {
			neg = true
		} else {
			n = n*10 + int(r[i]-'0')
		}
		i++
	}
	if neg {
		return i + 2
	}
	return i + 2 + n + 2
}

var cmdMSET = LookupString("mset")

// OwnPart is the part that shard, of n, runs of cmd over keys of several
// shards, as a split would send it: for a replay that applies one stream
// on every shard for the keys each owns (an append-only file of another
// layout). DEL, UNLINK and the like keep shard's keys, MSET its pairs;
// MSETNX, which a stream holds only when it set every key, becomes MSET.
// ok is false for a command whose part a shard cannot run alone (RENAME,
// a gathered STORE). The part is built in dst's storage.
func OwnPart(dst [][]byte, cmd *Command, argv [][]byte, shard, n int) (part [][]byte, run *Command, ok bool) {
	pairs := false
	run = cmd
	switch cmd.Split {
	case SplitSumInt:
	case SplitPairsOK:
		pairs = true
	case SplitMSETNX:
		pairs, run = true, cmdMSET
	default:
		return nil, nil, false
	}
	part = append(dst[:0], run.NameBytes())
	var buf [16]int
	for _, k := range cmd.KeyIndexes(buf[:0], argv) {
		if ShardOf(argv[k], n) != shard {
			continue
		}
		part = append(part, argv[k])
		if pairs {
			part = append(part, argv[k+1])
		}
	}
	return part, run, true
}
