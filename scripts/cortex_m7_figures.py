#!/usr/bin/env python3
"""The Cortex-M7 figures the docs state, measured and kept in one committed file,
docs/cortex_m7_figures.json (CTest `cortex_m7_figures`, cortex-m7 preset).

  memory        the product image (beltsim_firmware.elf): flash = .text + .ARM.exidx + .init_array
                + .data (its load image); RAM = .data + .bss + .noinit + 64 bytes of fault record
                + the worst-case stack bound of scripts/stack_bound.py (as the memory budget test,
                tests/cmake/check_memory_budget.cmake, which enforces the limits); the step's code,
                the functions reachable from the firmware's tick.
  instructions  firmware_scripted_run.elf (the microcontroller configuration, 600 ticks, with a
                step log) under qemu-system-arm -icount shift=1,sleep=off: one instruction = 2 ns of
                virtual time, so each logged step time is an exact instruction count: min, median
                (the lower middle), p99 (nearest rank), max and mean over the steps.

  check   measures and compares with the file; exits 1, naming every figure that differs, when
          the file is not what the build measures (a change that moves a figure writes it again)
  write   measures and writes the file and the table of docs/firmware.md, *Measured figures* (the
          docs CTest compares the two and finds pages that restate a figure)

Usage: cortex_m7_figures.py check|write --size ARM_SIZE --stack-script scripts/stack_bound.py
           --callgraph-dirs DIR[|DIR...] --product IMAGE --scripted IMAGE [--figures FILE]
"""
import argparse
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIGURES = os.path.join(ROOT, 'docs', 'cortex_m7_figures.json')
QEMU = ['qemu-system-arm', '-M', 'mps2-an500', '-nographic', '-monitor', 'none', '-serial', 'null',
        '-semihosting-config', 'enable=on,target=native', '-icount', 'shift=1,sleep=off', '-kernel']
FAULT_RECORD = 64  # bytes at the top of RAM, outside the sections (hal/mps2_an500)


def memory(size_tool, nm_tool, stack_script, callgraph_dirs, image):
    table = subprocess.run([size_tool, '-A', image], capture_output=True, text=True, check=True).stdout
    section = {}
    for name in ('text', 'ARM.exidx', 'init_array', 'data', 'bss', 'noinit', 'stack'):
        m = re.search(r'\n\.%s\s+(\d+)' % re.escape(name), table)
        section[name] = int(m.group(1)) if m else 0
    report = subprocess.run([sys.executable, stack_script] + callgraph_dirs +
                            ['--limit', str(section['stack']), '--step-root', '9PlantLoop+4tickE', '--image', image,
                             '--nm', nm_tool], capture_output=True, text=True)
    m = re.search(r'worst-case stack bound: (\d+)', report.stdout)
    code = re.search(r'step code: (\d+)', report.stdout)
    if report.returncode != 0 or not m or not code:
        sys.exit('stack bound failed:\n' + report.stdout + report.stderr)
    stack = int(m.group(1))
    return {
        'flash_bytes': section['text'] + section['ARM.exidx'] + section['init_array'] + section['data'],
        'ram_bytes': section['data'] + section['bss'] + section['noinit'] + FAULT_RECORD + stack,
        'ram_parts_bytes': {'data': section['data'], 'bss': section['bss'], 'noinit': section['noinit'],
                            'fault_record': FAULT_RECORD, 'stack_bound': stack},
        'step_code_bytes': int(code.group(1)),
    }


def instructions(image):
    out = subprocess.run(QEMU + [image], capture_output=True, text=True, timeout=1800)
    if out.returncode != 0:
        sys.exit('%s failed under QEMU (%d):\n%s%s' % (image, out.returncode, out.stdout[-2000:], out.stderr[-2000:]))
    ns = []
    for line in (out.stdout + out.stderr).splitlines():
        if line.startswith('steplog '):
            ns += [int(v) for v in line.split()[2:]]
    if not ns:
        sys.exit('%s printed no step log (built without BELTSIM_FW_STEP_LOG?)' % image)
    steps = [v // 2 for v in ns]  # 2 ns of virtual time per instruction
    ordered = sorted(steps)
    n = len(ordered)
    return {
        'steps': n,
        'min': ordered[0],
        'median': ordered[(n - 1) // 2],
        'p99': ordered[min(n - 1, -(-99 * n // 100) - 1)],
        'max': ordered[-1],
        'mean': sum(steps) // n,
    }


def measure(a):
    figures = {'about': 'Cortex-M7 figures of this tree: written by scripts/cortex_m7_figures.py write, '
                        'checked by CTest cortex_m7_figures (cortex-m7 preset); the docs cite this file '
                        '(docs/firmware.md, *Measured figures*)',
               'product_image': memory(a.size, a.nm, a.stack_script, a.callgraph_dirs.split('|'), a.product),
               'scripted_run_instructions_per_step': instructions(a.scripted)}
    return figures


def differences(want, have, prefix=''):
    out = []
    for key in sorted(set(want) | set(have)):
        if key == 'about':
            continue
        w, h = want.get(key), have.get(key)
        if isinstance(w, dict) and isinstance(h, dict):
            out += differences(w, h, prefix + key + '.')
        elif w != h:
            out.append('%s%s: the file says %s, the build measures %s' % (prefix, key, w, h))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('mode', choices=('check', 'write'))
    ap.add_argument('--size', required=True)
    ap.add_argument('--nm', default='arm-none-eabi-nm')
    ap.add_argument('--stack-script', required=True)
    ap.add_argument('--callgraph-dirs', required=True)
    ap.add_argument('--product', required=True)
    ap.add_argument('--scripted', required=True)
    ap.add_argument('--figures', default=FIGURES)
    a = ap.parse_args()
    have = measure(a)
    if a.mode == 'write':
        with open(a.figures, 'w') as f:
            json.dump(have, f, indent=2)
            f.write('\n')
        # The table of docs/firmware.md, *Measured figures*, which the docs CTest compares with the file.
        sys.path.insert(0, os.path.join(ROOT, 'tests', 'docs'))
        from check_doc_references import write_figures_table  # noqa: E402
        write_figures_table(ROOT, have)
        print('wrote %s and the table of docs/firmware.md, *Measured figures*' % a.figures)
        return 0
    try:
        want = json.load(open(a.figures))
    except (OSError, ValueError) as e:
        print('%s: cannot be read (%s)' % (a.figures, e))
        return 1
    diff = differences(want, have)
    for line in diff:
        print('%s: %s' % (os.path.relpath(a.figures, ROOT), line))
    if diff:
        print('%d figures differ: write them again (cmake --build --preset cortex-m7 --target cortex_m7_figures_write) '
              'and say on the issue which moved and why' % len(diff))
        return 1
    m, s = have['product_image'], have['scripted_run_instructions_per_step']
    print('Cortex-M7 figures as the file states: flash %d B, RAM %d B; scripted run, %d steps: instructions per step '
          'min %d, median %d, p99 %d, max %d, mean %d' % (m['flash_bytes'], m['ram_bytes'], s['steps'], s['min'],
                                                         s['median'], s['p99'], s['max'], s['mean']))
    return 0


if __name__ == '__main__':
    sys.exit(main())
