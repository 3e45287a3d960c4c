#!/usr/bin/env python3
"""Where a process's resident memory goes, from /proc/PID/smaps: the malloc heap and arenas, thread stacks,
the program's own file, and each shared library, in KiB. Prints one JSON object.

Usage: rss_split.py PID
"""
import collections
import json
import os
import sys

STACK_KIB = (8192, 8188)  # glibc's default thread stack: an 8 MiB mapping (with or without its guard page)


def mappings(pid):
    current = None
    with open(f"/proc/{pid}/smaps") as f:
        for line in f:
            fields = line.split()
            if not fields[0].endswith(":"):  # "start-end perms offset dev inode [path]" opens a mapping
                if current:
                    yield current
                start, end = (int(x, 16) for x in fields[0].split("-"))
                current = {"kib": (end - start) // 1024, "path": fields[5] if len(fields) > 5 else "", "rss": 0}
            elif fields[0] == "Rss:":
                current["rss"] = int(fields[1])
    if current:
        yield current


def main():
    pid = sys.argv[1]
    parts = collections.Counter()
    exe = os.readlink(f"/proc/{pid}/exe")
    for m in mappings(pid):
        path = m["path"]
        if path == "[heap]":
            key = "malloc: main heap"
        elif path == "":
            key = "thread stacks" if m["kib"] in STACK_KIB else "malloc: other arenas and anonymous maps"
        elif path == exe:
            key = "the gpuwatch binary"
        elif path.startswith("/"):
            key = os.path.basename(path)
        else:
            key = path  # [stack], [vdso], ...
        parts[key] += m["rss"]
    print(json.dumps({"total_kib": sum(parts.values()), "parts_kib": dict(parts.most_common())}, indent=1))


if __name__ == "__main__":
    main()
