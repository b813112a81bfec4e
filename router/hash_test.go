package router

import (
	"strconv"
	"testing"
)

func TestHashTag(t *testing.T) {
	tests := []struct{ key, want string }{
		{"{user1000}.following", "user1000"},
		{"{user1000}.followers", "user1000"},
		{"foo{}{bar}", "foo{}{bar}"}, // empty first tag: the whole key
		{"foo{{bar}}zap", "{bar"},    // the tag ends at the first '}'
		{"foo{bar}{zap}", "bar"},     // only the first tag counts
		{"foo", "foo"},
		{"", ""},
		{"{", "{"},
		{"}", "}"},
		{"{}", "{}"},
		{"foo{bar", "foo{bar"}, // no closing brace
		{"foo}bar{", "foo}bar{"},
		{"}{x}", "x"},
		{"{a}", "a"},
		{"a{b}", "b"},
		{"{ab}c{d}", "ab"},
		{"x{{}}", "{"},
	}
	for _, tt := range tests {
		if got := string(HashTag([]byte(tt.key))); got != tt.want {
			t.Errorf("HashTag(%q) = %q, want %q", tt.key, got, tt.want)
		}
	}
}

func TestHashTagAliasesKey(t *testing.T) {
	key := []byte("a{tag}b")
	tag := HashTag(key)
	if &tag[0] != &key[2] {
		t.Error("HashTag copied the tag instead of returning a sub-slice of the key")
	}
}

func TestShardOfStableAndInRange(t *testing.T) {
	for _, n := range []int{1, 2, 3, 4, 7, 8, 16, 64, 1000} {
		for i := 0; i < 2000; i++ {
			key := []byte("key:" + strconv.Itoa(i))
			s := ShardOf(key, n)
			if s < 0 || s >= n {
				t.Fatalf("ShardOf(%q, %d) = %d, out of range", key, n, s)
			}
			if again := ShardOf(append([]byte(nil), key...), n); again != s {
				t.Fatalf("ShardOf(%q, %d) = %d then %d", key, n, s, again)
			}
		}
	}
	if got := ShardOf([]byte("anything"), 1); got != 0 {
		t.Errorf("ShardOf with one shard = %d, want 0", got)
	}
	if got := ShardOf(nil, 4); got < 0 || got >= 4 {
		t.Errorf("ShardOf(nil, 4) = %d, out of range", got)
	}
}

// TestShardOfSpread checks the design's promise: 1M sequential keys spread
// over the shards within a few percent of even.
func TestShardOfSpread(t *testing.T) {
	const keys = 1_000_000
	const tolerance = 0.03
	shardCounts := []int{2, 3, 4, 8, 16}
	counts := make([][]int, len(shardCounts))
	for i, n := range shardCounts {
		counts[i] = make([]int, n)
	}
	buf := make([]byte, 0, 16)
	for k := 0; k < keys; k++ {
		buf = strconv.AppendInt(append(buf[:0], "key:"...), int64(k), 10)
		for i, n := range shardCounts {
			counts[i][ShardOf(buf, n)]++
		}
	}
	for i, n := range shardCounts {
		even := float64(keys) / float64(n)
		worst := 0.0
		for s, c := range counts[i] {
			dev := (float64(c) - even) / even
			if dev < 0 {
				dev = -dev
			}
			worst = max(worst, dev)
			if dev > tolerance {
				t.Errorf("%d shards: shard %d has %d keys, %.2f%% from even (%.0f)", n, s, c, dev*100, even)
			}
		}
		t.Logf("%2d shards: worst shard %.3f%% from even", n, worst*100)
	}
}

func TestShardOfHashTagColocates(t *testing.T) {
	for _, n := range []int{2, 3, 4, 8, 16} {
		for _, tag := range []string{"user1000", "a", "order:42", "{"} {
			want := ShardOf([]byte(tag), n)
			for i := 0; i < 50; i++ {
				key := []byte("k" + strconv.Itoa(i) + "{" + tag + "}." + strconv.Itoa(i*7))
				if got := ShardOf(key, n); got != want {
					t.Fatalf("%d shards: %q on shard %d, its tag %q on %d", n, key, got, tag, want)
				}
			}
		}
	}
}

// TestShardOfTagsSpread checks that distinct tags still spread: the tag, not
// the surrounding text, is what is hashed, so many tags must use every shard.
func TestShardOfTagsSpread(t *testing.T) {
	const n = 8
	var seen [n]int
	for i := 0; i < 8000; i++ {
		seen[ShardOf([]byte("prefix{"+strconv.Itoa(i)+"}suffix"), n)]++
	}
	for s, c := range seen {
		if c < 800 || c > 1200 {
			t.Errorf("shard %d holds %d of 8000 tagged keys, want about 1000", s, c)
		}
	}
}

// TestHashTagRandom compares HashTag with the rule spelled out byte by byte,
// over random keys of braces and letters.
func TestHashTagRandom(t *testing.T) {
	rule := func(key []byte) []byte {
		for i := range key {
			if key[i] != '{' {
				continue
			}
			for j := i + 1; j < len(key); j++ {
				if key[j] == '}' {
					if j == i+1 {
						return key
					}
					return key[i+1 : j]
				}
			}
			return key
		}
		return key
	}
	rng := uint64(1)
	key := make([]byte, 0, 12)
	for n := 0; n < 100000; n++ {
		key = key[:0]
		rng = rng*6364136223846793005 + 1442695040888963407
		for k, r := 0, rng; k < int(rng>>60)%12; k++ {
			key = append(key, "{}a"[r%3])
			r /= 3
		}
		if got, want := HashTag(key), rule(key); string(got) != string(want) {
			t.Fatalf("HashTag(%q) = %q, want %q", key, got, want)
		}
	}
}

// TestShardOfIsFixed pins the key-to-shard mapping: it is on disk (each
// shard's incremental append-only file holds its keys), so a change here
// needs a way to load the files written before it.
func TestShardOfIsFixed(t *testing.T) {
	got := ""
	for _, k := range []string{"", "a", "k1", "user:1000", "{tag}x", "a-key-longer-than-eight-bytes"} {
		got += strconv.Itoa(ShardOf([]byte(k), 4))
	}
	if want := "010303"; got != want {
		t.Errorf("ShardOf's mapping = %s, want %s", got, want)
	}
}

// TestShardOfSpreads checks that shardHash spreads similar keys evenly.
func TestShardOfSpreads(t *testing.T) {
	for _, n := range []int{2, 3, 8} {
		counts := make([]int, n)
		const keys = 60000
		for i := 0; i < keys; i++ {
			counts[ShardOf([]byte("key:"+strconv.Itoa(i)), n)]++
		}
		for s, c := range counts {
			if want := keys / n; c < want*95/100 || c > want*105/100 {
				t.Errorf("%d shards: shard %d got %d of %d keys", n, s, c, keys)
			}
		}
	}
}
