"""Worker processes: fresh interpreters that run one function's life each, speaking frames on
two pipes; the one way maltpy starts, talks to and stops its workers (``maltpy parse --jobs``'s,
jobs.py; ``maltpy optimize``'s trials, ``Tasks``). Why fresh interpreters on plain pipes, in
sessions of their own, is said in jobs.py's docstring.

A frame is one tag byte, an 8-byte length and the payload. ``Tasks`` sends CALL frames (a
pickled function, by reference, and its arguments) and its workers answer RESULT (the pickled
value) or FAILED (the pickled exception).

A worker prints none of Python's warnings (a library's, or a MaltpyWarning while it loads a
model): each goes to the main process as a WARNED frame ahead of the worker's next answer
(``answer``), and the main process shows it as its own, once however many workers gave it
(``Relayed``): what ``maltpy parse --jobs 4`` says is what ``--jobs 1`` says.
"""

from __future__ import annotations

import concurrent.futures
import json
import os
import pickle
import queue
import signal
import struct
import subprocess
import sys
import threading
import warnings
from collections.abc import Callable
from typing import Any

from .threads import set_threads

_FRAME = struct.Struct("!cQ")  # tag, payload length
PROTOCOL = pickle.HIGHEST_PROTOCOL
STOPPING = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)  # signals that stop a whole job

CALL, RESULT, FAILED = b"C", b"O", b"F"  # a task pool's frames: a function to run, its value, its exception
WARNED = b"W"  # a worker's Python warning, ahead of its next answer
# A worker's command: it imports from the main process's sys.path (this maltpy, not one that the
# working directory may hold), then runs its life (``jobs.work``, ``run_tasks``) with the arguments after.
_WORKER = "import json, sys; sys.path[:] = json.loads(sys.argv[1]); from {} import {} as life; life(sys.argv[2:])"


def spawn(module: str, life: str, *argv: str) -> subprocess.Popen:
    """A worker process: a fresh interpreter in a session of its own, running ``module.life(argv)``,
    its standard input and output the pipes its frames travel on."""
    command = [sys.executable, "-c", _WORKER.format(module, life), json.dumps(sys.path), *argv]
    return subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0, start_new_session=True)


def end_workers(processes: list[subprocess.Popen], finished: bool) -> None:
    """Stop the worker processes and wait for their end: when their work is ``finished`` by
    closing their input, otherwise (an error, a signal) at once. Signals wait until all are
    stopped, so that a second Ctrl-C cannot leave a worker behind."""
    stopping = signal.pthread_sigmask(signal.SIG_BLOCK, STOPPING)
    try:
        for process in processes:
            if not finished:
                process.kill()
            process.stdin.close()
        for process in processes:
            try:
                process.wait(timeout=None if not finished else 10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            process.stdout.close()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, stopping)


def how_it_ended(status: int) -> str:
    if status >= 0:
        return f"stopped with status {status}"
    try:
        return f"was killed by {signal.Signals(-status).name}"
    except ValueError:
        return f"was killed by signal {-status}"


class Tasks(concurrent.futures.Executor):
    """Up to ``jobs`` worker processes running functions (``maltpy optimize``'s trials): an
    executor whose workers are parse's (``spawn``: fresh interpreters in their own session, on
    pipes of frames), started as tasks come, each running ``initializer(*initargs)`` first.
    ``submit(function, *args)`` gives a future of ``function(*args)`` run in a worker (the
    function and its arguments pickled, by reference for a function: a module's); ``stop`` kills
    every worker at once (a deadline, a signal, an error), ``shutdown`` waits for the tasks
    submitted. A worker that dies breaks the pool: its task and those waiting fail with
    ``BrokenExecutor``, as ``concurrent.futures.ProcessPoolExecutor``'s do."""

    def __init__(self, jobs: int, initializer: Callable | None = None, initargs: tuple = ()) -> None:
        self.jobs = jobs
        self.first = pickle.dumps((initializer, initargs), PROTOCOL) if initializer is not None else None
        self.waiting: queue.SimpleQueue = queue.SimpleQueue()  # (future, pickled call), None: a worker ends
        self.processes: list[subprocess.Popen] = []
        self.threads: list[threading.Thread] = []
        self.idle = 0  # workers waiting for a task
        self.lock = threading.Lock()
        self.broken: str | None = None
        self.closed = False
        self.relayed = Relayed()

    def submit(self, function: Callable, /, *args: Any, **kwargs: Any) -> concurrent.futures.Future:
        with self.lock:
            if self.broken is not None:
                raise concurrent.futures.BrokenExecutor(self.broken)
            if self.closed:
                raise RuntimeError("cannot submit a task after shutdown")
            future: concurrent.futures.Future = concurrent.futures.Future()
            self.waiting.put((future, pickle.dumps((function, args, kwargs), PROTOCOL)))
            if self.idle == 0 and len(self.processes) < self.jobs:
                self._start()
            return future

    def _start(self) -> None:
        """One more worker, and the thread in this process that hands it its tasks."""
        process = spawn("maltpy.run.processes", "run_tasks")
        self.processes.append(process)
        thread = threading.Thread(target=self._serve, args=(process,), name="maltpy-tasks", daemon=True)
        self.threads.append(thread)
        thread.start()

    def _serve(self, process: subprocess.Popen) -> None:
        """Hand ``process`` each task in turn and set its future from the answer."""
        try:
            if self.first is not None:
                self._run(process, self.first)
        except BaseException as e:
            self._break(f"a worker's initializer failed ({type(e).__name__}: {e})")
            return
        while True:
            with self.lock:
                self.idle += 1
            task = self.waiting.get()
            with self.lock:
                self.idle -= 1
            if task is None:
                return
            future, call = task
            if not future.set_running_or_notify_cancel():
                continue
            try:
                future.set_result(self._run(process, call))
            except concurrent.futures.BrokenExecutor as e:
                future.set_exception(e)
                self._break(str(e))
                return
            except BaseException as e:
                future.set_exception(e)

    def _run(self, process: subprocess.Popen, call: bytes) -> Any:
        """Have ``process`` run a pickled call; its value, or raise its exception."""
        try:
            write_frame(process.stdin.fileno(), CALL, call)
            frame = read_answer(process.stdout.fileno(), self.relayed)
        except BrokenPipeError:
            frame = None
        if frame is None:
            how = how_it_ended(process.wait())
            raise concurrent.futures.BrokenExecutor(f"a worker process (process {process.pid}) {how}")
        tag, payload = frame
        if tag == FAILED:
            raise pickle.loads(payload)
        return pickle.loads(payload)

    def _break(self, why: str) -> None:
        """A worker has died: every task waiting fails, and no other is taken."""
        with self.lock:
            self.broken = self.broken or why
        ends = 1  # for another thread that waits: it ends too
        while True:
            try:
                task = self.waiting.get_nowait()
            except queue.Empty:
                break
            if task is None:
                ends += 1
            elif task[0].set_running_or_notify_cancel():
                task[0].set_exception(concurrent.futures.BrokenExecutor(self.broken))
        for _ in range(ends):
            self.waiting.put(None)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """No more tasks; with ``wait``, those submitted end, then the workers."""
        with self.lock:
            self.closed = True
        for _ in self.threads:
            self.waiting.put(None)
        if wait:
            for thread in self.threads:
                thread.join()
            end_workers(self.processes, finished=True)

    def stop(self) -> None:
        """Kill every worker now and wait for their end; the tasks running and waiting fail."""
        with self.lock:
            self.closed = True
            self.broken = self.broken or "stopped"
        for process in self.processes:
            process.kill()  # its thread reads the end of its answers, and ends
        self._break("stopped")
        for _ in self.threads:
            self.waiting.put(None)
        for thread in self.threads:
            thread.join()
        end_workers(self.processes, finished=False)


def run_tasks(argv: list[str]) -> None:
    """A task worker's life (``Tasks``): run each call that comes on standard input and write its
    value or its exception to standard output, until the input ends or the main process goes away."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # stopped by the main process: quietly
    set_threads(None)  # before NumPy is imported; the main process's settings are in the environment
    calls_in, answers_out = frame_pipes()
    try:
        while (frame := read_frame(calls_in)) is not None:
            function, args, *kwargs = pickle.loads(frame[1])
            try:
                answer = RESULT, pickle.dumps(function(*args, **(kwargs[0] if kwargs else {})), PROTOCOL)
            except Exception as e:
                try:
                    answer = FAILED, pickle.dumps(e, PROTOCOL)
                except Exception:  # an exception that does not pickle: its text
                    answer = FAILED, pickle.dumps(RuntimeError(f"{type(e).__name__}: {e}"), PROTOCOL)
            send_answer(answers_out, *answer)
    except BrokenPipeError:
        pass  # the main process has gone: no one is waiting


def frame_pipes() -> tuple[int, int]:
    """The worker's ends of its frames' pipes (its standard input and output when it started);
    standard input then reads nothing, whatever a library prints goes to stderr, and Python's
    warnings are held for the main process (``send_answer``)."""
    frames_in, frames_out = os.dup(0), os.dup(1)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    os.dup2(2, 1)
    warnings.showwarning = _hold_warning
    return frames_in, frames_out


_held: list[bytes] = []  # a worker's warnings not yet sent (each a WARNED frame's payload)


def _hold_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """A worker's ``warnings.showwarning``: the warning held, to go ahead of its next answer."""
    kinds = [[c.__module__, c.__qualname__] for c in category.__mro__ if issubclass(c, Warning)]  # to Warning
    _held.append(json.dumps([str(message), kinds, filename, lineno]).encode())


def send_answer(fd: int, tag: bytes, payload: bytes) -> None:
    """A worker's answer to the main process (``write_frame``), after the warnings met since its
    last (WARNED frames)."""
    while _held:
        write_frame(fd, WARNED, _held.pop(0))
    write_frame(fd, tag, payload)


def read_answer(fd: int, relayed: Relayed) -> tuple[bytes, bytearray] | None:
    """A worker's next answer (``read_frame``), the warnings ahead of it shown (``relayed``)."""
    while (frame := read_frame(fd)) is not None and frame[0] == WARNED:
        relayed.show(frame[1])
    return frame


class Relayed:
    """The warnings a main process's workers sent: each shown in this process (through its own
    ``warnings``: its filters, its display), once, whichever and however many workers gave it."""

    def __init__(self) -> None:
        self.shown: set[tuple[str, str]] = set()
        self.lock = threading.Lock()  # Tasks' threads read their workers' answers side by side

    def show(self, payload: bytes) -> None:
        text, kinds, filename, lineno = json.loads(bytes(payload))
        # the warning's category, or the nearest it derives from that this process has (it
        # imports no module for it: the main process of parse --jobs never imports NumPy)
        found = (getattr(sys.modules.get(module), name, None) for module, name in kinds)
        category = next((c for c in found if isinstance(c, type) and issubclass(c, Warning)), UserWarning)
        with self.lock:
            if (category.__qualname__, text) in self.shown:
                return
            self.shown.add((category.__qualname__, text))
            warnings.warn_explicit(text, category, filename, lineno)


# --- frames -----------------------------------------------------------------------------------------


def write_frame(fd: int, tag: bytes, payload: bytes) -> None:
    for data in (_FRAME.pack(tag, len(payload)), payload):
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]


def read_frame(fd: int) -> tuple[bytes, bytearray] | None:
    """(tag, payload) of the next frame; None at the end of the input (the other side has gone)."""
    header = _read_exactly(fd, _FRAME.size)
    if header is None:
        return None
    tag, length = _FRAME.unpack(header)
    payload = _read_exactly(fd, length)
    return None if payload is None else (tag, payload)


def _read_exactly(fd: int, size: int) -> bytearray | None:
    buffer = bytearray(size)
    view = memoryview(buffer)
    done = 0
    while done < size:
        got = os.readv(fd, [view[done:]])
        if not got:
            return None
        done += got
    return buffer
