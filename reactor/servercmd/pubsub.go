package servercmd

import (
	"sort"
	"strings"

	"github.com/corekv/corekv/resp"
	"github.com/corekv/corekv/shardowner"
)

// Directory is what PUBSUB reads of the server's pub/sub directory, which
// counts every core's subscriptions by name. Shard picks the shard
// channels rather than the channels.
type Directory interface {
	// Channels returns the names that have subscribers.
	Channels(shard bool) []string
	// Subscribers returns how many connections subscribe to each of
	// names, read at one moment.
	Subscribers(shard bool, names [][]byte) []int
	// Patterns is how many patterns have subscribers.
	Patterns() int
}

var pubsubHelp = []string{
	"PUBSUB <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"CHANNELS [<pattern>]",
	"    Return the currently active channels matching a <pattern> (default: '*').",
	"NUMPAT",
	"    Return number of subscriptions to patterns.",
	"NUMSUB [<channel> ...]",
	"    Return the number of subscribers for the specified channels, excluding",
	"    pattern subscriptions(default: no channels).",
	"SHARDCHANNELS [<pattern>]",
	"    Return the currently active shard level channels matching a <pattern> (default: '*').",
	"SHARDNUMSUB [<shardchannel> ...]",
	"    Return the number of subscribers for the specified shard level channel(s)",
	"HELP",
	"    Prints this help.",
}

// Pubsub is PUBSUB: what the directory knows of every core.
func Pubsub(c Core, cn Conn, argv [][]byte) {
	sub := strings.ToLower(string(argv[1]))
	d := c.PubSub()
	switch {
	case sub == "help":
		cn.Help(pubsubHelp)
	case (sub == "channels" || sub == "shardchannels") && len(argv) <= 3:
		names := d.Channels(sub == "shardchannels")
		if len(argv) == 3 {
			match := names[:0]
			for _, name := range names {
				if shardowner.MatchGlob(argv[2], []byte(name), false) {
					match = append(match, name)
				}
			}
			names = match
		}
		sort.Strings(names)
		w := cn.Begin()
		w.Array(len(names))
		for _, name := range names {
			w.BulkString(name)
		}
		cn.End()
	case sub == "numsub" || sub == "shardnumsub":
		counts := d.Subscribers(sub == "shardnumsub", argv[2:])
		w := cn.Begin()
		w.Array(2 * len(counts))
		for i, n := range counts {
			w.Bulk(argv[2+i])
			w.Int(int64(n))
		}
		cn.End()
	case sub == "numpat":
		w := cn.Begin()
		w.Int(int64(d.Patterns()))
		cn.End()
	case sub == "channels" || sub == "shardchannels":
		cn.Error(resp.ErrSubcommandSyntax("pubsub", argv[1]))
	default:
		cn.Error(resp.ErrUnknownSubcommand("pubsub", argv[1]))
	}
}
