package main

import (
	"io"
	"net"
)

func readFull(c net.Conn, buf []byte) (int, error) { return io.ReadFull(c, buf) }
