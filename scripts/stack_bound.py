#!/usr/bin/env python3
"""Worst-case stack bound of a firmware image from GCC's call-graph files (-fcallgraph-info=su).

Reads every .ci file given (or found under the given folders), builds the call graph with each
function's frame size, and prints the deepest path from the entry function plus the interrupt
handlers' share: bound = deepest(main) + max over handlers of (deepest(handler) + exception frame).
Calls to functions without a .ci entry (C library: memcpy, memset...) are charged
--external-bytes each and listed. Fails (exit 1) on recursion, dynamic frames, or a bound above
--limit.

With --step-root NAME --image ELF --nm NM it also prints the step's code: the bytes of the image's
functions reachable in the call graph from the function whose mangled name contains each
'+'-separated part of NAME (9PlantLoop+4tickE: the firmware's tick), sizes from `nm -S` (the code
a core keeps in tightly coupled memory beside RAM).
"""
import argparse
import os
import re
import subprocess
import sys

NODE = re.compile(r'node: \{ title: "([^"]+)" label: "((?:[^"\\]|\\.)*)"')
EDGE = re.compile(r'edge: \{ sourcename: "([^"]+)" targetname: "([^"]+)"')
SIZE = re.compile(r'(\d+) bytes \((static|dynamic[^)]*)\)')


def short(title):
    return title.split(':')[-1]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('paths', nargs='+')
    ap.add_argument('--entry', default='main')
    ap.add_argument('--handlers', default='SysTick_Handler,NMI_Handler')
    ap.add_argument('--exception-frame', type=int, default=104, help='bytes the core pushes (FP context: 26 words)')
    ap.add_argument('--external-bytes', type=int, default=64)
    ap.add_argument('--limit', type=int, default=0)
    ap.add_argument('--step-root', help='parts of the mangled name of the step\'s entry, joined by + (9PlantLoop+4tickE)')
    ap.add_argument('--image', help='the ELF image whose code sizes count (with --step-root)')
    ap.add_argument('--nm', default='arm-none-eabi-nm')
    args = ap.parse_args()

    files = []
    for p in args.paths:
        if os.path.isdir(p):
            for root, _, names in os.walk(p):
                files += [os.path.join(root, n) for n in names if n.endswith('.ci')]
        else:
            files.append(p)
    size, dynamic, label, calls, selfEdges = {}, set(), {}, {}, set()
    for f in files:
        for line in open(f, encoding='utf-8', errors='replace'):
            m = NODE.search(line)
            if m:
                key = short(m.group(1))
                s = SIZE.search(m.group(2))
                label[key] = m.group(2).split('\\n')[0]
                if s:
                    size[key] = max(size.get(key, 0), int(s.group(1)))
                    if s.group(2) != 'static':
                        dynamic.add(key)
                continue
            m = EDGE.search(line)
            if m:
                src, dst = short(m.group(1)), short(m.group(2))
                if src == dst:
                    # GCC labels the call of an inlined overload wrapper as a self-call (seen for
                    # ContactPair::postNewtonStep); the model has no recursion. Listed, not followed.
                    selfEdges.add(src)
                    continue
                calls.setdefault(src, set()).add(dst)
    externals = set()
    memo = {}

    def deepest(fn, stack):
        if fn in stack:
            raise RuntimeError('recursion: ' + ' -> '.join(label.get(x, x)[:60] for x in stack + [fn]))
        if fn in memo:
            return memo[fn]
        if fn not in size:
            externals.add(fn)
            return args.external_bytes, [fn]
        best, path = 0, []
        for callee in sorted(calls.get(fn, ())):
            d, p = deepest(callee, stack + [fn])
            if d > best:
                best, path = d, p
        memo[fn] = (size[fn] + best, [fn] + path)
        return memo[fn]

    entry = next((k for k in size if k == args.entry), None)
    if entry is None:
        print('stack_bound: entry %s not found in %d files' % (args.entry, len(files)))
        return 1
    try:
        total, path = deepest(entry, [])
        handler = 0
        for h in args.handlers.split(','):
            if h in size:
                d, _ = deepest(h, [])
                handler = max(handler, d + args.exception_frame)
    except RuntimeError as e:
        print('stack_bound: ' + str(e))
        return 1
    print('deepest path from %s (%d bytes):' % (entry, total))
    for fn in path:
        print('  %6d  %s' % (size.get(fn, args.external_bytes), label.get(fn, fn)[:110]))
    print('interrupt share: %d bytes (deepest handler + %d-byte exception frame)' % (handler, args.exception_frame))
    if externals:
        print('external functions charged %d bytes each: %s' % (args.external_bytes, ', '.join(sorted(externals))))
    if selfEdges:
        print('self-edges not followed: ' + ', '.join(label.get(x, x)[:60] for x in sorted(selfEdges)))
    if dynamic:
        print('stack_bound: dynamic frames: ' + ', '.join(sorted(dynamic)))
        return 1
    bound = total + handler
    print('worst-case stack bound: %d bytes' % bound)
    if args.step_root and args.image:
        code = step_code(args, calls)
        if code is None:
            print('stack_bound: no function named like %s in the call graph' % args.step_root)
            return 1
        print('step code: %d bytes (%d functions reachable from %s)' % code)
    if args.limit and bound > args.limit:
        print('stack_bound: bound %d exceeds the limit %d' % (bound, args.limit))
        return 1
    return 0


def step_code(args, calls):
    """(bytes, functions, root) of the image's code reachable from the step's entry, or None."""
    sizes = {}
    listing = subprocess.run([args.nm, '-S', args.image], capture_output=True, text=True, check=True).stdout
    for line in listing.splitlines():
        fields = line.split()
        if len(fields) == 4 and fields[2] in 'tTwW':
            sizes[fields[3]] = int(fields[1], 16)
    parts = args.step_root.split('+')
    roots = sorted(k for k in calls if all(p in k for p in parts))
    if not roots:
        return None
    seen, stack = set(), list(roots)
    while stack:
        fn = stack.pop()
        if fn not in seen:
            seen.add(fn)
            stack += calls.get(fn, ())
    return sum(sizes.get(fn, 0) for fn in seen), len(seen), roots[0]


if __name__ == '__main__':
    sys.exit(main())
