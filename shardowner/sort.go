package shardowner

import (
	"bytes"
	"cmp"
	"math"
	"slices"
	"strconv"
	"sync"

	"github.com/valyala/bytebufferpool"

	"github.com/corekv/corekv/resp"
	"github.com/corekv/corekv/shardowner/kvtable"
)

// SORT key [BY pattern] [LIMIT offset count] [GET pattern ...] [ASC|DESC]
// [ALPHA] [STORE destination], and SORT_RO, the same without STORE, over a
// list, set or sorted set.
//
// A BY or GET pattern names other keys: its first '*' is replaced by an
// element, and "->field" after the '*' reads that field of a hash. Those
// keys must live on the sorted key's shard (always so with one shard; with
// several, a hash tag the sorted key shares keeps them there). SORT reads
// them in place; a key of another shard is answered with errSortBy or
// errSortGet before anything is read, never read as missing.

// Sort errors.
const (
	errSortScore resp.Error = "ERR One or more scores can't be converted into double"
	errSortBy    resp.Error = "ERR BY option of SORT reaches a key on another shard: give the pattern a hash tag the sorted key shares"
	errSortGet   resp.Error = "ERR GET option of SORT reaches a key on another shard: give the pattern a hash tag the sorted key shares"
)

// KeyShard returns the shard that owns key among shards; the router sets
// it (the hash lives there). SORT's patterns use it to tell whether the
// keys they name are on the running shard.
var KeyShard func(key []byte, shards int) int

// owns reports whether key belongs to the shard c runs on.
func (c *Ctx) owns(key []byte) bool {
	if c.Shard.Count <= 1 {
		return true
	}
	return KeyShard != nil && KeyShard(key, c.Shard.Count) == c.Shard.ID
}

// sortReq is a parsed SORT.
type sortReq struct {
	by           []byte // BY pattern; nil sorts by the elements
	dontsort     bool   // a BY pattern without '*': keep the value's order
	gets         []int  // argv positions of the GET patterns
	start, count int64  // LIMIT; count < 0: to the end
	desc, alpha  bool
	store        []byte
}

// parseSort reads SORT's options in order, answering the first bad one as
// Redis does. STORE is an option of SORT only.
func parseSort(q *sortReq, argv [][]byte, store bool) resp.Error {
	q.count = -1
	for j := 2; j < len(argv); j++ {
		left := len(argv) - j - 1
		a := argv[j]
		switch {
		case resp.EqualFold(a, "asc"):
			q.desc = false
		case resp.EqualFold(a, "desc"):
			q.desc = true
		case resp.EqualFold(a, "alpha"):
			q.alpha = true
		case resp.EqualFold(a, "limit") && left >= 2:
			start, ok1 := resp.ParseInt(argv[j+1])
			count, ok2 := resp.ParseInt(argv[j+2])
			if !ok1 || !ok2 {
				return resp.ErrNotInteger
			}
			q.start, q.count = start, count
			j += 2
		case store && resp.EqualFold(a, "store") && left >= 1:
			q.store = argv[j+1]
			j++
		case resp.EqualFold(a, "by") && left >= 1:
			q.by = argv[j+1]
			// A constant pattern sorts nothing, for good: Redis never
			// clears the flag once set.
			if bytes.IndexByte(q.by, '*') < 0 {
				q.dontsort = true
			}
			j++
		case resp.EqualFold(a, "get") && left >= 1:
			q.gets = append(q.gets, j+1)
			j++
		default:
			return resp.ErrSyntax
		}
	}
	return ""
}

// sortElem is one element of the value being sorted: its bytes in the
// scratch's elems buffer, its score or, for ALPHA BY, the bytes it sorts by
// in the by buffer (byOff < 0: the BY key is missing).
type sortElem struct {
	off, n     int
	byOff, byN int
	score      float64
}

// sortScratch is what one SORT works in; pooled so that a SORT allocates
// nothing once warm. Vectors of more than sortKeep elements are not kept.
type sortScratch struct {
	vec  []sortElem
	gets []int
}

const sortKeep = 1 << 16

var sortPool = sync.Pool{New: func() any { return new(sortScratch) }}

// Sort: SORT key [BY pattern] [LIMIT offset count] [GET pattern ...]
// [ASC|DESC] [ALPHA] [STORE destination].
func Sort(c *Ctx, argv [][]byte) { sortCommand(c, argv, true) }

// SortRO: SORT_RO, SORT without STORE.
func SortRO(c *Ctx, argv [][]byte) { sortCommand(c, argv, false) }

func sortCommand(c *Ctx, argv [][]byte, withStore bool) {
	sc := sortPool.Get().(*sortScratch)
	defer func() {
		if cap(sc.vec) > sortKeep {
			sc.vec = nil
		}
		sortPool.Put(sc)
	}()
	q := sortReq{gets: sc.gets[:0]}
	err := parseSort(&q, argv, withStore)
	sc.gets = q.gets
	if err != "" {
		c.W.Err(err)
		return
	}
	key := argv[1]
	v, found := c.Table().Get(key)
	c.Shard.Stats.countLookup(found)
	if !found {
		c.Notify(NotifyKeyMiss, "keymiss", key)
		v = Value{Kind: KindList}
	}
	if v.Kind != KindList && v.Kind != KindSet && v.Kind != KindZSet {
		c.W.Err(resp.ErrWrongType)
		return
	}
	if v.Kind == KindZSet && v.Big == nil && found {
		v = zsetToBig(c, key, v)
	}
	storing := q.store != nil
	if q.dontsort && v.Kind == KindSet && (storing || c.Scripted) {
		// A set has no order of its own to keep: what is stored, or
		// what a script reads, is sorted, so that it does not depend on
		// the set's layout.
		q.dontsort, q.alpha, q.by = false, true, nil
	}

	n := int64(sortLen(v))
	start := max(q.start, 0)
	end := n - 1
	if q.count >= 0 && q.count < n {
		end = start + q.count - 1
	}
	if start >= n {
		start, end = n-1, n-2
	}
	end = min(end, n-1)

	elems := bytebufferpool.Get()
	defer bytebufferpool.Put(elems)
	// A list or sorted set that keeps its order loads only the range asked
	// for; the output then starts at the range's first element.
	direct := q.dontsort && v.Kind != KindSet
	if direct {
		if end >= start {
			sc.vec = loadRange(sc.vec[:0], elems, v, int(start), int(end-start+1), q.desc)
		} else {
			sc.vec = sc.vec[:0]
		}
		end -= start
		start = 0
	} else {
		sc.vec = loadAll(sc.vec[:0], elems, v)
	}
	vec := sc.vec

	// Patterns must name keys of this shard. A run over gathered values
	// (the destination on another shard) holds no other key at all.
	local := c.owns(key) && (!storing || c.owns(q.store))
	key2 := bytebufferpool.Get()
	defer bytebufferpool.Put(key2)
	if !q.dontsort && q.by != nil && !patternsLocal(c, local, q.by, vec, elems.B, key2) {
		c.W.Err(errSortBy)
		return
	}
	for _, g := range q.gets {
		if !patternsLocal(c, local, argv[g], vec, elems.B, key2) {
			c.W.Err(errSortGet)
			return
		}
	}

	byBuf := bytebufferpool.Get()
	defer bytebufferpool.Put(byBuf)
	if !q.dontsort {
		if !sortWeights(c, &q, vec, elems.B, byBuf, key2) {
			c.W.Err(errSortScore)
			return
		}
		sortVec(&q, storing, vec, elems.B, byBuf.B)
	}

	count := int64(0)
	if end >= start {
		count = end - start + 1
	}
	per := int64(max(len(q.gets), 1))
	if !storing {
		c.W.Array(int(count * per))
		for j := start; j <= end; j++ {
			e := elemBytes(elems.B, vec[j])
			if len(q.gets) == 0 {
				c.W.Bulk(e)
			}
			for _, g := range q.gets {
				if val, ok := lookupPattern(c, argv[g], e, key2); ok {
					replyValue(c, val)
				} else {
					c.W.Null()
				}
			}
		}
		return
	}

	out := bytebufferpool.Get()
	defer bytebufferpool.Put(out)
	var room [kvtable.PackedHeadRoom]byte
	out.B = append(out.B[:0], room[:]...)
	var tmp [20]byte
	for j := start; j <= end; j++ {
		e := elemBytes(elems.B, vec[j])
		if len(q.gets) == 0 {
			out.B = kvtable.AppendElem(out.B, e)
		}
		for _, g := range q.gets {
			val, _ := lookupPattern(c, argv[g], e, key2)
			out.B = kvtable.AppendElem(out.B, valueText(tmp[:0], val))
		}
	}
	if !storeSorted(c, q.store, out.B, int(count*per)) {
		return
	}
	c.W.Int(count * per)
}

// storeSorted stores the n elements in buf (after PackedHeadRoom bytes of
// room) as a new list under key; none deletes key, as Redis does.
func storeSorted(c *Ctx, key, buf []byte, n int) bool {
	t := c.Table()
	if n == 0 {
		if t.Delete(key) {
			t.Modified(key)
			c.Notify(NotifyGeneric, "del", key)
		}
		return true
	}
	// storeSmall writes no TTL: the key loses any it had, as with SET.
	if !storeSmall(c, key, buf, n, 0) {
		return false
	}
	t.Modified(key)
	c.Notify(NotifyList, "sortstore", key)
	return true
}

// zsetToBig converts the small sorted set v under key to the big encoding,
// as Redis's SORT does to every sorted set it reads (OBJECT ENCODING then
// says skiplist). The value is the same, so WATCH does not see it, nor is
// it an event. With no room it stays small: nothing depends on it.
func zsetToBig(c *Ctx, key []byte, v Value) Value {
	big := zsetBigFromSorted(c, kvtable.PackedBody(v.Str))
	if big == nil {
		return v
	}
	t := c.Table()
	w := t.Watching()
	t.SetWatcher(nil)
	err := t.SetBig(key, KindZSet, big, v.ExpireAt)
	t.SetWatcher(w)
	if err != nil {
		big.Clear()
		return v
	}
	v.Str, v.Big = nil, big
	return v
}

// sortLen is the number of elements of a list, set or sorted set.
func sortLen(v Value) int {
	if v.Kind == KindList {
		return listLen(v)
	}
	return aggLen(v)
}

// appendElem copies e into buf and returns its sortElem.
func appendElem(vec []sortElem, buf *bytebufferpool.ByteBuffer, e []byte) []sortElem {
	off := len(buf.B)
	buf.B = append(buf.B, e...)
	return append(vec, sortElem{off: off, n: len(e), byOff: -1})
}

func elemBytes(buf []byte, s sortElem) []byte { return buf[s.off : s.off+s.n : s.off+s.n] }

// loadAll copies every element of v into buf, in the value's own order.
// The copies stay valid while SORT writes to the table.
func loadAll(vec []sortElem, buf *bytebufferpool.ByteBuffer, v Value) []sortElem {
	add := func(e []byte) bool {
		vec = appendElem(vec, buf, e)
		return true
	}
	switch v.Kind {
	case KindList:
		if v.Str != nil || v.Big != nil {
			listEach(v, 0, add)
		}
	case KindSet:
		eachMember(v, add)
	case KindZSet:
		z := zviewOf(v)
		if n := z.len(); n > 0 {
			var it ziter
			it.start(z, 0)
			for k := 0; k < n; k++ {
				if k > 0 {
					it.next()
				}
				m, _ := it.at()
				vec = appendElem(vec, buf, m)
			}
			it.release()
		}
	}
	return vec
}

// loadRange copies the n elements of list or sorted set v from position
// start, counted from the tail when desc, in that direction.
func loadRange(vec []sortElem, buf *bytebufferpool.ByteBuffer, v Value, start, n int, desc bool) []sortElem {
	total := sortLen(v)
	if v.Kind == KindList {
		if !desc {
			listEach(v, start, func(e []byte) bool {
				vec = appendElem(vec, buf, e)
				return len(vec) < n
			})
			return vec
		}
		// Backwards: load the span forwards, then reverse it.
		first := len(vec)
		listEach(v, total-start-n, func(e []byte) bool {
			vec = appendElem(vec, buf, e)
			return len(vec)-first < n
		})
		slices.Reverse(vec[first:])
		return vec
	}
	z := zviewOf(v)
	var it ziter
	if desc {
		it.start(z, total-1-start)
	} else {
		it.start(z, start)
	}
	for k := 0; k < n; k++ {
		if k > 0 {
			if desc {
				it.prev()
			} else {
				it.next()
			}
		}
		m, _ := it.at()
		vec = appendElem(vec, buf, m)
	}
	it.release()
	return vec
}

// patternsLocal reports whether every key pattern names for the elements
// of vec lives on this shard. Patterns that name no key ("#", no '*') are
// always local.
func patternsLocal(c *Ctx, local bool, pattern []byte, vec []sortElem, elems []byte, key *bytebufferpool.ByteBuffer) bool {
	if patternKeyless(pattern) {
		return true
	}
	if !local {
		return false
	}
	if c.Shard.Count <= 1 {
		return true
	}
	for _, s := range vec {
		k, _ := patternKey(key, pattern, elemBytes(elems, s))
		if !c.owns(k) {
			return false
		}
	}
	return true
}

// patternKeyless reports whether pattern reads no key: "#" is the element
// itself, and a pattern without '*' reads nothing.
func patternKeyless(pattern []byte) bool {
	return (len(pattern) == 1 && pattern[0] == '#') || bytes.IndexByte(pattern, '*') < 0
}

// patternKey builds in buf the key pattern names for element e: its first
// '*' replaced by e, without a "->field" suffix after the '*', which is
// returned apart (nil: none; a bare "->" at the end names no field).
func patternKey(buf *bytebufferpool.ByteBuffer, pattern, e []byte) (key, field []byte) {
	star := bytes.IndexByte(pattern, '*')
	post := pattern[star+1:]
	if f := bytes.Index(post, []byte("->")); f >= 0 && f+2 < len(post) {
		field = post[f+2:]
		post = post[:f]
	}
	buf.B = append(append(append(buf.B[:0], pattern[:star]...), e...), post...)
	return buf.B, field
}

// lookupPattern returns the value pattern names for element e: e itself
// for "#", a string key's value, or a hash field's value. A missing key, a
// key of another kind, a missing field or a pattern without '*' give
// ok=false. A missing key is a keymiss, as in Redis.
func lookupPattern(c *Ctx, pattern, e []byte, buf *bytebufferpool.ByteBuffer) (Value, bool) {
	if len(pattern) == 1 && pattern[0] == '#' {
		return Value{Kind: KindString, Str: e}, true
	}
	if bytes.IndexByte(pattern, '*') < 0 {
		return Value{}, false
	}
	key, field := patternKey(buf, pattern, e)
	v, found := c.Table().Get(key)
	c.Shard.Stats.countLookup(found)
	if !found {
		c.Notify(NotifyKeyMiss, "keymiss", key)
		return Value{}, false
	}
	if field == nil {
		return v, v.Kind == KindString
	}
	if v.Kind != KindHash {
		return Value{}, false
	}
	return hashGet(v, field)
}

// valueText is a string value's bytes (an integer's in dst), or "" for
// none, which is what STORE keeps for a missing GET.
func valueText(dst []byte, v Value) []byte {
	if v.IsInt {
		return strconv.AppendInt(dst, v.Int, 10)
	}
	return v.Str
}

// sortWeights sets each element's score (numeric) or the bytes it sorts by
// (ALPHA BY). It reports false when a score is not a number; every element
// is still looked at first, as in Redis.
func sortWeights(c *Ctx, q *sortReq, vec []sortElem, elems []byte, byBuf, key *bytebufferpool.ByteBuffer) bool {
	ok := true
	var tmp [20]byte
	for i := range vec {
		s := &vec[i]
		e := elemBytes(elems, *s)
		w := e
		if q.by != nil {
			val, found := lookupPattern(c, q.by, e, key)
			if !found {
				continue
			}
			if val.IsInt && !q.alpha {
				// Redis too takes an integer value as it is, unparsed.
				s.score = float64(val.Int)
				continue
			}
			w = valueText(tmp[:0], val)
			if q.alpha {
				s.byOff, s.byN = len(byBuf.B), cText(w, q.store != nil)
				byBuf.B = append(byBuf.B, w...)
				continue
			}
		}
		if q.alpha {
			continue
		}
		f, good := sortScore(w)
		s.score = f
		ok = ok && good
	}
	return ok
}

// sortScore reads b as Redis's SORT does, with strtod over the whole text:
// a NUL byte ends it, white space may lead, empty text is 0, and NaN or a
// value out of range fails.
func sortScore(b []byte) (float64, bool) {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	if len(b) == 0 {
		return 0, true
	}
	if n, ok := resp.ParseInt(b); ok {
		return float64(n), true
	}
	i := 0
	for i < len(b)-1 && isCSpace(b[i]) {
		i++
	}
	f, ok := resp.ParseFloat(b[i:])
	if !ok || math.IsNaN(f) {
		return 0, false
	}
	return f, true
}

// isCSpace is C's isspace in the C locale.
func isCSpace(c byte) bool { return c == ' ' || ('\t' <= c && c <= '\r') }

// sortVec orders vec: numerically by score, equal scores by the elements'
// bytes; ALPHA by the elements or, with BY, by the bytes they sort by (a
// missing one first). Without STORE, ALPHA compares as C strings, to the
// first NUL, as Redis's strcoll does under a byte-order locale. Elements
// that still compare equal keep their order, as Redis's stable sort leaves
// them: the load position breaks the tie.
func sortVec(q *sortReq, storing bool, vec []sortElem, elems, by []byte) {
	if q.alpha && q.by == nil {
		for i := range vec {
			s := &vec[i]
			s.byOff, s.byN = s.off, cText(elemBytes(elems, *s), storing)
		}
		by = elems
	}
	sign := 1
	if q.desc {
		sign = -1
	}
	if !q.alpha {
		slices.SortFunc(vec, func(a, b sortElem) int {
			switch {
			case a.score < b.score:
				return -sign
			case a.score > b.score:
				return sign
			}
			// Equal bytes are the same element: no tie is left to break.
			return sign * bytes.Compare(elemBytes(elems, a), elemBytes(elems, b))
		})
		return
	}
	slices.SortFunc(vec, func(a, b sortElem) int {
		var r int
		if a.byOff < 0 || b.byOff < 0 {
			r = cmp.Compare(min(a.byOff, 0), min(b.byOff, 0)) // a missing one (-1) first
		} else {
			r = bytes.Compare(by[a.byOff:a.byOff+a.byN], by[b.byOff:b.byOff+b.byN])
		}
		if r == 0 {
			return cmp.Compare(a.off, b.off)
		}
		return sign * r
	})
}

// cText is how many bytes of b ALPHA compares: all of them for STORE,
// else those before the first NUL.
func cText(b []byte, storing bool) int {
	if !storing {
		if i := bytes.IndexByte(b, 0); i >= 0 {
			return i
		}
	}
	return len(b)
}
