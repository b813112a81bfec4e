package shardowner

import (
	"errors"
	"fmt"

	"github.com/valyala/bytebufferpool"

	"github.com/corekv/corekv/resp"
)

// Loading an RDB file: the file's reader (rdbfile) finds each key record
// and the shard that owns its key stores it here, converted as RESTORE
// converts a payload, into the encoding its size calls for.

// ErrDuplicateKey refuses a file that holds a key twice in a database.
var ErrDuplicateKey = errors.New("duplicated key")

// LoadRecord stores key with the object of RDB type typ in obj (its bytes
// after the type) in database db, expiring at expireAt (Unix ms, 0: none).
// A key whose expiry has passed is not stored (loaded false), as Redis's
// master drops it. The error names what is wrong with the record.
func (s *Shard) LoadRecord(db int, key []byte, typ byte, obj []byte, expireAt int64) (loaded bool, err error) {
	if db < 0 || db >= len(s.DBs) {
		return false, fmt.Errorf("database %d out of range (databases is %d)", db, len(s.DBs))
	}
	t := s.DBs[db]
	if t.Exists(key) {
		return false, fmt.Errorf("%w '%s' in DB %d", ErrDuplicateKey, key, db)
	}
	o, ok := readObjectOf(typ, obj)
	if !ok {
		return false, fmt.Errorf("bad object of type %d for key '%s'", typ, key)
	}
	defer o.release()
	if expireAt != 0 && expireAt <= s.Clock.Ms {
		return false, nil
	}
	var w resp.Writer
	c := &Ctx{Shard: s, DB: db, W: &w}
	var set setBuilder
	if o.kind == KindSet {
		defer set.release()
		if !o.buildSet(c, &set) {
			return false, fmt.Errorf("bad set for key '%s' (a repeated member, or the table is full)", key)
		}
	} else if (o.kind == KindHash || o.kind == KindZSet) && repeatedKey(o.out.B, o.keys) {
		return false, fmt.Errorf("repeated field or member in key '%s'", key)
	}
	if !o.store(c, key, &set, expireAt) {
		return false, fmt.Errorf("cannot store key '%s': %s", key, w.B)
	}
	return true, nil
}

// readObjectOf reads an object of RDB type t whose body is p, as
// readObject reads a payload; o copies what it keeps.
func readObjectOf(t byte, p []byte) (rdbObject, bool) {
	buf := bytebufferpool.Get()
	buf.B = append(append(buf.B[:0], t), p...)
	o, ok := readObject(buf.B)
	bytebufferpool.Put(buf)
	return o, ok
}
