"""``maltpy ARGS`` run by the command line's ``main`` in an existing process, as a process would
run it: its standard input, output and error are the process's file descriptors 0, 1 and 2 for
the call (a pipe holding the input, or /dev/null; two temporary files), so that what anything
writes there, Python or C, is what the call gave; the streams, descriptors, environment (the
thread variables main sets) and signal handlers are put back after it. An exception that would
end a process with a traceback ends the call with status 1 and the traceback on its stderr; a
call that runs past its timeout raises subprocess.TimeoutExpired, as subprocess.run would. A
SIGTERM or SIGHUP that main takes while it runs here was sent to this process (the commands run
here are sent none): it is sent again once the handlers are back, so that it ends the process
as it would have without the call.

Where many runs each check a message (not how a process starts), this saves a process start
(about half a second) per run. Each entry point keeps tests of real processes elsewhere.

Run as a script, ``python in_process.py RUNS.json RESULTS.json`` runs each of RUNS (lists of
arguments) in turn in that one fresh process and writes each one's status, stdout, stderr and
wall time, and this process's own peak memory (VmHWM, in kB) when the run ended: a bound on that
peak bounds the run's, since the run alone, in a process of its own, would have started from no
more than this process held when the run began.
"""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback

_SIGNALS = [getattr(signal, name) for name in ("SIGTERM", "SIGHUP", "SIGINT", "SIGPIPE") if hasattr(signal, name)]


class _TimedOut(BaseException):
    """The call ran past its timeout (raised by SIGALRM, past main's handlers)."""


def _time_out(signum, frame) -> None:
    raise _TimedOut


def _feed(fd: int, data: bytes) -> None:
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    except OSError:  # the reader stopped reading (as a process would get EPIPE)
        pass
    finally:
        os.close(fd)


def call_main(*args, input: bytes | None = None, timeout: float = 600) -> subprocess.CompletedProcess:
    """``maltpy ARGS`` by ``maltpy.cli.main`` in this process: its exit status, stdout and stderr."""
    from maltpy.cli import main

    args = [str(a) for a in args]
    saved_fds = {fd: os.dup(fd) for fd in (0, 1, 2)}
    saved_streams = sys.stdin, sys.stdout, sys.stderr
    saved_environ = dict(os.environ)
    saved_handlers = {s: signal.getsignal(s) for s in (*_SIGNALS, signal.SIGALRM)}
    feeder = None
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        try:
            if input is None:
                source = os.open(os.devnull, os.O_RDONLY)
            else:
                source, sink = os.pipe()
                feeder = threading.Thread(target=_feed, args=(sink, input), daemon=True)
                feeder.start()
            os.dup2(source, 0)
            os.close(source)
            os.dup2(out.fileno(), 1)
            os.dup2(err.fileno(), 2)
            # held here too: main puts a wrapper of its own around stderr's buffer, which the
            # garbage collector would close with this one
            streams = (
                open(0, encoding="utf-8", closefd=False),
                open(1, "w", encoding="utf-8", closefd=False),
                open(2, "w", encoding="utf-8", errors="backslashreplace", buffering=1, closefd=False),
            )
            sys.stdin, sys.stdout, sys.stderr = streams
            signal.signal(signal.SIGALRM, _time_out)
            signal.setitimer(signal.ITIMER_REAL, timeout)
            try:
                status = main(args)
            except SystemExit as e:
                status = e.code if isinstance(e.code, int) else 0 if e.code is None else 1
            except Exception:
                traceback.print_exc()
                status = 1
            for stream in (sys.stdout, sys.stderr, *streams[1:]):
                try:
                    stream.flush()
                except (OSError, ValueError):
                    pass
        except _TimedOut:
            raise subprocess.TimeoutExpired(args, timeout) from None
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            for fd, copy in saved_fds.items():
                os.dup2(copy, fd)
                os.close(copy)
            sys.stdin, sys.stdout, sys.stderr = saved_streams
            os.environ.clear()
            os.environ.update(saved_environ)
            for s, handler in saved_handlers.items():
                signal.signal(s, handler)
            if feeder is not None:
                feeder.join(timeout=60)
        if status in (128 + signal.SIGTERM, 128 + signal.SIGHUP):
            os.kill(os.getpid(), status - 128)
        out.seek(0)
        err.seek(0)
        return subprocess.CompletedProcess(args, status, out.read(), err.read())


def _own_peak_kb() -> int:
    """This process's peak resident memory since it started (Linux's VmHWM), in kB. Not
    getrusage's ru_maxrss: a process that Python's subprocess started (by vfork) keeps its
    parent's peak there, the test process's whole size."""
    with open("/proc/self/status", encoding="ascii") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmHWM:"))


def _run_all(runs_path: str, results_path: str, hang_s: str) -> None:
    """Each run of ``runs_path`` by main in turn; a run still going after ``hang_s`` seconds is a
    hang, recorded with status -1 (the bound catches hangs only: it says nothing of speed)."""
    with open(runs_path, encoding="utf-8") as f:
        runs = json.load(f)
    results = []
    for args in runs:
        started = time.perf_counter()
        try:
            result = call_main(*args, timeout=float(hang_s))
        except subprocess.TimeoutExpired:
            result = subprocess.CompletedProcess(args, -1, b"", f"hung: still running after {hang_s} s".encode())
        seconds = time.perf_counter() - started
        peak = max(_own_peak_kb(), resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
        results.append({"status": result.returncode, "stdout": result.stdout.decode("latin-1"),
                        "stderr": result.stderr.decode("latin-1"), "seconds": seconds, "peak_kb": peak})  # fmt: skip
    with open(results_path, "w", encoding="utf-8") as f:
        json.dump(results, f)


if __name__ == "__main__":
    _run_all(*sys.argv[1:4])
