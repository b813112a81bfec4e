package shardowner

import "github.com/corekv/corekv/shardowner/kvtable"

// The keyspace table lives in package kvtable. These names give the packages
// above (router, reactor) its types under shardowner's name, so that none
// of them imports kvtable; the handlers here that read or build packed and
// big values import it themselves.

// Table maps keys to values for one database of one shard.
type Table = kvtable.Table

// Value is an entry as handlers see it. Its Str aliases table memory and is
// valid until the next write to the table.
type Value = kvtable.Value

// Kind is the type of the value an entry holds, as TYPE names it.
type Kind = kvtable.Kind

// Kinds of value.
const (
	KindNone   = kvtable.KindNone
	KindString = kvtable.KindString
	KindHash   = kvtable.KindHash
	KindSet    = kvtable.KindSet
	KindList   = kvtable.KindList
	KindZSet   = kvtable.KindZSet
	KindStream = kvtable.KindStream
)

// NewTable returns an empty table whose expiry reads clock.
var NewTable = kvtable.NewTable

// CanonicalInt parses b as Redis decides whether a string can be stored as an
// integer: optional '-', no leading zeros, no '+', fits in int64, at most 20
// bytes, and prints back to the same bytes.
func CanonicalInt(b []byte) (int64, bool) { return kvtable.CanonicalInt(b) }
