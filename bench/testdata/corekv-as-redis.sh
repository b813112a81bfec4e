#!/bin/sh
# Stands in for corekv while developing the harness: takes corekv's flags
# (--port N --bind ADDR --save "" --shards K, --dir DIR) and runs redis-server on that port.
#   go run ./bench --corekv-bin bench/testdata/corekv-as-redis.sh --quick
port=6379
bind=127.0.0.1
dir=.
while [ $# -gt 0 ]; do
	case "$1" in
	--port) port=$2; shift 2 ;;
	--bind) bind=$2; shift 2 ;;
	--shards) shift 2 ;; # redis-server has one main thread
	--save) shift 2 ;;   # never saves on its own, as below
	--dir) dir=$2; shift 2 ;;
	*) echo "corekv-as-redis.sh: unknown flag $1" >&2; exit 2 ;;
	esac
done
exec redis-server --port "$port" --bind "$bind" --dir "$dir" --save '' --appendonly no --protected-mode no
