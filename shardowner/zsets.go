package shardowner

import (
	"bytes"
	"math"
	"strconv"

	"github.com/valyala/bytebufferpool"

	"github.com/corekv/corekv/resp"
	"github.com/corekv/corekv/shardowner/kvtable"
)

var (
	errZAddNXXX     = resp.Error("ERR XX and NX options at the same time are not compatible")
	errZAddGTLTNX   = resp.Error("ERR GT, LT, and/or NX options at the same time are not compatible")
	errZAddIncrPair = resp.Error("ERR INCR option supports a single increment-element pair")
	errScoreNaN     = resp.Error("ERR resulting score is not a number (NaN)")
	errMinMaxFloat  = resp.Error("ERR min or max is not a float")
	errMinMaxLex    = resp.Error("ERR min or max not valid string range item")
	errLimitOnly    = resp.Error("ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX")
	errLexScores    = resp.Error("ERR syntax error, WITHSCORES not supported in combination with BYLEX")
)

// writeScore replies a score as Redis 7.0 does: %.17g, a bulk string in
// RESP2 and a double in RESP3.
func writeScore(c *Ctx, s float64) {
	var tmp [32]byte
	b := appendScoreText(tmp[:0], s)
	if c.W.RESP3() {
		c.W.B = append(c.W.B, ',')
		c.W.B = append(c.W.B, b...)
		c.W.B = append(c.W.B, '\r', '\n')
		return
	}
	c.W.Bulk(b)
}

// ZAdd: ZADD key [NX|XX] [GT|LT] [CH] [INCR] score member [score member ...].
func ZAdd(c *Ctx, argv [][]byte) {
	var nx, xx, gt, lt, ch, incr bool
	i := 2
	for ; i < len(argv); i++ {
		a := argv[i]
		switch {
		case resp.EqualFold(a, "nx"):
			nx = true
		case resp.EqualFold(a, "xx"):
			xx = true
		case resp.EqualFold(a, "gt"):
			gt = true
		case resp.EqualFold(a, "lt"):
			lt = true
		case resp.EqualFold(a, "ch"):
			ch = true
		case resp.EqualFold(a, "incr"):
			incr = true
		default:
			goto flagsDone
		}
	}
flagsDone:
	pairs := argv[i:]
	switch {
	case len(pairs) == 0 || len(pairs)%2 != 0:
		c.W.Err(resp.ErrSyntax)
		return
	case nx && xx:
		c.W.Err(errZAddNXXX)
		return
	case (gt && nx) || (lt && nx) || (gt && lt):
		c.W.Err(errZAddGTLTNX)
		return
	case incr && len(pairs) > 2:
		c.W.Err(errZAddIncrPair)
		return
	}
	for j := 0; j < len(pairs); j += 2 {
		if _, ok := resp.ParseFloat(pairs[j]); !ok {
			c.W.Err(resp.ErrNotFloat)
			return
		}
	}
	zadd(c, argv[1], pairs, nx, xx, gt, lt, ch, incr)
}

// ZIncrBy: ZINCRBY key increment member.
func ZIncrBy(c *Ctx, argv [][]byte) {
	if isZAddFlag(argv[2]) {
		// Redis reads ZINCRBY's arguments as ZADD's: a flag here leaves one
		// argument for a score and member pair.
		c.W.Err(resp.ErrSyntax)
		return
	}
	if _, ok := resp.ParseFloat(argv[2]); !ok {
		c.W.Err(resp.ErrNotFloat)
		return
	}
	zadd(c, argv[1], argv[2:4], false, false, false, false, false, true)
}

func isZAddFlag(a []byte) bool {
	for _, f := range [...]string{"nx", "xx", "gt", "lt", "ch", "incr"} {
		if resp.EqualFold(a, f) {
			return true
		}
	}
	return false
}

func zadd(c *Ctx, key []byte, pairs [][]byte, nx, xx, gt, lt, ch, incr bool) {
	v, found, ok := getKind(c, key, KindZSet)
	if !ok {
		return
	}
	if !found && xx {
		if incr {
			c.W.Null()
		} else {
			c.W.Int(0)
		}
		return
	}
	var w zwriter
	w.init(c, zviewOf(v))
	defer w.release()
	added, updated, processed := 0, 0, 0
	var score float64
	for j := 0; j < len(pairs); j += 2 {
		s, _ := resp.ParseFloat(pairs[j])
		m := pairs[j+1]
		cur, exists := w.view().score(m)
		switch {
		case exists && nx, !exists && xx:
			continue
		case exists:
			if incr {
				s += cur
				if math.IsNaN(s) {
					c.W.Err(errScoreNaN)
					return
				}
			}
			if (lt && s >= cur) || (gt && s <= cur) {
				continue
			}
			processed++
			score = s
			if s != cur {
				w.rescore(m, cur, s)
				updated++
			}
		default:
			processed++
			score = s
			w.insert(m, s)
			added++
		}
	}
	if added+updated > 0 {
		if !w.store(key, v.ExpireAt) {
			return
		}
		event := "zadd"
		if incr {
			event = "zincr"
		}
		c.Notify(NotifyZset, event, key)
	}
	switch {
	case incr && processed > 0:
		writeScore(c, score)
	case incr:
		c.W.Null()
	case ch:
		c.W.Int(int64(added + updated))
	default:
		c.W.Int(int64(added))
	}
}

// ZRem: ZREM key member [member ...]. The key goes with its last member.
func ZRem(c *Ctx, argv [][]byte) {
	v, found, ok := getKind(c, argv[1], KindZSet)
	if !ok {
		return
	}
	if !found {
		c.W.Int(0)
		return
	}
	var w zwriter
	w.init(c, zviewOf(v))
	defer w.release()
	removed := 0
	for _, m := range argv[2:] {
		if s, ok := w.view().score(m); ok {
			w.remove(m, s)
			removed++
		}
	}
	if removed == 0 {
		c.W.Int(0)
		return
	}
	if w.store(argv[1], v.ExpireAt) {
		c.NotifyRemoval(NotifyZset, "zrem", argv[1])
		c.W.Int(int64(removed))
	}
}

// ZCard: ZCARD key.
func ZCard(c *Ctx, argv [][]byte) { replyLen(c, argv[1], KindZSet, aggLen) }

// ZScore: ZSCORE key member.
func ZScore(c *Ctx, argv [][]byte) {
	v, found, ok := readKind(c, argv[1], KindZSet)
	if !ok {
		return
	}
	if found {
		if s, ok := zviewOf(v).score(argv[2]); ok {
			writeScore(c, s)
			return
		}
	}
	c.W.Null()
}

// ZMScore: ZMSCORE key member [member ...].
func ZMScore(c *Ctx, argv [][]byte) {
	v, found, ok := readKind(c, argv[1], KindZSet)
	if !ok {
		return
	}
	z := zviewOf(v)
	c.W.Array(len(argv) - 2)
	for _, m := range argv[2:] {
		if !found {
			c.W.Null()
			continue
		}
		if s, ok := z.score(m); ok {
			writeScore(c, s)
		} else {
			c.W.Null()
		}
	}
}

// ZRank: ZRANK key member.
func ZRank(c *Ctx, argv [][]byte) { zrank(c, argv, false) }

// ZRevRank: ZREVRANK key member.
func ZRevRank(c *Ctx, argv [][]byte) { zrank(c, argv, true) }

func zrank(c *Ctx, argv [][]byte, rev bool) {
	v, found, ok := readKind(c, argv[1], KindZSet)
	if !ok {
		return
	}
	if !found {
		c.W.Null()
		return
	}
	z := zviewOf(v)
	s, ok := z.score(argv[2])
	if !ok {
		c.W.Null()
		return
	}
	r := z.rank(argv[2], s)
	if rev {
		r = z.len() - 1 - r
	}
	c.W.Int(int64(r))
}

// scoreBound is one end of a score range: "(" makes it exclusive.
type scoreBound struct {
	s    float64
	excl bool
}

func parseScoreBound(b []byte) (scoreBound, bool) {
	var r scoreBound
	if len(b) > 0 && b[0] == '(' {
		r.excl = true
		b = b[1:]
	}
	// Redis reads a range's end with strtod alone: a NUL byte ends the
	// text, no text at all reads as 0, and white space before a number is
	// skipped.
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	if len(b) == 0 {
		return r, true
	}
	if t := bytes.TrimLeft(b, " \t\n\v\f\r"); len(t) > 0 {
		b = t
	}
	s, ok := resp.ParseFloat(b)
	if !ok && len(b) > 0 && !isNaNText(b) {
		// A range's ends, unlike scores, may be out of range: strtod's
		// ±inf or 0 stands.
		f, err := strconv.ParseFloat(string(b), 64)
		if ne, isNum := err.(*strconv.NumError); err == nil || (isNum && ne.Err == strconv.ErrRange) {
			s, ok = f, true
		}
	}
	r.s = s
	return r, ok
}

func isNaNText(b []byte) bool {
	if len(b) > 0 && (b[0] == '+' || b[0] == '-') {
		b = b[1:]
	}
	return resp.EqualFold(b, "nan")
}

// geMin reports whether s is at or past min; leMax whether s is at or
// before max.
func (min scoreBound) ge(s float64) bool {
	if min.excl {
		return s > min.s
	}
	return s >= min.s
}

func (max scoreBound) le(s float64) bool {
	if max.excl {
		return s < max.s
	}
	return s <= max.s
}

// lexBound is one end of a lex range: "-" and "+" are the ends of all
// strings, "[" inclusive, "(" exclusive.
type lexBound struct {
	b         []byte
	excl      bool
	neg, plus bool
}

func parseLexBound(b []byte) (lexBound, bool) {
	switch {
	case len(b) == 1 && b[0] == '-':
		return lexBound{neg: true}, true
	case len(b) == 1 && b[0] == '+':
		return lexBound{plus: true}, true
	case len(b) > 0 && b[0] == '[':
		return lexBound{b: b[1:]}, true
	case len(b) > 0 && b[0] == '(':
		return lexBound{b: b[1:], excl: true}, true
	}
	return lexBound{}, false
}

func (min lexBound) ge(m []byte) bool {
	switch {
	case min.neg:
		return true
	case min.plus:
		return false
	case min.excl:
		return bytes.Compare(m, min.b) > 0
	}
	return bytes.Compare(m, min.b) >= 0
}

func (max lexBound) le(m []byte) bool {
	switch {
	case max.neg:
		return false
	case max.plus:
		return true
	case max.excl:
		return bytes.Compare(m, max.b) < 0
	}
	return bytes.Compare(m, max.b) <= 0
}

// zspan is a range of ranks [from, to), found by a rank, score or lex
// range.
type zspan struct{ from, to int }

func scoreSpan(z zview, min, max scoreBound) zspan {
	_, _, from := z.seek(func(_ []byte, s float64) bool { return min.ge(s) })
	_, _, to := z.seek(func(_ []byte, s float64) bool { return !max.le(s) })
	return zspan{from, max2(from, to)}
}

// lexSpan finds a lex range as Redis does, which assumes that all scores
// are equal: forward, from the first member at or past min while members
// stay at or before max; rev, from the last member at or before max while
// members stay at or past min. A listpack is walked in order; a big sorted
// set is searched as if its members were sorted.
func lexSpan(z zview, min, max lexBound, rev bool) zspan {
	n := z.len()
	if n == 0 || lexEmpty(min, max) {
		return zspan{}
	}
	first, _ := zAtRank(z, 0)
	last, _ := zAtRank(z, n-1)
	if !min.ge(last) || !max.le(first) {
		return zspan{}
	}
	if z.big != nil {
		_, _, from := z.seek(func(m []byte, _ float64) bool { return min.ge(m) })
		_, _, to := z.seek(func(m []byte, _ float64) bool { return !max.le(m) })
		return zspan{from, max2(from, to)}
	}
	var it ziter
	defer it.release()
	if !rev {
		it.start(z, 0)
		from := 0
		for m, _ := it.at(); !min.ge(m); m, _ = it.at() {
			if from++; !it.next() {
				return zspan{}
			}
		}
		to := from
		for m, _ := it.at(); max.le(m); m, _ = it.at() {
			if to++; !it.next() {
				break
			}
		}
		return zspan{from, to}
	}
	it.start(z, n-1)
	to := n
	for m, _ := it.at(); !max.le(m); m, _ = it.at() {
		if to--; !it.prev() {
			return zspan{}
		}
	}
	from := to
	for m, _ := it.at(); min.ge(m); m, _ = it.at() {
		if from--; !it.prev() {
			break
		}
	}
	return zspan{from, to}
}

// lexEmpty reports whether no string can be in the range, by its ends
// alone.
func lexEmpty(min, max lexBound) bool {
	var cmp int
	switch {
	case min.neg && max.neg, min.plus && max.plus:
		cmp = 0
	case min.neg, max.plus:
		cmp = -1
	case min.plus, max.neg:
		cmp = 1
	default:
		cmp = bytes.Compare(min.b, max.b)
	}
	return cmp > 0 || (cmp == 0 && (min.excl || max.excl))
}

func max2(a, b int) int {
	if a > b {
		return a
	}
	return b
}

// rankSpan clips start and stop (inclusive, negative from the end) to z's
// ranks, as Redis does.
func rankSpan(n int, start, stop int64) zspan {
	if start < 0 {
		start += int64(n)
	}
	if stop < 0 {
		stop += int64(n)
	}
	start = max(start, 0)
	if start > stop || start >= int64(n) {
		return zspan{}
	}
	stop = min(stop, int64(n)-1)
	return zspan{int(start), int(stop) + 1}
}

// ZCount: ZCOUNT key min max.
func ZCount(c *Ctx, argv [][]byte) { zcount(c, argv, byScore) }

// ZLexCount: ZLEXCOUNT key min max.
func ZLexCount(c *Ctx, argv [][]byte) { zcount(c, argv, byLex) }

func zcount(c *Ctx, argv [][]byte, by zrangeBy) {
	if _, sp, ok := zkeySpan(c, argv, by, readKind); ok {
		c.W.Int(int64(sp.to - sp.from))
	}
}

// zkeySpan finds the span of the range argv[2..3] of sorted set argv[1],
// which lookup (readKind or getKind) fetches; ok is false once a reply is
// written: an error, or 0 for a missing key, as ZCOUNT and ZREMRANGEBY*
// answer.
func zkeySpan(c *Ctx, argv [][]byte, by zrangeBy, lookup func(*Ctx, []byte, Kind) (Value, bool, bool)) (Value, zspan, bool) {
	q := zrangeReq{lo: argv[2], hi: argv[3], count: -1, by: by}
	if !q.checkEnds(c) {
		return Value{}, zspan{}, false
	}
	v, found, ok := lookup(c, argv[1], KindZSet)
	if !ok {
		return Value{}, zspan{}, false
	}
	if !found {
		c.W.Int(0)
		return Value{}, zspan{}, false
	}
	sp, _ := q.span(c, zviewOf(v))
	return v, sp, true
}

// zrangeBy says how a range's ends are read.
type zrangeBy uint8

const (
	byRank zrangeBy = iota
	byScore
	byLex
)

// zrangeReq is a parsed ZRANGE family request.
type zrangeReq struct {
	by         zrangeBy
	rev        bool
	withScores bool
	offset     int64
	count      int64 // -1: all
	limit      bool
	lo, hi     []byte // the range's ends as given (for REV: max, min)
	fixed      bool   // by and rev come from the command's name, not options
}

// parseZRangeOpts reads ZRANGE's options after its ends; store is for
// ZRANGESTORE, which takes no WITHSCORES.
func parseZRangeOpts(c *Ctx, q *zrangeReq, opts [][]byte, store bool) bool {
	byGiven := false
	for i := 0; i < len(opts); i++ {
		a := opts[i]
		switch {
		case !store && resp.EqualFold(a, "withscores"):
			q.withScores = true
		case resp.EqualFold(a, "limit") && i+2 < len(opts):
			off, ok1 := resp.ParseInt(opts[i+1])
			cnt, ok2 := resp.ParseInt(opts[i+2])
			if !ok1 || !ok2 {
				c.W.Err(resp.ErrNotInteger)
				return false
			}
			q.offset, q.count, q.limit = off, cnt, true
			i += 2
		case !q.fixed && !byGiven && resp.EqualFold(a, "byscore"):
			q.by, byGiven = byScore, true
		case !q.fixed && !byGiven && resp.EqualFold(a, "bylex"):
			q.by, byGiven = byLex, true
		case !q.fixed && !q.rev && resp.EqualFold(a, "rev"):
			q.rev = true
		default:
			c.W.Err(resp.ErrSyntax)
			return false
		}
	}
	switch {
	case q.count != -1 && q.by == byRank:
		// A count of -1 is no limit, so an offset alone passes (and is
		// ignored), as in Redis.
		c.W.Err(errLimitOnly)
		return false
	case q.withScores && q.by == byLex:
		c.W.Err(errLexScores)
		return false
	}
	return true
}

// span resolves q against z. ok is false, with the error written, when
// the range's ends do not parse.
func (q *zrangeReq) span(c *Ctx, z zview) (sp zspan, ok bool) {
	lo, hi := q.lo, q.hi
	if q.rev && q.by != byRank {
		lo, hi = hi, lo
	}
	switch q.by {
	case byRank:
		start, ok1 := resp.ParseInt(lo)
		stop, ok2 := resp.ParseInt(hi)
		if !ok1 || !ok2 {
			c.W.Err(resp.ErrNotInteger)
			return sp, false
		}
		n := z.len()
		if q.rev {
			// ranks from the end
			sp = rankSpan(n, start, stop)
			return zspan{n - sp.to, n - sp.from}, true
		}
		return rankSpan(n, start, stop), true
	case byScore:
		min, ok1 := parseScoreBound(lo)
		max, ok2 := parseScoreBound(hi)
		if !ok1 || !ok2 {
			c.W.Err(errMinMaxFloat)
			return sp, false
		}
		sp = scoreSpan(z, min, max)
	default:
		min, ok1 := parseLexBound(lo)
		max, ok2 := parseLexBound(hi)
		if !ok1 || !ok2 {
			c.W.Err(errMinMaxLex)
			return sp, false
		}
		sp = lexSpan(z, min, max, q.rev)
	}
	if q.limit {
		// LIMIT counts from the range's start in its direction.
		n := int64(sp.to - sp.from)
		if q.offset < 0 || q.offset >= n {
			return zspan{}, true
		}
		take := n - q.offset
		if q.count >= 0 && q.count < take {
			take = q.count
		}
		if q.rev {
			return zspan{sp.to - int(q.offset+take), sp.to - int(q.offset)}, true
		}
		return zspan{sp.from + int(q.offset), sp.from + int(q.offset+take)}, true
	}
	return sp, true
}

// checkEnds parses the range's ends without a sorted set, so that a
// missing key still answers their errors, as Redis does.
func (q *zrangeReq) checkEnds(c *Ctx) bool {
	_, ok := q.span(c, zview{})
	return ok
}

// ZRange: ZRANGE key start stop [BYSCORE|BYLEX] [REV] [LIMIT offset count]
// [WITHSCORES].
func ZRange(c *Ctx, argv [][]byte) {
	q := zrangeReq{lo: argv[2], hi: argv[3], count: -1}
	if parseZRangeOpts(c, &q, argv[4:], false) {
		zrange(c, argv[1], &q)
	}
}

// ZRevRange: ZREVRANGE key start stop [WITHSCORES].
func ZRevRange(c *Ctx, argv [][]byte) { zrangeOld(c, argv, byRank, true) }

// ZRangeByScore: ZRANGEBYSCORE key min max [WITHSCORES] [LIMIT offset count].
func ZRangeByScore(c *Ctx, argv [][]byte) { zrangeOld(c, argv, byScore, false) }

// ZRevRangeByScore: ZREVRANGEBYSCORE key max min [WITHSCORES] [LIMIT offset count].
func ZRevRangeByScore(c *Ctx, argv [][]byte) { zrangeOld(c, argv, byScore, true) }

// ZRangeByLex: ZRANGEBYLEX key min max [LIMIT offset count].
func ZRangeByLex(c *Ctx, argv [][]byte) { zrangeOld(c, argv, byLex, false) }

// ZRevRangeByLex: ZREVRANGEBYLEX key max min [LIMIT offset count].
func ZRevRangeByLex(c *Ctx, argv [][]byte) { zrangeOld(c, argv, byLex, true) }

// zrangeOld runs the commands ZRANGE's options replaced: their names say
// how the range is read and in which direction.
func zrangeOld(c *Ctx, argv [][]byte, by zrangeBy, rev bool) {
	q := zrangeReq{lo: argv[2], hi: argv[3], count: -1, by: by, rev: rev, fixed: true}
	if parseZRangeOpts(c, &q, argv[4:], false) {
		zrange(c, argv[1], &q)
	}
}

func zrange(c *Ctx, key []byte, q *zrangeReq) {
	if !q.checkEnds(c) {
		return
	}
	v, found, ok := readKind(c, key, KindZSet)
	if !ok {
		return
	}
	if !found {
		c.W.Array(0)
		return
	}
	z := zviewOf(v)
	sp, _ := q.span(c, z)
	writeSpan(c, z, sp, q.rev, q.withScores)
}

// writeSpan replies the elements of span sp, from its end when rev: pairs
// in RESP3 with scores, a flat array in RESP2.
func writeSpan(c *Ctx, z zview, sp zspan, rev, withScores bool) {
	writeElems(c, z, sp, rev, withScores, withScores && c.W.RESP3())
}

// writeElems is writeSpan with the choice of pairs made by the caller.
func writeElems(c *Ctx, z zview, sp zspan, rev, withScores, pairs bool) {
	n := sp.to - sp.from
	writeElemsHeader(c, n, withScores, pairs)
	if n == 0 {
		return
	}
	var it ziter
	if rev {
		it.start(z, sp.to-1)
	} else {
		it.start(z, sp.from)
	}
	defer it.release()
	for k := 0; k < n; k++ {
		if k > 0 {
			if rev {
				it.prev()
			} else {
				it.next()
			}
		}
		m, s := it.at()
		if withScores {
			writeScored(c, m, s, pairs)
		} else {
			c.W.Bulk(m)
		}
	}
}

// writeElemsHeader starts a reply of n elements: a flat array of members and
// scores when withScores without pairs.
func writeElemsHeader(c *Ctx, n int, withScores, pairs bool) {
	if withScores && !pairs {
		n *= 2
	}
	c.W.Array(n)
}

// writeScored replies member m and its score s, as a pair when pairs.
func writeScored(c *Ctx, m []byte, s float64, pairs bool) {
	if pairs {
		c.W.Array(2)
	}
	c.W.Bulk(m)
	writeScore(c, s)
}

// ZPopMin: ZPOPMIN key [count].
func ZPopMin(c *Ctx, argv [][]byte) { zpop(c, argv, false) }

// ZPopMax: ZPOPMAX key [count].
func ZPopMax(c *Ctx, argv [][]byte) { zpop(c, argv, true) }

func zpop(c *Ctx, argv [][]byte, max bool) {
	if len(argv) > 3 {
		c.W.Err(resp.ErrSyntax)
		return
	}
	count, withCount := int64(1), len(argv) == 3
	if withCount {
		n, ok := resp.ParseInt(argv[2])
		if !ok || n < 0 {
			c.W.Err(resp.ErrNotPositive)
			return
		}
		count = n
	}
	v, found, ok := getKind(c, argv[1], KindZSet)
	if !ok {
		return
	}
	if !found || count == 0 {
		c.W.Array(0)
		return
	}
	z := zviewOf(v)
	n := int(min(count, int64(z.len())))
	// RESP3 pairs only for an explicit count, as Redis does.
	pairs := withCount && c.W.RESP3()
	if z.big != nil && n < z.len() {
		writeElemsHeader(c, n, true, pairs)
		zremEnd(c, z.big, n, max, pairs)
		c.Table().Modified(argv[1]) // changed in place, where the table cannot see
	} else {
		sp := zspan{0, n}
		if max {
			sp = zspan{z.len() - n, z.len()}
		}
		writeElems(c, z, sp, max, true, pairs)
		zremSpan(c, argv[1], v, sp)
	}
	c.NotifyRemoval(NotifyZset, zpopEvent(max), argv[1])
}

// zpopEvent is the event of a pop from the high end (max) or the low one.
func zpopEvent(max bool) string {
	if max {
		return "zpopmax"
	}
	return "zpopmin"
}

// zremSpan removes the elements of span sp from sorted set v under key.
// Their members are copied out first, since each removal moves pages.
func zremSpan(c *Ctx, key []byte, v Value, sp zspan) int {
	n := sp.to - sp.from
	if n <= 0 {
		return 0
	}
	z := zviewOf(v)
	if n == z.len() {
		c.Table().Delete(key)
		return n
	}
	if z.big != nil && (sp.from == 0 || sp.to == z.len()) {
		zremEnd(nil, z.big, n, sp.from > 0, false)
		c.Table().Modified(key) // changed in place, where the table cannot see
		return n
	}
	buf := bytebufferpool.Get()
	defer bytebufferpool.Put(buf)
	var it ziter
	it.start(z, sp.from)
	for k := 0; k < n; k++ {
		if k > 0 {
			it.next()
		}
		m, s := it.at()
		buf.B = appendZElem(buf.B, m, s)
	}
	it.release()
	var w zwriter
	w.init(c, z)
	defer w.release()
	for off := 0; off < len(buf.B); {
		var m []byte
		var s float64
		m, s, off = zAt(buf.B, off)
		w.remove(m, s)
	}
	w.store(key, v.ExpireAt)
	return n
}

// ZRemRangeByRank: ZREMRANGEBYRANK key start stop.
func ZRemRangeByRank(c *Ctx, argv [][]byte) { zremRange(c, argv, byRank) }

// ZRemRangeByScore: ZREMRANGEBYSCORE key min max.
func ZRemRangeByScore(c *Ctx, argv [][]byte) { zremRange(c, argv, byScore) }

// ZRemRangeByLex: ZREMRANGEBYLEX key min max.
func ZRemRangeByLex(c *Ctx, argv [][]byte) { zremRange(c, argv, byLex) }

func zremRange(c *Ctx, argv [][]byte, by zrangeBy) {
	v, sp, ok := zkeySpan(c, argv, by, getKind)
	if !ok {
		return
	}
	n := zremSpan(c, argv[1], v, sp)
	if n > 0 {
		c.NotifyRemoval(NotifyZset, zremRangeEvents[by], argv[1])
	}
	c.W.Int(int64(n))
}

// zremRangeEvents are the events of ZREMRANGEBY*, by how the range is read.
var zremRangeEvents = [...]string{byRank: "zremrangebyrank", byScore: "zremrangebyscore", byLex: "zremrangebylex"}

// appendScoreText appends a score as Redis 7.0 writes it in range and pop
// replies and in ZSCAN's: %.17g, and inf, -inf.
func appendScoreText(dst []byte, s float64) []byte {
	switch {
	case math.IsInf(s, 1):
		return append(dst, "inf"...)
	case math.IsInf(s, -1):
		return append(dst, "-inf"...)
	case s == math.Trunc(s) && math.Abs(s) < 1<<53 && (s != 0 || !math.Signbit(s)):
		// An integer of at most 16 digits: %.17g writes it plainly, and
		// most scores are such integers.
		return strconv.AppendInt(dst, int64(s), 10)
	}
	return strconv.AppendFloat(dst, s, 'g', 17, 64)
}

// ZRangeStore: ZRANGESTORE dst src min max [BYSCORE|BYLEX] [REV] [LIMIT
// offset count]. Replies the number of elements stored.
func ZRangeStore(c *Ctx, argv [][]byte) {
	q := zrangeReq{lo: argv[3], hi: argv[4], count: -1}
	if !parseZRangeOpts(c, &q, argv[5:], true) || !q.checkEnds(c) {
		return
	}
	v, found, ok := readKind(c, argv[2], KindZSet)
	if !ok {
		return
	}
	var sp zspan
	if found {
		sp, _ = q.span(c, zviewOf(v))
	}
	buf := bytebufferpool.Get()
	defer bytebufferpool.Put(buf)
	var room [kvtable.PackedHeadRoom]byte
	buf.B = append(buf.B[:0], room[:]...)
	n := sp.to - sp.from
	if n > 0 {
		z := zviewOf(v)
		var it ziter
		it.start(z, sp.from)
		for k := 0; k < n; k++ {
			if k > 0 {
				it.next()
			}
			m, s := it.at()
			buf.B = appendZElem(buf.B, m, s)
		}
		it.release()
	}
	if storeZSet(c, argv[1], buf.B, n, "zrangestore") {
		c.W.Int(int64(n))
	}
}

// storeZSet stores the n pairs in buf, after PackedHeadRoom bytes of room
// and in order, as a new sorted set under key in the encoding their size
// calls for, and publishes event; none deletes key (Redis's del event). It
// answers errFull and returns false when the table has no room.
func storeZSet(c *Ctx, key, buf []byte, n int, event string) bool {
	t := c.Table()
	if n == 0 {
		if t.Delete(key) {
			t.Modified(key)
			c.Notify(NotifyGeneric, "del", key)
		}
		return true
	}
	if !storeZSetValue(c, key, buf, n) {
		return false
	}
	c.Notify(NotifyZset, event, key)
	return true
}

func storeZSetValue(c *Ctx, key, buf []byte, n int) bool {
	t := c.Table()
	enc := c.Shard.Enc
	small := int64(n) <= enc.ZSetMaxEntries.Load()
	body := buf[kvtable.PackedHeadRoom:]
	for off := 0; off < len(body) && small; {
		var m []byte
		m, _, off = zAt(body, off)
		small = int64(len(m)) <= enc.ZSetMaxValue.Load()
	}
	if small {
		packZeros(body)
		return stored(c, t.SetPacked(key, KindZSet, false, kvtable.FinishPacked(buf, 2*n), 0))
	}
	big := zsetBigFromSorted(c, body)
	if big == nil {
		c.W.Err(errFull)
		return false
	}
	if !stored(c, t.SetBig(key, KindZSet, big, 0)) {
		big.Clear()
		return false
	}
	return true
}

// ZRandMember: ZRANDMEMBER key [count [WITHSCORES]].
func ZRandMember(c *Ctx, argv [][]byte) {
	if len(argv) == 2 {
		v, found, ok := readKind(c, argv[1], KindZSet)
		if !ok {
			return
		}
		if !found {
			c.W.Null()
			return
		}
		z := zviewOf(v)
		m, _ := zAtRank(z, int(c.Shard.rand()%uint64(z.len())))
		c.W.Bulk(m)
		return
	}
	l, withScores, ok := randCount(c, argv, "withscores")
	if !ok {
		return
	}
	v, found, ok := readKind(c, argv[1], KindZSet)
	if !ok {
		return
	}
	if !found || l == 0 {
		c.W.Array(0)
		return
	}
	z := zviewOf(v)
	size := z.len()
	pairs := withScores && c.W.RESP3()
	per := 1
	if withScores && !pairs {
		per = 2
	}
	writeOne := func(m []byte, s float64) {
		if pairs {
			c.W.Array(2)
		}
		c.W.Bulk(m)
		if withScores {
			writeScore(c, s)
		}
	}
	switch {
	case l < 0:
		c.W.Array(int(-l) * per)
		for range -l {
			writeOne(zAtRank(z, int(c.Shard.rand()%uint64(size))))
		}
	case l >= int64(size):
		// the whole set, last first, as Redis lists a listpack here
		writeElems(c, z, zspan{0, size}, true, withScores, pairs)
	case z.big != nil && int(l)*(z.npages()+zsetPageEntries) < size:
		// A few of many: distinct random ranks, each found through the
		// page directory, rather than a walk over every member.
		c.W.Array(int(l) * per)
		seen := make(map[int]struct{}, l)
		for len(seen) < int(l) {
			r := int(c.Shard.rand() % uint64(size))
			if _, dup := seen[r]; dup {
				continue
			}
			seen[r] = struct{}{}
			writeOne(zAtRank(z, r))
		}
	default:
		// Keep each element with probability (wanted left)/(elements
		// left): exactly l of them, every choice equally likely.
		c.W.Array(int(l) * per)
		left := int(l)
		var it ziter
		it.start(z, 0)
		defer it.release()
		for i := 0; left > 0; i++ {
			if i > 0 {
				it.next()
			}
			if c.Shard.rand()%uint64(size-i) < uint64(left) {
				writeOne(it.at())
				left--
			}
		}
	}
}

// zAtRank returns the element of rank r.
func zAtRank(z zview, r int) ([]byte, float64) {
	pi, idx := z.locate(r)
	body := z.page(pi)
	off := 0
	for range idx {
		_, _, off = zAt(body, off)
	}
	m, s, _ := zAt(body, off)
	return m, s
}

// ZScan: ZSCAN key cursor [MATCH pattern] [COUNT count]. A listpack is
// returned whole, with cursor 0, as Redis does; a big sorted set is
// scanned through its member table.
func ZScan(c *Ctx, argv [][]byte) {
	scanValue(c, argv, KindZSet, true, func(v Value, cursor uint64, count int, add func(name, value []byte)) uint64 {
		var tmp [32]byte
		if v.Big != nil {
			return v.Big.Scan(cursor, count, func(m []byte, sv Value) { add(m, appendScoreText(tmp[:0], memberScore(sv.Str))) })
		}
		body := kvtable.PackedBody(v.Str)
		for off := 0; off < len(body); {
			var m []byte
			var s float64
			m, s, off = zAt(body, off)
			add(m, appendScoreText(tmp[:0], s))
		}
		return 0
	})
}
