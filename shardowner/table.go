package shardowner

// Kind is the type of the value an entry holds, as TYPE names it.
type Kind uint8

// Kinds of value.
const (
	KindNone Kind = iota
	KindString
)

// Value is an entry as handlers see it.
type Value struct {
	Kind     Kind
	Str      []byte // the string when !IsInt; aliases table memory, valid until the next write to the table
	Int      int64  // the value when IsInt
	IsInt    bool   // string stored as a 64-bit integer (Redis's "int" encoding)
	ExpireAt int64  // absolute Unix ms; 0 means no TTL
}

type entry struct {
	v Value
}

// Table maps keys to values for one database of one shard.
//
// PLACEHOLDER: a Go map, to be replaced by the pointer-free table. The API
// below is the narrow one every handler uses.
type Table struct {
	clock *Clock
	m     map[string]*entry
	nexp  int
}

// NewTable returns an empty table whose expiry reads clock.
func NewTable(clock *Clock) *Table {
	return &Table{clock: clock, m: make(map[string]*entry)}
}

func (t *Table) expired(e *entry) bool {
	return e.v.ExpireAt != 0 && e.v.ExpireAt <= t.clock.Ms
}

// Get returns the live value of key; an expired key is deleted on the way.
func (t *Table) Get(key []byte) (Value, bool) {
	e, ok := t.m[string(key)]
	if !ok {
		return Value{}, false
	}
	if t.expired(e) {
		t.Delete(key)
		return Value{}, false
	}
	return e.v, true
}

// Exists reports whether key holds a live value.
func (t *Table) Exists(key []byte) bool {
	_, ok := t.Get(key)
	return ok
}

// SetString stores val under key with the given expiry, replacing any value.
// A value that is a canonical 64-bit decimal integer is stored as an integer.
func (t *Table) SetString(key, val []byte, expireAt int64) {
	if n, ok := CanonicalInt(val); ok {
		t.SetInt(key, n, expireAt)
		return
	}
	t.put(key, Value{Kind: KindString, Str: append([]byte(nil), val...), ExpireAt: expireAt})
}

// SetInt stores n under key as an integer-encoded string.
func (t *Table) SetInt(key []byte, n int64, expireAt int64) {
	t.put(key, Value{Kind: KindString, Int: n, IsInt: true, ExpireAt: expireAt})
}

func (t *Table) put(key []byte, v Value) {
	e, ok := t.m[string(key)]
	if !ok {
		e = &entry{}
		t.m[string(key)] = e
	} else if e.v.ExpireAt != 0 {
		t.nexp--
	}
	e.v = v
	if v.ExpireAt != 0 {
		t.nexp++
	}
}

// SetExpire sets (or with 0 removes) the expiry of a live key.
func (t *Table) SetExpire(key []byte, expireAt int64) bool {
	if _, ok := t.Get(key); !ok {
		return false
	}
	e := t.m[string(key)]
	if e.v.ExpireAt != 0 {
		t.nexp--
	}
	e.v.ExpireAt = expireAt
	if expireAt != 0 {
		t.nexp++
	}
	return true
}

// Delete removes key and reports whether it held a live value.
func (t *Table) Delete(key []byte) bool {
	e, ok := t.m[string(key)]
	if !ok {
		return false
	}
	live := !t.expired(e)
	if e.v.ExpireAt != 0 {
		t.nexp--
	}
	delete(t.m, string(key))
	return live
}

// Len is the number of keys, counting expired ones not yet reclaimed.
func (t *Table) Len() int { return len(t.m) }

// ExpiresLen is the number of keys with a TTL.
func (t *Table) ExpiresLen() int { return t.nexp }

// Scan visits about count keys from cursor and returns the cursor to resume
// from; 0 means the scan is complete. PLACEHOLDER: visits everything.
func (t *Table) Scan(cursor uint64, count int, fn func(key []byte, v Value)) uint64 {
	for k, e := range t.m {
		if !t.expired(e) {
			fn([]byte(k), e.v)
		}
	}
	return 0
}

// RandomKey appends a random live key to dst.
func (t *Table) RandomKey(dst []byte) ([]byte, bool) {
	for k, e := range t.m {
		if !t.expired(e) {
			return append(dst, k...), true
		}
	}
	return dst, false
}

// Clear removes every key.
func (t *Table) Clear() {
	t.m = make(map[string]*entry)
	t.nexp = 0
}

// ActiveExpire deletes expired keys among a sample of keys with a TTL,
// spending at most budgetNs, and returns how many it deleted.
func (t *Table) ActiveExpire(budgetNs int64) int {
	n := 0
	for k, e := range t.m {
		if t.expired(e) {
			t.Delete([]byte(k))
			n++
		}
	}
	return n
}

// CanonicalInt parses b as Redis decides whether a string can be stored as an
// integer: optional '-', no leading zeros, no '+', fits in int64, at most 20
// bytes, and prints back to the same bytes.
func CanonicalInt(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 20 {
		return 0, false
	}
	neg := b[0] == '-'
	d := b
	if neg {
		d = b[1:]
		if len(d) == 0 {
			return 0, false
		}
	}
	if d[0] == '0' && (len(d) > 1 || neg) {
		return 0, false
	}
	var n uint64
	for _, c := range d {
		if c < '0' || c > '9' {
			return 0, false
		}
		if n > (1<<63)/10 {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
	}
	if neg {
		if n > 1<<63 {
			return 0, false
		}
		return -int64(n), true
	}
	if n > 1<<63-1 {
		return 0, false
	}
	return int64(n), true
}
