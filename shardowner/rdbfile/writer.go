package rdbfile

import (
	"encoding/binary"
	"io"
	"strconv"
)

// Aux is an AUX field of the header. Redis 7.0 writes redis-ver,
// redis-bits, ctime, used-mem, then repl-stream-db, repl-id and
// repl-offset when it has replication info, then aof-base.
type Aux struct {
	Key, Val string
}

// AuxInt is an AUX field with an integer value, as Redis writes
// redis-bits, ctime, used-mem and aof-base (integer encoded).
func AuxInt(key string, v int64) Aux { return Aux{key, strconv.FormatInt(v, 10)} }

// Writer streams an RDB file to an io.Writer, keeping the CRC of all it
// has written. Its first error sticks: later calls do nothing and return
// it.
type Writer struct {
	w   io.Writer
	crc uint64
	n   int64
	err error
	buf []byte
}

// NewWriter returns a Writer to w. Callers wanting fewer, larger writes
// give it a bufio.Writer.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Written is how many bytes have gone to the io.Writer.
func (w *Writer) Written() int64 { return w.n }

// Raw writes p, records the caller encoded (AppendKey and an object,
// AppendExpire, …), counting it in the CRC.
func (w *Writer) Raw(p []byte) error {
	if w.err != nil {
		return w.err
	}
	w.crc = UpdateCRC(w.crc, p)
	n, err := w.w.Write(p)
	w.n += int64(n)
	w.err = err
	return err
}

// flush writes w.buf.
func (w *Writer) flush() error {
	err := w.Raw(w.buf)
	w.buf = w.buf[:0]
	return err
}

// Header writes the magic, the version and the AUX fields.
func (w *Writer) Header(aux ...Aux) error {
	w.buf = append(w.buf[:0], magic...)
	for _, a := range aux {
		w.buf = AppendAux(w.buf, []byte(a.Key), []byte(a.Val))
	}
	return w.flush()
}

// Function writes a FUNCTION2 record: a library's code.
func (w *Writer) Function(code []byte) error {
	w.buf = AppendString(append(w.buf[:0], OpFunction2), code, false)
	return w.flush()
}

// SelectDB writes a SELECTDB record.
func (w *Writer) SelectDB(db int) error {
	w.buf = AppendSelectDB(w.buf[:0], db)
	return w.flush()
}

// ResizeDB writes a RESIZEDB record: how many keys the database has and
// how many of them expire, so that a loader can size its tables.
func (w *Writer) ResizeDB(size, expires uint64) error {
	w.buf = AppendResizeDB(w.buf[:0], size, expires)
	return w.flush()
}

// End writes the EOF opcode and the checksum of the whole file, EOF byte
// included; without checksum, eight zero bytes, which loaders take as "not
// checked" (Redis's rdbchecksum no).
func (w *Writer) End(checksum bool) error {
	if err := w.Raw([]byte{OpEOF}); err != nil {
		return err
	}
	var sum uint64
	if checksum {
		sum = w.crc
	}
	w.buf = binary.LittleEndian.AppendUint64(w.buf[:0], sum)
	return w.flush()
}

// AppendAux appends an AUX record. Redis saves both strings as it saves
// any string, integers encoded, uncompressed.
func AppendAux(dst, key, val []byte) []byte {
	return AppendString(AppendString(append(dst, OpAux), key, false), val, false)
}

// AppendSelectDB appends a SELECTDB record.
func AppendSelectDB(dst []byte, db int) []byte { return AppendLen(append(dst, OpSelectDB), db) }

// AppendResizeDB appends a RESIZEDB record.
func AppendResizeDB(dst []byte, size, expires uint64) []byte {
	return appendLen(appendLen(append(dst, OpResizeDB), size), expires)
}

// AppendExpire appends the expiry of the key record that follows, in
// milliseconds since the Unix epoch.
func AppendExpire(dst []byte, unixMs int64) []byte {
	return binary.LittleEndian.AppendUint64(append(dst, OpExpireTimeMs), uint64(unixMs))
}

// AppendIdle appends the LRU idle time, in seconds, of the key record
// that follows.
func AppendIdle(dst []byte, seconds uint64) []byte { return appendLen(append(dst, OpIdle), seconds) }

// AppendFreq appends the LFU counter of the key record that follows.
func AppendFreq(dst []byte, freq byte) []byte { return append(dst, OpFreq, freq) }

// AppendKey appends the start of a key record: the object's type and the
// key. The caller appends the object.
func AppendKey(dst []byte, typ byte, key []byte, compress bool) []byte {
	return AppendString(append(dst, typ), key, compress)
}

// CompressRecords appends to dst the key records of src with their
// strings LZF-compressed where that saves room (AppendString's rule):
// shards write their records plain, which costs their threads the least,
// and the file's writer compresses them (rdbcompression). src holds
// records of the types a snapshot writes (string, list, set, hash, sorted
// set with binary scores, stream), each after an optional EXPIRETIME_MS
// and an optional IDLE or FREQ.
func CompressRecords(dst, src []byte) ([]byte, error) {
	var r Reader
	r.Reset(src)
	str := func() bool {
		s, ok := r.String()
		if ok {
			dst = AppendString(dst, s, true)
		}
		return ok
	}
	for len(r.p) > 0 {
		start := r.off
		typ, _ := r.Byte()
		if typ == OpExpireTimeMs {
			t, ok := r.Take(8)
			if !ok {
				return dst, errAt(start, "record's expiry ends early")
			}
			dst = append(append(dst, typ), t...)
			typ, _ = r.Byte()
		}
		switch typ {
		case OpIdle:
			n, _, ok := r.Len()
			if !ok {
				return dst, errAt(start, "record's idle time ends early")
			}
			dst = AppendIdle(dst, n)
			typ, _ = r.Byte()
		case OpFreq:
			f, ok := r.Byte()
			if !ok {
				return dst, errAt(start, "record's frequency ends early")
			}
			dst = AppendFreq(dst, f)
			typ, _ = r.Byte()
		}
		dst = append(dst, typ)
		ok := str()
		switch typ {
		case TypeString:
			ok = ok && str()
		case TypeList, TypeSet, TypeHash:
			per := 1
			if typ == TypeHash {
				per = 2
			}
			n, cok := r.Count(per)
			ok = ok && cok
			dst = AppendLen(dst, n)
			for i := 0; ok && i < n*per; i++ {
				ok = str()
			}
		case TypeZSet2:
			n, cok := r.Count(2)
			ok = ok && cok
			dst = AppendLen(dst, n)
			for i := 0; ok && i < n; i++ {
				if ok = str(); ok {
					var score []byte
					score, ok = r.Take(8)
					dst = append(dst, score...)
				}
			}
		case TypeStreamListpacks2:
			n, cok := r.Count(2)
			ok = ok && cok
			dst = AppendLen(dst, n)
			for i := 0; ok && i < 2*n; i++ {
				ok = str() // master ID, listpack
			}
			if ok {
				tail := r.off
				if ok = skipStreamTail(&r, true) == ""; ok {
					dst = append(dst, src[tail:r.off]...)
				}
			}
		default:
			return dst, errAt(start, "record of type %d is not one a snapshot writes", typ)
		}
		if !ok {
			return dst, errAt(start, "record of type %d ends early", typ)
		}
	}
	return dst, nil
}
