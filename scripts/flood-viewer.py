#!/usr/bin/env python3
"""Floods the viewer of `memreuse view` as another local process could (issue 36).

  flood-viewer.py hold PORT idle|slow COUNT
      Opens COUNT connections to 127.0.0.1:PORT: `idle` ones send nothing, `slow` ones a
      partial request head. Prints `open N` once they are open (N may be less than COUNT
      when the descriptor limit allows no more), then holds them until stdin closes.
      daemon/tests/hostile.rs runs it as the flooding process.

  flood-viewer.py measure URL PID [IDLE [SLOW]]
      The figures: for each flood (IDLE idle connections, default 1500, then SLOW slow-head
      ones, default 600) the answer time of the token-bearing `GET /api/files` before, during
      (the slowest of 5) and after, and the RSS of PID (the daemon) before and during. URL is
      what `memreuse view --no-open FILE` printed.
"""

import http.client
import resource
import socket
import sys
import time
import urllib.parse

SLOW_HEAD = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "


def raise_descriptor_limit():
    """Raises the soft descriptor limit to the hard one; the new soft limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or hard > soft:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        except (ValueError, OSError):
            pass
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def flood(port, kind, count):
    """Opens up to `count` connections (as the descriptor limit allows, keeping 32 spare)."""
    limit = raise_descriptor_limit()
    count = min(count, max(limit - 32, 0))
    held = []
    for _ in range(count):
        sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        if kind == "slow":
            try:
                sock.sendall(SLOW_HEAD)
            except OSError:
                pass  # a server that refused the connection at once
        held.append(sock)
    return held


def close(held):
    for sock in held:
        sock.close()


def timed_request(port, path):
    """(status or the error's name, seconds) of one GET."""
    started = time.monotonic()
    try:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        connection.request("GET", path)
        response = connection.getresponse()
        response.read()
        connection.close()
        outcome = response.status
    except OSError as err:
        outcome = type(err).__name__
    return outcome, time.monotonic() - started


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def hold(port, kind, count):
    held = flood(port, kind, count)
    print(f"open {len(held)}", flush=True)
    sys.stdin.read()
    close(held)


def measure(url, pid, idle, slow):
    parsed = urllib.parse.urlsplit(url)
    port = parsed.port
    path = f"/api/files?{parsed.query}"
    for kind, count in (("idle", idle), ("slow", slow)):
        before, before_s = timed_request(port, path)
        rss_before = rss_kib(pid)
        held = flood(port, kind, count)
        answers = [timed_request(port, path) for _ in range(5)]
        during = sorted({str(outcome) for outcome, _ in answers})
        during_s = max(seconds for _, seconds in answers)
        rss_during = rss_kib(pid)
        close(held)
        after, after_s = timed_request(port, path)
        print(
            f"{kind} x{len(held)}: answer before {before} in {before_s * 1000:.1f} ms, "
            f"during (5 requests) {'/'.join(during)} in at most {during_s * 1000:.1f} ms, "
            f"after {after} in "
            f"{after_s * 1000:.1f} ms; daemon RSS before {rss_before} KiB, "
            f"during {rss_during} KiB"
        )


def main(args):
    if len(args) == 4 and args[0] == "hold" and args[2] in ("idle", "slow"):
        hold(int(args[1]), args[2], int(args[3]))
    elif 3 <= len(args) <= 5 and args[0] == "measure":
        counts = [int(a) for a in args[3:]] + [1500, 600][len(args) - 3 :]
        measure(args[1], int(args[2]), counts[0], counts[1])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
