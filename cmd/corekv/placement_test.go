package main

import (
	"reflect"
	"testing"
)

// TestPlacement checks the shard count and pinning chosen from the flags,
// the affinity mask, the CPUs online and the CPU quota.
func TestPlacement(t *testing.T) {
	all16 := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}
	for _, c := range []struct {
		name          string
		shards        int
		pin           string
		mask          []int
		online, quota int
		want          int
		cpus          []int
	}{
		{"whole 1-CPU machine", 0, "auto", []int{0}, 1, 1, 1, nil},
		{"whole 2-CPU machine", 0, "auto", []int{0, 1}, 2, 2, 1, nil},
		{"whole 4-CPU machine", 0, "auto", []int{0, 1, 2, 3}, 4, 4, 4, nil},
		{"whole 16-CPU machine", 0, "auto", all16, 16, 16, 16, nil},
		{"taskset -c 1 of 2", 0, "auto", []int{1}, 2, 1, 1, []int{1}},
		{"cpuset 2-3 of 16", 0, "auto", []int{2, 3}, 16, 2, 2, []int{2, 3}},
		{"cpuset 2-5 of 16, quota 2", 0, "auto", []int{2, 3, 4, 5}, 16, 2, 2, []int{2, 3}},
		{"quota 2 of 16", 0, "auto", all16, 16, 2, 2, nil},
		{"quota 1 of 2", 0, "auto", []int{0, 1}, 2, 1, 1, nil},
		{"unknown online count", 0, "auto", []int{0, 1}, 0, 2, 1, nil},
		{"--shards 2 on 2", 2, "auto", []int{0, 1}, 2, 2, 2, nil},
		{"--shards 2 --pin yes on 2", 2, "yes", []int{0, 1}, 2, 2, 2, []int{0, 1}},
		{"--pin yes on a whole 2-CPU machine", 0, "yes", []int{0, 1}, 2, 2, 1, []int{0}},
		{"--shards 3 --pin yes on 2", 3, "yes", []int{0, 1}, 2, 2, 3, nil},
		{"--pin no on cpuset 2-3", 0, "no", []int{2, 3}, 16, 2, 2, nil},
		{"--shards 8 on cpuset 2-3", 8, "auto", []int{2, 3}, 16, 2, 8, nil},
	} {
		shards, cpus := placement(c.shards, c.pin, c.mask, c.online, c.quota)
		if shards != c.want || !reflect.DeepEqual(cpus, c.cpus) {
			t.Errorf("%s: %d shards pinned to %v, want %d pinned to %v", c.name, shards, cpus, c.want, c.cpus)
		}
	}
}

func TestPinOption(t *testing.T) {
	for _, c := range []struct {
		args []string
		pin  string
		ok   bool
	}{
		{nil, "auto", true},
		{[]string{"--pin", "YES"}, "yes", true},
		{[]string{"--pin", "no"}, "no", true},
		{[]string{"--pin", "sometimes"}, "", false},
		{[]string{"--pin"}, "", false},
	} {
		o, err := parseArgs(c.args)
		if (err == nil) != c.ok || c.ok && o.pin != c.pin {
			t.Errorf("%q: pin %q, err %v", c.args, o.pin, err)
		}
	}
}

func TestSpinContendedOption(t *testing.T) {
	for _, c := range []struct {
		args []string
		want bool
		ok   bool
	}{
		{nil, false, true},
		{[]string{"--spin-contended", "yes"}, true, true},
		{[]string{"--spin-contended", "NO"}, false, true},
		{[]string{"--spin-contended", "1"}, false, false},
	} {
		o, err := parseArgs(c.args)
		if (err == nil) != c.ok || c.ok && o.cfg.SpinContended != c.want {
			t.Errorf("%q: %v, err %v", c.args, o.cfg.SpinContended, err)
		}
	}
}
