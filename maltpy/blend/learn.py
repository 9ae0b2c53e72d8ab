"""Learning a blend (``learn_blend``): its members, as a blend's configuration names them
(``Member``), learned from a treebank (``Treebank``) and weighed by their parses of held-out
text, a held-out file's or the treebank's own in folds, each parsed by the members learned from
the others; in worker processes at once with ``jobs``."""

from __future__ import annotations

import dataclasses
import os
import shlex
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING

from ..config.groups import Tagger
from ..data.conll import Sentence
from ..errors import MaltpyError, cut
from ..load import load
from ..models.parser import Model
from ..models.tags import learn_tagging
from .costs import parse_cost
from .features import Tree
from .model import Blend, check_members
from .weights import Weights

if TYPE_CHECKING:
    from ..tagging import Taggers

#: MaltBlender's six (Hall et al. 2007): arc-eager, arc-standard and Covington's non-projective
#: algorithm, each left to right and right to left; the projective two with pseudo-projective
#: parsing (path encoding), so that every member can give a non-projective treebank's trees
DEFAULT_MEMBERS = (
    "-a nivreeager -pp path",
    "-a nivreeager -pp path -pd right-to-left",
    "-a nivrestandard -pp path",
    "-a nivrestandard -pp path -pd right-to-left",
    "-a covnonproj",
    "-a covnonproj -pd right-to-left",
)
#: beyond MaltBlender's six, the default members of a CoNLL-U treebank under the ud profile
#: (``cli.blending.default_members``): the stack systems' projective and lazy swapping parsers
#: (Nivre 2009; Nivre, Kuhlmann and Hall 2009) and first-order MST, a graph-based parser whose
#: errors are not the transition-based ones' (McDonald and Nivre 2007). With their own tags, LAS
#: en_lines 79.46 against the six's 79.25 (gold tags 85.28 against 84.97); the members' learning
#: takes about twice as long, most of it MST's.
UD_MEMBERS = ("-a stackproj -pp path", "-a stacklazy", "-a mst")


def default_member_flags(profile: str | None) -> list[str]:
    """The default members, as ``maltpy learn``'s flags: MaltBlender's six (``DEFAULT_MEMBERS``;
    ``profile`` None), or those and ``UD_MEMBERS``, each with ``-P PROFILE`` (ud, or ud-lexical:
    the same but for the arc-standard members, which read its lexical feature model)."""
    if profile is None:
        return list(DEFAULT_MEMBERS)
    return [f"{member} -P {profile}" for member in DEFAULT_MEMBERS + UD_MEMBERS]


#: without a held-out file, the members' weights come from their parses of the training
#: sentences, each parsed by the members learned from the other folds (sentence k is in fold k mod
#: FOLDS): two folds cost as much learning as one held-out tenth did, and give the learned scorer
#: ten times the words (on en_lines, +0.2 LAS with its context and label features)
FOLDS = 2


@dataclasses.dataclass(frozen=True)
class Member:
    """A member as a blend's configuration names it: ``maltpy learn``'s flags (``-c FILE`` and
    the option flags: ``-a covnonproj -pd right-to-left``), or ``-m FILE``, a model learned before."""

    text: str
    config: object | None  # config.Config, to learn
    model_path: str | None  # or a model to take as it is

    @classmethod
    def parse(cls, text: str, where: str, base_dir: str | None = None) -> Member:
        """The member ``text`` names (given in ``where``; a relative ``-c`` or ``-m`` path is taken
        from ``base_dir``, the folder of the blend's configuration file, if given)."""
        from ..config import FLAGS, load_config

        try:
            words = shlex.split(text)
        except ValueError as e:
            raise MaltpyError(f"member {text!r}: {e}", where) from None
        pairs = dict(zip(words[::2], words[1::2]))
        twice = next((w for i, w in enumerate(words[::2]) if w.startswith("-") and w in words[: 2 * i : 2]), None)
        if twice is not None and not len(words) % 2:
            raise MaltpyError(f"member {cut(text, 80)!r}: {twice} is given twice", where)
        if base_dir is not None:
            pairs.update({flag: os.path.join(base_dir, pairs[flag]) for flag in ("-c", "-m") if flag in pairs})
        if len(words) % 2 or len(pairs) != len(words) // 2 or not all(w.startswith("-") for w in pairs):
            raise MaltpyError(f"member {cut(text, 80)!r}: not pairs of a flag and its value", where)
        if "-m" in pairs:
            if len(pairs) > 1:
                raise MaltpyError(f"member {cut(text, 80)!r}: -m FILE names a model; it takes no other flag", where)
            return cls(text, None, pairs["-m"])
        overrides = {}
        for flag, value in pairs.items():
            if flag != "-c" and flag[1:] not in FLAGS:
                raise MaltpyError(f"member {cut(text, 80)!r}: {flag} is not a member's flag (maltpy learn's "
                                  "option flags and -c FILE, or -m FILE alone)", where)  # fmt: skip
            if flag != "-c":
                overrides[FLAGS[flag[1:]]] = value
        try:
            config = load_config(pairs.get("-c"), overrides)
        except MaltpyError as e:
            if e.file != "command line":  # in the member's config file: its file and line
                raise
            raise MaltpyError(f"member {cut(text, 80)!r}: {e.message}", where) from None
        return cls(text, config, None)


@dataclasses.dataclass(frozen=True)
class Treebank:
    """Gold trees a blend learns or weighs its members from, read anew each time it is needed:
    ``sentences()`` gives them (a file read again, or a list held), ``name`` names them in
    messages, ``format`` is their CoNLL format; ``path``: the file (``of_file``), which a worker
    process reads too (``learn_blend``'s ``jobs``)."""

    sentences: Callable[[], Iterator[Sentence]]
    name: str
    format: str
    path: str | None = None

    @classmethod
    def of_file(cls, path: str, format: str = "auto") -> Treebank:
        """The trees of the file at ``path``, which must be one that can be read again (not a
        FIFO or standard input: ``files.check_rereadable``)."""
        from ..files import check_rereadable, read_conll

        check_rereadable(path, "a blend")
        with read_conll(path, format) as reader:  # the format as the first lines say it
            format = reader.format

        def sentences() -> Iterator[Sentence]:
            with read_conll(path, format) as reader:
                yield from reader

        return cls(sentences, path, format, path)


#: what learning one member takes besides the interpreter (jobs.WORKER_BYTES), in times the
#: training treebank's bytes: Covington's non-projective member of en_lines (3.9 MB) peaks at 1.28 GB
LEARN_FACTOR = 400


def learn_blend(train: Treebank, members: Sequence[Member], weighting: str, decoder: str,
                held_out: Treebank | None = None, say: Callable[[str], None] | None = None,
                jobs: int = 1, tagger: Tagger | None = None) -> Blend:  # fmt: skip
    """A blend of ``members`` whose weights (``weighting``) come from their parses of held-out
    text: ``held_out`` (the members learn from all of ``train``); or, without it, ``train``
    itself, each of its FOLDS folds parsed by the members learned from the others, which then
    learn again from all of ``train``. A member given as a model (``-m FILE``) is taken as it is,
    and needs ``held_out`` for weights other than equal. With ``jobs`` above 1 and treebanks
    read from files, the members learn (and parse) in that many worker processes at once
    (``processes.Tasks``): the blend is the same. ``tagger``: the taggers to learn once for all
    the members (the group tagger of a configuration; None: none), and with tagger.jackknife K,
    the treebank the members learn from, tagged fold by fold (``models.tags.learn_tagging``;
    the members then learn in this process)."""
    if held_out is None and weighting != "equal" and any(m.model_path for m in members):
        raise MaltpyError("members given as models (-m FILE) need --held-out FILE to be weighed", "command line")
    check_members(len(members), "command line")
    say = say or (lambda message: None)
    taggers, train, tagging = _tagged(train, tagger, say)
    # each member learned and, for the weights, made to parse the held-out text in turn: without
    # a held-out file, each fold of the training sentences by the member learned from the others,
    # which is dropped once it has
    weighed = weighting != "equal"
    folds = [None] if held_out is not None else list(range(FOLDS)) if weighed else []
    gold: list[Sentence] = []
    golds: dict[int | None, list[Sentence]] = {}  # each fold's (None: the held-out file's)
    runs = []  # (member, fold, whether it parses the held-out text, whether its model is kept), in turn
    for fold in folds:
        fold_gold = _held_out_gold(train, held_out, fold) if weighed else []
        if held_out is None and not fold_gold:  # a treebank of one sentence
            continue
        gold += fold_gold
        golds[fold] = fold_gold
        runs += [(k, fold, weighed, held_out is not None) for k in range(len(members))]
    if weighed and not gold:
        raise MaltpyError("no held-out sentences to weigh the members by: give more, or --held-out FILE, or "
                          "--weights equal", held_out.name if held_out else train.name)  # fmt: skip
    if held_out is None:
        runs += [(k, None, False, True) for k in range(len(members))]
    parses: list[list[Tree]] = [[] for _ in members]
    models: list[Model] = []
    for (k, _, _, kept), (trees, model) in zip(runs, _runs(runs, train, members, held_out, golds, say, jobs)):
        parses[k] += trees
        if kept:
            models.append(model)
    if weighed:
        say(f"weighing the members by their parses of {'the held-out file' if held_out else 'the folds'}")
    weights = Weights.estimate(weighting, gold, parses) if weighed else Weights.equal(len(members))
    statistics = {
        "treebank": train.name,
        "held_out": held_out.name if held_out else f"the treebank in {FOLDS} folds",
        "members": [m.text for m in members],
        "held_out_las": [round(100 * w, 2) for w in weights.overall] if weighting != "equal" else None,
        **tagging,
    }
    return Blend(models, weights, decoder, statistics, taggers=taggers)


def _tagged(train: Treebank, tagger: Tagger | None,
            say: Callable[[str], None]) -> tuple[Taggers | None, Treebank, dict]:  # fmt: skip
    """The taggers ``tagger`` asks, learned from ``train``; the treebank the members learn from
    (``train``, or its sentences tagged by a jackknife); the statistics that say how."""
    if tagger is None or tagger.columns == "none":
        return None, train, {}
    taggers, sentences, statistics = learn_tagging(tagger, list(train.sentences()), train.name, say)
    if tagger.jackknife and taggers is not None:
        train = Treebank(lambda: iter(sentences), train.name, train.format)
    return taggers, train, statistics


def _held_out_gold(train: Treebank, held_out: Treebank | None, fold: int | None) -> list[Sentence]:
    """The sentences a run's member parses for the weights: ``held_out``'s, or ``train``'s
    ``fold`` (sentence k is in fold k mod FOLDS), each with its gold tree."""
    if held_out is not None:
        return _gold(held_out.sentences(), held_out.name)
    return _gold((s for number, s in enumerate(train.sentences()) if number % FOLDS == fold), train.name)


def _runs(runs: list, train: Treebank, members: Sequence[Member], held_out: Treebank | None, golds: dict,
          say: Callable[[str], None], jobs: int) -> Iterator[tuple[list[Tree], Model | None]]:  # fmt: skip
    """What each of ``runs`` (``learn_blend``'s) gives, in turn: the member's trees of the
    held-out text (``golds``: each fold's sentences, or None's, the held-out file's), and its
    model if kept; in this process, or in ``jobs`` worker processes at once when the treebanks
    are files (a worker reads them itself)."""
    if jobs < 2 or len(runs) < 2 or train.path is None or (held_out is not None and held_out.path is None):
        for k, fold, parsed, kept in runs:
            what = "all of it" if fold is None else f"all but fold {fold + 1} of {FOLDS}"
            say(f"member {k + 1} of {len(members)} ({members[k].text}): learning from {what}")
            try:
                yield _member_run(members[k], train, fold, golds.get(fold) if parsed else None, kept)
            except MaltpyError as e:
                raise _of_member(e, k, members) from None
        return
    from ..run.processes import Tasks

    say(f"learning {len(members)} members{f' in {FOLDS} folds and' if runs[0][1] is not None else ''} "
        f"in {min(jobs, len(runs))} processes")  # fmt: skip
    tasks = Tasks(min(jobs, len(runs)))
    try:
        held = (held_out.path, held_out.format, held_out.name) if held_out is not None else None
        # the costliest first (Covington's members learn from about four times the instances), so
        # that no worker is left alone with one at the end
        costs = [parse_cost(m.config.singlemalt.parsing_algorithm if m.config else None) for m in members]
        futures = {n: tasks.submit(_member_task, members[k], (train.path, train.format, train.name), fold,
                                   held if parsed else None, parsed, kept)
                   for n, (k, fold, parsed, kept) in sorted(enumerate(runs), key=lambda run: -costs[run[1][0]])}
        for (k, *_), future in zip(runs, map(futures.__getitem__, range(len(runs)))):
            try:
                trees, data = future.result()
            except MaltpyError as e:
                raise _of_member(e, k, members) from None
            except Exception as e:  # the process died (killed, out of memory), or a defect
                raise _of_member(MaltpyError(f"its learning process failed ({type(e).__name__}: {cut(str(e), 200)})",
                                             "maltpy blend"), k, members) from None
            yield trees, load(f"member {k + 1}", data) if data is not None else None
    except BaseException:
        tasks.stop()
        raise
    tasks.shutdown()


def _of_member(error: MaltpyError, k: int, members: Sequence[Member]) -> MaltpyError:
    """``error``, met as member ``k`` learned or parsed, saying which member it is."""
    return MaltpyError(f"member {k + 1} of {len(members)} ({cut(members[k].text, 80)}): {error.message}", error.file,
                       error.line)  # fmt: skip


def _member_task(member: Member, train: tuple[str, str, str], fold: int | None, held: tuple[str, str, str] | None,
                 parsed: bool, kept: bool) -> tuple[list[Tree], bytes | None]:  # fmt: skip
    """``_member_run`` in a worker process (``processes.Tasks``): the treebanks read from their
    files (``held``: the held-out file's, or None: ``train``'s ``fold``), the model as its
    archive's bytes."""
    def treebank(path: str, format: str, name: str) -> Treebank:
        return dataclasses.replace(Treebank.of_file(path, format), name=name)

    training = treebank(*train)
    gold = _held_out_gold(training, treebank(*held) if held is not None else None, fold) if parsed else None
    trees, model = _member_run(member, training, fold, gold, kept)
    return trees, model.to_bytes() if model is not None else None


def _member_run(member: Member, train: Treebank, fold: int | None, gold: list[Sentence] | None,
                kept: bool) -> tuple[list[Tree], Model | None]:  # fmt: skip
    """``member`` learned from ``train`` (all of it, or all but ``fold``) or, given as a model,
    loaded; its trees of the held-out sentences ``gold``, if given; its model if ``kept``."""
    from ..models.learn import learn_parser

    if member.model_path is not None:
        model = load(member.model_path)
        if isinstance(model, Blend):
            raise MaltpyError("a blend cannot be a member of a blend", member.model_path)
    else:
        sentences = (s for number, s in enumerate(train.sentences()) if fold is None or number % FOLDS != fold)
        model = learn_parser(member.config, sentences, train.format, train.name)
    return _parse_copies(model, gold) if gold is not None else [], model if kept else None


def _gold(sentences: Iterable[Sentence], name: str) -> list[Sentence]:
    """The held-out ``sentences`` (of ``name``), each with its gold tree."""
    gold = []
    for sentence in sentences:
        if sentence.heads is None:
            raise MaltpyError("held-out text needs gold trees, but HEAD is _", name, sentence.line)
        gold.append(sentence)
    return gold


def _parse_copies(model: Model, gold: list[Sentence]) -> list[Tree]:
    """``model``'s tree of each of the ``gold`` sentences (parsed as copies: they keep their trees)."""
    copies = [Sentence([list(w) for w in s.words], s.format, s.line, s.extra) for s in gold]
    return [(s.heads, s.labels) for s in model.parse(copies, watch=None)]
