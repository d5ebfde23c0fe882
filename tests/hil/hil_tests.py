#!/usr/bin/env python3
"""Controller-in-the-loop tests (issue 7), one mode per CTest test:

  closed_loop   host plant (beltsim hil --lockstep) + beltctl: the speed step settles within 2 %,
                the 25 N m load step is rejected (dip and recovery reported); a second run and a
                replay of the recording give byte-identical traces.
  bad_input     lockstep plant and a raw UDP client: truncated, oversized, wrong magic, version,
                type, bad CRC, reserved bits, duplicate, out-of-order, NaN, Inf, out-of-range,
                wrong mode, unknown flags: each is answered, counted once, and leaves the model's
                state exactly as a run that sent the held command instead; a silent controller
                ends a lockstep run with its outputs written and exit status 4, as one that
                never came does.
  realtime      real-time plant at 1 kHz: a flood of frames, then silence: the plant keeps ticking,
                counts the superseded frames and enters the safe state (fault 6) after the hold.
  interrupt     SIGINT during a lockstep run and SIGTERM while a real-time run waits for its
                controller: the run ends between ticks with all outputs written and exit 128 + sig.
  injected_faults  host plant + beltctl on hil_injected_faults.toml (docs/hil.md, "A
                controller against injected faults"): the wet motor pulley slows the load while the
                controller holds the motor's speed; the stuck encoder saturates the controller's torque
                and the motor runs away; the plant keeps running; the recording replays bit for bit.
  foreign_sender  a second process sends valid command frames (higher sequence numbers) from
                another port while beltctl runs the plant in lockstep: the plant obeys and answers
                only its controller, the run's trace is byte for byte the clean run's, the datagrams
                are counted as foreign; with --controller naming another address, beltctl itself is
                foreign and the plant takes no step.
  live_faults   a test bench (--bench) starts, changes and clears hil_injected_faults.toml's live
                tables while a lockstep controller runs the plant: each command acts from the next
                step (acknowledged with that step), the load cell's offset is the commanded value
                exactly once ramped in, the truth is the clean run's bit for bit until the live
                friction starts; refused commands (not live, no table, out of range, NaN, unknown
                action, corrupt, stale) are answered with their reason and leave the whole trace the
                clean run's; a fault frame never takes a step; fault frames from a third address are
                foreign; `beltsim inject` clears a table; the recording replays bit for bit; a start
                sent to a real-time plant acts, exactly, from the step its acknowledgement names.
  closed_loop_eulerian  the closed loop's checks on hil_eulerian_belt_drive.toml (the same drive on
                16 eulerian elements, next to SCENARIO), and its spectrum over 1.6-2.0 s (the loaded
                steady state): no line between 15 and 100 Hz above 0.03 N m in the controller's torque
                command or above 0.5 N in the truth span forces (the controller's quantised speed
                estimate sets a floor near 0.01 N m); the material mesh of SCENARIO shows its
                element-passing lines there (22.5 Hz and harmonics at 24 elements): above 0.05 N m and
                1 N (the check can fail).
  accessory_eulerian  accessory_drive_eulerian.toml (next to SCENARIO: six pulleys, a tensioner arm,
                24 eulerian elements, 1e-4 s) in lockstep for 0.3 s, the crankshaft commanded to
                40 rad/s at once and beltctl's PI holding the motor-generator at 100 rad/s: the
                crankshaft follows at its max_acceleration (20 rad/s after 10 ms, exactly), the water
                pump's mean speed over the last 0.1 s is the belt ratio's 40 x 75 / 50 = 60 rad/s
                within 1 %, no step flagged, no fault, no safe state.
  cortex_m7     the same closed loop against the Cortex-M7 firmware under qemu-system-arm over
                the UART (TCP bridge): the output trace equals the host plant's byte for byte.
Usage: hil_tests.py MODE BELTSIM BELTCTL SCENARIO WORKDIR [M7_IMAGE]
"""
import json
import math
import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
import time
import zlib

SKIP = 77


def fail(msg):
    print('FAIL: ' + msg)
    sys.exit(1)


OUT_SIZE = 508  # protocol version 4 (firmware/PROTOCOL.md)


def command_frame(seq, motor, load, mode=2, flags=0, magic=b'BD', version=4, ftype=1, reserved=0, count=2):
    """A command for the two-pulley hil plant: pulley 1's input of kind `mode`, a load torque on pulley 2."""
    kinds = [mode, 3] + [0] * 6
    if count != 2:
        kinds[2] = 3  # a controller built for another drive: one more loaded pulley
    inputs = [motor, load] + [0.0] * 6
    body = magic + struct.pack('<BBIBBH8B8d', version, ftype, seq, count, flags, reserved, *kinds, *inputs)
    return body + struct.pack('<I', zlib.crc32(body) & 0xFFFFFFFF)


def command_frame_v1(seq, motor, load):
    """A protocol version 1 command (32 bytes): refused by a version 4 plant."""
    body = b'BD' + struct.pack('<BBIBBHdd', 1, 1, seq, 2, 0, 0, motor, load)
    return body + struct.pack('<I', zlib.crc32(body) & 0xFFFFFFFF)


OUT = struct.Struct('<2sBBIII d 8d 8d 8d 8d 8d 8i 8d 8B 8B III IIIII dd I')


def decode_output(b):
    if len(b) != OUT_SIZE:
        fail('output frame of %d bytes' % len(b))
    if zlib.crc32(b[:OUT_SIZE - 4]) & 0xFFFFFFFF != struct.unpack_from('<I', b, OUT_SIZE - 4)[0]:
        fail('output frame with a bad CRC')
    v = OUT.unpack(b)
    # Version 4: byte 455 is reserved; the controller under test never learns of injected faults.
    if v[1] != 4 or b[455] != 0:
        fail('output frame of version %d with byte 455 = %d (expected version 4, 0)' % (v[1], b[455]))
    n = v[71]  # pulley count
    return dict(seq=v[3], step=v[4], cmdseq=v[5], time=v[6], angle=v[7:7 + n], speed=v[15:15 + n],
                torque=v[23:23 + n], span=v[31:31 + n], arm=v[39:39 + n], encoder=v[47:47 + n],
                load_cell=v[55:55 + n], kinds=v[63:63 + n], count=n, converged=v[72], newton=v[73], pns=v[74],
                status=v[75], fault=v[76], safe=v[77], overruns=v[79], rejected=v[80], late=v[81], corrupt=v[82],
                invalid=v[83], stale=v[84], superseded=v[85], compute_overruns=v[86], residual=v[87],
                pns_error=v[88], raw=b)


def physics(frame):
    """The frame without counters and CRC: what the model computed."""
    b = bytearray(frame['raw'])
    b[12:16] = b'\0' * 4   # command sequence in use
    b[456:488] = b'\0' * 32  # counters (wall clock and rejections)
    b[OUT_SIZE - 4:] = b'\0' * 4  # CRC (the step's residual and post-Newton error before it stay)
    return bytes(b)


def start_plant(beltsim, scenario, port, out, extra=()):
    shutil.rmtree(out, ignore_errors=True)
    cmd = [beltsim, 'hil', scenario, '--udp', '127.0.0.1:%d' % port, '--out', out, '--quiet'] + list(extra)
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    time.sleep(0.5)  # static equilibrium and bind
    if p.poll() is not None:
        fail('plant did not start: ' + p.stdout.read())
    return p


def finish(p, timeout=60, status=0):
    try:
        out, _ = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        fail('process did not end: %s' % p.args)
    print(out, end='')
    if p.returncode != status:
        fail('%s exited with %d, expected %d' % (p.args[0], p.returncode, status))
    return out


def run_controller(beltctl, target, work, name, duration=2.0):
    log, trace, summary = (os.path.join(work, name + ext) for ext in ('.csv', '.bin', '.json'))
    p = subprocess.run([beltctl] + target + ['--lockstep', '--duration', str(duration), '--log', log, '--trace', trace,
                                            '--summary', summary], capture_output=True, text=True, timeout=900)
    print(p.stdout + p.stderr, end='')
    if p.returncode != 0:
        fail('beltctl exited with %d' % p.returncode)
    return json.load(open(summary)), open(trace, 'rb').read()


def closed_loop(beltsim, beltctl, scenario, work, passes_settle=False):
    """passes_settle: the plant's last post-Newton pass may switch no segment in any step (the
    eulerian mesh's passes), so its frames' post-Newton error may be 0 throughout."""
    traces = []
    for run in (1, 2):
        plant = start_plant(beltsim, scenario, 47821, os.path.join(work, 'plant%d' % run), ['--lockstep', '--duration', '2'])
        s, _ = run_controller(beltctl, ['--udp', '127.0.0.1:47821'], work, 'ctl%d' % run)
        finish(plant)
        traces.append(open(os.path.join(work, 'plant%d' % run, 'trace.bin'), 'rb').read())
        # Speed step 0 -> 12 rad/s at 0.05 s, 25 N m load step at 1.0 s (beltctl defaults).
        if not (0.0 < s['settling_time_2pct'] < 0.5):
            fail('speed step settling time %.3f s (expected within 2 %% in < 0.5 s)' % s['settling_time_2pct'])
        if not (0.5 < s['load_dip'] < 5.0):
            fail('load step dip %.3f rad/s (expected a visible dip < 5 rad/s)' % s['load_dip'])
        if not (0.0 < s['load_recovery_time_2pct'] < 0.9):
            fail('load step recovery %.3f s (expected back within 2 %% before the run ends)' % s['load_recovery_time_2pct'])
        print('run %d: settling %.3f s, dip %.3f rad/s, recovery %.3f s' %
              (run, s['settling_time_2pct'], s['load_dip'], s['load_recovery_time_2pct']))
    if traces[0] != traces[1]:
        fail('two closed-loop runs gave different traces')
    # Every frame carries what its step accepted: a step flagged converged has its
    # post-Newton error within the scenario's pns_tolerance (5 N); the fields are filled.
    frames = [decode_output(traces[0][k:k + OUT_SIZE]) for k in range(0, len(traces[0]), OUT_SIZE)]
    if any(not (0.0 <= f['residual'] < math.inf and 0.0 <= f['pns_error'] < math.inf) for f in frames):
        fail('a frame with a negative or non-finite residual or post-Newton error')
    if any(f['converged'] and f['pns_error'] > 5.0 for f in frames):
        fail('a frame flagged converged with a post-Newton error above the tolerance of 5 N')
    worst = max(frames, key=lambda f: f['pns_error'])
    if not (worst['pns_error'] > 0.0 or passes_settle) or not any(f['residual'] > 0.0 for f in frames):
        fail('the frames carry no residual or post-Newton error')
    print('closed loop: %d frames, %d converged; largest post-Newton error %.3g N (step %d), largest residual %.3g N'
          % (len(frames), sum(f['converged'] for f in frames), worst['pns_error'], worst['step'],
             max(f['residual'] for f in frames)))
    replay_dir = os.path.join(work, 'replay')
    shutil.rmtree(replay_dir, ignore_errors=True)
    p = subprocess.run([beltsim, 'replay', os.path.join(work, 'plant1', 'recording.bin'), '--out', replay_dir],
                       capture_output=True, text=True, timeout=300)
    print(p.stdout + p.stderr, end='')
    if p.returncode != 0:
        fail('replay exited with %d' % p.returncode)
    if open(os.path.join(replay_dir, 'trace.bin'), 'rb').read() != traces[0]:
        fail('the replay trace differs from the recorded run')
    print('closed loop: 2 runs and the replay give identical traces (%d bytes)' % len(traces[0]))
    # A recording of the previous protocol (its commands are version 2) is named, not replayed.
    old = os.path.join(work, 'recording_v2.bin')
    with open(old, 'wb') as f:
        f.write(b'BELTREC2' + open(os.path.join(work, 'plant1', 'recording.bin'), 'rb').read()[8:])
    shutil.rmtree(replay_dir, ignore_errors=True)
    p = subprocess.run([beltsim, 'replay', old, '--out', replay_dir], capture_output=True, text=True, timeout=60)
    if p.returncode == 0 or 'protocol version 2' not in p.stderr or os.path.exists(os.path.join(replay_dir, 'trace.bin')):
        fail('a protocol-2 recording was not refused by name: exit %d, %s' % (p.returncode, p.stderr.strip()))


def largest_line(times, values, f_low, f_high):
    """The largest amplitude (and its frequency) of a discrete Fourier transform of values over
    times (equally spaced), mean and linear trend removed, between f_low and f_high Hz."""
    n = len(values)
    mt, mv = sum(times) / n, sum(values) / n
    slope = sum((t - mt) * (v - mv) for t, v in zip(times, values)) / sum((t - mt) ** 2 for t in times)
    y = [v - mv - slope * (t - mt) for t, v in zip(times, values)]
    dt = (times[-1] - times[0]) / (n - 1)
    best = (0.0, 0.0)
    for k in range(1, n // 2 + 1):
        f = k / (n * dt)
        if f_low <= f <= f_high:
            re = sum(v * math.cos(2 * math.pi * k * j / n) for j, v in enumerate(y))
            im = sum(v * math.sin(2 * math.pi * k * j / n) for j, v in enumerate(y))
            best = max(best, (2 * math.hypot(re, im) / n, f))
    return best


def loaded_lines(log):
    """The largest line between 15 and 100 Hz over 1.6-2.0 s of beltctl's log: torque command and
    both truth span forces."""
    import csv
    rows = [r for r in csv.DictReader(open(log)) if 1.6 < float(r['time']) <= 2.0 + 1e-9]
    times = [float(r['time']) for r in rows]
    return {c: largest_line(times, [float(r[c]) for r in rows], 15.0, 100.0)
            for c in ('motor_torque_command', 'span_force_1', 'span_force_2')}


def closed_loop_eulerian(beltsim, beltctl, scenario, work):
    eulerian = os.path.join(os.path.dirname(os.path.abspath(scenario)), 'hil_eulerian_belt_drive.toml')
    closed_loop(beltsim, beltctl, eulerian, os.path.join(work, 'eulerian'), passes_settle=True)
    limits = {'motor_torque_command': 0.03, 'span_force_1': 0.5, 'span_force_2': 0.5}  # N m, N, N
    lines = loaded_lines(os.path.join(work, 'eulerian', 'ctl1.csv'))
    for c, (a, f) in lines.items():
        print('eulerian mesh: %s largest line %.4f at %.1f Hz (limit %g)' % (c, a, f, limits[c]))
        if not a < limits[c]:
            fail('eulerian mesh: %s carries a line of %.4f at %.1f Hz, limit %g' % (c, a, f, limits[c]))
    material = os.path.join(work, 'material')
    os.makedirs(material, exist_ok=True)
    plant = start_plant(beltsim, scenario, 47821, os.path.join(material, 'plant'), ['--lockstep', '--duration', '2'])
    run_controller(beltctl, ['--udp', '127.0.0.1:47821'], material, 'ctl')
    finish(plant)
    lines = loaded_lines(os.path.join(material, 'ctl.csv'))
    for c, (a, f) in lines.items():
        print('material mesh: %s largest line %.4f at %.1f Hz' % (c, a, f))
    if not (lines['motor_torque_command'][0] > 0.05 and max(lines['span_force_1'][0], lines['span_force_2'][0]) > 1.0):
        fail('the material mesh shows no element-passing line: the spectral check may not see one')


class Client:
    def __init__(self, port):
        self.s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.s.settimeout(10.0)
        self.addr = ('127.0.0.1', port)

    def exchange(self, data):
        self.s.sendto(data, self.addr)
        b, _ = self.s.recvfrom(4096)
        return decode_output(b)


def bad_input(beltsim, scenario, work):
    nan, inf = float('nan'), float('inf')
    bad = [
        ('truncated', lambda seq: command_frame(seq, 5.0, 0.0)[:87]),
        ('oversized', lambda seq: command_frame(seq, 5.0, 0.0) + b'\0'),
        ('wrong magic', lambda seq: command_frame(seq, 5.0, 0.0, magic=b'XD')),
        ('wrong version', lambda seq: command_frame(seq, 5.0, 0.0, version=5)),
        ('version 2', lambda seq: command_frame(seq, 5.0, 0.0, version=2)),
        ('version 1', lambda seq: command_frame_v1(seq, 5.0, 0.0)),
        ('other drive', lambda seq: command_frame(seq, 5.0, 0.0, count=3)),
        ('wrong type', lambda seq: command_frame(seq, 5.0, 0.0, ftype=2)),
        ('bad CRC', lambda seq: command_frame(seq, 5.0, 0.0)[:-1] + b'\x00'),
        ('reserved bits', lambda seq: command_frame(seq, 5.0, 0.0, reserved=1)),
        ('duplicate', lambda seq: command_frame(seq - 1, 30.0, 0.0)),
        ('out of order', lambda seq: command_frame(seq - 5, 30.0, 0.0)),
        ('NaN', lambda seq: command_frame(seq, nan, 0.0)),
        ('Inf', lambda seq: command_frame(seq, 5.0, inf)),
        ('out of range', lambda seq: command_frame(seq, 1e3, 0.0)),
        ('wrong mode', lambda seq: command_frame(seq, 5.0, 0.0, mode=1)),
        ('unknown flags', lambda seq: command_frame(seq, 5.0, 0.0, flags=4)),
    ]
    test = start_plant(beltsim, scenario, 47831, os.path.join(work, 'bad'), ['--lockstep', '--idle-timeout-ms', '1500'])
    ref = start_plant(beltsim, scenario, 47832, os.path.join(work, 'ref'), ['--lockstep', '--idle-timeout-ms', '1500'])
    a, b = Client(47831), Client(47832)
    seq_a = seq_b = 0
    rejected = 0
    for k in range(1, 52):
        motor = 10.0 if k > 5 else 0.0
        seq_a += 1
        seq_b += 1
        fa = a.exchange(command_frame(seq_a, motor, 2.0))
        fb = b.exchange(command_frame(seq_b, motor, 2.0))
        if physics(fa) != physics(fb):
            fail('warm-up step %d differs between identical plants' % k)
        if k % 3 == 0 and bad:
            name, make = bad.pop(0)
            held = fa['cmdseq']
            seq_b += 1
            fa = a.exchange(make(seq_a + 1))
            fb = b.exchange(command_frame(seq_b, motor, 2.0))  # the held command, sent properly
            rejected += 1
            if fa['rejected'] != rejected:
                fail('%s: rejected count %d, expected %d' % (name, fa['rejected'], rejected))
            if fa['cmdseq'] != held:
                fail('%s: the command in use changed' % name)
            if physics(fa) != physics(fb):
                fail('%s: the model state differs from the run that held the command' % name)
            print('%-14s answered, counted (%d), state as with the held command' % (name, fa['rejected']))
    if bad:
        fail('not all bad frames were sent')
    if not math.isfinite(fa['speed'][0]) or fa['speed'][0] <= 0.0:
        fail('the motor did not turn under the valid commands')
    # Silence: the lockstep plant ends after its idle timeout with its outputs written, says so,
    # and exits with 4 (docs/hil.md: a regression job that lost its controller fails).
    for p, d in ((test, 'bad'), (ref, 'ref')):
        out = finish(p, timeout=30, status=4)
        s = json.load(open(os.path.join(work, d, 'summary.json')))
        said = 'controller silent for 1500 ms at step %d' % (s['steps'] + 1)
        if said not in out:
            fail('the plant did not say "%s": %r' % (said, out))
        if not s['controller_went_silent'] or s['safe_state'] != 0 or s['steps'] < 51:
            fail('silent controller: %s' % s)
    # A controller that never comes: no step, the same end.
    # (2 s: start_plant checks that the plant still runs 0.5 s after its start, on a busy machine too.)
    never = start_plant(beltsim, scenario, 47833, os.path.join(work, 'never'), ['--lockstep', '--idle-timeout-ms', '2000'])
    out = finish(never, timeout=30, status=4)
    if 'no controller frame within 2000 ms' not in out:
        fail('the plant did not say that no controller came: %r' % out)
    s = json.load(open(os.path.join(work, 'never', 'summary.json')))
    if not s['controller_went_silent'] or s['steps'] != 0:
        fail('no controller: %s' % s)
    print('bad input: %d kinds rejected without effect on the model; a silent or absent controller ends the run '
          'with exit status 4' % rejected)


def realtime(beltsim, scenario, work):
    plant = start_plant(beltsim, scenario, 47841, os.path.join(work, 'rt'), ['--duration', '1.5', '--hold', '50'])
    c = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    addr = ('127.0.0.1', 47841)
    t0 = time.monotonic()
    seq = 0
    while time.monotonic() - t0 < 0.3:  # a controller at ~1 kHz
        seq += 1
        c.sendto(command_frame(seq, 5.0, 0.0), addr)
        time.sleep(0.001)
    for _ in range(3000):  # a flood, far faster than the tick
        seq += 1
        c.sendto(command_frame(seq, 5.0, 0.0), addr)
    c.settimeout(0.2)
    last = None
    deadline = time.monotonic() + 0.8  # then silence; keep reading answers
    while time.monotonic() < deadline:
        try:
            b, _ = c.recvfrom(4096)
            last = decode_output(b)
        except socket.timeout:
            pass
    finish(plant, timeout=30)
    s = json.load(open(os.path.join(work, 'rt', 'summary.json')))
    print('realtime summary: %s' % json.dumps(s))
    if s['steps'] != 1500:
        fail('the plant did not complete its 1500 ticks (%d)' % s['steps'])
    if s['safe_state'] != 1 or s['fault'] != 6:
        fail('a silent controller must put the plant in the safe state with fault 6')
    if s['rejected_frames'] < 100:
        fail('the flood was not counted (%d rejected)' % s['rejected_frames'])
    # Valid frames of a flood are superseded, not invalid, stale or corrupt.
    causes = s['rejected_by_cause']
    if causes['superseded'] != s['rejected_frames'] or causes['invalid'] + causes['stale'] + causes['corrupt'] != 0:
        fail('the flood is counted under the wrong cause: %s' % causes)
    if s['overruns_by_cause']['compute'] + s['overruns_by_cause']['wake_up'] != s['overruns']:
        fail('overruns by cause do not add up: %s' % s)
    if last is None or last['safe'] != 1:
        fail('the plant stopped answering in the safe state')
    print('realtime: flood counted (%d rejected), silence -> safe state, plant answered to the end' % s['rejected_frames'])


def stop_with(plant, sig, what):
    """Sends `sig` to the plant; it must end within 5 s with exit status 128 + sig."""
    plant.send_signal(sig)
    try:
        text, _ = plant.communicate(timeout=5)
    except subprocess.TimeoutExpired:
        plant.kill()
        fail('%s did not end the %s' % (sig.name, what))
    print(text, end='')
    if plant.returncode != 128 + sig:
        fail('exit status %d after %s, expected %d' % (plant.returncode, sig.name, 128 + sig))


def interrupt(beltsim, scenario, work):
    """Ctrl-C (SIGINT) and SIGTERM end a hil run between ticks with every output written: the
    answered steps are all in the trace and the time series, the summary names the signal, and the
    exit status is 128 + the signal number."""
    out = os.path.join(work, 'int')
    plant = start_plant(beltsim, scenario, 47851, out, ['--lockstep', '--duration', '100'])
    client = Client(47851)
    for k in range(1, 21):
        client.exchange(command_frame(k, 10.0, 0.0))
    started = time.monotonic()
    stop_with(plant, signal.SIGINT, 'lockstep run')  # waiting for frame 21 (idle timeout 10 s)
    s = json.load(open(os.path.join(out, 'summary.json')))
    if s['stopped_by_signal'] != signal.SIGINT or s['steps'] != 20:
        fail('summary after SIGINT: %s' % s)
    trace = os.path.getsize(os.path.join(out, 'trace.bin'))
    rows = len(open(os.path.join(out, 'timeseries.csv')).read().splitlines()) - 1
    if trace != 20 * OUT_SIZE or rows != 20:
        fail('after SIGINT: trace %d bytes, %d time-series rows; expected 20 frames' % (trace, rows))
    print('SIGINT: ended in %.2f s, 20 answered steps written (trace, time series, summary)'
          % (time.monotonic() - started))
    # Real time, still waiting for its first controller frame: SIGTERM ends that wait too.
    plant = start_plant(beltsim, scenario, 47852, os.path.join(work, 'term'), ['--duration', '100'])
    stop_with(plant, signal.SIGTERM, 'real-time run')
    s = json.load(open(os.path.join(work, 'term', 'summary.json')))
    if s['stopped_by_signal'] != signal.SIGTERM or s['controller_went_silent']:
        fail('summary after SIGTERM: %s' % s)
    print('SIGTERM: the real-time run waiting for its controller ended with its summary written')


def cortex_m7(beltsim, beltctl, scenario, work, image):
    if not os.path.exists(image):
        print('BELTSIM_SKIP: %s not built (cortex-m7 preset)' % image)
        return SKIP if os.environ.get('BELTSIM_REQUIRE_ALL_TARGETS') != '1' else 1
    # The firmware's microcontroller plant as a scenario (the eulerian mesh; hil_belt_drive.toml is
    # the same drive on the material mesh).
    firmware_plant = os.path.join(os.path.dirname(os.path.abspath(scenario)), 'hil_eulerian_belt_drive.toml')
    # 1 s (1000 frames): QEMU runs the image near 20 steps a second of wall time.
    plant = start_plant(beltsim, firmware_plant, 47851, os.path.join(work, 'host'), ['--lockstep', '--duration', '1'])
    _, host_trace = run_controller(beltctl, ['--udp', '127.0.0.1:47851'], work, 'ctl_host', duration=1.0)
    finish(plant)
    qemu = subprocess.Popen(['qemu-system-arm', '-M', 'mps2-an500', '-nographic', '-monitor', 'none',
                             '-semihosting-config', 'enable=on,target=native',
                             '-serial', 'tcp:127.0.0.1:47852,server=on,wait=on', '-kernel', image],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        time.sleep(0.5)
        _, m7_trace = run_controller(beltctl, ['--tcp', '127.0.0.1:47852'], work, 'ctl_m7', duration=1.0)
        finish(qemu, timeout=120)
    finally:
        # A failed controller must not leave the lockstep firmware spinning on the port.
        if qemu.poll() is None:
            qemu.kill()
            qemu.wait()
    if m7_trace != host_trace:
        n = min(len(m7_trace), len(host_trace))
        first = next((i for i in range(n) if m7_trace[i] != host_trace[i]), n)
        fail('Cortex-M7 trace differs from the host plant at byte %d (frame %d)' % (first, first // OUT_SIZE))
    print('closed loop: Cortex-M7 firmware under QEMU == host plant, %d frames bit for bit' % (len(host_trace) // OUT_SIZE))


def injected_faults(beltsim, beltctl, scenario, work):
    """The pass criteria of docs/hil.md, "A controller against injected faults"."""
    faulted = os.path.join(os.path.dirname(scenario), 'hil_injected_faults.toml')
    plant = start_plant(beltsim, faulted, 47823, os.path.join(work, 'plant'), ['--lockstep', '--duration', '3'])
    s, trace = run_controller(beltctl, ['--udp', '127.0.0.1:47823'], work, 'ctl', duration=3.0)
    finish(plant)
    import csv
    rows = [{k: float(v) for k, v in r.items()} for r in csv.DictReader(open(os.path.join(work, 'ctl.csv')))]

    def window(t0, t1):
        return [r for r in rows if t0 < r['time'] <= t1 + 1e-9]

    def mean(rs, key):
        return sum(r[key] for r in rs) / len(rs)

    if any(r['safe_state'] or r['fault'] for r in rows) or s['safe_state'] or s['fault']:
        fail('the plant left normal operation (safe state or fault) during the faulted run')
    before, wet, dry = window(1.3, 1.5), window(1.7, 2.0), window(2.3, 2.5)
    ratio_before = mean(before, 'omega_load') / mean(before, 'omega_motor')
    ratio_wet = max(r['omega_load'] / r['omega_motor'] for r in wet)
    ratio_dry = mean(dry, 'omega_load') / mean(dry, 'omega_motor')
    seen_error = max(abs(r['omega_motor_estimate'] - r['speed_reference']) for r in wet) / 12.0
    print('wet motor pulley: load/motor speed %.3f before, at most %.3f wet (1.7-2.0 s), %.3f dry again (2.3-2.5 s); '
          'the controller\'s speed error at most %.1f %% while wet' % (ratio_before, ratio_wet, ratio_dry, 100 * seen_error))
    if not ratio_wet < 0.7 * ratio_before:
        fail('the wet pulley did not slow the load below 70 % of its speed ratio before the fault')
    if not seen_error < 0.07:
        fail('the controller saw a speed error of %.1f %% while wet (expected below 7 %%: the motor holds)' % (100 * seen_error))
    if not abs(ratio_dry / ratio_before - 1.0) < 0.01:
        fail('the speed ratio 0.3 s after drying is %.4f, not within 1 %% of %.4f before' % (ratio_dry, ratio_before))
    stuck = window(2.5, 3.0)
    saturated_at = next((r['time'] for r in stuck if r['motor_torque_command'] >= 60.0), None)
    held = all(r['motor_torque_command'] >= 60.0 for r in stuck if saturated_at is not None and r['time'] >= saturated_at)
    frozen = all(r['omega_motor_estimate'] == 0.0 for r in window(2.51, 3.0))
    print('stuck encoder: torque command at its 60 N m limit from %s s, the estimate 0 from 2.51 s: %s; motor %.2f rad/s '
          'at 3 s (%.2f at 2.5 s)' % (saturated_at, frozen, stuck[-1]['omega_motor'], stuck[0]['omega_motor']))
    if saturated_at is None or saturated_at > 2.52 or not held:
        fail('the controller\'s torque did not saturate within 0.02 s of the stuck encoder and stay there')
    if not frozen or not stuck[-1]['omega_motor'] > stuck[0]['omega_motor'] + 3.0:
        fail('the stuck encoder did not freeze the estimate while the motor ran away')
    replay_dir = os.path.join(work, 'replay')
    shutil.rmtree(replay_dir, ignore_errors=True)
    p = subprocess.run([beltsim, 'replay', os.path.join(work, 'plant', 'recording.bin'), '--out', replay_dir],
                       capture_output=True, text=True, timeout=300)
    if p.returncode != 0 or open(os.path.join(replay_dir, 'trace.bin'), 'rb').read() != \
            open(os.path.join(work, 'plant', 'trace.bin'), 'rb').read():
        fail('the recording of the faulted run did not replay bit for bit: %s' % p.stderr.strip())
    print('injected faults: the replay of the recording gives the same trace (%d frames)' % (len(trace) // OUT_SIZE))


def foreign_sender(beltsim, beltctl, scenario, work):
    import threading
    traces, summaries, answered = [], [], []
    for run, intruder in ((1, False), (2, True)):
        out = os.path.join(work, 'plant%d' % run)
        plant = start_plant(beltsim, scenario, 47825, out, ['--lockstep', '--duration', '3'])
        stop = threading.Event()
        replies = [0]

        def intrude():
            # Another test bench on the same network: valid frames, newer sequence numbers, a
            # different speed command, from its own port.
            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            s.settimeout(0.001)
            seq = 1000000
            while not stop.is_set():
                s.sendto(command_frame(seq, 30.0, 0.0), ('127.0.0.1', 47825))
                seq += 1
                try:
                    s.recvfrom(4096)
                    replies[0] += 1
                except socket.timeout:
                    pass
            s.close()

        # beltctl first (its first frame locks the plant), the intruder once the plant has stepped
        # (its trace grows), while beltctl runs: a fixed delay lost that race to a slow start (ASan).
        log = os.path.join(work, 'ctl%d' % run)
        ctl = subprocess.Popen([beltctl, '--udp', '127.0.0.1:47825', '--lockstep', '--duration', '3',
                                '--trace', log + '.bin'], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        thread = threading.Thread(target=intrude, daemon=True)  # a failed check must not wait on it
        if intruder:
            trace = os.path.join(out, 'trace.bin')
            deadline = time.time() + 60
            while not (os.path.exists(trace) and os.path.getsize(trace) > 0) and ctl.poll() is None:
                if time.time() > deadline:
                    fail('the plant took no step within 60 s of beltctl starting')
                time.sleep(0.01)
            thread.start()
        finish(ctl, timeout=300)
        stop.set()
        if intruder:
            thread.join()
        finish(plant)
        traces.append(open(os.path.join(out, 'trace.bin'), 'rb').read())
        summaries.append(json.load(open(os.path.join(out, 'summary.json'))))
        answered.append(replies[0])
    print('foreign sender: %d datagrams dropped (clean run: %d), %d answered; traces %d and %d bytes' %
          (summaries[1]['foreign_frames'], summaries[0]['foreign_frames'], answered[1], len(traces[0]), len(traces[1])))
    if summaries[0]['foreign_frames'] != 0 or summaries[1]['foreign_frames'] < 10:
        fail('the foreign datagrams were not counted (clean %d, with the intruder %d)' %
             (summaries[0]['foreign_frames'], summaries[1]['foreign_frames']))
    if answered[1] != 0:
        fail('the plant answered the foreign sender %d times' % answered[1])
    if traces[0] != traces[1] or summaries[0]['trace_hash'] != summaries[1]['trace_hash']:
        fail('the controller\'s run with a foreign sender differs from the clean run')
    # --controller names someone else: beltctl's own frames are foreign, the plant steps never.
    out = os.path.join(work, 'locked')
    plant = start_plant(beltsim, scenario, 47826, out, ['--lockstep', '--duration', '1', '--idle-timeout-ms', '800',
                                                        '--controller', '127.0.0.1:9'])
    p = subprocess.run([beltctl, '--udp', '127.0.0.1:47826', '--lockstep', '--duration', '0.05', '--timeout-ms', '300'],
                       capture_output=True, text=True, timeout=60)
    plant.communicate(timeout=60)
    s = json.load(open(os.path.join(out, 'summary.json')))
    print('--controller 127.0.0.1:9: beltctl exit %d, plant steps %d, foreign %d' % (p.returncode, s['steps'],
                                                                                     s['foreign_frames']))
    if p.returncode == 0 or s['steps'] != 0 or s['foreign_frames'] < 1:
        fail('with --controller naming another address the plant obeyed or answered beltctl')
    if plant.returncode != 4:  # its controller never came (docs/hil.md)
        fail('the plant whose named controller never came exited with %d, not 4' % plant.returncode)


def fault_command(seq, table, action, value, ftype=3, crc_ok=True, version=4):
    """A test bench's fault command (firmware/PROTOCOL.md, "Test bench frames"), 24 bytes."""
    body = b'BD' + struct.pack('<BBIBBHd', version, ftype, seq, table, action, 0, value)
    crc = zlib.crc32(body) & 0xFFFFFFFF
    return body + struct.pack('<I', crc if crc_ok else crc ^ 1)


ACK = struct.Struct('<2sBBIBBBBId IIII I')


def decode_ack(b):
    if len(b) != ACK.size or zlib.crc32(b[:-4]) & 0xFFFFFFFF != struct.unpack_from('<I', b, ACK.size - 4)[0]:
        fail('a fault acknowledgement of %d bytes or with a bad CRC' % len(b))
    v = ACK.unpack(b)
    if v[1] != 4 or v[2] != 4:
        fail('an answer to the bench of version %d, frame type %d' % (v[1], v[2]))
    return dict(seq=v[3], table=v[4], result=v[5], action=v[6], acting=v[7], effective=v[8], value=v[9],
                accepted=v[10], refused=v[11], foreign=v[12], steps=v[13])


def recorded_acting(path):
    """The acting-fault records (5) of a recording (host_sim/recording.hpp): [(step, mask)]."""
    b = open(path, 'rb').read()
    if b[:8] != b'BELTREC4':
        fail('%s: not a version-4 recording' % path)
    at = 8
    for _ in range(3):  # scenario name, scenario text, options
        at += 4 + struct.unpack_from('<I', b, at)[0]
    found = []
    while at < len(b):
        kind, tick = struct.unpack_from('<BI', b, at)
        at += 5
        if kind in (1, 4, 5):
            n = struct.unpack_from('<H', b, at)[0]
            if kind == 5:
                found.append((tick, b[at + 2]))
            at += 2 + n
        else:
            at += 4
    return found


def live_faults(beltsim, beltctl, scenario, work):
    """docs/injected_faults.md, "Live faults": the bench's commands through a lockstep run."""
    faulted = os.path.join(os.path.dirname(scenario), 'hil_injected_faults.toml')
    port, bench_port, steps = 47861, 47862, 600
    # Tables of hil_injected_faults.toml: 0 friction P1 and 1 encoder_stuck P1 (scheduled from 1.5 s,
    # after this run; not live), 2 load_cell_offset span 1 (live, -100..100 N, ramp 0.01 s), 3
    # friction P2 (live, 0.2..0.5, ramp 0.05 s).
    RESULT = dict(accepted=0, corrupt=1, stale=2, no_table=3, not_live=4, bad_action=5, out_of_range=6)

    def run(name, bench_script, use_bench=True):
        out = os.path.join(work, name)
        extra = ['--lockstep', '--duration', str(steps / 1000.0), '--idle-timeout-ms', '5000']
        if use_bench:
            extra += ['--bench', '127.0.0.1:%d' % bench_port]
        plant = start_plant(beltsim, faulted, port, out, extra)
        ctl = Client(port)
        bench = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        bench.bind(('127.0.0.1', bench_port))
        bench.settimeout(10.0)
        frames, acks = [], []
        for k in range(1, steps + 1):
            # Sent before the controller's frame of step k: the plant applies it before step k.
            for item in bench_script.get(k, []):
                item(bench, acks)
            frames.append(ctl.exchange(command_frame(k, 10.0, 0.0)))
        bench.close()
        finish(plant)
        summary = json.load(open(os.path.join(out, 'summary.json')))
        trace = open(os.path.join(out, 'trace.bin'), 'rb').read()
        return frames, acks, summary, trace, out

    def send(frame, answered=True):
        def act(bench, acks):
            bench.sendto(frame, ('127.0.0.1', port))
            if answered:
                acks.append(('pending', frame))
        return act

    def collect(bench, acks):
        """Reads the answers to the commands sent before the previous step."""
        for i, a in enumerate(acks):
            if a[0] == 'pending':
                acks[i] = ('ack', decode_ack(bench.recvfrom(256)[0]))

    def foreign(frame):
        def act(bench, acks):
            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            s.settimeout(0.2)
            s.sendto(frame, ('127.0.0.1', port))
            try:
                s.recvfrom(256)
                fail('the plant answered a fault command from a third address')
            except socket.timeout:
                pass
            s.close()
        return act

    clean_frames, _, clean_summary, clean_trace, _ = run('clean', {}, use_bench=False)

    # Refused commands, before step 100 (answered before step 100's output frame).
    refused = [(fault_command(1, 0, 1, 0.3), 'not_live'), (fault_command(2, 7, 1, 0.0), 'no_table'),
               (fault_command(3, 2, 1, 500.0), 'out_of_range'), (fault_command(4, 2, 1, float('nan')), 'out_of_range'),
               (fault_command(5, 3, 1, 0.1), 'out_of_range'), (fault_command(6, 2, 2, 20.0), 'bad_action'),
               (fault_command(7, 2, 1, 20.0, crc_ok=False), 'corrupt'),
               (command_frame(8, 30.0, 0.0), 'corrupt')]  # a controller's frame from the bench: not a fault command
    script = {100: [send(f) for f, _ in refused] + [foreign(fault_command(9, 2, 1, 20.0))], 101: [collect]}
    frames, acks, summary, trace, _ = run('refused', script)
    got = [a[1]['result'] for a in acks]
    print('refused fault commands: results %s, summary %s, foreign %d' % (got, summary['fault_commands'],
                                                                          summary['foreign_frames']))
    if got != [RESULT[r] for _, r in refused]:
        fail('refusal reasons %s, expected %s' % (got, [RESULT[r] for _, r in refused]))
    if any(a[1]['effective'] != 0 for a in acks) or summary['fault_commands']['refused'] != len(refused) or \
            summary['fault_commands']['accepted'] != 0 or summary['foreign_frames'] < 1:
        fail('refused commands were not counted as such: %s' % summary)
    if trace != clean_trace or summary['steps'] != steps:
        fail('refused fault commands changed the run (or took a step): %d steps' % summary['steps'])

    # Accepted commands before steps 101 (start the load cell's offset, 20 N), 201 (start the wet
    # load pulley, mu 0.3), 301 (the offset to -40 N); 401: `beltsim inject` clears the offset (no
    # value given: a clear keeps the table's); 402: a stale sequence.
    inject = {}

    def beltsim_inject(bench, acks):
        bench.close()  # the port is beltsim inject's now
        inject['p'] = subprocess.Popen([beltsim, 'inject', '--plant', '127.0.0.1:%d' % port, '--from',
                                        '127.0.0.1:%d' % bench_port, '--table', '2', '--clear',
                                        '--sequence', '40'], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        time.sleep(1.0)  # its datagram is in the plant's socket before the controller's next frame

    def reopen(bench, acks):
        inject['out'] = finish(inject['p'], timeout=30)
        bench.__init__(socket.AF_INET, socket.SOCK_DGRAM)
        bench.bind(('127.0.0.1', bench_port))
        bench.settimeout(10.0)

    script = {101: [send(fault_command(10, 2, 1, 20.0))], 102: [collect],
              201: [send(fault_command(20, 3, 1, 0.3, version=3))], 202: [collect],  # version 3: same layout, taken
              301: [send(fault_command(30, 2, 1, -40.0))], 302: [collect],
              401: [beltsim_inject], 402: [reopen, send(fault_command(40, 2, 1, 20.0))], 403: [collect]}
    frames, acks, summary, trace, out = run('live', script)
    acks = [a[1] for a in acks]
    print('live fault commands: acknowledged %s; beltsim inject said: %s' %
          ([(a['seq'], a['result'], a['effective']) for a in acks], inject['out'].strip()))
    if [(a['result'], a['effective']) for a in acks] != [(0, 101), (0, 201), (0, 301), (RESULT['stale'], 0)]:
        fail('the live commands were not acknowledged as accepted from the next step (and the stale one refused)')
    # A clear keeps the table's value (-40 N, the last start's): the acknowledgement says so.
    if 'clear, value -40): accepted; acts from step 401' not in inject['out']:
        fail('beltsim inject did not report its clear (keeping -40 N) as acting from step 401')
    if summary['steps'] != steps or summary['fault_commands'] != {'accepted': 4, 'refused': 1, 'dropped': 0}:
        fail('steps %d, fault commands %s' % (summary['steps'], summary['fault_commands']))

    def truth(f):
        return f['raw'][16:344]

    first_truth_change = next((k for k in range(steps) if truth(frames[k]) != truth(clean_frames[k])), None)
    first_change = next((k for k in range(steps) if frames[k]['raw'] != clean_frames[k]['raw']), None)
    offsets = [frames[k]['load_cell'][0] - clean_frames[k]['load_cell'][0] for k in range(steps)]
    acting = summary['injected_faults_acting']
    recorded = recorded_acting(os.path.join(out, 'recording.bin'))
    print('first frame that differs: step %s (the truth: step %s); load-cell offset at steps 100, 101, 111, 300, '
          '311, 400, 411: %s; tables acting (summary): %s; recorded: %s; acknowledged: %s' %
          (first_change and first_change + 1, first_truth_change and first_truth_change + 1,
           [offsets[k - 1] for k in (100, 101, 111, 300, 311, 400, 411)], acting, recorded, [a['acting'] for a in acks]))
    if first_change != 100 or first_truth_change is None or first_truth_change < 200:
        fail('the first command did not act from step 101 or the truth changed before the wet pulley (step 201)')
    # Offsets exact once ramped in (0.01 s = 10 steps), with the truth of the live run itself.
    for k in range(steps):
        step = k + 1
        q = math.floor(frames[k]['span'][0] / 0.5 + 0.5) * 0.5
        want = 20.0 if 112 <= step <= 300 else -40.0 if 312 <= step <= 400 else 0.0 if step <= 100 or step >= 412 \
            else None
        if want is not None and frames[k]['load_cell'][0] - q != want:
            fail('step %d: load-cell offset %r, expected %r' % (step, frames[k]['load_cell'][0] - q, want))
    # The bench learns what acts (never the controller: byte 455 is 0 in every frame, decode_output):
    # table 2 from step 101, tables 2 and 3 from 201, table 3 alone once the clear of 401 has ramped
    # out (0.01 s); the recording says the same, and so do the acknowledgements (after the step before).
    changes = [(c['step'], c['tables']) for c in acting]
    if changes[:2] != [(101, [2]), (201, [2, 3])] or len(changes) != 3 or changes[2][1] != [3] or \
            not 401 < changes[2][0] <= 412:
        fail('summary.json does not name the live tables and the steps they acted from: %s' % changes)
    if recorded != [(s, sum(1 << k for k in tables)) for s, tables in changes]:
        fail('the recording names other acting tables than summary.json: %s' % recorded)
    if [a['acting'] for a in acks] != [0, 4, 12, 12]:
        fail('the acknowledgements do not name the tables acting: %s' % [a['acting'] for a in acks])
    wet = sum(frames[k]['speed'][1] for k in range(500, 600)) / 100.0
    dry = sum(clean_frames[k]['speed'][1] for k in range(500, 600)) / 100.0
    print('load pulley speed over 0.5-0.6 s: %.4f rad/s with the live wet pulley, %.4f without' % (wet, dry))
    replay_dir = os.path.join(work, 'replay')
    shutil.rmtree(replay_dir, ignore_errors=True)
    p = subprocess.run([beltsim, 'replay', os.path.join(out, 'recording.bin'), '--out', replay_dir],
                       capture_output=True, text=True, timeout=300)
    same_log = open(os.path.join(replay_dir, 'fault_commands.csv')).read() == \
        open(os.path.join(out, 'fault_commands.csv')).read()
    if p.returncode != 0 or open(os.path.join(replay_dir, 'trace.bin'), 'rb').read() != trace or not same_log:
        fail('the recording with live faults did not replay bit for bit (trace, fault_commands.csv): %s' % p.stderr)
    print('live faults: the replay gives the same trace (%d frames) and the same fault_commands.csv' % steps)
    live_fault_in_real_time(beltsim, faulted, work)


def live_fault_in_real_time(beltsim, faulted, work):
    """The same path in real time (1 kHz): a start lands on whichever tick follows it; from the step the
    acknowledgement names on, the reading ramps in and is then the truth's plus 20 N exactly."""
    import threading
    port, bench_port, ticks = 47863, 47864, 600
    out = os.path.join(work, 'realtime')
    plant = start_plant(beltsim, faulted, port, out, ['--duration', str(ticks / 1000.0), '--hold', '1000',
                                                      '--bench', '127.0.0.1:%d' % bench_port])
    ack = {}

    def bench():
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.bind(('127.0.0.1', bench_port))
        s.settimeout(5.0)
        time.sleep(0.25)  # mid-run
        s.sendto(fault_command(1, 2, 1, 20.0), ('127.0.0.1', port))
        ack.update(decode_ack(s.recvfrom(256)[0]))
        s.close()

    thread = threading.Thread(target=bench)
    c = Client(port)
    c.s.settimeout(1.0)
    thread.start()
    seq = 0
    try:  # a controller that answers every output frame, until the plant stops ticking
        while True:
            seq += 1
            c.exchange(command_frame(seq, 10.0, 0.0))
    except socket.timeout:
        pass
    thread.join()
    finish(plant, timeout=30)
    trace = open(os.path.join(out, 'trace.bin'), 'rb').read()
    frames = [decode_output(trace[i:i + OUT_SIZE]) for i in range(0, len(trace), OUT_SIZE)]
    start = ack.get('effective', 0)
    print('real time: the start was acknowledged (result %s) as acting from step %d of %d' %
          (ack.get('result'), start, len(frames)))
    if ack.get('result') != 0 or not 1 < start < len(frames) - 20:
        fail('a live start in real time was not accepted for a step within the run: %s' % ack)
    for f in frames:
        offset = f['load_cell'][0] - math.floor(f['span'][0] / 0.5 + 0.5) * 0.5
        want = 0.0 if f['step'] < start else 20.0 if f['step'] >= start + 11 else None
        if want is not None and offset != want:
            fail('real time, step %d: offset %r (expected %r)' % (f['step'], offset, want))
    summary = json.load(open(os.path.join(out, 'summary.json')))
    if summary['injected_faults_acting'] != [{'step': start, 'tables': [2]}]:
        fail('real time: summary.json does not name table 2 acting from step %d: %s' %
             (start, summary['injected_faults_acting']))


def accessory_eulerian(beltsim, beltctl, scenario, work):
    accessory = os.path.join(os.path.dirname(os.path.abspath(scenario)), 'accessory_drive_eulerian.toml')
    plant = start_plant(beltsim, accessory, 47822, os.path.join(work, 'plant'), ['--lockstep', '--duration', '0.3'])
    run_controller(beltctl, ['--udp', '127.0.0.1:47822', '--step', '1e-4', '--inputs', 'speed,load,torque,load,load,load',
                             '--hold', '1:40', '--speed-step', '0.0:100', '--load-step', '0.2:2'], work, 'ctl', 0.3)
    finish(plant)
    with open(os.path.join(work, 'plant', 'timeseries.csv')) as f:
        header = f.readline().strip().split(',')
        rows = [dict(zip(header, map(float, line.split(',')))) for line in f if line.strip()]
    summary = json.load(open(os.path.join(work, 'plant', 'summary.json')))
    crank = next(r['omega_p1'] for r in rows if abs(r['time'] - 0.01) < 1e-9)
    pump = [r['omega_p2'] for r in rows if r['time'] > 0.2]
    mean = sum(pump) / len(pump)
    flagged = sum(1 for r in rows if r['converged'] != 1)
    print('accessory drive: %d steps, crankshaft %.6f rad/s at 10 ms, water pump mean %.4f rad/s over the last '
          '0.1 s, %d steps flagged, fault %d, safe state %d' % (len(rows), crank, mean, flagged, summary['fault'],
                                                                summary['safe_state']))
    if len(rows) != 3000 or crank != 20.0 or abs(mean / 60.0 - 1.0) > 0.01 or flagged or summary['fault'] or \
            summary['safe_state']:
        fail('accessory drive: expected 3000 steps, 20 rad/s at 10 ms, the pump within 1 % of 60 rad/s, no step '
             'flagged, no fault and no safe state')


def main():
    mode, beltsim, beltctl, scenario, work = sys.argv[1:6]
    os.makedirs(work, exist_ok=True)
    if mode == 'closed_loop':
        closed_loop(beltsim, beltctl, scenario, work)
    elif mode == 'closed_loop_eulerian':
        closed_loop_eulerian(beltsim, beltctl, scenario, work)
    elif mode == 'bad_input':
        bad_input(beltsim, scenario, work)
    elif mode == 'realtime':
        realtime(beltsim, scenario, work)
    elif mode == 'interrupt':
        interrupt(beltsim, scenario, work)
    elif mode == 'injected_faults':
        injected_faults(beltsim, beltctl, scenario, work)
    elif mode == 'live_faults':
        live_faults(beltsim, beltctl, scenario, work)
    elif mode == 'foreign_sender':
        foreign_sender(beltsim, beltctl, scenario, work)
    elif mode == 'accessory_eulerian':
        accessory_eulerian(beltsim, beltctl, scenario, work)
    elif mode == 'cortex_m7':
        return cortex_m7(beltsim, beltctl, scenario, work, sys.argv[6])
    else:
        fail('unknown mode ' + mode)
    return 0


if __name__ == '__main__':
    sys.exit(main())
