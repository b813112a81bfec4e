package main

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// pointTest is a named test that runs redis-benchmark with a command line in place of -t, against hashes or
// sets the harness loads before the cell, so that every lookup finds its key.
type pointTest struct {
	command []string // redis-benchmark's command line; it makes __rand_int__ the key's 12-digit number
	load    string   // the command that fills one key
	prefix  string   // the keys' names before the number
	item    string   // the fields' or members' names before their index
	values  bool     // whether each field takes a value of the cell's size (a hash) or stands alone (a set)
	// script, when set, is loaded with SCRIPT LOAD before the cell, in place of loading keys: the command
	// line runs it by its SHA.
	script string
	// fill, when set, is the command that fills key in place of load's: it answers pointItems.
	fill func(key, value string) []string
}

// scriptTenEntries adds ten entries to a stream, the fill of the xrange10 test.
const scriptTenEntries = "for i = 1, 10 do redis.call('XADD', KEYS[1], '*', 'f1', ARGV[1], 'f2', ARGV[1]) end return 10"

// The stream tests' entry: two fields of 8 bytes.
var streamEntry = []string{"f1", "12345678", "f2", "abcdefgh"}

// The scripts of the evalsha tests: one call, ten calls on the same key,
// and one call on each of two keys, which evalsha2shards puts on two shards
// (hash tags {a} and {b} part on two and on four shards).
const (
	scriptOneCall  = "return redis.call('INCR', KEYS[1])"
	scriptTenCalls = "local n for i = 1, 10 do n = redis.call('INCR', KEYS[1]) end return n"
	scriptTwoKeys  = "redis.call('INCR', KEYS[1]) return redis.call('INCR', KEYS[2])"
)

// pointItems is the fields of every loaded hash and the members of every loaded set.
const pointItems = 10

var pointTests = map[string]pointTest{
	"hget":      {command: []string{"HGET", "h:__rand_int__", "f5"}, load: "HSET", prefix: "h:", item: "f", values: true},
	"hmget":     {command: []string{"HMGET", "h:__rand_int__", "f1", "f5", "f9"}, load: "HSET", prefix: "h:", item: "f", values: true},
	"sismember": {command: []string{"SISMEMBER", "s:__rand_int__", "m5"}, load: "SADD", prefix: "s:", item: "m"},
	"evalsha1":  {command: []string{"EVALSHA", sha1Hex(scriptOneCall), "1", "key:__rand_int__"}, script: scriptOneCall},
	"evalsha10": {command: []string{"EVALSHA", sha1Hex(scriptTenCalls), "1", "key:__rand_int__"}, script: scriptTenCalls},
	"evalsha2shards": {command: []string{"EVALSHA", sha1Hex(scriptTwoKeys), "2", "{a}:__rand_int__", "{b}:__rand_int__"},
		script: scriptTwoKeys},
	// XADD to streams of the key space, with and without trimming; XRANGE of the first ten entries of
	// streams of ten.
	"xadd":       {command: append([]string{"XADD", "x:__rand_int__", "*"}, streamEntry...)},
	"xaddmaxlen": {command: append([]string{"XADD", "x:__rand_int__", "MAXLEN", "~", "1000", "*"}, streamEntry...)},
	"xrange10": {command: []string{"XRANGE", "x:__rand_int__", "-", "+", "COUNT", "10"}, prefix: "x:",
		fill: func(key, value string) []string { return []string{"EVAL", scriptTenEntries, "1", key, value} }},
}

func sha1Hex(s string) string {
	sum := sha1.Sum([]byte(s))
	return hex.EncodeToString(sum[:])
}

// loadArgs is the command that fills key n: HSET h:<n> f0 value … f9 value, or SADD s:<n> m0 … m9.
func (p pointTest) loadArgs(n int, value string) []string {
	args := append(make([]string, 0, 2+2*pointItems), p.load, fmt.Sprintf("%s%012d", p.prefix, n))
	for i := 0; i < pointItems; i++ {
		args = append(args, p.item+strconv.Itoa(i))
		if p.values {
			args = append(args, value)
		}
	}
	return args
}

// preloadPoint fills every key of c's key space for the point test p, pipelined like preload: each key
// answers the number of items it gained, all of them on a flushed server.
func preloadPoint(ctx context.Context, addr string, p pointTest, c cell, conns int) error {
	if p.script != "" {
		r, err := command(addr, 10*time.Second, "SCRIPT", "LOAD", p.script)
		if err == nil && r != sha1Hex(p.script) {
			err = fmt.Errorf("SCRIPT LOAD answered %q", r)
		}
		return err
	}
	value := strings.Repeat("x", c.Size)
	fill := func(dst []byte, n int) []byte { return appendCommand(dst, p.loadArgs(n, value)...) }
	switch {
	case p.fill != nil:
		fill = func(dst []byte, n int) []byte {
			return appendCommand(dst, p.fill(fmt.Sprintf("%s%012d", p.prefix, n), value)...)
		}
	case p.load == "":
		return nil // the command line writes what it needs
	}
	return preloadWith(ctx, addr, c.Keyspace, conns, fill, ":"+strconv.Itoa(pointItems)+"\r\n")
}
