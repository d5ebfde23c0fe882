"""Running beltsim cases for sweeps and suites (scripts/beltsim_sweep.py, scripts/beltsim_suite.py):
each case is one deterministic `beltsim` process (run or replay) into its own folder, on a local
pool of N at a time or on a Dask distributed cluster."""
import json
import os
import shutil
import subprocess
import sys
import time


def set_value(value):
    """A TOML value as `beltsim run --set KEY=VALUE` takes it (floats with every digit)."""
    if isinstance(value, bool):
        return str(value).lower()
    return repr(float(value)) if isinstance(value, float) else str(value)


def run_case(beltsim, arguments, out, time_limit):
    """`beltsim ARGUMENTS... --quiet --out OUT` (run) or `--out OUT` (replay) within time_limit s.
    Returns the summary, the exit status ("timeout" when killed) and the reason of a failure. Each
    attempt writes its own folder, renamed to OUT at the end: a case re-run after its worker died
    does not meet the first attempt's files."""
    attempt = f"{out}.attempt-{os.getpid()}-{time.time_ns()}"
    command = [beltsim, *arguments, "--out", attempt]
    start = time.monotonic()
    try:
        p = subprocess.run(command, capture_output=True, text=True, timeout=time_limit)
        status, stderr = p.returncode, p.stderr
    except subprocess.TimeoutExpired:
        status, stderr = "timeout", f"killed after the time limit of {time_limit:g} s"
    wall = time.monotonic() - start
    shutil.rmtree(out, ignore_errors=True)
    if os.path.isdir(attempt):
        os.rename(attempt, out)
    summary = {}
    try:
        with open(os.path.join(out, "summary.json")) as f:
            summary = json.load(f)
    except (OSError, ValueError):
        pass
    lines = [line for line in (stderr or "").splitlines() if line.strip()]
    reason = summary.get("fault_reason") or ("" if status == 0 else (lines[-1] if lines else f"exit status {status}"))
    return {"summary": summary, "status": status, "reason": reason.removeprefix("error: "), "wall": wall}


def run_all(tasks, jobs, scheduler):
    """tasks: argument tuples of run_case. Results in task order, with a progress bar on stderr."""
    results = [None] * len(tasks)

    def progress(done):
        bar = "#" * (30 * done // len(tasks))
        print(f"\r[{bar:<30}] {done}/{len(tasks)} cases", end="" if done < len(tasks) else "\n", file=sys.stderr,
              flush=True)

    if scheduler:
        from distributed import Client, as_completed  # python3-distributed (Debian 12)
        with Client(scheduler) as client:
            client.upload_file(os.path.abspath(__file__))  # this module, for the workers to import
            futures = [client.submit(run_case, *t, pure=False, key=f"beltsim-case-{i}-{time.time_ns()}")
                       for i, t in enumerate(tasks)]
            index = {f.key: i for i, f in enumerate(futures)}
            for done, future in enumerate(as_completed(futures), 1):
                i = index[future.key]
                try:
                    results[i] = future.result()
                except Exception as e:  # a worker lost beyond Dask's retries: the case is an error
                    results[i] = {"summary": {}, "status": "error", "reason": f"worker failed: {e}", "wall": 0.0}
                progress(done)
    else:
        from concurrent.futures import ThreadPoolExecutor, as_completed
        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            futures = {pool.submit(run_case, *t): i for i, t in enumerate(tasks)}
            for done, future in enumerate(as_completed(futures), 1):
                results[futures[future]] = future.result()
                progress(done)
    return results


def add_runner_arguments(parser):
    """--out, --jobs, --scheduler and --beltsim, as both scripts take them."""
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser.add_argument("--out", required=True)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--scheduler", default=None)
    parser.add_argument("--beltsim", default=os.path.join(repo, "build", "host", "host_sim", "beltsim"))


def prepare(args, load, error_type):
    """The beltsim binary and what load(beltsim) reads, with the output folder made; None (and one
    line on stderr) when the binary is missing, the spec is refused or the folder is not empty."""
    beltsim = os.path.abspath(args.beltsim)
    if not os.access(beltsim, os.X_OK):
        print(f"error: {beltsim}: no beltsim binary (build it: bash scripts/run_main.sh, or give --beltsim)",
              file=sys.stderr)
        return None
    try:
        loaded = load(beltsim)
    except error_type as e:
        print(f"error: {e}", file=sys.stderr)
        return None
    if os.path.isdir(args.out) and os.listdir(args.out):
        print(f"error: {args.out}: the output folder is not empty", file=sys.stderr)
        return None
    os.makedirs(args.out, exist_ok=True)
    return beltsim, loaded
