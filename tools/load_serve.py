#!/usr/bin/env python3
"""Puts `nimtb serve` under load on loopback and prints what a user of it feels.

Starts the server over a folder (by default a fresh one holding nim misère
K=6 H=31, solved first), then sends /api/query requests for random positions
from 1, 8 and 64 clients at once, each level for --seconds, and prints the
throughput and the latency's median, 99th percentile and maximum; connections
refused or reset are counted as dropped. Then it starts a long piece of work
(--long: a solve of Wythoff's game to 3000 3000, 4.5 M positions, by POST
/api/find; or a CSV export of the served table) and measures the same again
while it runs. Last it hangs up on the work's client and measures how long
the server takes to stop the work, and whether any file was left.

    tools/load_serve.py                         # keep-alive clients
    tools/load_serve.py --no-keep-alive         # a connection per request
    tools/load_serve.py --levels 8 --seconds 5 --long dump

Everything goes to 127.0.0.1 and stops by itself. Exit status 0 when no
request failed, 1 otherwise.
"""
import argparse
import asyncio
import glob
import json
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))


def percentile(sorted_values, q):
    if not sorted_values:
        return float("nan")
    return sorted_values[min(len(sorted_values) - 1, int(q * len(sorted_values)))]


async def request(port, target, keep, conn=None, method="GET", body=b""):
    """One request; returns (status, body, connection to reuse or None)."""
    if conn is None:
        conn = await asyncio.open_connection("127.0.0.1", port)
    reader, writer = conn
    head = (f"{method} {target} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
            f"Connection: {'keep-alive' if keep else 'close'}\r\n")
    if body:
        head += f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
    writer.write(head.encode() + b"\r\n" + body)
    await writer.drain()
    status_line = await reader.readline()
    if not status_line:
        raise ConnectionResetError("closed before an answer")
    status = int(status_line.split()[1])
    length, chunked = None, False
    while True:
        line = await reader.readline()
        if line in (b"\r\n", b""):
            break
        name, _, value = line.decode().partition(":")
        if name.lower() == "content-length":
            length = int(value)
        if name.lower() == "transfer-encoding" and "chunked" in value:
            chunked = True
        if name.lower() == "connection" and "close" in value.lower():
            keep = False  # the server ends the connection: the next request opens another
    if chunked:
        data = b""
        while True:
            size = int((await reader.readline()).strip(), 16)
            data += await reader.readexactly(size + 2)
            if size == 0:
                break
    else:
        data = await reader.readexactly(length or 0)
    if keep:
        return status, data, conn
    writer.close()
    return status, data, None


async def level(port, table, positions, clients, seconds, keep):
    """Latencies (s) of every answered request, and the failures."""
    latencies, failures = [], []
    stop_at = time.monotonic() + seconds
    rng = random.Random(clients)

    async def client():
        conn = None
        while time.monotonic() < stop_at:
            target = "/api/query?" + urllib.parse.urlencode({"table": table, "position": rng.choice(positions)})
            t0 = time.monotonic()
            try:
                status, _, conn = await request(port, target, keep, conn)
                if status != 200:
                    failures.append(f"status {status}")
                else:
                    latencies.append(time.monotonic() - t0)
            except (OSError, asyncio.IncompleteReadError, ValueError) as e:
                failures.append(type(e).__name__)
                conn = None
        if conn:
            conn[1].close()

    await asyncio.gather(*(client() for _ in range(clients)))
    return sorted(latencies), failures


def report(label, clients, keep, seconds, latencies, failures):
    ms = lambda s: f"{1000 * s:7.2f} ms"
    print(f"{label:5} c={clients:<3} {'keep-alive' if keep else 'no keep-alive':13} "
          f"{len(latencies) / seconds:8.0f} req/s  p50 {ms(percentile(latencies, 0.5))}  "
          f"p99 {ms(percentile(latencies, 0.99))}  max {ms(latencies[-1] if latencies else float('nan'))}  "
          f"failed {len(failures)}" + (f" ({', '.join(sorted(set(failures)))})" if failures else ""),
          flush=True)


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def children(pid):
    """The server's child processes (its work)."""
    out = []
    for task in glob.glob(f"/proc/{pid}/task/*/children"):
        with open(task) as f:
            out += [int(x) for x in f.read().split()]
    return out


class LongWork(threading.Thread):
    """Holds one long request open until hang_up()."""

    def __init__(self, port, kind, table):
        super().__init__(daemon=True)
        self.port, self.kind, self.table = port, kind, table
        self.sock = socket.create_connection(("127.0.0.1", port))

    def run(self):
        if self.kind == "solve":
            body = json.dumps({"rules": "wythoff", "convention": "normal", "position": "3000,3000"}).encode()
            head = (f"POST /api/find HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\n"
                    f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n").encode()
            self.sock.sendall(head + body)
        else:
            target = "/api/dump?" + urllib.parse.urlencode({"table": self.table})
            self.sock.sendall(f"GET {target} HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\n\r\n".encode())
            self.sock.settimeout(0.5)
            try:  # read a little, then stall: a slow reader of a big export
                self.sock.recv(65536)
            except OSError:
                pass

    def hang_up(self):
        self.sock.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--nimtb", default=os.path.join(HERE, "..", "build", "apps", "nimtb"))
    ap.add_argument("--tables", help="a folder to serve (default: a new one with nim misère K=6 H=31)")
    ap.add_argument("--table", help="the table to query (default: the folder's first)")
    ap.add_argument("--levels", default="1,8,64", help="clients at once, comma-separated")
    ap.add_argument("--seconds", type=float, default=10)
    ap.add_argument("--no-keep-alive", action="store_true", help="a new connection per request")
    ap.add_argument("--long", choices=["solve", "dump", "none"], default="solve")
    args = ap.parse_args()
    keep = not args.no_keep_alive
    levels = [int(x) for x in args.levels.split(",")]

    work = tempfile.mkdtemp(prefix="nimtb-load-")
    try:
        tables = args.tables
        if not tables:
            tables = os.path.join(work, "tables")
            os.makedirs(tables)
            subprocess.run([args.nimtb, "solve", "--rules", "nim", "--misere", "--heaps", "6", "--max-heap", "31",
                            "-o", os.path.join(tables, "nim-misere-k6-h31.h5"), "--quiet"], check=True)
        table = args.table or sorted(f for f in os.listdir(tables) if f.endswith(".h5"))[0]
        before = sorted(os.listdir(tables))
        server = subprocess.Popen([args.nimtb, "serve", "--tables", tables, "--port", "0"],
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        line = server.stdout.readline()
        port = int(line.split(" at ")[1].split()[0].rstrip("/").rsplit(":", 1)[1])
        peak = [rss_mb(server.pid)]
        watching = [True]

        def watch_rss():
            while watching[0] and server.poll() is None:
                peak[0] = max(peak[0], rss_mb(server.pid))
                time.sleep(0.1)
        threading.Thread(target=watch_rss, daemon=True).start()

        info = json.loads(subprocess.run([args.nimtb, "info", os.path.join(tables, table), "--json"],
                                         capture_output=True, text=True, check=True).stdout)
        rng = random.Random(1)
        k, h = info["max_heaps"], info["max_heap_size"]
        positions = [",".join(str(rng.randint(0, h)) for _ in range(min(k, 6))) for _ in range(1000)]
        if info.get("max_total"):
            positions = [",".join(str(rng.randint(0, info["max_total"] // 4)) for _ in range(4)) for _ in range(1000)]
        print(f"nimtb serve on 127.0.0.1:{port}, querying {table} ({info['positions']} positions), "
              f"{args.seconds:g} s per level", flush=True)

        failed = 0
        p99 = {}
        for phase in ["idle"] + ([] if args.long == "none" else ["busy"]):
            long = None
            if phase == "busy":
                long = LongWork(port, args.long, table)
                long.start()
                time.sleep(1.0)  # under way
                print(f"with a long job running: {args.long} "
                      f"({'wythoff to 3000 3000, 4.5 M positions' if args.long == 'solve' else 'CSV export of ' + table})",
                      flush=True)
            for c in levels:
                lat, fail = asyncio.run(level(port, table, positions, c, args.seconds, keep))
                report(phase, c, keep, args.seconds, lat, fail)
                failed += len(fail)
                p99[(phase, c)] = percentile(lat, 0.99)
            if long:
                working = children(server.pid)
                long.hang_up()
                t0 = time.monotonic()
                while children(server.pid) and time.monotonic() - t0 < 10:
                    time.sleep(0.01)
                gone = time.monotonic() - t0
                # The server removes the solve's folder just after it reaps the child.
                while glob.glob("/tmp/nimtb-serve-*/.nimtb-solve-*") and time.monotonic() - t0 < 10:
                    time.sleep(0.01)
                left = glob.glob("/tmp/nimtb-serve-*/.nimtb-solve-*") + \
                    [f for f in sorted(os.listdir(tables)) if f not in before]
                print(f"client of the long job gone: {len(working)} child(ren) of the server stopped in {gone:.2f} s; "
                      f"files left: {left or 'none'}", flush=True)
                failed += bool(children(server.pid)) + len(left)
        for c in levels:
            if ("busy", c) in p99:
                print(f"p99 with the long job / idle, c={c}: {p99[('busy', c)] / p99[('idle', c)]:.2f}x")
        watching[0] = False
        server.terminate()
        t0 = time.monotonic()
        server.wait(timeout=10)
        print(f"server RSS peak {peak[0]:.0f} MB; SIGTERM to exit {time.monotonic() - t0:.2f} s")
        return 1 if failed else 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
