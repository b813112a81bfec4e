package main

import "testing"

// TestCommandGetKeys checks COMMAND GETKEYS against the replies of Redis
// 7.0: a container's subcommand is resolved first (an unknown one is an
// invalid command), then whether the command takes keys, then its arity.
func TestCommandGetKeys(t *testing.T) {
	srv := startServer(t, nil, "--shards", "1")
	c, err := compatDial(srv.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	const (
		noKeys  = "-ERR The command has no key arguments\r\n"
		badArgc = "-ERR Invalid number of arguments specified for command\r\n"
		invalid = "-ERR Invalid command specified\r\n"
	)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"GET", "k"}, "*1\r\n$1\r\nk\r\n"},
		{[]string{"RANDOMKEY", "foo"}, noKeys},
		{[]string{"RESET", "x", "x"}, noKeys},
		{[]string{"OBJECT", "HELP"}, noKeys},
		{[]string{"OBJECT", "HELP", "x"}, noKeys},
		{[]string{"OBJECT", "encoding"}, badArgc},
		{[]string{"OBJECT", "encoding", "k"}, "*1\r\n$1\r\nk\r\n"},
		{[]string{"OBJECT", "encoding", "k", "x"}, badArgc},
		{[]string{"OBJECT", "c", "c"}, invalid},
		{[]string{"MEMORY", "USAGE"}, badArgc},
		{[]string{"MEMORY", "USAGE", "k", "SAMPLES", "5"}, "*1\r\n$1\r\nk\r\n"},
		{[]string{"MEMORY", "FOO", "k"}, invalid},
		{[]string{"CLIENT", "FOO"}, invalid},
		{[]string{"CONFIG", "GET", "x"}, noKeys},
		{[]string{"SLOWLOG", "GET"}, noKeys},
		{[]string{"SLOWLOG", "FOO"}, invalid},
		{[]string{"DEBUG", "SLEEP", "0"}, noKeys},
		{[]string{"NOSUCH", "x"}, invalid},
	} {
		rep, err := c.do(compatA(append([]string{"COMMAND", "GETKEYS"}, tc.args...)...))
		if err != nil {
			t.Fatal(err)
		}
		if string(rep.raw) != tc.want {
			t.Errorf("COMMAND GETKEYS %q: got %q, want %q", tc.args, rep.raw, tc.want)
		}
	}
}
