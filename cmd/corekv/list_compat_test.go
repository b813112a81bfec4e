package main

import "strings"

// compatListScripts are TestCompatWithRedis's scripts for lists, and for
// the generic key commands on them. Each starts from Redis 7.0's default
// node size and puts it back at its end.
func compatListScripts() []compatScript {
	s, a, shape := compatS, compatA, compatShp
	defaults := s("CONFIG SET list-max-listpack-size -2")
	long := strings.Repeat("L", 5000)
	return []compatScript{
		{name: "list-commands", cmds: []compatCmd{
			defaults,
			s("RPUSH l a b c a b c"), s("LPUSH l x y"), s("LRANGE l 0 -1"), s("LLEN l"), s("LLEN nokey"), s("TYPE l"),
			s("OBJECT ENCODING l"), s("LINDEX l 0"), s("LINDEX l -1"), s("LINDEX l 8"), s("LINDEX l -9"), s("LINDEX l x"),
			s("LINDEX nokey 0"), s("LRANGE l -100 1"), s("LRANGE l 5 2"), s("LRANGE l -1 -2"), s("LRANGE l 2 100"),
			s("LRANGE l x 1"), s("LRANGE nokey 0 -1"),
			s("LPOS l a"), s("LPOS l a RANK -1"), s("LPOS l a RANK 2"), s("LPOS l a RANK 3"), s("LPOS l a COUNT 0"),
			s("LPOS l a COUNT 0 RANK -1"), s("LPOS l a COUNT 1 RANK -1 MAXLEN 2"), s("LPOS l a COUNT 0 MAXLEN 3"),
			s("LPOS l a RANK -1 MAXLEN 4"), s("LPOS l a RANK -9223372036854775808"),
			s("LPOS l a RANK -9223372036854775808 COUNT 1"), s("LPOS l a RANK -9223372036854775807"),
			s("LPOS l a RANK 0"), s("LPOS l a RANK x"), s("LPOS l a COUNT x"), s("LPOS l a COUNT -1"), s("LPOS l a MAXLEN -1"),
			s("LPOS l a RANK"), s("LPOS l a FOO 1"), s("LPOS nokey a"), s("LPOS nokey a COUNT 0"), s("LPOS l zz"),
			s("LPOS l zz COUNT 2"),
			s("LPOP l"), s("RPOP l"), s("LPOP l 2"), s("RPOP l 2"), s("LPOP l 0"), s("LPOP nokey 0"), s("LPOP nokey"),
			s("RPOP nokey 3"), s("LPOP l x"), s("LPOP l -1"), s("LPOP l 1 2"), s("LRANGE l 0 -1"),
			s("LINSERT l BEFORE b NEW"), s("LINSERT l after c NEW2"), s("LINSERT l middle c NEW2"),
			s("LINSERT l AFTER zz NEW2"), s("LINSERT nokey AFTER zz NEW2"), s("LRANGE l 0 -1"),
			s("LSET l 0 S"), s("LSET l -1 E"), s("LSET l 99 E"), s("LSET l x E"), s("LSET nokey 0 E"), s("LRANGE l 0 -1"),
			s("RPUSH r a b a b a b a"), s("LREM r 2 a"), s("LRANGE r 0 -1"), s("LREM r -1 b"), s("LRANGE r 0 -1"),
			s("LREM r 0 b"), s("LREM r 0 zz"), s("LREM r x zz"), s("LREM nokey 1 a"), s("LREM r 0 a"), s("EXISTS r"),
			s("RPUSH t 1 2 3 4 5 6 7"), s("LTRIM t 1 -2"), s("LRANGE t 0 -1"), s("LTRIM t 0 100"), s("LTRIM t -2 -1"),
			s("LRANGE t 0 -1"), s("LTRIM t 5 10"), s("EXISTS t"), s("LTRIM nokey 0 1"), s("LTRIM t x 1"),
			s("LPUSHX nx a"), s("RPUSHX nx a"), s("EXISTS nx"), s("LPUSHX l P1 P2"), s("RPUSHX l Q1 Q2"), s("LRANGE l 0 -1"),
			a("RPUSH", "bin", "", "\x00\xff", "a\r\nb"), s("LRANGE bin 0 -1"), a("LPOS", "bin", ""), a("LREM", "bin", "0", ""),
			s("LRANGE bin 0 -1"),
			// Lists and other types refuse each other's commands.
			s("SET str v"), s("LPUSH str a"), s("RPUSHX str a"), s("LPOP str"), s("LPOP str 0"), s("LLEN str"),
			s("LRANGE str 0 1"), s("LINDEX str 0"), s("LSET str 0 a"), s("LINSERT str BEFORE a b"), s("LREM str 0 a"),
			s("LTRIM str 0 1"), s("LPOS str a"), s("LPOS str a COUNT x"), s("RPUSH lst a"), s("GET lst"), s("HGET lst a"),
			s("SADD lst a"), s("INCR lst"), s("APPEND lst x"), s("LPUSH"), s("LPUSH k"), s("LRANGE k 0"), s("LINSERT k a b"),
			s("LPOP"), s("LLEN a b"),
			shape("HELLO 3"), s("LPOP nokey 1"), s("LRANGE l 0 1"), s("LPOS l P1 COUNT 0"), s("LMPOP 1 nokey LEFT"),
			shape("HELLO 2"),
		}},
		{name: "list-move", cmds: []compatCmd{
			defaults,
			s("RPUSH {t}m a b c"), s("LMOVE {t}m {t}n LEFT RIGHT"), s("LMOVE {t}m {t}n right left"), s("LRANGE {t}n 0 -1"),
			s("LMOVE {t}m {t}m LEFT RIGHT"), s("LRANGE {t}m 0 -1"), s("RPOPLPUSH {t}m {t}n"), s("EXISTS {t}m"),
			s("RPOPLPUSH {t}nokey {t}n"), s("LMOVE {t}n {t}n UP LEFT"), s("LMOVE {t}nokey {t}n LEFT LEFT"),
			s("LMPOP 1 {t}n LEFT"), s("LMPOP 2 {t}nokey {t}n RIGHT COUNT 5"), s("LMPOP 2 {t}nokey {t}n RIGHT COUNT 5"),
			s("LMPOP 0 {t}n LEFT"), s("LMPOP x {t}n LEFT"), s("LMPOP -1 {t}n LEFT"), s("LMPOP 1 {t}n MIDDLE"),
			s("LMPOP 1 {t}n LEFT COUNT 0"), s("LMPOP 1 {t}n LEFT COUNT x"), s("LMPOP 1 {t}n LEFT COUNT 1 2"),
			s("LMPOP 1 {t}n LEFT COUNT"), s("LMPOP 2 {t}n LEFT"), s("LMPOP 3 {t}n LEFT"), s("LMPOP 1 {t}n LEFT FOO"),
			s("COMMAND GETKEYS LMPOP 2 a b LEFT"), s("COMMAND GETKEYS LMPOP 1 a LEFT COUNT 2"), s("COMMAND GETKEYS LMPOP 0 a LEFT"),
			s("COMMAND GETKEYS LMPOP x a LEFT"), s("COMMAND GETKEYS LMPOP 3 a LEFT"), s("COMMAND GETKEYS LMOVE a b LEFT RIGHT"),
			s("SET {t}s v"), s("RPUSH {t}l a b"), s("LMPOP 2 {t}s {t}l LEFT"), s("LMPOP 2 {t}l {t}s LEFT"),
			s("LMPOP 2 {t}nokey {t}s LEFT"), s("LMOVE {t}s {t}l LEFT LEFT"), s("LMOVE {t}l {t}s LEFT LEFT"),
			s("LMOVE {t}nokey {t}s LEFT LEFT"), s("RPOPLPUSH {t}l {t}s"), s("LRANGE {t}l 0 -1"),
			// Keys on several shards: gathered, run whole, written back.
			s("RPUSH a1 x"), s("LMOVE a1 b1 LEFT LEFT"), s("RPOPLPUSH b1 a1"), s("RPUSH b1 y z"),
			s("LMPOP 2 b1 a1 LEFT"), s("LMPOP 2 nokey a1 RIGHT COUNT 5"), s("LRANGE a1 0 -1"), s("LRANGE b1 0 -1"),
			s("SET s1 v"), s("LMOVE b1 s1 LEFT LEFT"), s("LMPOP 2 b1 s1 LEFT"), s("LRANGE b1 0 -1"),
		}},
		{name: "list-big", cmds: []compatCmd{
			s("CONFIG SET list-max-listpack-size 3"), s("CONFIG GET list-max-listpack-size"),
			s("CONFIG GET list-max-ziplist-size"), s("CONFIG SET list-max-ziplist-size -3"),
			s("CONFIG GET list-max-listpack-size"), s("CONFIG SET list-max-listpack-size 4"),
			s("CONFIG SET list-max-listpack-size 2147483648"), s("CONFIG SET list-max-listpack-size x"),
			s("CONFIG SET list-compress-depth 1"), s("CONFIG GET list-compress-depth"),
			s("CONFIG SET list-compress-depth -1"), s("CONFIG SET list-compress-depth 0"),
			s("RPUSH b 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19"), s("LPUSH b -1 -2 -3 -4 -5"),
			s("OBJECT ENCODING b"), s("LLEN b"), s("LRANGE b 0 -1"), s("LRANGE b 3 9"), s("LRANGE b -7 -3"),
			s("LINDEX b 0"), s("LINDEX b 11"), s("LINDEX b -1"), s("LINDEX b -13"),
			s("LSET b 12 twelve"), s("LINSERT b BEFORE twelve x"), s("LINSERT b AFTER twelve y"), s("LINSERT b AFTER 19 z"),
			s("LRANGE b 0 -1"), s("LPOS b 5"), s("LPOS b y RANK -1"), s("LREM b 0 x"), s("LREM b -1 y"),
			s("LPOP b 4"), s("RPOP b 4"), s("LRANGE b 0 -1"), s("LTRIM b 2 -3"), s("LRANGE b 0 -1"), s("LLEN b"),
			a("RPUSH", "b", long, "after"), a("LINDEX", "b", "-2"), s("LPOS b after"), s("RPOP b 3"),
			// Key commands on a big list, also across shards.
			s("PEXPIRE b 100000"), s("RENAME b {2}b"), s("LRANGE {2}b 0 -1"), s("COPY {2}b c"), s("LRANGE c 0 -1"),
			s("RPUSH c more"), s("LLEN {2}b"), s("LLEN c"), s("OBJECT ENCODING c"), s("MOVE c 1"), s("SELECT 1"),
			s("LRANGE c 0 -1"), s("SELECT 0"), shape("PTTL {2}b"), compatScanOf("SCAN 0 TYPE list"), s("TYPE {2}b"),
			shape("MEMORY USAGE {2}b"), s("DEL {2}b"), s("EXISTS {2}b"),
			s("RPUSH {t}q 1 2 3 4 5 6 7 8 9"), s("LMOVE {t}q {t}q RIGHT LEFT"), s("LMOVE {t}q {t}r LEFT RIGHT"),
			s("LMPOP 2 {t}r {t}q RIGHT COUNT 4"), s("LRANGE {t}q 0 -1"), s("LRANGE {t}r 0 -1"),
			defaults,
		}},
	}
}
