package kvtable

import "time"

// expireBatch is how many keys ActiveExpire reads ahead of deleting them.
const expireBatch = 8

// ActiveExpire deletes expired keys, a bucket of the TTL wheel at a time in
// expiry order, until no bucket is due or about budgetNs has passed, and
// returns how many it deleted. It looks only at expired keys, but for those
// of the last level whose expiry lies past its window, which it places
// again; it reads the time every expireBatch keys and every 1024 buckets
// passed.
func (t *Table) ActiveExpire(budgetNs int64) int {
	w := &t.exp
	now := t.clock.Ms
	if now < w.due {
		return 0
	}
	start := time.Now()
	deleted, steps, passed := 0, 0, 0
	due := int64(noneDue)
	for l := range wheelLevels {
		sh := sliceShift(l)
		for w.count[l] > 0 && w.next[l] < now>>sh {
			b := &w.levels[l][w.next[l]&wheelMask]
			for b.n > 0 {
				if steps > 0 && time.Since(start).Nanoseconds() >= budgetNs {
					w.due = 0 // keys are due
					return deleted
				}
				// A batch of the head segment's last refs: their entries
				// and index groups are read first, loads independent of
				// one another whose cache misses overlap, then deleted
				// from the last. Deleting moves no ref of the batch to
				// another position (compaction changes refs, not
				// positions), so each is read again when its turn comes.
				last := int(b.head)<<segShift | segHead + int((b.n-1)%segRefs)
				k := min(int((b.n-1)%segRefs)+1, expireBatch)
				var hs [expireBatch]uint64
				var sink uint64
				for i := range k {
					hs[i] = t.hash(entryKey(t.ar.item(w.at(last - i))))
					sink += t.TouchBucket(hs[i])
				}
				t.sink += sink
				for i := range k {
					pos := last - i
					ref := w.at(pos)
					it := t.ar.item(ref)
					if e := entryExpire(it); e > now {
						// An expiry past the last level's window, due later.
						t.wheelRemove(pos, e)
						setEntryExpIdx(it, w.push(ref, e, now))
						continue
					}
					t.expireSlot(hs[i]&hashHigh|uint64(ref), true)
					deleted++
				}
				steps += k
			}
			w.next[l]++
			if passed++; passed%1024 == 0 && time.Since(start).Nanoseconds() >= budgetNs {
				w.due = 0
				return deleted
			}
		}
		if w.count[l] == 0 {
			w.next[l] = max(w.next[l], now>>sh)
		}
	}
	// Only now: a key placed again may have gone to a level already passed.
	for l := range wheelLevels {
		if w.count[l] > 0 {
			due = min(due, w.nextDue(l))
		}
	}
	w.due = due
	return deleted
}

// ExpireDue reports whether ActiveExpire has keys to delete now.
func (t *Table) ExpireDue() bool { return t.clock.Ms >= t.exp.due }

// NextExpire is the Unix ms time from which ActiveExpire may have keys to
// delete; far in the future when no key has a TTL.
func (t *Table) NextExpire() int64 { return t.exp.due }

// StaleKeys is the number of keys expired whose turn in ActiveExpire has
// come but that it has not deleted yet.
func (t *Table) StaleKeys() int { return t.exp.dueKeys(t.clock.Ms) }

// MeanExpire is the mean expiry time, in Unix ms, of the keys with a TTL.
func (t *Table) MeanExpire() int64 { return t.exp.meanExpire() }

// Expired is the number of keys deleted because they expired, found by
// ActiveExpire or by a command, since the table was made.
func (t *Table) Expired() uint64 { return t.expired }

// expireSlot deletes the expired entry of slot word w. It is the one path
// by which a key leaves the table because it expired, whoever found it.
// compact is as for dropEntry.
func (t *Table) expireSlot(w uint64, compact bool) {
	if t.watcher != nil {
		t.touched(entryKey(t.ar.item(uint32(w))), false)
	}
	if t.OnExpire != nil {
		t.OnExpire(entryKey(t.ar.item(uint32(w))))
	}
	t.unindex(w)
	t.dropEntry(uint32(w), compact)
	t.expired++
}

// wheelRemove takes the entry at pos out of the TTL wheel, recording the
// new position of the entry that moves into its place.
func (t *Table) wheelRemove(pos int, e int64) {
	if moved, ok := t.exp.remove(pos, e); ok {
		setEntryExpIdx(t.ar.item(moved), pos)
	}
}

// wheelMove places the entry it, now at ref, again for a new expiry e and
// returns its position; it keeps its place when the expiry is unchanged.
func (t *Table) wheelMove(ref uint32, it []byte, e int64) int {
	pos, old := entryExpIdx(it), entryExpire(it)
	if old == e {
		t.exp.set(pos, ref)
		return pos
	}
	t.wheelRemove(pos, old)
	return t.exp.push(ref, e, t.clock.Ms)
}
