package shardowner

// MatchGlob reports whether s matches pattern under the glob rules of KEYS,
// SCAN MATCH and friends:
//
//	pattern  matches
//	a*b      '*' stands for any run of bytes, also the empty one
//	a?b      '?' stands for exactly one byte
//	[abc]    one of the listed bytes; [^abc] one byte not listed
//	[a-z]    one byte in the range (either order); ranges and bytes mix
//	\x       the byte x itself, outside or inside brackets
//
// An unterminated bracket is closed by the end of the pattern. As in Redis,
// an empty s matches only an empty pattern, not even "*": KEYS and SCAN take
// a lone "*" as "every key" before they match anything. With nocase,
// ASCII letters compare without regard to case. MatchGlob does not allocate
// and runs in O(len(pattern)*len(s)) at worst: it backtracks only to the
// latest star, which is enough because every other token matches exactly one
// byte.
func MatchGlob(pattern, s []byte, nocase bool) bool {
	if len(s) == 0 {
		return len(pattern) == 0
	}
	p, i := 0, 0
	starP, starI := -1, 0 // pattern position after the latest star, and where in s it resumes
	for i < len(s) {
		if p < len(pattern) {
			if pattern[p] == '*' {
				for p < len(pattern) && pattern[p] == '*' {
					p++
				}
				if p == len(pattern) {
					return true
				}
				starP, starI = p, i
				continue
			}
			if n, ok := matchToken(pattern[p:], s[i], nocase); ok {
				p += n
				i++
				continue
			}
		}
		if starP < 0 {
			return false
		}
		starI++
		p, i = starP, starI
	}
	for p < len(pattern) && pattern[p] == '*' {
		p++
	}
	return p == len(pattern)
}

// matchToken matches the single-byte token at the start of pat (not a star)
// against ch and returns the token's length.
func matchToken(pat []byte, ch byte, nocase bool) (int, bool) {
	switch pat[0] {
	case '?':
		return 1, true
	case '\\':
		if len(pat) >= 2 {
			return 2, sameByte(pat[1], ch, nocase)
		}
		return 1, sameByte('\\', ch, nocase)
	case '[':
		return matchClass(pat, ch, nocase)
	}
	return 1, sameByte(pat[0], ch, nocase)
}

// matchClass matches a bracket expression at the start of pat. The closing
// bracket is included in the returned length; a class left open runs to the
// end of the pattern.
func matchClass(pat []byte, ch byte, nocase bool) (int, bool) {
	j := 1
	not := j < len(pat) && pat[j] == '^'
	if not {
		j++
	}
	match := false
	if nocase {
		ch = lower(ch)
	}
	for j < len(pat) {
		switch {
		case pat[j] == '\\' && j+1 < len(pat):
			j++
			if sameByte(pat[j], ch, nocase) {
				match = true
			}
			j++
		case pat[j] == ']':
			return j + 1, match != not
		case j+2 < len(pat) && pat[j+1] == '-':
			lo, hi := pat[j], pat[j+2]
			if lo > hi {
				lo, hi = hi, lo
			}
			if nocase {
				lo, hi = lower(lo), lower(hi)
			}
			if lo <= ch && ch <= hi {
				match = true
			}
			j += 3
		default:
			if sameByte(pat[j], ch, nocase) {
				match = true
			}
			j++
		}
	}
	return len(pat), match != not
}

func sameByte(a, b byte, nocase bool) bool {
	if nocase {
		return lower(a) == lower(b)
	}
	return a == b
}

func lower(b byte) byte {
	if 'A' <= b && b <= 'Z' {
		return b + 'a' - 'A'
	}
	return b
}
