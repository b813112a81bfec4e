package main

import "strings"

// compatHashScripts are TestCompatWithRedis's scripts for hashes and sets,
// and for the generic key commands on them. Each starts from the thresholds Redis 7.0
// has without a configuration file and puts them back at its end.
func compatHashScripts() []compatScript {
	s, a, u, shape := compatS, compatA, compatUnord, compatShp
	long := strings.Repeat("L", 65)
	defaults := s("CONFIG SET hash-max-listpack-entries 512 hash-max-listpack-value 64")
	return []compatScript{
		{name: "hash-commands", cmds: []compatCmd{
			defaults,
			s("HSET h a 1 b 2 c 3"), s("HSET h a 10 d 4"), s("HGETALL h"), s("HLEN h"), s("HGET h a"), s("HGET h zz"),
			s("HGET nokey a"), s("HMGET h a zz d"), s("HMGET nokey a b"), s("HEXISTS h b"), s("HEXISTS h zz"),
			s("HSTRLEN h a"), s("HSTRLEN h zz"), s("HSETNX h a 99"), s("HSETNX h e 5"), s("HDEL h b zz b"),
			s("HKEYS h"), s("HVALS h"), s("HINCRBY h a 5"), s("HINCRBY h new -3"), s("HINCRBY h a x"),
			s("HINCRBY h a 9223372036854775807"), s("HINCRBY h a -9223372036854775808"), s("HINCRBYFLOAT h a 0.5"),
			s("HINCRBY h a 1"), s("HINCRBYFLOAT h f 1e3"), s("HINCRBYFLOAT h f inf"), s("HINCRBYFLOAT h f abc"),
			s("HINCRBYFLOAT h f 0.1"), s("HINCRBYFLOAT h f 0.2"), s("HGET h f"), s("HSET h s 1.5e3"), s("HINCRBYFLOAT h s 1"),
			s("HSET h t abc"), s("HINCRBYFLOAT h t 1"), s("HMSET h a 1"), s("HSET h a"), s("HMSET h a"), s("HSET h"),
			s("HSETNX h a"), s("HGET h"), s("HMGET h"), s("HDEL h"), s("HGETALL"), s("HLEN h x"),
			s("OBJECT ENCODING h"), s("TYPE h"), s("OBJECT REFCOUNT h"), s("OBJECT FREQ h"),
			s("HDEL h a c d e new f s t"), s("EXISTS h"), s("HLEN h"), s("HGETALL h"), s("TYPE h"),
			a("HSET", "bin\x00", "f\r\n", "v\x00\xff"), a("HGET", "bin\x00", "f\r\n"), a("HGETALL", "bin\x00"),
			a("HSET", "e", "", ""), s("HGETALL e"), a("HSTRLEN", "e", ""),
			// Strings and hashes refuse each other's commands.
			s("SET str v"), s("HGET str a"), s("HSET str a 1"), s("HLEN str"), s("HGETALL str"), s("HDEL str a"),
			s("HINCRBY str a 1"), s("HINCRBY str a x"), s("HINCRBYFLOAT str a inf"), s("HSCAN str 0"), s("HSCAN str x"),
			s("HSET hh a 1"), s("GET hh"), s("APPEND hh x"), s("INCR hh"), s("INCRBYFLOAT hh 1"), s("STRLEN hh"),
			s("GETRANGE hh 0 1"), s("SETRANGE hh 0 x"), s("GETSET hh x"), s("GETDEL hh"), s("GETEX hh"),
			s("SET hh v GET"), s("MGET hh str"), s("SETNX hh v"), s("SET hh v"), s("TYPE hh"),
		}},
		{name: "hash-encodings", cmds: []compatCmd{
			defaults,
			s("HSET h a 1 b 2"), s("OBJECT ENCODING h"), a("HSET", "h", "c", long), s("OBJECT ENCODING h"),
			s("HLEN h"), u("HKEYS h"), a("HGET", "h", "c"), s("HDEL h a b c"), s("EXISTS h"),
			a("HSET", "k", long, "v"), s("OBJECT ENCODING k"), s("HSETNX n a 1"), a("HSETNX", "n", "a", long),
			s("OBJECT ENCODING n"), a("HINCRBY", "i", long, "1"), s("OBJECT ENCODING i"),
			s("CONFIG SET hash-max-listpack-entries 3"), s("CONFIG GET hash-max-listpack-entries"),
			s("CONFIG GET hash-max-ziplist-entries"), s("HSET x a 1 b 2 c 3"), s("OBJECT ENCODING x"),
			s("HSET x c 4"), s("OBJECT ENCODING x"), s("HSET x d 4"), s("OBJECT ENCODING x"), s("HGET x d"),
			u("HGETALL x"), s("HSETNX x a 1"), s("OBJECT ENCODING x"),
			s("CONFIG SET hash-max-listpack-value 1kb"), s("CONFIG GET hash-max-ziplist-value"),
			s("CONFIG SET hash-max-listpack-value abc"), s("CONFIG SET hash-max-listpack-value -1"),
			s("CONFIG SET hash-max-listpack-entries -1"), s("CONFIG SET hash-max-listpack-entries abc"),
			s("CONFIG SET set-max-intset-entries 100"), s("CONFIG GET set-max-intset-entries"),
			s("CONFIG SET set-max-intset-entries 512"), defaults,
		}},
		{name: "hash-key-commands", cmds: []compatCmd{
			defaults,
			s("HSET h{1} a 1 b 2"), s("EXPIRE h{1} 1000"), s("TTL h{1}"), s("PERSIST h{1}"), s("TTL h{1}"),
			s("RENAME h{1} h{2}"), s("HGETALL h{2}"), s("EXISTS h{1}"), s("COPY h{2} h{3}"), s("HSET h{3} c 3"),
			s("HGETALL h{2}"), s("HGETALL h{3}"), s("OBJECT ENCODING h{3}"), s("MOVE h{3} 1"), s("SELECT 1"),
			s("HGETALL h{3}"), s("COPY h{3} h{2} DB 0"), s("COPY h{3} h{2} DB 0 REPLACE"), s("SELECT 0"),
			s("HLEN h{2}"), s("RENAMENX h{2} other"), s("HLEN other"), s("TYPE other"), s("UNLINK other"),
			// Keys on different shards: the value crosses in the blob.
			s("HSET src a 1 b 2 c 3"), s("PEXPIRE src 100000"), s("RENAME src dst"), s("HGETALL dst"),
			shape("PTTL dst"), s("COPY dst dst2"), s("HGETALL dst2"), s("OBJECT ENCODING dst2"),
			a("HSET", "big", "a", "1", "c", strings.Repeat("x", 100)), s("OBJECT ENCODING big"),
			s("RENAME big big2"), s("OBJECT ENCODING big2"), s("HLEN big2"), s("COPY big2 big3"),
			s("OBJECT ENCODING big3"), u("HKEYS big3"), s("DEL big2 big3 dst dst2"), compatScanOf("SCAN 0 TYPE hash"),
			s("HSET t1 a 1"), s("SET t2 v"), compatScanOf("SCAN 0 TYPE hash"), compatScanOf("SCAN 0 TYPE string"),
			shape("MEMORY USAGE t1"), s("DBSIZE"),
		}},
		{name: "hash-random-scan", cmds: []compatCmd{
			defaults,
			s("HRANDFIELD nokey"), s("HRANDFIELD nokey 3"), s("HRANDFIELD nokey -3 WITHVALUES"),
			s("HSET h a 1 b 2 c 3"), s("HRANDFIELD h 0"), s("HRANDFIELD h 3"), s("HRANDFIELD h 10 WITHVALUES"),
			shape("HRANDFIELD h"), shape("HRANDFIELD h 2"), shape("HRANDFIELD h -5"), shape("HRANDFIELD h -5 WITHVALUES"),
			s("HRANDFIELD h x"), s("HRANDFIELD h 1 foo"), s("HRANDFIELD h 1 WITHVALUES x"),
			s("HRANDFIELD h -9223372036854775808"), s("HRANDFIELD h -4611686018427387904 WITHVALUES"),
			s("HRANDFIELD h 4611686018427387904 WITHVALUES"),
			s("HSCAN h 0"), s("HSCAN h 0 MATCH a*"), s("HSCAN h 0 COUNT 1"), s("HSCAN h 0 COUNT 0"), s("HSCAN h 0 COUNT x"),
			s("HSCAN h 0 TYPE string"), s("HSCAN h 0 MATCH"), s("HSCAN h x"), s("HSCAN nokey 0"), s("HSCAN nokey x"),
			shape("HELLO 3"), s("HGETALL h"), s("HGETALL nokey"), s("HRANDFIELD h 10 WITHVALUES"),
			shape("HRANDFIELD h -2 WITHVALUES"), s("HSCAN h 0"), s("HMGET h a zz"), shape("HELLO 2"),
		}},
		{name: "set-commands", cmds: []compatCmd{
			s("CONFIG SET set-max-intset-entries 512"),
			s("SADD s 3 1 2 1"), s("OBJECT ENCODING s"), s("SMEMBERS s"), s("SCARD s"), s("SISMEMBER s 2"),
			s("SISMEMBER s 02"), s("SMISMEMBER s 1 x 3"), s("SMISMEMBER nokey a"), s("SADD s a"), s("OBJECT ENCODING s"),
			u("SMEMBERS s"), s("SREM s 1 x a"), s("OBJECT ENCODING s"), s("SREM s 2 3"), s("EXISTS s"), s("SCARD s"),
			s("SADD n -9223372036854775808 9223372036854775807 70000 -1"), s("SMEMBERS n"), s("OBJECT ENCODING n"),
			s("SADD w a 1"), s("OBJECT ENCODING w"), s("SPOP nokey"), s("SPOP nokey 2"), s("SPOP w 0"), s("SPOP w -1"),
			s("SPOP w x"), s("SPOP w 1 2"), u("SPOP w 5"), s("EXISTS w"), s("SRANDMEMBER nokey"), s("SRANDMEMBER nokey 2"),
			s("SRANDMEMBER n 1 2"), s("SRANDMEMBER n -9223372036854775808"), s("SRANDMEMBER n 0"), s("SRANDMEMBER n 10"),
			shape("SRANDMEMBER n"), shape("SRANDMEMBER n 2"), shape("SRANDMEMBER n -6"), s("SRANDMEMBER n x"),
			s("SET str v"), s("SADD str a"), s("SMEMBERS str"), s("SCARD str"),
			// Keys of one hash tag, on one shard: commands over several sets.
			s("SET {t}str v"), s("SINTER {t}str {t}nokey"), s("SUNION {t}nokey {t}str"), s("SMOVE {t}nokey {t}str a"),
			s("SADD {t}x 1"), s("SMOVE {t}x {t}str 1"), s("SMOVE {t}str {t}x 1"), s("SMOVE {t}x {t}x 1"), s("SMOVE {t}x {t}x 2"),
			s("SMOVE {t}x {t}y 1"), s("EXISTS {t}x"), s("OBJECT ENCODING {t}y"), s("SADD {t}y b"), s("SMOVE {t}y {t}z b"),
			s("OBJECT ENCODING {t}z"), u("SUNION {t}y {t}z"),
			// Keys on several shards: gathered, run whole, written back.
			u("SUNION n w"), s("SMOVE n w 1"), u("SMEMBERS w"), s("SINTERSTORE n2 n w"), u("SMEMBERS n2"),
			s("SDIFFSTORE w n w"), s("EXISTS w"), s("SMOVE n str 1"), s("SINTER n str"), s("SUNIONSTORE str n"),
			s("TYPE str"),
			s("HSET hs a 1"), s("SADD hs a"), s("SADD ss a"), s("HGET ss a"), s("GET ss"), s("TYPE ss"),
			s("SSCAN n 0"), s("SSCAN n 0 MATCH 7*"), s("SSCAN n 0 COUNT 0"), s("SSCAN n x"), s("SSCAN nokey 0"),
			s("SSCAN str 0"), s("SADD"), s("SADD k"), s("SREM k"), s("SCARD"), s("SISMEMBER k"), s("SMOVE a b"),
			a("SADD", "bin", "\x00", "a\r\nb", ""), u("SMEMBERS bin"), a("SISMEMBER", "bin", ""),
			shape("HELLO 3"), s("SMEMBERS n"), s("SPOP nokey 1"), s("SMISMEMBER n 1 -1"), u("SUNION {t}y {t}z"), shape("HELLO 2"),
		}},
		{name: "set-algebra", cmds: []compatCmd{
			s("CONFIG SET set-max-intset-entries 512"),
			s("SADD {t}a 1 2 3 x"), s("SADD {t}b 2 3 4"), s("SADD {t}n 2 3"),
			u("SINTER {t}a {t}b"), u("SUNION {t}a {t}b"), u("SDIFF {t}a {t}b"), u("SDIFF {t}b {t}a {t}none"),
			s("SINTER {t}a {t}none"), s("SUNION {t}none"), s("SINTERSTORE {t}d {t}a {t}b"), s("OBJECT ENCODING {t}d"),
			s("SUNIONSTORE {t}d {t}a {t}b"), s("OBJECT ENCODING {t}d"), s("PEXPIRE {t}d 100000"), s("SDIFFSTORE {t}d {t}a {t}b"),
			s("PTTL {t}d"), s("SINTERSTORE {t}d {t}a {t}none"), s("EXISTS {t}d"), s("SET {t}d str"), s("SUNIONSTORE {t}d {t}n"),
			s("TYPE {t}d"), s("SINTERSTORE {t}a {t}a {t}n"), s("SMEMBERS {t}a"), s("SET {t}s v"), s("SINTER {t}a {t}s"),
			s("SINTERSTORE {t}d {t}s"), s("SDIFF {t}none {t}s"), s("SINTER"), s("SINTERSTORE {t}d"),
			s("CONFIG SET set-max-intset-entries 2"), s("SADD {t}i 1 2"), s("OBJECT ENCODING {t}i"), s("SADD {t}i 3"),
			s("OBJECT ENCODING {t}i"), s("SUNIONSTORE {t}j {t}n"), s("OBJECT ENCODING {t}j"), s("SUNIONSTORE {t}j {t}i"),
			s("OBJECT ENCODING {t}j"), s("CONFIG SET set-max-intset-entries 512"),
			// Sets cross shards whole, as hashes do.
			s("SADD src 1 2 3"), s("RENAME src dst"), s("SMEMBERS dst"), s("OBJECT ENCODING dst"), s("COPY dst dst2"),
			s("SMEMBERS dst2"), s("SADD str2 a b"), s("RENAME str2 str3"), u("SMEMBERS str3"), s("OBJECT ENCODING str3"),
			compatScanOf("SCAN 0 TYPE set"),
		}},
	}
}
