#!/usr/bin/env python3
"""Instruction and time budget of one model step (issue 6), a benchmark, not a test.

  Cortex-M7  firmware_scripted_run.elf (microcontroller configuration, 600 ticks) under
             qemu-system-arm -icount shift=1,sleep=off: one instruction = 2 ns of virtual time,
             so the firmware's own step timing (SysTick, 40 ns = 20 instructions resolution)
             is an instruction count. min, mean and max are exact; median and p99 come from the
             firmware's log-linear histogram (at most 1/32 above the true value), so the
             worst/median ratio is given as a range. If built (cmake --build DIR --target
             firmware_paper_run.elf), the same over the paper's scenario (2450 steps). If built
             (targets firmware_scripted_phases.elf, firmware_paper_phases.elf), the breakdown of a
             fixed-cost step into its phases (residual, partial re-factorization, switch columns,
             solve, post-Newton pass, rebuild), per step on average and in the slowest step.
  host       the same image for Linux, and the PC configuration (the build's, 6000 ticks):
             wall time per step from the firmware's clock (native run), and x86-64 instructions
             per tick from callgrind (--toggle-collect on PlantLoop::tick and a dump after every tick:
             mean, median, p99 and the worst tick, exact); for the microcontroller image also the
             double-precision divides and square roots of its worst tick (divsd, sqrtsd: the
             Cortex-M7's VDIV.F64 and VSQRT.F64 of the same sources, about 30 cycles each there);
             and where the worst tick goes: calls and instructions of its residuals, matrix work,
             solves and post-Newton passes.
  --primitives  per call of the step's building blocks (callgrind, x86-64, both configurations):
             residual, Newton-matrix build, block factorization, solve, post-Newton pass, and for
             a fixed-cost build the switch columns and refresh slices; and the least a step can
             cost with them (the floor of any scheme built from these calls).
  --m7-build DIR  the Cortex-M7 build to measure (default build/cortex-m7; e.g. one configured
             with -DBELTSIM_FIRMWARE_MCU_SCENARIO=tests/bench/configs/microcontroller_fixed_cost.toml).
  --build DIR  the host build to measure (default build/host; e.g. a build configured with
             -DBELTSIM_FIRMWARE_MCU_SCENARIO=tests/bench/configs/microcontroller_fixed_cost.toml).
  --meshes     accuracy and time per step of the microcontroller configuration with 8 to 24
             elements (builds and runs tests/bench/bench_mesh_floor.cpp).
  --eulerian   the eulerian mesh (builds tests/bench/bench_eulerian.cpp): x86-64
             instructions per step (callgrind, steps 18001-18300 of the paper's scenario, one dump
             a step: median, p99, worst, mean) at 16 and 24 elements, with the fixed-cost stepping
             of eulerian_belt_drive.toml (decided states), with five passes and the PC configuration's.
Usage: scripts/instruction_budget.py [--skip-callgrind] [--primitives] [--meshes] [--eulerian] [--build DIR]
       (after the host and cortex-m7 presets are built)
"""
import os
import re
import shutil
import subprocess
import sys
import tomllib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
M7_BUILD = os.path.join(ROOT, 'build/cortex-m7')
if '--m7-build' in sys.argv[:-1]:
    M7_BUILD = os.path.abspath(sys.argv[sys.argv.index('--m7-build') + 1])
M7_IMAGE = os.path.join(M7_BUILD, 'tests/firmware_scripted_run.elf')
M7_PAPER_IMAGE = os.path.join(M7_BUILD, 'firmware/firmware_paper_run.elf')
M7_PHASE_IMAGES = (('scripted stimulus', os.path.join(M7_BUILD, 'firmware/firmware_scripted_phases.elf')),
                   ("paper's scenario", os.path.join(M7_BUILD, 'firmware/firmware_paper_phases.elf')))
PHASES = re.compile(r'phases (mean|worst) ns (?:over (\d+) steps|\(step (\d+)\)):((?: \w+ \d+)+)')
HOST_BUILD = os.path.join(ROOT, 'build/host')
if '--build' in sys.argv[:-1]:
    HOST_BUILD = os.path.abspath(sys.argv[sys.argv.index('--build') + 1])
HOST_MCU = os.path.join(HOST_BUILD, 'tests/firmware_scripted_run')
HOST_PC = os.path.join(HOST_BUILD, 'firmware/beltsim_firmware_pc_bench')


def configuration(build, option, default):
    """Mesh, element count and step of a firmware configuration the host build was generated from
    (its CMake option, default the file under firmware/configs/)."""
    scenario = os.path.join(ROOT, default)
    cache = os.path.join(build, 'CMakeCache.txt')
    if os.path.exists(cache):
        for line in open(cache):
            if line.startswith(option + ':'):
                scenario = line.split('=', 1)[1].strip()
    with open(scenario, 'rb') as f:
        c = tomllib.load(f)
    return c['belt'].get('mesh', 'material'), c['belt']['elements'], c['solver']['step_size']


PC_MESH, PC_ELEMENTS, PC_STEP = configuration(HOST_BUILD, 'BELTSIM_FIRMWARE_PC_SCENARIO', 'firmware/configs/pc.toml')
PC_NAME = 'PC (%d %s el, %g s)' % (PC_ELEMENTS, PC_MESH, PC_STEP)
MCU_MESH, MCU_ELEMENTS, MCU_STEP = configuration(HOST_BUILD, 'BELTSIM_FIRMWARE_MCU_SCENARIO',
                                                 'firmware/configs/microcontroller.toml')
MCU_NAME = 'microcontroller (%d %s el, %g s)' % (MCU_ELEMENTS, MCU_MESH, MCU_STEP)
QEMU = ['qemu-system-arm', '-M', 'mps2-an500', '-nographic', '-monitor', 'none', '-serial', 'null',
        '-semihosting-config', 'enable=on,target=native', '-icount', 'shift=1,sleep=off', '-kernel']
STEP = re.compile(r'timing step ns: n (\d+) min (\d+) median (\d+) p99 (\d+) max (\d+) mean (\d+)')


def run(cmd, cwd, allow_failure=False):
    out = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=3600)
    if out.returncode != 0 and allow_failure:
        print('  the run failed (%d); its figures cover the steps before it stopped:' % out.returncode)
        print(''.join('    ' + l + '\n' for l in (out.stdout + out.stderr).splitlines() if 'fault' in l or 'FAIL' in l), end='')
    elif out.returncode != 0:
        sys.exit('failed (%d): %s\n%s%s' % (out.returncode, ' '.join(cmd), out.stdout, out.stderr))
    return out.stdout + out.stderr


def step_stats(text):
    m = STEP.search(text)
    if not m:
        sys.exit('no step timing in output:\n' + text)
    n, lo, med, p99, hi, mean = (int(x) for x in m.groups())
    return dict(n=n, min=lo, median=med, p99=p99, max=hi, mean=mean)


def phase_breakdown(text):
    """The profiling images' lines: {'mean': [(phase, ns)], 'worst': [...], 'worst_step': S}."""
    out = {}
    for m in PHASES.finditer(text):
        words = m.group(4).split()
        out[m.group(1)] = [(words[k], int(words[k + 1])) for k in range(0, len(words), 2)]
        if m.group(1) == 'worst':
            out['worst_step'] = int(m.group(3))
    return out


def print_phases(work):
    for stimulus, image in M7_PHASE_IMAGES:
        if not os.path.exists(image):
            continue
        b = phase_breakdown(run(QEMU + [image], work))
        if 'mean' not in b or 'worst' not in b:
            sys.exit('no phase lines from ' + image)
        for kind, label in (('mean', 'per step, mean'), ('worst', 'slowest step (step %d)' % b['worst_step'])):
            total = sum(ns for _, ns in b[kind])
            print('Cortex-M7 phases, %s, %s: %s; stepper total %d instructions' % (
                stimulus, label, ', '.join('%s %d' % (name, ns // 2) for name, ns in b[kind]), total // 2))


def step_log(text):
    """Per-tick step times (ns) of an image built with a step log (BELTSIM_FW_STEP_LOG), or None."""
    values = []
    for line in text.splitlines():
        if line.startswith('steplog '):
            values += [int(v) for v in line.split()[2:]]
    return values or None


def exact_quantiles(values):
    """median (the lower middle of an even count), p99 (nearest rank) and max of a list."""
    v = sorted(values)
    return v[(len(v) - 1) // 2], v[min(len(v) - 1, -(-99 * len(v) // 100) - 1)], v[-1], values.index(v[-1]) + 1


def divides_and_square_roots(dump):
    """Executions of divsd and sqrtsd (double-precision divide and square root, with their AVX
    forms) in one callgrind dump written with --dump-instr=yes and uncompressed names and positions:
    every object's instruction addresses from objdump, each cost line's address against them. On the
    Cortex-M7 these are VDIV.F64 and VSQRT.F64, about 30 cycles each, which QEMU's -icount counts as
    one instruction; the x86-64 count of the same tick stands in for the Cortex-M7's (same sources,
    GCC at -O3 without fast-math on both; the C library's own functions differ)."""
    opcodes = {}

    def table(obj):
        if obj not in opcodes:
            listing = subprocess.run(['objdump', '-d', '--no-show-raw-insn', obj], capture_output=True, text=True).stdout
            opcodes[obj] = {}
            for line in listing.splitlines():
                m = re.match(r'\s*([0-9a-f]+):\s+(v?(?:divsd|sqrtsd))\s', line)
                if m:
                    opcodes[obj][int(m.group(1), 16)] = m.group(2).lstrip('v')
        return opcodes[obj]

    counts = {'divsd': 0, 'sqrtsd': 0}
    obj, inclusive = None, False
    for line in open(dump):
        if line.startswith('ob='):
            obj = line.strip()[3:]
        elif line.startswith('calls='):
            inclusive = True  # the next cost line is a call's inclusive cost, not an instruction's own
        elif line.startswith('0x'):
            if not inclusive and obj:
                address, _, cost = line.split()[:3]
                op = table(obj).get(int(address, 16))
                if op:
                    counts[op] += int(cost)
            inclusive = False
    return counts['divsd'], counts['sqrtsd']


def dump_totals(dump_dir):
    """[(dump number, instructions)] of the non-empty callgrind dumps in a folder, by number."""
    totals = []
    for name in os.listdir(dump_dir):
        number = name.rsplit('.', 1)[-1]
        if not number.isdigit():
            continue
        for line in open(os.path.join(dump_dir, name)):
            if line.startswith('summary:') or line.startswith('totals:'):
                count = int(line.split()[1])
                if count > 0:
                    totals.append((int(number), count))
                break
    return sorted(totals)


def callgrind_per_tick(exe, ticks, workdir, count_divides):
    """x86-64 instructions of every PlantLoop::tick (callgrind collects only inside the tick and dumps
    after each call): (mean, median, p99, max, tick of the max, divides and square roots executed in
    that tick or None without count_divides: instruction-level dumps, some 400 KB a tick, and where
    that tick goes: worst_tick_parts), or None if callgrind wrote no dumps."""
    symbols = run(['nm', '-C', exe], workdir)
    tick = None
    for line in symbols.splitlines():
        parts = line.split(None, 2)
        if len(parts) == 3 and re.match(r'beltsim::fw::PlantLoop<.*>::tick\(', parts[2]):
            tick = parts[2]
    if tick is None:
        return None
    dump_dir = os.path.join(workdir, 'callgrind_ticks')
    shutil.rmtree(dump_dir, ignore_errors=True)
    os.makedirs(dump_dir)
    run(['valgrind', '--tool=callgrind', '--callgrind-out-file=' + os.path.join(dump_dir, 'out'),
         '--dump-instr=%s' % ('yes' if count_divides else 'no'), '--compress-strings=no', '--compress-pos=no',
         '--toggle-collect=*PlantLoop*tick*', '--dump-after=' + tick, exe], workdir)
    per_tick = dump_totals(dump_dir)
    if not per_tick:
        shutil.rmtree(dump_dir, ignore_errors=True)
        return None
    counts = [c for _, c in per_tick]
    median, p99, worst, at = exact_quantiles(counts)
    divides = roots = None
    worst_dump = os.path.join(dump_dir, 'out.%d' % per_tick[at - 1][0])
    if count_divides:
        divides, roots = divides_and_square_roots(worst_dump)
    parts = worst_tick_parts(call_costs(worst_dump))
    shutil.rmtree(dump_dir, ignore_errors=True)
    return sum(counts) / len(counts), median, p99, worst, at, divides, roots, parts


# Where the worst tick goes: the step's building blocks by their demangled names (any element and
# pulley count), each with its calls in that tick and its inclusive instructions. The block
# eliminations are part of the matrix work listed with them (assembly, rebuild slice, re-factorization);
# the element blocks of a whole rebuild are inlined into the step and fall into its rest.
WORST_TICK_PARTS = (
    ('residuals', r'^beltsim::BeltDrive<[^>]*>::residual\('),
    ('Newton-matrix assemblies and factorizations', r'^beltsim::BeltDrive<[^>]*>::assembleAndFactorize\('),
    ('block eliminations (within the matrix work)', r'^beltsim::Status beltsim::BorderedBlockTridiagonal<[^>]*>::eliminateBlocks<'),
    ('contact-pair block builds', r'^beltsim::BeltDrive<[^>]*>::buildPairBlocks\('),
    ('solves', r'^beltsim::BeltDrive<[^>]*>::solve\('),
    ('post-Newton passes', r'^beltsim::BeltDrive<[^>]*>::postNewtonStep\('),
    ('fixed-cost rebuild slices', r'^beltsim::BeltDrive<[^>]*>::refreshSlice\('),
    ('partial re-factorizations', r'^beltsim::BeltDrive<[^>]*>::refactorSwitchedPairs\('),
    ('switch columns', r'^beltsim::BeltDrive<[^>]*>::updateSwitches\('),
)


def worst_tick_parts(costs):
    """[(label, calls, instructions)] of WORST_TICK_PARTS found in a tick's call costs."""
    parts = []
    for label, pattern in WORST_TICK_PARTS:
        calls = instructions = 0
        for name, (n, ir) in costs.items():
            if re.match(pattern, name):
                calls += n
                instructions += ir
        if calls:
            parts.append((label, calls, instructions))
    return parts


def call_costs(path):
    """Calls and inclusive instructions per function, summed over its call sites, from a callgrind
    output file (name compression as written by valgrind 3.19: '(id) name' on first use)."""
    names, totals = {}, {}
    callee, calls = None, None
    for line in open(path):
        if line.startswith('fn=') or line.startswith('cfn='):
            key, rest = line.rstrip('\n').split('=', 1)
            m = re.match(r'\((\d+)\)(?: (.*))?$', rest)
            ident = m.group(1) if m else rest
            if m and m.group(2):
                names[ident] = m.group(2)
            elif not m:
                names[ident] = rest
            if key == 'cfn':
                callee = ident
        elif line.startswith('calls='):
            calls = int(line[6:].split()[0])
        elif calls is not None:
            total = totals.setdefault(callee, [0, 0])
            total[0] += calls
            total[1] += int(line.split()[-1])  # positions (line, or address and line), then Ir
            calls = None
    return {names[k]: v for k, v in totals.items()}


# The step's building blocks, matched by the start of the demangled name (NE: element count).
PRIMITIVES = (
    ('residual', 'beltsim::BeltDrive<{ne}, 2, 4>::residual('),
    ('Newton-matrix build + factorization (full or partial)', 'beltsim::BeltDrive<{ne}, 2, 4>::factorize(beltsim::IterationPoint'),
    ('  contact-pair Newton block', 'beltsim::Status beltsim::contactPairNewtonMatrix<4>('),
    ('  element Jacobian', 'beltsim::Status beltsim::AncfCable2D<double>::evaluate<3, 2, true>('),
    ('  block factorization', 'beltsim::BorderedBlockTridiagonal<{ne}, 4, 10>::factorize()'),
    ('solve', 'beltsim::Status beltsim::BorderedBlockTridiagonal<{ne}, 4, 10>::solve<'),
    ('post-Newton pass', 'beltsim::BeltDrive<{ne}, 2, 4>::postNewtonStep('),
    # The fixed-cost stepping's own blocks (found only in images built from a fixed-cost scenario,
    # e.g. tests/bench/configs/*_fixed_cost.toml; see --build).
    ('switch columns (low-rank updates, all of a call)', 'beltsim::BeltDrive<{ne}, 2, 4>::updateSwitches('),
    ('  one switch column', 'beltsim::BeltDrive<{ne}, 2, 4>::applySwitch('),
    ('refresh slice (assembly + factorization of its blocks)', 'beltsim::BeltDrive<{ne}, 2, 4>::refreshSlice('),
    ('refresh finish (border)', 'beltsim::BeltDrive<{ne}, 2, 4>::finishRefresh('),
    ('step', 'beltsim::BeltDrivePlant<{ne}, 2>::step('),
)


def primitives(name, exe, elements, workdir):
    out_file = os.path.join(workdir, 'callgrind_primitives.out')
    print('%s, x86-64 instructions (callgrind):' % name)
    run(['valgrind', '--tool=callgrind', '--callgrind-out-file=' + out_file, exe], workdir, allow_failure=True)
    costs = call_costs(out_file)
    calls, per_call = {}, {}
    for label, prefix in PRIMITIVES:
        prefix = prefix.format(ne=elements)
        matching = [v for k, v in costs.items() if k.startswith(prefix)]
        calls[label] = sum(v[0] for v in matching)
        if calls[label] == 0:
            print('  %-55s not found' % label)
            continue
        per_call[label] = sum(v[1] for v in matching) / calls[label]
        print('  %-55s %8d calls  %9.0f per call' % (label, calls[label], per_call[label]))
    if not all(k in per_call for k in ('step', 'residual', 'solve', 'post-Newton pass')):
        return
    for label, _ in PRIMITIVES[:-1]:
        if label not in calls or calls[label] == 0:
            continue
        print('  %-55s %6.2f per step' % (label, calls[label] / calls['step']))
    floor = 2 * per_call['residual'] + per_call['solve'] + per_call['post-Newton pass']
    print('  floor of a converged step with a kept Newton matrix (2 residuals, 1 solve, 1 post-Newton pass): %.0f'
          % floor)
    print('  mean step: %.0f' % per_call['step'])


def meshes():
    run(['cmake', '--build', os.path.join(ROOT, 'build/host'), '--target', 'bench_mesh_floor', '-j2'], ROOT)
    print(run([os.path.join(ROOT, 'build/host/tests/bench_mesh_floor')], ROOT), end='')


# The fixed-cost forms on the eulerian mesh (docs/model_element.md §2.11): eulerian_belt_drive.toml's,
# five passes, and the PC configuration's (firmware/configs/pc.toml: its step, integrator and keys).
EULERIAN_FORMS = (
    ('decided states (eulerian_belt_drive.toml)', []),
    ('five passes (n 1, frozen 1, 8 pairs)', ['--set', 'newton=1', '--set', 'frozen=1', '--set', 'passes=5',
                                              '--set', 'pairs=8']),
    ('PC configuration (two passes, refresh 16, 3 N)', ['--config', 'pc', '--set', 'newton=1', '--set', 'frozen=1',
                                                        '--set', 'passes=2', '--set', 'pairs=8', '--set', 'refresh=16',
                                                        '--set', 'tol=3']),
)


def eulerian(workdir):
    run(['cmake', '--build', HOST_BUILD, '--target', 'bench_eulerian', '-j2'], ROOT)
    exe = os.path.join(HOST_BUILD, 'tests/bench_eulerian')
    dump_dir = os.path.join(workdir, 'callgrind_eulerian')
    for elements in (16, 24):
        for name, settings in EULERIAN_FORMS:
            shutil.rmtree(dump_dir, ignore_errors=True)
            os.makedirs(dump_dir)
            text = run(['valgrind', '--tool=callgrind', '--instr-atstart=no', '--collect-atstart=no',
                        '--callgrind-out-file=' + os.path.join(dump_dir, 'out'), exe, str(elements), 'paper']
                       + settings + ['--callgrind', '18001', '300'], workdir)
            counts = [c for _, c in dump_totals(dump_dir)]
            summary = next((l.strip() for l in text.splitlines() if 'tail means' in l), 'no summary line')
            if not counts:
                print('%d elements, %s: callgrind wrote no dumps; %s' % (elements, name, summary))
                continue
            median, p99, worst, at = exact_quantiles(counts)
            print('%d elements, %s: x86-64 instructions per step (callgrind, steps 18001-18300) median %d, p99 %d, '
                  'worst %d (step %d), mean %.0f  (PC budget: worst 400000); %s'
                  % (elements, name, median, p99, worst, 18000 + at, sum(counts) / len(counts), summary))
    shutil.rmtree(dump_dir, ignore_errors=True)


def main():
    skip_callgrind = '--skip-callgrind' in sys.argv
    work = os.path.join(ROOT, 'build/instruction_budget')
    os.makedirs(work, exist_ok=True)
    if '--primitives' in sys.argv:
        for name, exe, elements in ((MCU_NAME, HOST_MCU, MCU_ELEMENTS), (PC_NAME, HOST_PC, PC_ELEMENTS)):
            primitives(name, exe, elements, work)
        return 0
    if '--meshes' in sys.argv:
        meshes()
        return 0
    if '--eulerian' in sys.argv:
        eulerian(work)
        return 0
    print('machine: %s' % subprocess.run(['sh', '-c', "grep -m1 'model name' /proc/cpuinfo | cut -d: -f2"],
                                          capture_output=True, text=True).stdout.strip())
    for stimulus, image in (('scripted stimulus', M7_IMAGE), ("paper's scenario", M7_PAPER_IMAGE)):
        if not os.path.exists(image):
            print('Cortex-M7, %s: %s not built' % (stimulus, image))
            continue
        text = run(QEMU + [image], work)
        s = step_stats(text)
        log = step_log(text)
        if log and len(log) == s['n']:
            median, p99, worst, tick = exact_quantiles(log)
            print('Cortex-M7 (QEMU icount), microcontroller configuration, %s, %d steps (step log, exact): '
                  'instructions per step min %d, median %d, p99 %d, max %d (tick %d), mean %d; worst/median %.3f  '
                  '(budget: max 450000, worst/median 1.25)' % (stimulus, len(log), min(log) // 2, median // 2, p99 // 2,
                                                                worst // 2, tick, sum(log) // len(log) // 2, worst / median))
            continue
        # The histogram's median is an upper bound, at most one bin (1/32) above the true one.
        median_low = s['median'] * 32 // 33
        print('Cortex-M7 (QEMU icount), microcontroller configuration, %s, %d steps: instructions per step '
              'min %d, median %d..%d, p99 <= %d, max %d, mean %d; worst/median %.2f..%.2f  (budget: max 450000, '
              'worst/median 1.25)' % (stimulus, s['n'], s['min'] // 2, median_low // 2, s['median'] // 2, s['p99'] // 2,
                                      s['max'] // 2, s['mean'] // 2, s['max'] / s['median'], s['max'] / median_low))
    print_phases(work)
    for name, exe, ticks in ((MCU_NAME, HOST_MCU, 600), (PC_NAME, HOST_PC, 6000)):
        if not os.path.exists(exe):
            print('host %s: %s not built' % (name, exe))
            continue
        s = step_stats(run([exe], work))
        line = ('host %s, %d steps: wall time per step median <= %.1f us, p99 <= %.1f us, max %.1f us, mean %.1f us'
                % (name, s['n'], s['median'] / 1e3, s['p99'] / 1e3, s['max'] / 1e3, s['mean'] / 1e3))
        if not skip_callgrind:
            c = callgrind_per_tick(exe, ticks, work, count_divides=exe == HOST_MCU)
            if c is None:
                line += '; x86-64 instructions per step: callgrind found no PlantLoop::tick'
            else:
                line += ('; x86-64 instructions per step (callgrind, every tick): mean %.0f, median %d, p99 %d, '
                         'max %d (tick %d)' % c[:5])
                if c[5] is not None:
                    line += (', in which %d double-precision divides and %d square roots (about 30 cycles each '
                             'on the Cortex-M7, one instruction to QEMU -icount)' % c[5:7])
                if c[7]:
                    line += '; the worst tick: ' + ', '.join('%s: %d calls, %d instructions' % part for part in c[7])
        print(line)
    return 0


if __name__ == '__main__':
    sys.exit(main())
