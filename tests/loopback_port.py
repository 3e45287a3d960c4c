"""A TCP port on 127.0.0.1 that was free a moment ago, for a server whose port must be known before it starts
(an agent that Prometheus is told to scrape, one restarted on the same port).

It is drawn below the kernel's ephemeral range: bind(0) hands out ports from that range, where an outgoing
connection of a test running beside can take the port before the server listens on it. tests/cli/run_process.h
draws the C++ suites' ports the same way.
"""

import random
import socket


def free_port():
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            ephemeral_low = int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        ephemeral_low = 32768
    high = max(ephemeral_low - 1, 2048)
    low = max(high - 12000, 1024)
    draw = random.SystemRandom()
    for _ in range(200):
        port = draw.randint(low, high)
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError("cannot find a free port on 127.0.0.1")
