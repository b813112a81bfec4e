package script

import (
	"context"
	"strconv"
	"testing"

	"github.com/corekv/corekv/resp"
)

// incrHost answers INCR from one counter: the least a host can do.
type incrHost struct{ n int64 }

func (h *incrHost) Call(ctx CallContext, argv [][]byte, dst []byte) []byte {
	h.n++
	dst = append(dst, ':')
	dst = strconv.AppendInt(dst, h.n, 10)
	return append(dst, '\r', '\n')
}

// BenchmarkEvalSHAIncr is the cost of a one-call script, EVALSHA of
// "return redis.call('INCR', KEYS[1])": KEYS and ARGV, the call, the reply
// parsed into Lua and written back as RESP.
func BenchmarkEvalSHAIncr(b *testing.B) {
	for _, watched := range []bool{false, true} {
		name := "plain"
		var opts Options
		if watched {
			name, opts.Watch = "watched", NewWatch()
		}
		b.Run(name, func(b *testing.B) {
			e := New(opts)
			sha, err := e.Load([]byte("return redis.call('INCR', KEYS[1])"))
			if err != nil {
				b.Fatal(err)
			}
			keys := [][]byte{[]byte("counter")}
			h := &incrHost{}
			w := resp.Writer{Proto: 2, B: make([]byte, 0, 64)}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				w.B = w.B[:0]
				if opts.Watch != nil {
					opts.Watch.Begin(1)
				}
				e.EvalSHA(sha, keys, nil, h, &w)
				if opts.Watch != nil {
					opts.Watch.End()
				}
			}
			if string(w.B[:1]) != ":" {
				b.Fatalf("reply %q", w.B)
			}
		})
	}
}

// BenchmarkEvalReturn is the cost of running a script that calls nothing.
func BenchmarkEvalReturn(b *testing.B) {
	e := New(Options{})
	body := []byte("return 1")
	w := resp.Writer{Proto: 2, B: make([]byte, 0, 64)}
	h := &incrHost{}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		w.B = w.B[:0]
		e.Eval(body, nil, nil, h, &w)
	}
}

// BenchmarkEvalSHALoop is a script that calls the host 100 times.
func BenchmarkEvalSHALoop(b *testing.B) {
	e := New(Options{})
	sha, _ := e.Load([]byte("local n for i = 1, 100 do n = redis.call('INCR', KEYS[1]) end return n"))
	keys := [][]byte{[]byte("counter")}
	h := &incrHost{}
	w := resp.Writer{Proto: 2, B: make([]byte, 0, 64)}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		w.B = w.B[:0]
		e.EvalSHA(sha, keys, nil, h, &w)
	}
}

// BenchmarkEvalSHALoopInterruptible is BenchmarkEvalSHALoop with an
// interrupt context set: the interpreter checks it at every instruction.
func BenchmarkEvalSHALoopInterruptible(b *testing.B) {
	e := New(Options{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	e.SetInterrupt(ctx)
	sha, _ := e.Load([]byte("local n for i = 1, 100 do n = redis.call('INCR', KEYS[1]) end return n"))
	keys := [][]byte{[]byte("counter")}
	h := &incrHost{}
	w := resp.Writer{Proto: 2, B: make([]byte, 0, 64)}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		w.B = w.B[:0]
		e.EvalSHA(sha, keys, nil, h, &w)
	}
}

// BenchmarkLuaLoop is Lua code alone: a loop of arithmetic.
func BenchmarkLuaLoop(b *testing.B) {
	for _, name := range []string{"plain", "interruptible", "watched"} {
		b.Run(name, func(b *testing.B) {
			var opts Options
			if name == "watched" {
				opts.Watch = NewWatch()
			}
			e := New(opts)
			if name == "interruptible" {
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				e.SetInterrupt(ctx)
			}
			sha, _ := e.Load([]byte("local n = 0 for i = 1, 1000 do n = n + i % 7 end return n"))
			w := resp.Writer{Proto: 2, B: make([]byte, 0, 64)}
			h := &incrHost{}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				w.B = w.B[:0]
				e.EvalSHA(sha, nil, nil, h, &w)
			}
		})
	}
}
