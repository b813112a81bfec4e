package main

import "strings"

// compatZSetScripts are TestCompatWithRedis's scripts for sorted sets, and
// for the generic key commands on them. Each starts from the thresholds
// Redis 7.0 has without a configuration file and puts them back at its end.
func compatZSetScripts() []compatScript {
	s, a, u, shape := compatS, compatA, compatUnord, compatShp
	long := strings.Repeat("L", 65)
	defaults := s("CONFIG SET zset-max-listpack-entries 128 zset-max-listpack-value 64")
	const crossSlot = "sorted-set commands over several keys answer CROSSSLOT when the keys are on different shards"
	return []compatScript{
		{name: "zset-commands", cmds: []compatCmd{
			defaults,
			s("ZADD z 1 a 2 b 3 c 1.1 d -inf e +inf f"), s("ZRANGE z 0 -1 WITHSCORES"), s("ZSCORE z d"),
			s("ZADD z NX 5 a 6 g"), s("ZADD z XX CH 7 a 8 h"), s("ZADD z GT CH 1 a 10 b"), s("ZADD z LT INCR 100 c"),
			s("ZADD z INCR 1 c"), s("ZADD z NX XX 1 a"), s("ZADD z GT LT 1 a"), s("ZADD z GT NX 1 a"),
			s("ZADD z INCR 1 a 2 b"), s("ZADD z 1"), s("ZADD z 1 a 2"), s("ZADD z abc a"), s("ZADD z nan a"),
			s("ZADD z 1 a x b"), s("ZINCRBY z 2.5 q"), s("ZINCRBY z abc q"), s("ZINCRBY z 1"), s("ZCARD z"),
			s("ZCARD nokey"), s("ZRANK z c"), s("ZREVRANK z c"), s("ZRANK z nope"), s("ZRANK nokey a"),
			s("ZCOUNT z -inf +inf"), s("ZCOUNT z (1 3"), s("ZCOUNT z x 3"), s("ZCOUNT z (1 (1"), s("ZCOUNT nokey 0 1"),
			s("ZRANGEBYSCORE z (1 10 WITHSCORES LIMIT 1 2"), s("ZREVRANGEBYSCORE z 10 (1 WITHSCORES"),
			s("ZREVRANGEBYSCORE z +inf -inf LIMIT 0 3"), s("ZRANGEBYSCORE z -inf +inf LIMIT 2 -1"),
			s("ZRANGEBYSCORE z -inf +inf LIMIT -1 2"), s("ZRANGEBYSCORE z 1 2 LIMIT 0"), s("ZRANGEBYSCORE z 1 2 foo"),
			s("ZRANGEBYSCORE z 1e400 +inf"), s("ZRANGEBYSCORE z (x 5"), s("ZRANGEBYSCORE z nan 5"),
			s("ZRANGE z 0 -1 REV WITHSCORES"), s("ZRANGE z (1 5 BYSCORE LIMIT 0 2"), s("ZRANGE z 5 (1 BYSCORE REV"),
			s("ZRANGE z 0 1 LIMIT 0 1"), s("ZRANGE z - + BYLEX WITHSCORES"), s("ZRANGE z 0 -1 REV REV"),
			s("ZRANGE z 0 -1 BYSCORE BYLEX"), s("ZRANGE z 0 -1 WITHSCORES WITHSCORES"), s("ZRANGE z x 1"),
			s("ZRANGE z 2 1"), s("ZRANGE z -100 100"), s("ZRANGE z 5 3 BYSCORE"), s("ZRANGE nokey x 1"),
			s("ZRANGE nokey (a 1 BYSCORE"), s("ZREVRANGE z 0 2 WITHSCORES"), s("ZREVRANGE z -2 -1"),
			s("ZREVRANGE z 0 -1 LIMIT 0 1"), s("ZRANGEBYLEX z - + WITHSCORES"), s("ZRANGEBYSCORE z 0 1 REV"),
			s("ZMSCORE z a nope b"), s("ZMSCORE nokey a b"), s("ZMSCORE z"),
			s("ZADD lex 0 a 0 b 0 c 0 d 0 e 0 ff"), s("ZRANGEBYLEX lex [b (e"), s("ZRANGEBYLEX lex - + LIMIT 1 2"),
			s("ZREVRANGEBYLEX lex + [c"), s("ZRANGEBYLEX lex b e"), s("ZLEXCOUNT lex (a [ff"), s("ZLEXCOUNT lex - -"),
			s("ZLEXCOUNT lex + -"), s("ZLEXCOUNT lex x y"), s("ZRANGE lex [a [c BYLEX REV"), s("ZRANGE lex [c [a BYLEX REV"),
			s("ZRANGE lex [c [a BYLEX REV LIMIT 1 1"), s("ZREMRANGEBYLEX lex [b [c"), s("ZREMRANGEBYLEX lex x y"),
			s("ZRANGE lex 0 -1"), s("ZPOPMIN z"), s("ZPOPMAX z 2"), s("ZPOPMIN z 0"), s("ZPOPMIN z -1"), s("ZPOPMIN z x"),
			s("ZPOPMIN z 1 2"), s("ZPOPMIN nokey"), s("ZPOPMAX nokey 3"), s("ZREMRANGEBYRANK z 0 0"),
			s("ZREMRANGEBYRANK z x 0"), s("ZREMRANGEBYSCORE z -inf 2"), s("ZREMRANGEBYSCORE z x 2"),
			s("ZREMRANGEBYRANK nokey 0 -1"), s("ZRANGE z 0 -1 WITHSCORES"), s("ZREM z a b c nope"), s("ZREM nokey a"),
			s("TYPE z"), s("OBJECT ENCODING z"), s("ZADD z -0 zero 0.1 pt 1e20 big 123456789012345678 huge 1e-5 tiny"),
			s("ZSCORE z zero"), s("ZRANGE z 0 -1 WITHSCORES"), s("ZREM lex a d e ff"), s("EXISTS lex"),
			s("ZADD inf 1 a"), s("ZADD inf INCR +inf a"), s("ZADD inf INCR -inf a"), s("ZSCORE inf a"),
			s("ZADD nz XX 1 a"), s("ZADD nz XX INCR 1 a"), s("EXISTS nz"), s("ZADD z GT INCR -1 huge"),
			s("ZADD z NX INCR 1 huge"), s("ZADD z NX INCR 1 brandnew"), s("ZADD z 2 e 1 e"), s("ZSCORE z e"),
			// Strings and sorted sets refuse each other's commands.
			s("SET str v"), s("ZADD str 1 a"), s("ZSCORE str a"), s("ZRANGE str 0 -1"), s("ZRANGE str x 1"),
			s("ZCOUNT str x 1"), s("ZCARD str"), s("ZREM str a"), s("ZPOPMIN str"), s("ZRANK str a"), s("ZSCAN str 0"),
			s("GET z"), s("SADD z a"), s("HGET z a"), s("TYPE z"),
			a("ZADD", "bin", "1", "\x00a\r\n", "1", ""), s("ZRANGE bin 0 -1 WITHSCORES"), a("ZSCORE", "bin", ""),
			shape("HELLO 3"), s("ZRANGE z 0 2 WITHSCORES"), s("ZSCORE z big"), s("ZMSCORE z big nope"),
			s("ZPOPMIN z"), s("ZPOPMIN z 2"), s("ZPOPMAX nokey 2"), s("ZINCRBY z 1 x"), s("ZRANGEBYSCORE z -inf +inf WITHSCORES"),
			shape("HELLO 2"),
		}},
		{name: "zset-encodings", cmds: []compatCmd{
			defaults,
			s("ZADD z 1 a 2 b"), s("OBJECT ENCODING z"), a("ZADD", "z", "3", long), s("OBJECT ENCODING z"),
			s("ZCARD z"), s("ZRANGE z 0 -1 WITHSCORES"), s("ZREM z a b " + long), s("EXISTS z"),
			s("CONFIG SET zset-max-listpack-entries 3"), s("CONFIG GET zset-max-listpack-entries"),
			s("CONFIG GET zset-max-ziplist-entries"), s("ZADD x 1 a 2 b 3 c"), s("OBJECT ENCODING x"),
			s("ZADD x 4 c"), s("OBJECT ENCODING x"), s("ZADD x 4 d"), s("OBJECT ENCODING x"), s("ZRANGE x 0 -1 WITHSCORES"),
			s("ZREM x a b c"), s("OBJECT ENCODING x"), s("RENAME x {t}x"), s("ZRANGESTORE {t}y {t}x 0 -1"),
			s("OBJECT ENCODING {t}y"),
			s("CONFIG SET zset-max-listpack-entries 0"), s("ZADD e 1 a"), s("OBJECT ENCODING e"),
			s("CONFIG SET zset-max-listpack-value 1kb"), s("CONFIG GET zset-max-ziplist-value"),
			s("CONFIG SET zset-max-listpack-value abc"), defaults,
		}},
		{name: "zset-key-commands", cmds: []compatCmd{
			defaults,
			s("ZADD z{1} 1 a 2 b"), s("EXPIRE z{1} 1000"), s("TTL z{1}"), s("RENAME z{1} z{2}"), s("ZRANGE z{2} 0 -1 WITHSCORES"),
			s("TTL z{2}"), s("COPY z{2} z{3}"), s("ZADD z{3} 3 c"), s("ZCARD z{2}"), s("ZCARD z{3}"), s("MOVE z{3} 1"),
			s("SELECT 1"), s("ZRANGE z{3} 0 -1"), s("SELECT 0"),
			// Keys on different shards: the value crosses in the blob.
			s("ZADD src 1 a 2 b 3 c"), s("PEXPIRE src 100000"), s("RENAME src dst"), s("ZRANGE dst 0 -1 WITHSCORES"),
			shape("PTTL dst"), s("COPY dst dst2"), s("ZRANGE dst2 0 -1 WITHSCORES"), s("OBJECT ENCODING dst2"),
			a("ZADD", "big", "1", "a", "2", strings.Repeat("x", 100)), s("OBJECT ENCODING big"),
			s("RENAME big big2"), s("OBJECT ENCODING big2"), s("ZRANGE big2 0 -1 WITHSCORES"), s("COPY big2 big3"),
			s("OBJECT ENCODING big3"), s("ZRANGE big3 0 -1 WITHSCORES"), s("DEL big2 big3 dst dst2"),
			s("ZADD t1 1 a"), compatScanOf("SCAN 0 TYPE zset"), shape("MEMORY USAGE t1"), s("DBSIZE"),
			// ZRANGESTORE runs where both its keys are.
			s("ZADD {t}s 1 a 2 b 3 c"), s("ZRANGESTORE {t}d {t}s 0 1"), s("ZRANGE {t}d 0 -1 WITHSCORES"),
			s("ZRANGESTORE {t}d {t}s (1 +inf BYSCORE REV LIMIT 0 1"), s("ZRANGE {t}d 0 -1 WITHSCORES"),
			s("ZRANGESTORE {t}d {t}s 5 6"), s("EXISTS {t}d"), s("ZRANGESTORE {t}d {t}none 0 -1"),
			s("ZRANGESTORE {t}d {t}s 0 -1 WITHSCORES"), s("SET {t}str v"), s("ZRANGESTORE {t}d {t}str 0 -1"),
			s("ZRANGESTORE {t}str {t}s 0 0"), s("TYPE {t}str"), s("ZRANGESTORE {t}s {t}s 1 1"), s("ZRANGE {t}s 0 -1"),
			s("ZRANGESTORE dst src 0 -1").knownIn(4, crossSlot),
		}},
		{name: "zset-random-scan", cmds: []compatCmd{
			defaults,
			s("ZRANDMEMBER nokey"), s("ZRANDMEMBER nokey 3"), s("ZRANDMEMBER nokey -3 WITHSCORES"),
			s("ZADD z 1 a 2 b 3.5 c"), s("ZRANDMEMBER z 0"), u("ZRANDMEMBER z 3"), u("ZRANDMEMBER z 10 WITHSCORES"),
			shape("ZRANDMEMBER z"), shape("ZRANDMEMBER z 2"), shape("ZRANDMEMBER z -5"), shape("ZRANDMEMBER z -5 WITHSCORES"),
			s("ZRANDMEMBER z x"), s("ZRANDMEMBER z 1 foo"), s("ZRANDMEMBER z 1 WITHSCORES x"),
			s("ZRANDMEMBER z -9223372036854775808"), s("ZRANDMEMBER z -4611686018427387904 WITHSCORES"),
			s("ZSCAN z 0"), s("ZSCAN z 0 MATCH a*"), s("ZSCAN z 0 COUNT 1"), s("ZSCAN z 0 COUNT 0"), s("ZSCAN z x"),
			s("ZSCAN nokey 0"), shape("HELLO 3"), shape("ZRANDMEMBER z -2 WITHSCORES"), s("ZSCAN z 0"), shape("HELLO 2"),
		}},
	}
}
