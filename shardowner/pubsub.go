package shardowner

// Hub is the part of a core that holds its connections' subscriptions. A
// publish runs as a command on every core that may have subscribers, and
// that core's Hub writes the message to them.
type Hub interface {
	// Publish delivers msg on channel to this core's subscribers (shard
	// channel subscribers when sharded, else channel and pattern
	// subscribers) and returns how many clients received it, a client
	// counting once per subscription that matched, as Redis counts.
	Publish(channel, msg []byte, sharded bool) int
	// Broadcast publishes msg on channel to the subscribers of every core,
	// this one at once and the others through the rings, without waiting
	// for their counts (keyspace notifications).
	Broadcast(channel, msg []byte)
	// Monitor takes a MONITOR line, formatted by the core of the client
	// whose command it shows, for this core's monitoring connections.
	Monitor(line []byte)
}

// Publish is PUBLISH's part on one core: the count of this core's receivers.
func Publish(c *Ctx, argv [][]byte) { publish(c, argv, false) }

// SPublish is SPUBLISH's part on one core.
func SPublish(c *Ctx, argv [][]byte) { publish(c, argv, true) }

func publish(c *Ctx, argv [][]byte, sharded bool) {
	n := 0
	if h := c.Shard.Hub; h != nil {
		n = h.Publish(argv[1], argv[2], sharded)
	}
	c.W.Int(int64(n))
}

// MonitorFeed is a MONITOR line's part on one core (corekv.monitor): the
// core's Hub passes argv[1] to its monitors. Nobody reads its reply.
func MonitorFeed(c *Ctx, argv [][]byte) {
	if h := c.Shard.Hub; h != nil {
		h.Monitor(argv[1])
	}
	c.W.OK()
}
