// Package resp owns the Redis wire protocol: parsing client requests (RESP2
// multibulk frames and inline commands) in place inside the connection's input
// buffer, writing RESP2 and RESP3 replies by appending to a caller's buffer, the
// protocol's limits, and the error values whose text clients match on.
//
// Nothing here allocates on the hot path: the parser returns slices of the
// buffer it was given and the writers append to a buffer the caller reuses.
package resp
