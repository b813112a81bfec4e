package kvtable

import "time"

// ActiveExpire deletes expired keys among random samples of the keys with a
// TTL, spending at most about budgetNs, and returns how many it deleted. It
// samples again while more than a quarter of a sample had expired, and reads
// the time every 16 samples.
func (t *Table) ActiveExpire(budgetNs int64) int {
	start := time.Now()
	now := t.clock.Ms
	deleted, checked := 0, 0
	for t.exp.n > 0 {
		sample := min(activeSample, t.exp.n)
		hit := 0
		for range sample {
			if t.exp.n == 0 {
				break
			}
			ref := t.exp.at(int(t.rand() % uint64(t.exp.n)))
			if it := t.ar.item(ref); entryExpire(it) <= now {
				t.deleteRef(ref, it)
				hit++
			}
			checked++
			if checked%16 == 0 && time.Since(start).Nanoseconds() >= budgetNs {
				return deleted + hit
			}
		}
		deleted += hit
		if hit*4 <= sample {
			break
		}
	}
	return deleted
}

// deleteRef deletes the entry at ref, finding its slot by its key's hash.
func (t *Table) deleteRef(ref uint32, it []byte) {
	t.unindex(t.hash(entryKey(it))&hashHigh | uint64(ref))
	t.dropEntry(ref, true)
}
