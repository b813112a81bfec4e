package main

import (
	"strings"
	"testing"
)

// TestXReadEdges: XREAD where it may not block (a script, MULTI) and over
// keys of several shards, against redis-server. (Blocked reads over
// several shards: TestBlockingWithRedis.)
func TestXReadEdges(t *testing.T) {
	redisAddr := compatStartRedis(t, needTool(t, "redis-server"))
	srv := compatStartCorekv(t, corekvBinary(t), 3)
	steps := []compatCmd{
		compatS("XADD a 1-1 f 1"), compatS("XADD b 2-2 g 2"), compatS("XADD c 3-3 h 3"),
		compatS("XREAD STREAMS a b c 0 0 0"),
		compatS("XREAD COUNT 1 STREAMS a b c nokey 0 1-1 $ 0"),
		compatS("XREAD STREAMS a b c"),
		compatS("XREAD STREAMS a b 0"),
		compatA("EVAL", "return redis.call('xread','streams','a','0')", "1", "a"),
		compatA("EVAL", "return redis.pcall('xread','block','0','streams','a','$')", "1", "a"),
		compatA("EVAL", "return redis.pcall('XREAD','BLOCK','0','streams','a','$')", "1", "a"),
		compatS("SET str x"), compatS("XREAD STREAMS a str 0 0"), compatS("XREAD BLOCK 0 STREAMS str $"),
	}
	rc, err := compatDial(redisAddr)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.close()
	kc, err := compatDial(srv.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer kc.close()
	for _, st := range steps {
		want, err1 := rc.do(st)
		got, err2 := kc.do(st)
		if err1 != nil || err2 != nil {
			t.Fatalf("%v: %v / %v", st.args, err1, err2)
		}
		if string(want.raw) != string(got.raw) {
			t.Errorf("%s: redis %q, corekv %q", strings.Join(st.args, " "), want.raw, got.raw)
		}
	}
	kc.do(compatS("XADD {t}a 1-1 f 1"))
	kc.do(compatS("XADD {t}b 1-1 f 1"))
	if got, err := kc.do(compatS("XREAD BLOCK 0 STREAMS {t}a {t}b 0 0")); err != nil || !strings.HasPrefix(string(got.raw), "*2\r\n") {
		t.Errorf("XREAD BLOCK over keys of one tag: %v %v", got, err)
	}
}
