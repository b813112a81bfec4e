# Multi-stage build: a static corekv binary in a minimal image, run as a
# non-root user. corekv starts one shard per CPU the container may use, so
#   docker run --cpuset-cpus=2-5 -p 6379:6379 corekv
# runs four shards pinned to CPUs 2, 3, 4 and 5.
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/corekv ./cmd/corekv

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/corekv /usr/local/bin/corekv
USER nonroot:nonroot
EXPOSE 6379
# Inside a container the loopback address is not reachable from outside:
# listen on every interface and set a password for anything but local use.
ENTRYPOINT ["/usr/local/bin/corekv", "--bind", "0.0.0.0", "::"]
