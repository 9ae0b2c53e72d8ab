"""The search's runs: trials in parallel on processes.Tasks's workers or a Dask cluster, within the
budget, logged as they end."""

from __future__ import annotations

import collections
import concurrent.futures
import contextlib
import math
import os
import shutil
import signal
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..errors import MaltpyError, cut
from ..learners import LEARNERS
from ..run.processes import Tasks
from .log import TrialLog
from .trials import Data, Result, Setting, run_trial


@dataclass
class PhaseSummary:
    name: str
    trials: int = 0
    seconds: float = 0.0
    start_las: float | None = None
    end_las: float | None = None
    changes: list[str] = field(default_factory=list)
    transition_las: float | None = None  # the tuned transition-based result's, where a graph-based one is ahead


@dataclass
class _Tally:
    """The folds of one trial, added up as they end."""

    correct: int = 0
    words: int = 0
    seconds: float = 0.0
    error: str | None = None
    parts: int = 0

    def add(self, correct: int, words: int, seconds: float) -> None:
        self.correct += correct
        self.words += words
        self.seconds += seconds
        self.parts += 1

    def fail(self, error: str) -> None:
        self.error = self.error or error
        self.parts += 1


@contextlib.contextmanager
def signals_held() -> Iterator[None]:
    """Termination signals wait (are delivered after) while the block runs: a second SIGTERM
    must not interrupt the stopping of the workers, nor a signal leave config.yaml and
    features.txt of two different settings."""
    held = {getattr(signal, n) for n in ("SIGTERM", "SIGHUP", "SIGINT") if hasattr(signal, n)}
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, held) if hasattr(signal, "pthread_sigmask") else None
    try:
        yield
    finally:
        if previous is not None:
            signal.pthread_sigmask(signal.SIG_SETMASK, previous)


#: What a trial takes (peak resident memory of a LIBLINEAR trial: 114 MB on da_ddt's dev file of
#: 0.66 MB, 399 MB on en_lines' training file of 3.9 MB): an interpreter with its libraries, and
TRIAL_BYTES = 64 << 20
#: this many times the bytes of the treebank it reads (and the dev file's); LIBSVM adds its kernel
#: cache (-m, 100 MB).
TRIAL_FACTOR = 100


def trial_bytes(train: str, dev: str | None, learner: str) -> int:
    """About the memory one trial process takes, to bound ``--jobs`` by (jobs.bound_jobs)."""
    size = 0
    for path in (train, dev):
        with contextlib.suppress(OSError, TypeError):  # a missing file is reported by the search
            size += os.path.getsize(path)
    cache = int(LEARNERS["libsvm"].options["m"].default) << 20 if learner == "libsvm" else 0
    return TRIAL_BYTES + TRIAL_FACTOR * size + cache


def _in_folder(folder: str) -> None:
    """A trial process's temporary files (its feature model, LIBSVM's model file) go into the
    search's folder, which the search removes however it ends: a trial process it stops is
    killed before it could remove its own."""
    tempfile.tempdir = folder


class Runner:
    """Where trials run: ``jobs`` worker processes (``processes.Tasks``), started as trials come, or
    a Dask cluster's workers. ``stop`` ends them at once (the deadline, a signal, an error); ``close`` after a
    search that finished. Either removes the folder of the processes' temporary files."""

    def __init__(self, jobs: int, scheduler: str | None) -> None:
        self.client = None
        self.folder: str | None = None
        if scheduler is None:
            self.jobs = jobs
            try:
                self.folder = tempfile.mkdtemp(prefix="maltpy-optimize-")
            except OSError as e:
                raise MaltpyError(f"cannot make a folder: {e.strerror}", tempfile.gettempdir()) from None
            self.executor: Tasks | concurrent.futures.Executor = Tasks(jobs, _in_folder, (self.folder,))
            return
        try:
            from distributed import Client
        except ImportError as e:
            raise MaltpyError(f"--scheduler needs Dask ({e}): pip install 'maltpy[dask]'", "command line") from None
        try:
            self.client = Client(scheduler, timeout=30)
            workers = sum(self.client.nthreads().values())
        except (OSError, ValueError, TimeoutError) as e:
            if self.client is not None:
                self.client.close()
            raise MaltpyError(f"--scheduler {scheduler}: no Dask cluster there ({e})", "command line") from None
        if not workers:
            self.client.close()
            raise MaltpyError(f"--scheduler {scheduler}: the cluster has no workers", "command line")
        self.jobs = max(jobs, workers)
        self.executor = self.client.get_executor()

    def submit(self, *args: Any) -> concurrent.futures.Future:
        return self.executor.submit(run_trial, *args)

    def stop(self) -> None:
        """End every trial now: the worker processes are killed (a cluster's tasks cancelled)."""
        with signals_held():
            if self.client is not None:
                self.executor.shutdown(wait=False)
                self.client.close()
                return
            self.executor.stop()
            self._remove_folder()

    def close(self) -> None:
        if self.client is not None:
            self.client.close()
        else:
            self.executor.shutdown(wait=True)
            with signals_held():
                self._remove_folder()

    def _remove_folder(self) -> None:
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)
            self.folder = None


#: Failures of the machine, not of the setting: the search stops (--resume continues it) rather
#: than log the trial as failed, which a resumed search would take for the setting's score.
INFRASTRUCTURE = (concurrent.futures.BrokenExecutor, concurrent.futures.CancelledError, MemoryError, OSError)


def _stopped(error: BaseException) -> MaltpyError:
    return MaltpyError(f"a trial's process failed ({type(error).__name__}: {cut(str(error), 200)}); the trials "
                       "that ended are in the log, and --resume continues the search", "maltpy optimize")  # fmt: skip


def _infrastructure(error: BaseException) -> bool:
    return isinstance(error, INFRASTRUCTURE) or type(error).__module__.startswith("distributed")


class Search:
    """Runs trials (in parallel, from the cache on --resume), within the budget, and logs them."""

    def __init__(self, data: Data, splits: int, runner: Runner, deadline: float, log: TrialLog,
                 cache: dict[str, dict], threshold: float,
                 progress: Callable[[Search], None] | None) -> None:  # fmt: skip
        self.data = data
        self.splits = splits
        self.runner = runner
        self.jobs = runner.jobs
        self.deadline = deadline
        self.log = log
        self.cache = cache
        self.threshold = threshold
        self.progress = progress
        self.trials = 0  # run or taken from the log, in this search
        self.task_seconds: list[float] = []
        self.out_of_time = False
        self.reserved = 0.0  # seconds kept from the deadline for the last step (``reserve``)
        self.phase = ""
        self.failures: list[Result] = []
        self.started = time.monotonic()
        self.last_note = ""

    def expected_task(self) -> float:
        """How long one task is expected to take: the slowest of the recent ones, so that a task
        started before the deadline ends before it."""
        return max(self.task_seconds[-8:]) if self.task_seconds else 0.0

    def time_for(self, tasks: int, jobs: int | None = None) -> bool:
        """Can ``tasks`` tasks (those running and those to start) end before the deadline, run
        ``jobs`` at a time (default: the search's jobs)?"""
        return time.monotonic() + self.seconds_for(tasks, jobs) <= self.deadline

    def seconds_for(self, tasks: int, jobs: int | None = None) -> float:
        """How long ``tasks`` tasks are expected to take, ``jobs`` at a time (default: the search's)."""
        return math.ceil(tasks / (jobs or self.jobs)) * self.expected_task()

    def reserve(self, tasks: int, jobs: int | None = None) -> float:
        """Keep the time ``tasks`` tasks are expected to take (as ``time_for`` counts it) for the
        search's last step: until ``release``, the trials see a deadline that much earlier. The
        seconds kept; none where they would not fit before the deadline anyway."""
        seconds = self.seconds_for(tasks, jobs)
        if not seconds or time.monotonic() + seconds > self.deadline:
            return 0.0
        self.deadline -= seconds
        self.reserved += seconds
        return seconds

    def release(self) -> float:
        """Give back the time ``reserve`` kept: the deadline is the budget's again. The seconds
        given back."""
        given = self.reserved
        if given:
            self.deadline += given
            self.reserved = 0.0
            self.out_of_time = time.monotonic() >= self.deadline
        return given

    def evaluate(self, settings: Sequence[Setting], what: Sequence[str]) -> list[Result]:
        """Score each setting, its folds in parallel with each other and with the next settings'.
        A setting starts only if all its folds can end before the deadline; at the deadline the
        trials still running are stopped. A setting the budget leaves no time for comes back with
        las None, unlogged. Trials are logged as they end."""
        results: list[Result | None] = [None] * len(settings)
        waiting: collections.deque[int] = collections.deque()
        for i, s in enumerate(settings):
            record = self.cache.get(s.key())
            if record is not None:
                results[i] = Result(s, record["las"], record["seconds"], record.get("error"))
                self._logged(results[i], what[i])
            else:
                waiting.append(i)
        tasks: collections.deque[tuple[int, int]] = collections.deque()
        tallies = {i: _Tally() for i in waiting}
        running: dict[concurrent.futures.Future, int] = {}
        while (waiting or tasks or running) and not self.out_of_time:
            while len(running) < self.jobs:
                if not tasks and waiting:
                    if not self.time_for(len(running) + self.splits):
                        self.out_of_time = True
                        break
                    i = waiting.popleft()
                    tasks.extend((i, part) for part in range(self.splits))
                if not tasks:
                    break
                i, part = tasks.popleft()
                s = settings[i]
                running[self._submit(self.data, part, s.options, s.features)] = i
            if not running:
                break
            left = self.deadline - time.monotonic()
            done, _ = concurrent.futures.wait(running, timeout=max(left, 0), return_when="FIRST_COMPLETED")
            if not done:  # the deadline: what still runs is stopped, unlogged (--resume runs it)
                self.out_of_time = True
                self.runner.stop()
                break
            for future in done:
                i = running.pop(future)
                tally = tallies[i]
                try:
                    correct, words, seconds = future.result()
                except BaseException as e:
                    if not isinstance(e, Exception) or _infrastructure(e):
                        raise _stopped(e) from None
                    tally.fail(e.message if isinstance(e, MaltpyError) else f"{type(e).__name__}: {e}")
                else:
                    self.task_seconds.append(seconds)
                    tally.add(correct, words, seconds)
                if tally.parts == self.splits:
                    results[i] = self._finished(settings[i], what[i], tally)
        return [r if r is not None else Result(s, None) for r, s in zip(results, settings)]

    def _submit(self, *args: Any) -> concurrent.futures.Future:
        try:
            return self.runner.submit(*args)
        except (concurrent.futures.BrokenExecutor, RuntimeError) as e:
            raise _stopped(e) from None

    def _finished(self, setting: Setting, what: str, tally: _Tally) -> Result:
        if tally.error is None and not tally.words:
            tally.error = "no words to score"
        las = None if tally.error is not None else round(100 * tally.correct / tally.words, 4)
        result = Result(setting, las, round(tally.seconds, 2), tally.error)
        record = {
            "trial": len(self.cache) + 1, "phase": self.phase, "what": what, "key": setting.key(), "las": las,
            "correct": tally.correct, "words": tally.words, "seconds": round(tally.seconds, 2), "error": tally.error,
            "config": setting.groups, "features": list(setting.features),
        }  # fmt: skip
        self.log.write(record)
        self.cache[setting.key()] = record
        self._logged(result, what)
        return result

    def _logged(self, result: Result, what: str) -> None:
        self.trials += 1
        if result.las is None:
            self.failures.append(result)
        self.last_note = f"{what}: {result.las if result.las is not None else 'failed'}"
        if self.progress:
            self.progress(self)

    def better(self, result: Result, than: Result, threshold: float) -> bool:
        return result.las is not None and than.las is not None and result.las >= than.las + threshold

    def best_of(self, base: Result, alternatives: Sequence[tuple[str, Setting]],
                threshold: float) -> tuple[Result, list[str]]:  # fmt: skip
        """The best of settings that exclude each other, if it gains ``threshold`` on ``base``
        (the first of equals); else ``base``. Returns it with its name ([] for ``base``)."""
        tried = self.evaluate([setting for _, setting in alternatives], [name for name, _ in alternatives])
        winner = max((r for r in tried if r.las is not None), key=lambda r: r.las, default=None)
        if winner is None or not self.better(winner, base, threshold):
            return base, []
        return winner, [alternatives[tried.index(winner)][0]]

    def greedy(self, base: Result, changes: Sequence[tuple[str, Callable[[Setting], Setting]]],
               threshold: float) -> tuple[Result, list[str]]:  # fmt: skip
        """Try each change alone on ``base``; keep the best that gains ``threshold``, then add
        the other gaining ones one at a time, best first, each kept if it gains again. Ties go
        to the earlier change: the order of ``changes`` decides, never timing."""
        if not changes:
            return base, []
        tried = self.evaluate([change(base.setting) for _, change in changes], [name for name, _ in changes])
        gaining = [(r.las, -i, i) for i, r in enumerate(tried) if self.better(r, base, threshold)]
        gaining.sort(reverse=True)
        if not gaining:
            return base, []
        first = gaining[0][2]
        current, kept = tried[first], [changes[first][0]]
        for _, _, i in gaining[1:]:
            name, change = changes[i]
            result = self.evaluate([change(current.setting)], [name])[0]
            if self.better(result, current, threshold):
                current, kept = result, kept + [name]
        return current, kept
