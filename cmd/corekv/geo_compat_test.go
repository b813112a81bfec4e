package main

// compatGeoScripts are TestCompatWithRedis's scripts for the geo commands:
// their replies and errors in both protocols, the sorted sets they keep,
// and the STORE forms with a destination on another shard.
func compatGeoScripts() []compatScript {
	s, shape := compatS, compatShp
	sicily := "GEOADD Sicily 13.361389 38.115556 Palermo 15.087269 37.502669 Catania"
	return []compatScript{
		{name: "geo-commands", cmds: []compatCmd{
			s(sicily), s("ZRANGE Sicily 0 -1 WITHSCORES"), s("TYPE Sicily"), s("OBJECT ENCODING Sicily"),
			s("GEOADD Sicily NX 0 0 Palermo 1 1 x"), s("GEOADD Sicily XX CH 2 2 x 3 3 y"), s("GEOADD Sicily ch ch ch"),
			s("GEOADD Sicily 200 100 z"), s("GEOADD Sicily inf 0 z"), s("GEOADD Sicily a 0 z"), s("GEOADD Sicily NX XX 1 2 z"),
			s("GEOADD Sicily 1 2 z 3"), s("GEOADD edge 180 85.05112878 n -180 -85.05112878 s 0 0 o"),
			s("ZRANGE edge 0 -1 WITHSCORES"), s("GEOPOS edge n s o none"), s("GEOHASH edge n s o none"),
			s("ZADD odd -1 a 1e30 b -inf c inf d 4503599627370496 e 1e19 f -1e19 g 123.5 h"),
			s("GEOPOS odd a b c d e f g h"), s("GEOHASH odd a b c d e f g h"), s("GEODIST odd a c km"),
			s("GEOPOS Sicily Palermo nosuch"), s("GEOPOS nokey a"), s("GEOHASH Sicily Palermo Catania x"),
			s("GEODIST Sicily Palermo Catania"), s("GEODIST Sicily Palermo Catania KM"), s("GEODIST Sicily Palermo Catania mi"),
			s("GEODIST Sicily Palermo Catania ft"), s("GEODIST Sicily Palermo Catania yd"), s("GEODIST Sicily Palermo Catania km x"),
			s("GEODIST nokey a b"), s("GEODIST Sicily Palermo nosuch"), s("GEODIST nokey a b yd"),
			s("GEORADIUS Sicily 15 37 200 km WITHDIST WITHCOORD WITHHASH ASC"), s("GEORADIUS Sicily 15 37 200 km DESC"),
			s("GEORADIUS Sicily 15 37 200 km COUNT 1"), s("GEORADIUS Sicily 15 37 200 km COUNT 1 ANY"),
			s("GEORADIUS Sicily 15 37 200 km ANY"), s("GEORADIUS Sicily 15 37 200 km COUNT 0"), s("GEORADIUS Sicily 15 37 -1 km"),
			s("GEORADIUS Sicily 15 37 x km"), s("GEORADIUS Sicily 15 100 1 km"), s("GEORADIUS Sicily 15 37 1 km bad"),
			s("GEORADIUSBYMEMBER Sicily Palermo 200 km WITHDIST"), s("GEORADIUSBYMEMBER Sicily nosuch 200 km"),
			s("GEORADIUSBYMEMBER nokey nosuch x km"), s("GEORADIUS_RO Sicily 15 37 200 km STORE d"),
			s("GEORADIUSBYMEMBER_RO Sicily Palermo 200 km ASC"),
			s("GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 200 km ASC WITHCOORD WITHDIST WITHHASH"),
			s("GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX 400 400 km ASC WITHDIST"), s("GEOSEARCH Sicily FROMMEMBER Palermo BYRADIUS 1 m"),
			s("GEOSEARCH Sicily FROMMEMBER Palermo FROMMEMBER Catania BYRADIUS 1 km"), s("GEOSEARCH Sicily FROMMEMBER nosuch BYRADIUS 1 km"),
			s("GEOSEARCH nokey FROMMEMBER nosuch BYRADIUS 1 km"), s("GEOSEARCH Sicily FROMMEMBER Palermo FROMLONLAT 1 2 BYRADIUS 1 km"),
			s("GEOSEARCH Sicily FROMLONLAT 1 2 BYRADIUS 1 km BYBOX 1 1 km"), s("GEOSEARCH Sicily FROMLONLAT 1 2 WITHDIST WITHHASH"),
			s("geoSearch Sicily WITHDIST BYRADIUS 1 km"), s("GEOSEARCH Sicily FROMLONLAT 1 2 BYBOX 1 -1 km"),
			s("GEOSEARCH Sicily FROMLONLAT 1 2 BYBOX x 1 km"), s("GEOSEARCH Sicily FROMLONLAT 1 2 BYBOX 1 x km"),
			s("GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS inf km"), s("GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 1e400 km"),
			s("GEOSEARCH Sicily FROMLONLAT 1 2 BYRADIUS 1 km STOREDIST"), s("GEOSEARCH edge FROMLONLAT 180 84.77 BYRADIUS 1e5 km"),
			s("SET str v"), s("GEOADD str 1 2 a"), s("GEOPOS str a"), s("GEOSEARCH str FROMLONLAT 1 2 BYRADIUS 1 km"),
			shape("HELLO 3"), s("GEOPOS Sicily Palermo nosuch"), s("GEOHASH Sicily nosuch"), s("GEODIST Sicily Palermo x"),
			s("GEOSEARCH Sicily FROMMEMBER Palermo BYRADIUS 200 km WITHDIST WITHCOORD WITHHASH"), shape("HELLO 2"),
		}},
		{name: "geo-store", cmds: []compatCmd{
			s(sicily), s("GEORADIUS Sicily 15 37 200 km STORE dst"), s("ZRANGE dst 0 -1 WITHSCORES"),
			s("GEORADIUS Sicily 15 37 200 km STOREDIST dst COUNT 1"), s("ZRANGE dst 0 -1 WITHSCORES"),
			s("GEORADIUS Sicily 15 37 200 km STORE dst WITHDIST"), s("GEORADIUS Sicily 15 37 200 km STORE a STOREDIST b"),
			s("ZRANGE b 0 -1 WITHSCORES"), s("EXISTS a"), s("GEORADIUSBYMEMBER Sicily Palermo 500 km STOREDIST far DESC"),
			s("ZRANGE far 0 -1 WITHSCORES"), s("GEOSEARCHSTORE dst Sicily FROMLONLAT 15 37 BYRADIUS 1 m"), s("EXISTS dst"),
			s("GEOSEARCHSTORE dst Sicily FROMLONLAT 15 37 BYBOX 500 500 km STOREDIST"), s("ZRANGE dst 0 -1 WITHSCORES"),
			s("GEOSEARCHSTORE dst Sicily FROMLONLAT 15 37 BYBOX 500 500 km WITHDIST"), s("GEOSEARCHSTORE dst nokey FROMLONLAT 15 37 BYRADIUS 1 km"),
			s("EXISTS dst"), s("GEOSEARCHSTORE Sicily Sicily FROMMEMBER Palermo BYRADIUS 10 km"), s("ZRANGE Sicily 0 -1"),
			s("SET str v"), s("GEOSEARCHSTORE str Sicily FROMMEMBER Palermo BYRADIUS 10 km"), s("TYPE str"),
			s("GEOADD {g}a 13.361389 38.115556 Palermo"), s("GEOSEARCHSTORE {g}b {g}a FROMMEMBER Palermo BYRADIUS 1 km"),
			s("ZRANGE {g}b 0 -1 WITHSCORES"), s("COMMAND GETKEYS GEORADIUS k 1 2 3 km STORE a STOREDIST b"),
			s("COMMAND GETKEYS GEOSEARCHSTORE d s FROMMEMBER m BYRADIUS 1 km"),
		}},
	}
}
