"""``maltpy parse --jobs N``: batches of sentences parsed by N worker processes, written in input order.

The main process cuts the input into batches of whole sentences and hands them to the workers in
turn; each worker loads the model once, reads and checks each batch it is given as the
in-process parse reads its input, parses it and returns the batch's text. The main process
writes the texts in the order the batches were read, so the output is the bytes ``--jobs 1``
writes.

A batch travels as the bytes read: the main process neither decodes nor checks them, it only
cuts after an empty line (every sentence's end; an empty line where a sentence should begin is
still the next batch's first line, and its error). A worker reads its batch numbering the lines
from where the batch begins in the input, so an input error is the same line as with ``--jobs
1``; and since the batches are written in order, the first faulty line is the one reported. An
error the main process meets itself (a line too long to hold, a read that fails) travels after
the lines before it, so that the worker reports a fault in those first, as the in-process reader
does. So the main process, whose work no worker shares, only reads, cuts and writes; the
sentences a worker parses are built by the code that builds them for ``--jobs 1``.

Bounds. A batch closes at the last empty line before BATCH_BYTES bytes (about the parser's batch
of BATCH_TOKENS tokens in CoNLL-X; the input is read half a megabyte at a time); a worker parses
it as one batch of the arrays form, since a batch costs steps whatever its size. A blend's
members each parse every sentence: its batches close at a share of that (``batch_limit``). When the input
is a regular file, whose size is known, the batches are cut evenly, their number a multiple of
the workers', so that the workers finish together instead of one parsing the last batch alone.
Each worker has at most IN_FLIGHT batches sent and not yet written (one it parses, one waiting),
so the main process holds one batch and the text it writes, and each worker its model and two
batches: memory is about N times one in-process parse, and the input is never read further ahead
than that. When the input is a pipe that stays quiet for QUIET_SECONDS, the batch closes early
(at its last sentence's end) and every batch sent is written and flushed: a writer waiting for
its parses gets them, as with ``--jobs 1``.

A blend's members share the work another way too. Its workers go in teams (``team_sizes``): two
(three, the last, for an odd ``--jobs``; no more than the blend has members), and every batch goes
to each worker of one team. Each worker loads only its share of the members (``blend.costs.shares``,
about even in what their parses cost) and member 0, whose reading of the tags weighs the votes;
it parses the batch with its share, sends its trees to the team's other workers (the main
process passes them on), and combines its part of the batch, an even share of the words
(``_part``), with every member's trees. So a worker loads a part of the blend, and the fixed cost
of each member's steps over a batch is paid once, not once per worker. Teams take the batches in
turn as single workers do.

How many. No more workers start than ``--jobs`` asks, than the cores this process may use (more
only add processes), than the memory available holds (``bound_jobs``: each worker takes about
WORKER_BYTES, the loaded model, MODEL_FACTOR times its archive's unpacked bytes, and its batches,
BATCH_FACTOR times their bytes; measured on en_lines, and counted whole for a worker of a team),
with a warning when that lowers what was asked; and no more teams than there are batches: a team
starts when the first batch for it comes, and a regular file of one batch is parsed in maltpy's
own process, with no worker at all, unless a team of a blend's workers parses it.

Workers are fresh interpreters, started with ``subprocess`` (what multiprocessing calls
"spawn"), not forks of the main process:
- the numeric libraries read their thread settings once, when they load; a worker calls
  ``threads.set_threads`` before it imports NumPy, which a fork of a process that has imported
  it could not do (and the main process never imports NumPy or loads the model at all);
- forking a process whose BLAS or OpenMP threads have started can hang the child on a lock a
  thread held at the fork; a fresh interpreter inherits no threads (Python 3.11 does not warn
  about such forks, 3.12 does);
- forkserver would save each worker's imports (about a second) by forking a server that made
  them; with a few workers starting side by side while the main process reads, that is not worth
  another process;
- plain pipes rather than multiprocessing's: each worker owns the only ends of its two pipes, so
  a worker whose main process has gone (even by SIGKILL) sees its input end and stops, and a main
  process whose worker died sees its output end; no resource-tracker process is started.
Workers run in a session of their own: Ctrl-C and a terminal's hang-up reach the main process
alone, which stops its workers itself (none prints an interrupted import's traceback).

The protocol: frames of one tag byte, an 8-byte length and the payload. The main process sends
BATCH frames (a pickled tuple: the input's name and format, the number of the batch's first
line, its bytes, and the (message, file, line) of the input error met after them, or None); a
worker answers READY once its model is loaded (the held-out shares of unseen values of the
model's columns in JSON, ``Vocabulary.expected``, or null), or ERROR; then PARSED (the number of
words parsed and the length of the batch's tally in JSON, 8 bytes each, the tally, and the
batch's parsed text) or ERROR (a pickled MaltpyError's message, file and line) for each batch, in
the order they came. The main process adds the tallies up (``vocabulary.Watch``) and warns as
the in-process parse does. In a team, each worker first answers a batch with TREES (its
members' trees of each sentence, in JSON: ``_exchange``) or ERROR; the main process reads the
team's TREES in the workers' order and sends each to every other worker of the team as a TREES
frame, then reads and writes each worker's PARSED (its part of the batch) in the workers' order.
Ahead of any answer, a worker sends the Python warnings it met since its last (WARNED frames,
processes.py), which the main process shows as its own, each once.
"""

from __future__ import annotations

import bisect
import io
import itertools
import json
import os
import pickle
import queue
import signal
import stat
import struct
import subprocess
import threading
import zipfile
from collections import deque
from collections.abc import Callable, Iterator
from typing import BinaryIO

from ..data.conll import QUIET_SECONDS, ConllReader, format_sentence
from ..data.vocabulary import Tally, Watch
from ..errors import MaltpyError
from ..files import too_many_members
from .processes import (
    PROTOCOL,
    STOPPING,
    Relayed,
    end_workers,
    frame_pipes,
    how_it_ended,
    read_answer,
    read_frame,
    send_answer,
    spawn,
    write_frame,
)
from .threads import set_threads

BATCH_BYTES = 5 << 20  # a batch's bytes at most (unless a sentence is longer): about 100k tokens
IN_FLIGHT = 2  # batches per worker sent and not yet written: one parsed, one waiting
# What a worker takes (peak resident memory, en_lines: an interpreter with NumPy and maltpy, 50 MB;
# its model of 2.1 MB unpacked, 16 MB more; a batch of 4.8 MB as it is parsed, 61 MB more):
WORKER_BYTES = 64 << 20  # the interpreter and its libraries
MODEL_FACTOR = 10  # times the model archive's unpacked bytes
BATCH_FACTOR = 15  # times a batch's bytes: the batch parsed and the one waiting
_WORDS = struct.Struct("!Q")  # the number of words a PARSED frame holds
BATCH, READY, PARSED, ERROR, TREES = b"B", b"R", b"P", b"E", b"T"


def usable_cores() -> int:
    """The cores this process may run on."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


_CGROUP_MEMORY = (  # a control group's memory limit and usage: version 2, version 1
    ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"),
    ("/sys/fs/cgroup/memory/memory.limit_in_bytes", "/sys/fs/cgroup/memory/memory.usage_in_bytes"),
)


def available_memory() -> int | None:
    """The bytes new processes may still take: the machine's available memory (Linux's
    MemAvailable), within what the control group's limit leaves; None where neither is known."""
    known = []
    try:
        with open("/proc/meminfo", "rb") as f:
            for line in f:
                if line.startswith(b"MemAvailable:"):
                    known.append(int(line.split()[1]) * 1024)
    except (OSError, ValueError, IndexError):
        pass
    for limit, usage in _CGROUP_MEMORY:
        try:
            with open(limit, "rb") as f, open(usage, "rb") as g:
                known.append(max(0, int(f.read()) - int(g.read())))
        except (OSError, ValueError):  # no such group, or "max": no limit
            continue
    return min(known) if known else None


def bound_jobs(asked: int, worker_bytes: int, say: Callable[[str], None] | None) -> int:
    """``asked`` workers, but no more than the cores and than the available memory holds workers
    of ``worker_bytes`` (at least one); ``say`` (if given) is told why when that is fewer."""
    cores, memory = usable_cores(), available_memory()
    fit = asked if memory is None else max(1, memory // max(worker_bytes, 1))
    jobs = min(asked, cores, fit)
    if jobs < asked and say is not None:  # what sets the bound
        reasons = ([f"{cores} core{'s' * (cores > 1)}"] if cores == jobs else []) + (
            [f"memory for {fit} of about {worker_bytes >> 20} MB each ({memory >> 20} MB available)"]
            if fit == jobs else [])  # fmt: skip
        say(f"--jobs {asked} lowered to {jobs}: {' and '.join(reasons)}")
    return jobs


def _from_model_zip(path: str, read: Callable[[zipfile.ZipFile], int], otherwise: int) -> int:
    """``read`` of the zip of the model at ``path``, or ``otherwise`` if it is not a regular file's
    zip that can be read (a device, a pipe, a damaged file: loading the model says why)."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):  # zipfile would read /dev/zero without bound
            return otherwise
        with open(path, "rb") as f:
            if too_many_members(f) is not None:  # before zipfile lists them all
                return otherwise
            with zipfile.ZipFile(f) as z:
                return read(z)
    except (OSError, zipfile.BadZipFile, KeyError, ValueError, EOFError, AttributeError, RuntimeError):
        return otherwise


def model_bytes(path: str) -> int:
    """The unpacked bytes of the model archive at ``path`` (0 if it cannot be read)."""
    return _from_model_zip(path, lambda z: sum(info.file_size for info in z.infolist()), 0)


def batch_limit(members: int, team: int = 1) -> int:
    """The bytes a batch closes at for a model of ``members`` members (``model_members``):
    BATCH_BYTES; for a blend, whose members each parse every sentence, a share of it by the
    members each worker of a team of ``team`` parses with (blend/costs.py), so that a file the
    members take long over is still cut into batches for the workers."""
    return BATCH_BYTES // -(-members // team)


def model_members(path: str) -> int:
    """The members of the blend whose archive is at ``path``, by their archives' names
    (blend.write_blend keeps them as members/NN.mpm; the manifest, which a learned scorer makes
    megabytes long, is not read); 1 for a model, or an archive that cannot be read."""
    return _from_model_zip(path, _blend_members, 1)


def _blend_members(z: zipfile.ZipFile) -> int:
    return max(1, sum(1 for name in z.namelist() if name.startswith("members/") and name.endswith(".mpm")))


def input_bytes(path: str | None) -> int | None:
    """The size of an input that is a regular file (standard input too), None for a pipe."""
    try:
        status = os.fstat(0) if path is None or path == "-" else os.stat(path)
    except OSError:
        return None
    return status.st_size if stat.S_ISREG(status.st_mode) else None


def workers_for(asked: int, model_path: str, inputs: list[str | None], say: Callable[[str], None] | None) -> int:
    """The workers that ``--jobs asked`` starts for ``inputs`` (``bound_jobs``), fewer if the
    inputs are regular files of fewer batches than teams; 1 means none: maltpy's own process parses."""
    sizes = [input_bytes(path) for path in inputs]
    largest = None if None in sizes else max(sizes, default=0)
    members = model_members(model_path)
    limit = batch_limit(members)
    batch = limit if largest is None else min(limit, max(largest, 1))
    jobs = bound_jobs(asked, WORKER_BYTES + MODEL_FACTOR * model_bytes(model_path) + BATCH_FACTOR * batch, say)
    teams = team_sizes(jobs, members)
    if largest is None:
        return sum(teams)
    return sum(teams[: -(-max(largest, 1) // batch_limit(members, min(teams)))])


def team_sizes(jobs: int, members: int) -> list[int]:
    """The size of each team that ``jobs`` workers make for a model of ``members`` members (a
    blend's; 1: a model): teams of two, the last of three if ``jobs`` is odd, none larger than
    ``members``; one worker alone, and every worker of a model, is a team of its own. A worker
    that no team takes does not start."""
    if jobs < 2 or members < 2:
        return [1] * jobs
    sizes = [2] * (jobs // 2)
    sizes[-1] += jobs % 2
    return [min(size, members) for size in sizes]


class Workers:
    """Up to N worker processes parsing with one model, in teams (``team_sizes``); a context
    manager that stops them all on leaving. The first team starts at once, each other when the
    first batch for it comes.

    An error of the model (a damaged archive, a -cd it refuses) comes first, as in the in-process
    parse, which loads the model before it reads: an error of the input is reported only once
    every worker started has loaded the model."""

    def __init__(self, model_path: str, max_degree: int | None, enforce_tree: bool | None, jobs: int,
                 single_root: str | None = None, tagging: str | None = None) -> None:  # fmt: skip
        self.options = [max_degree, enforce_tree, single_root, tagging]
        self.model_path = model_path
        self.jobs = jobs
        members = model_members(model_path)
        sizes = team_sizes(jobs, members)
        self.limit = batch_limit(members, min(sizes))
        starts = [sum(sizes[:t]) for t in range(len(sizes))]
        self.teams = [list(range(start, start + size)) for start, size in zip(starts, sizes)]  # workers' numbers
        self.processes: list[subprocess.Popen] = []
        self.ready: list[bool] = []  # whether the worker's READY has been read
        self.next = 0  # the team the next batch goes to
        self.failure: BaseException | None = None  # the error a worker reported, or its end
        self.expected: dict[int, float] | None = None  # the model's held-out shares of unseen values
        self.watch: Watch | None = None  # the unseen values of the input being parsed
        self.relayed = Relayed()  # the workers' warnings, each shown once
        self._start()

    def _start(self) -> None:
        """Start one more team."""
        team = self.teams[self._started_teams()]
        try:
            for place, _ in enumerate(team):
                argv = json.dumps(self.options + [place, len(team)])
                self.processes.append(spawn("maltpy.run.jobs", "work", self.model_path, argv))
                self.ready.append(False)
        except BaseException:
            self.close(finished=False)
            raise

    def _started_teams(self) -> int:
        return sum(1 for team in self.teams if team[0] < len(self.processes))

    def __enter__(self) -> Workers:
        return self

    def __exit__(self, kind, error, traceback) -> None:
        try:
            if kind is not None and issubclass(kind, MaltpyError) and error is not self.failure:
                self.check_ready()  # a model error replaces the input's
        finally:
            self.close(finished=kind is None)

    def parse(self, reader: ConllReader, out: BinaryIO, progress: Callable[[int], None] | None = None,
              warn: Callable[[str], None] | None = None) -> None:  # fmt: skip
        """Parse every sentence of ``reader`` and write them to ``out`` in input order; ``warn``
        is given a warning about values the model never saw, as ``Model.parse`` gives it."""
        self.warn = warn
        self.watch = None
        in_flight: deque[list[int]] = deque()  # the team of each batch sent, oldest first
        for first, text, quiet, error in _batches(reader, len(self.teams), self.limit):
            if len(in_flight) >= IN_FLIGHT * self._started_teams():
                self._write_oldest(in_flight, out, reader, progress)
            team = self.teams[self.next]
            self.next = (self.next + 1) % len(self.teams)
            if team[0] == len(self.processes):
                self._start()
            payload = pickle.dumps((reader.name, reader.format, first, text, error), PROTOCOL)
            for worker in team:
                if not self._send(worker, BATCH, payload):
                    # The worker has stopped: an input error in a batch sent before (its own, or
                    # one in an earlier line, another worker's, which is reported first), a model
                    # it could not load, or its death. The answers, read in input order, say which.
                    self._write_all(in_flight, out, reader, progress)
                    self.check_ready()
                    self._died(worker)
            in_flight.append(team)
            if quiet:  # the writer waits for its parses
                self._write_all(in_flight, out, reader, progress)
                out.flush()
        self._write_all(in_flight, out, reader, progress)
        self.check_ready()  # an empty input still needs a model that loads

    def _write_all(self, in_flight: deque, out: BinaryIO, reader: ConllReader, progress) -> None:
        while in_flight:
            self._write_oldest(in_flight, out, reader, progress)

    def _write_oldest(self, in_flight: deque, out: BinaryIO, reader: ConllReader, progress) -> None:
        team = in_flight.popleft()
        if len(team) > 1:  # each worker's trees, to each other worker of the team
            trees = [self._receive(worker, TREES) for worker in team]
            for worker in team:
                for other, payload in zip(team, trees):
                    if other != worker and not self._send(worker, TREES, payload):
                        break  # it has stopped: its answer says why
        for worker in team:  # the parts of the batch, in order
            parsed = memoryview(self._receive(worker, PARSED))
            (words,), (tally_length,) = _WORDS.unpack_from(parsed), _WORDS.unpack_from(parsed, _WORDS.size)
            start = 2 * _WORDS.size + tally_length
            if self.warn is not None and self.expected is not None:
                if self.watch is None:
                    self.watch = Watch(self.expected, self.warn)
                self.watch.add(Tally.from_json(json.loads(bytes(parsed[2 * _WORDS.size : start]))))
            out.write(parsed[start:])
            if progress:
                progress(words)
        if not reader.pending():
            out.flush()

    def check_ready(self) -> None:
        """Wait until every worker has loaded the model; its error if one could not."""
        for worker, ready in enumerate(self.ready):
            if not ready:
                self._answer(worker, READY)

    def _receive(self, worker: int, expected: bytes) -> bytearray:
        """The answer (``expected``: PARSED, or a team's TREES) to the oldest batch sent to
        ``worker`` and not yet answered."""
        if not self.ready[worker]:
            self._answer(worker, READY)
        return self._answer(worker, expected)

    def _answer(self, worker: int, expected: bytes) -> bytearray:
        frame = read_answer(self.processes[worker].stdout.fileno(), self.relayed)
        if frame is None:
            self._died(worker)
        tag, payload = frame
        if tag == ERROR:
            self.failure = MaltpyError(*pickle.loads(payload))
            raise self.failure
        if tag != expected:
            raise RuntimeError(f"worker {worker + 1} answered {tag!r}, not {expected!r}")
        if tag == READY:
            self.ready[worker] = True
            expected = json.loads(bytes(payload))
            if expected is not None:
                self.expected = {int(column): share for column, share in expected.items()}
        return payload

    def _send(self, worker: int, tag: bytes, payload: bytes) -> bool:
        """Send a frame (a batch, or a team's trees) to ``worker``; False if it has stopped."""
        try:
            write_frame(self.processes[worker].stdin.fileno(), tag, payload)
        except BrokenPipeError:
            return False
        return True

    def _died(self, worker: int) -> None:
        """Raise what a worker's early end means: a signal that stops the whole job is passed on
        to the main process (status 128 + the signal); anything else is a one-line error."""
        process = self.processes[worker]
        status = process.wait()
        if -status in STOPPING:
            signal.raise_signal(-status)
        how = how_it_ended(status)
        self.failure = MaltpyError(f"parsing worker {worker + 1} of {self.jobs} (process {process.pid}) {how}")
        raise self.failure

    def close(self, finished: bool) -> None:
        """Stop every worker and wait for its end (``_end``)."""
        end_workers(self.processes, finished)


def _batches(reader: ConllReader, jobs: int,
             limit: int | None = None) -> Iterator[tuple[int, bytes, bool, tuple | None]]:  # fmt: skip
    """(the number of its first line, its bytes, whether the input went quiet after them, the
    input error met after them) of each batch: whole lines as read, cut after an empty line
    before ``limit`` bytes (BATCH_BYTES if None)."""
    share = _batch_bytes(reader.size, jobs, BATCH_BYTES if limit is None else limit)
    end = share  # where the batch read should end (at the empty line before), from the input's start
    done = 0  # the bytes of the batches yielded
    chunks = reader.raw()
    text, first = bytearray(), 1
    while True:
        try:
            number, data = next(chunks)
        except StopIteration:
            break
        except MaltpyError as e:  # the lines before it are read (and checked) first
            yield first, bytes(text), False, (e.message, e.file, e.line)
            return
        if not text:
            first = number
        text += data
        quiet = not reader.pending(QUIET_SECONDS)
        while (done + len(text) >= end or quiet) and (
            cut := _after_last_empty_line(text, len(text) if quiet else end - done)
        ):
            yield first, bytes(text[:cut]), quiet, None
            first += text.count(b"\n", 0, cut)
            del text[:cut]
            done += cut
            end = max(end + share, -(-done // share) * share)  # past a sentence longer than a batch, further
    if text:
        yield first, bytes(text), False, None


def _batch_bytes(size: int | None, jobs: int, limit: int) -> int:
    """The bytes a batch closes at: ``limit``, or for an input of ``size`` bytes, an even share
    of it in a number of batches that is a multiple of ``jobs``."""
    if size is None:
        return limit
    batches = -(-max(size, 1) // limit)
    batches = -(-batches // jobs) * jobs
    return -(-max(size, 1) // batches)


def _after_last_empty_line(text: bytearray, end: int) -> int:
    """Where the last empty line of ``text`` (whole lines) that ends by ``end`` ends, or if none
    does, the first after it; 0 if ``text`` has none."""
    ends = [at + len(empty) for empty in (b"\n\n", b"\n\r\n") if (at := text.rfind(empty, 0, end)) >= 0]
    if ends:
        return max(ends)
    for start in (b"\n", b"\r\n"):
        if text.startswith(start):
            return len(start)
    ends = [at + len(empty) for empty in (b"\n\n", b"\n\r\n") if (at := text.find(empty, max(end - 2, 0))) >= 0]
    return min(ends, default=0)


# --- the worker's side ------------------------------------------------------------------------------


def work(argv: list[str]) -> None:
    """A worker's life (argv: the model's path, and [-cd, -nt, -gsr, --tag, its place in its team,
    the team's size] in JSON, null where not given): load the model (of a blend in a team, its share
    of the members), then parse each batch that comes on standard input and write its text (in a
    team, its part's) to standard output, until the input ends or the main process goes away."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # stopped by the main process: quietly
    set_threads(None)  # before NumPy is imported; the main process's settings are in the environment
    from ..blend import Blend
    from ..load import load_model
    from ..models.base import BATCH_TOKENS  # imports NumPy

    whole = 2 * BATCH_TOKENS  # a batch is parsed as one, unless it holds many more tokens than usual
    max_degree, enforce_tree, single_root, tagging, place, size = json.loads(argv[1])
    batches_in, texts_out = frame_pipes()
    batches: queue.Queue = queue.Queue()
    trees: queue.Queue = queue.Queue()  # the trees of the team's other workers
    # The input is read while the model loads and while a batch is parsed, so that the main
    # process never waits to send (and never waits on a worker that waits for it to read).
    threading.Thread(target=_receive_batches, args=(batches_in, batches, trees), daemon=True).start()
    try:
        try:
            model = load_model(argv[0], max_degree, enforce_tree, single_root, (place, size) if size > 1 else None,
                               tagging)  # fmt: skip
            expected = model.vocabulary.expected() if model.vocabulary is not None else None
            send_answer(texts_out, READY, json.dumps(expected).encode("utf-8"))
            while (batch := batches.get()) is not None:
                name, format, first, text, error = pickle.loads(batch)
                reader = ConllReader(_Batch(text, error), name, format, blind=True, first_line=first)
                tally = Tally()
                if size == 1:
                    parsed = list(model.parse(reader, batch_tokens=whole, watch=tally.merge))
                elif isinstance(model, Blend):
                    parsed = _team_part(model, reader, whole, place, size, trees, tally, texts_out)
                else:  # an archive whose members' names made a team of a model: the first parses
                    parsed = list(model.parse(reader, batch_tokens=whole, watch=tally.merge)) if place == 0 else []
                    _exchange({}, trees, size, texts_out)
                counts = json.dumps(tally.as_json()).encode("utf-8")
                send_answer(texts_out, PARSED, _WORDS.pack(sum(map(len, parsed))) + _WORDS.pack(len(counts)) + counts
                             + "".join(map(format_sentence, parsed)).encode("utf-8"))  # fmt: skip
        except MaltpyError as e:
            send_answer(texts_out, ERROR, pickle.dumps((e.message, e.file, e.line), PROTOCOL))
    except BrokenPipeError:
        pass  # the main process has gone: no one is waiting


def _team_part(blend, reader: ConllReader, whole: int, place: int, size: int, trees: queue.Queue, tally: Tally,
               texts_out: int) -> list:  # fmt: skip
    """A team's worker's part of a batch: its share of the members parse every sentence of
    ``reader``, the team's workers exchange their trees, and it combines its part of the
    sentences (``_part``), whose values training never saw go to ``tally``."""
    sentences, mine = blend.share_trees(reader, whole)
    every = _exchange(mine, trees, size, texts_out)
    start, end = _part(sentences, place, size)
    part = sentences[start:end]
    blend.combine_into(part, {k: member_trees[start:end] for k, member_trees in every.items()}, tally.merge)
    return part


def _exchange(mine: dict, trees: queue.Queue, size: int, texts_out: int) -> dict:
    """Every member's trees of the batch: ``mine`` ({member: its trees}), sent to the team's other
    workers (a TREES frame, which the main process passes on), and theirs, from ``trees``."""
    send_answer(texts_out, TREES, json.dumps([[k, t] for k, t in mine.items()], separators=(",", ":")).encode())
    every = dict(mine)
    for _ in range(size - 1):
        frame = trees.get()
        if frame is None:  # the main process has gone
            raise BrokenPipeError
        every.update((k, t) for k, t in json.loads(bytes(frame)))
    return every


def _part(sentences: list, place: int, size: int) -> tuple[int, int]:
    """Where the sentences that the worker at ``place`` in a team of ``size`` combines begin and
    end: the sentences from the one whose first word is the first of the ``place``-th of
    ``size`` even parts of the words (combining costs about the same for each word)."""
    starts = list(itertools.accumulate(map(len, sentences), initial=0))
    total = starts.pop()

    def cut(k: int) -> int:
        return len(sentences) if k == size else bisect.bisect_left(starts, -(-k * total // size))

    return cut(place), cut(place + 1)


class _Batch(io.BytesIO):
    """A batch's bytes, then the input error the main process met after them, if it met one."""

    def __init__(self, text: bytes, error: tuple | None) -> None:
        super().__init__(text)
        self.error = error

    def read1(self, size: int = -1) -> bytes:
        data = super().read1(size)
        if not data and self.error:
            raise MaltpyError(*self.error)
        return data


def _receive_batches(fd: int, batches: queue.Queue, trees: queue.Queue) -> None:
    try:
        while (frame := read_frame(fd)) is not None:
            (trees if frame[0] == TREES else batches).put(frame[1])
    finally:
        batches.put(None)
        trees.put(None)
