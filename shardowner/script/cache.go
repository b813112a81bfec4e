package script

import (
	"crypto/sha1"
	"encoding/hex"

	lua "github.com/yuin/gopher-lua"
)

// Script is a compiled script in the cache.
type Script struct {
	// SHA is the SHA1 of Body in lower-case hex: the script's name.
	SHA string
	// Body is the script as given, shebang included: what EVALSHA
	// replicates as EVAL.
	Body []byte
	// Flags are the shebang's.
	Flags Flags

	fn *lua.LFunction
	// evalOnly marks a script that only EVAL added: it is in the LRU list
	// and may be evicted. SCRIPT LOAD clears it.
	evalOnly   bool
	prev, next *Script
}

// EvalCacheSize bounds the scripts EVAL adds: beyond it the least recently
// used of them is dropped, as Redis 7.4 does (LRU_LIST_LENGTH). Scripts
// SCRIPT LOAD added are never dropped. (Redis 7.0 keeps every script; the
// bound is 7.4's, so that EVAL of generated scripts cannot fill memory.)
const EvalCacheSize = 500

// cache maps SHAs to scripts, the EVAL-only ones also in an LRU list
// (least recent at head).
type cache struct {
	m          map[string]*Script
	head, tail *Script
	lruLen     int
	evicted    uint64
	bodyBytes  int
}

func (c *cache) init() {
	c.m = make(map[string]*Script)
	c.head, c.tail, c.lruLen, c.bodyBytes = nil, nil, 0, 0
}

// SHA1Hex is the SHA1 of b in lower-case hex, as Redis names scripts.
func SHA1Hex(b []byte) string {
	sum := sha1.Sum(b)
	return hex.EncodeToString(sum[:])
}

// lowerSHA is sha in lower case, without a copy when it is already.
func lowerSHA(sha string) string {
	for i := 0; i < len(sha); i++ {
		if c := sha[i]; c >= 'A' && c <= 'Z' {
			b := []byte(sha)
			for j := i; j < len(b); j++ {
				if b[j] >= 'A' && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return sha
}

// get is the script named sha (any case), or nil.
func (c *cache) get(sha string) *Script {
	if len(sha) != 40 {
		return nil
	}
	return c.m[lowerSHA(sha)]
}

// add returns the script of body, compiling and adding it if it is not
// there: as an EVAL-only script unless load (SCRIPT LOAD), which also makes
// an EVAL-only script permanent.
func (c *cache) add(e *Engine, body []byte, load bool) (*Script, error) {
	sum := sha1.Sum(body)
	var hexBuf [40]byte
	hex.Encode(hexBuf[:], sum[:])
	if s := c.m[string(hexBuf[:])]; s != nil {
		if load && s.evalOnly {
			c.unlink(s)
			s.evalOnly = false
		}
		return s, nil
	}
	flags, shebang, err := ParseShebang(body)
	if err != nil {
		return nil, err
	}
	// The shebang line is left out but its newline kept, so that line
	// numbers are the body's.
	proto, err := compile(string(body[shebang:]), scriptChunk)
	if err != nil {
		return nil, Error("ERR Error compiling script (new function): " + err.Error())
	}
	fn := e.vm.NewFunctionFromProto(proto)
	fn.Env = e.protG
	s := &Script{
		SHA:   string(hexBuf[:]),
		Body:  append([]byte(nil), body...),
		Flags: flags,
		fn:    fn,
	}
	if !load {
		for c.lruLen >= EvalCacheSize {
			old := c.head
			c.unlink(old)
			delete(c.m, old.SHA)
			c.bodyBytes -= len(old.Body)
			c.evicted++
		}
		s.evalOnly = true
		c.pushTail(s)
	}
	c.m[s.SHA] = s
	c.bodyBytes += len(s.Body)
	return s, nil
}

// touch moves an EVAL-only script to the LRU tail after it ran.
func (c *cache) touch(s *Script) {
	if s.evalOnly && c.tail != s && c.m[s.SHA] == s {
		c.unlink(s)
		c.pushTail(s)
	}
}

func (c *cache) pushTail(s *Script) {
	s.prev, s.next = c.tail, nil
	if c.tail != nil {
		c.tail.next = s
	} else {
		c.head = s
	}
	c.tail = s
	c.lruLen++
}

func (c *cache) unlink(s *Script) {
	if s.prev != nil {
		s.prev.next = s.next
	} else {
		c.head = s.next
	}
	if s.next != nil {
		s.next.prev = s.prev
	} else {
		c.tail = s.prev
	}
	s.prev, s.next = nil, nil
	c.lruLen--
}

// Load compiles body and keeps it until Flush (SCRIPT LOAD), returning its
// SHA. The error is the reply to send: a shebang error or "ERR Error
// compiling script (new function): user_script:<line>: <message>".
func (e *Engine) Load(body []byte) (sha string, err error) {
	s, err := e.cache.add(e, body, true)
	if err != nil {
		return "", err
	}
	return s.SHA, nil
}

// Compile returns the cached script of body, compiling and adding it to
// the EVAL part of the cache if it is not there (what EVAL does before it
// runs the script), so that the server can check its flags first.
func (e *Engine) Compile(body []byte) (*Script, error) {
	return e.cache.add(e, body, false)
}

// Script returns the cached script named sha (any case), or nil.
func (e *Engine) Script(sha string) *Script { return e.cache.get(sha) }

// ScriptNamed is Script for a name as the client sent it: a lower-case one,
// as clients send them, is looked up without a copy.
func (e *Engine) ScriptNamed(sha []byte) *Script {
	if len(sha) != 40 {
		return nil
	}
	if s := e.cache.m[string(sha)]; s != nil {
		return s
	}
	return e.cache.get(string(sha))
}

// Exists reports whether sha (any case) is cached (SCRIPT EXISTS).
func (e *Engine) Exists(sha string) bool { return e.cache.get(sha) != nil }

// Flush drops every script and starts a fresh interpreter (SCRIPT FLUSH,
// Redis's scriptingReset). The count of evicted scripts and the random
// generator's state survive it, as in Redis.
func (e *Engine) Flush() {
	if e.cur != nil {
		return
	}
	e.vm.Close()
	e.cache.init()
	e.setup()
}

// Len is the number of cached scripts (INFO number_of_cached_scripts).
func (e *Engine) Len() int { return len(e.cache.m) }

// Evicted is the number of EVAL scripts dropped to keep the cache bound
// (INFO evicted_scripts).
func (e *Engine) Evicted() uint64 { return e.cache.evicted }

// BodyBytes is the size of the cached scripts' bodies, the main part of
// INFO used_memory_scripts_eval.
func (e *Engine) BodyBytes() int { return e.cache.bodyBytes }

// Check compiles body as Load would, without keeping it, and returns its
// SHA or the error Load would reply: SCRIPT LOAD checks a script where no
// engine is at hand, and the engines compile it when they first run it.
func Check(body []byte) (sha string, err error) {
	_, shebang, err := ParseShebang(body)
	if err != nil {
		return "", err
	}
	if _, err := compile(string(body[shebang:]), scriptChunk); err != nil {
		return "", Error("ERR Error compiling script (new function): " + err.Error())
	}
	return SHA1Hex(body), nil
}
