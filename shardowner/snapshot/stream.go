package snapshot

import (
	"encoding/binary"
	"hash/crc64"
	"io"
)

// Aux is one auxiliary field of the header.
type Aux struct{ Key, Value string }

var crcTable = crc64.MakeTable(0x95ac9329ac4bc9b5)

// stream writes an RDB file's framing around the shards' records, keeping
// the running checksum.
type stream struct {
	w   io.Writer
	crc uint64
	n   int64
	err error
	tmp []byte
}

func newStream(w io.Writer) *stream { return &stream{w: w} }

func (s *stream) raw(p []byte) {
	if s.err != nil {
		return
	}
	s.crc = ^crc64.Update(^s.crc, crcTable, p)
	var n int
	n, s.err = s.w.Write(p)
	s.n += int64(n)
}

func appendLen(dst []byte, n uint64) []byte {
	switch {
	case n < 1<<6:
		return append(dst, byte(n))
	case n < 1<<14:
		return append(dst, byte(n>>8)|0x40, byte(n))
	case n <= 0xffffffff:
		return binary.BigEndian.AppendUint32(append(dst, 0x80), uint32(n))
	}
	return binary.BigEndian.AppendUint64(append(dst, 0x81), n)
}

func appendStr(dst []byte, s string) []byte { return append(appendLen(dst, uint64(len(s))), s...) }

func (s *stream) header(aux []Aux) {
	b := append(s.tmp[:0], "REDIS0010"...)
	for _, a := range aux {
		b = appendStr(appendStr(append(b, 250), a.Key), a.Value)
	}
	s.raw(b)
	s.tmp = b
}

func (s *stream) selectDB(db int) {
	s.tmp = appendLen(append(s.tmp[:0], 254), uint64(db))
	s.raw(s.tmp)
}

func (s *stream) resizeDB(keys, expires uint64) {
	s.tmp = appendLen(appendLen(append(s.tmp[:0], 251), keys), expires)
	s.raw(s.tmp)
}

func (s *stream) end(checksum bool) {
	s.raw([]byte{255})
	var sum uint64
	if checksum {
		sum = s.crc
	}
	s.tmp = binary.LittleEndian.AppendUint64(s.tmp[:0], sum)
	if s.err == nil {
		var n int
		n, s.err = s.w.Write(s.tmp)
		s.n += int64(n)
	}
}
