"""``Blend``, a parser like ``parser.Model`` whose members' parses of each sentence are combined
into one tree (combination.py): ``maltpy parse``, the API, ``--jobs`` and Dask take it. Its
archive (``write_blend``, ``read_blend``) holds a manifest with the weights and the decoder, and
each member's archive whole. With ``--jobs``, a team of workers parses each batch: each worker
parses it with its share of the members (costs.py's ``shares``), and combines a part of it with
every member's trees, which the team's workers exchange (jobs.py)."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from ..config import ENFORCE_TREE, MAX_DEGREE, USED_BY, reads, unused_option
from ..data.conll import CPOSTAG, FEATS, Sentence
from ..errors import MaltpyError, cut, require
from ..models.archive import Archive, write_archive
from ..models.base import Parser
from ..models.parser import Model
from ..models.parts import add_taggers, checked_taggers
from ..models.tags import describe_taggers, describe_tokenizer
from ..version import __version__
from .combination import combine
from .costs import shares
from .features import Tree
from .options import DECODERS
from .weights import Weights

if TYPE_CHECKING:
    from ..tagging import Taggers

MAX_MEMBERS = 64  # members of a blend: what write_blend writes and read_blend reads (check_members)


def check_members(count: int, where: str) -> None:
    """MaltpyError unless a blend of ``count`` members (given in ``where``) can be written and
    read again: no more than MAX_MEMBERS. Checked before any member learns."""
    if count > MAX_MEMBERS:
        raise MaltpyError(f"a blend has at most {MAX_MEMBERS} members, not {count:,}", where)


class Blend(Parser):
    """Several models whose parses of each sentence are combined into one tree (``combine``).

    In a team of workers (jobs.py), a worker's blend parses with its share of the members alone
    (``own``; ``read_blend`` loads those and member 0, the others are None): it gives their trees
    of a batch (``share_trees``), and combines a part of the batch with every member's trees
    (``combine_into``)."""

    def __init__(self, members: list[Model | None], weights: Weights, decoder: str, statistics: dict,
                 algorithms: list[str] | None = None, own: list[int] | None = None,
                 taggers: Taggers | None = None) -> None:  # fmt: skip
        if len(weights) != len(members):
            raise ValueError("one weight per member")
        self.members = members
        self.weights = weights
        self.decoder = decoder
        self.statistics = statistics
        #: each member's parsing algorithm (the archive keeps them: ``shares`` reads them)
        self.algorithms = algorithms or [m.config.singlemalt.parsing_algorithm for m in members]
        #: the members this process parses with: all, but in a team of workers
        self.own = own if own is not None else list(range(len(members)))
        first = members[0]
        self.data_format = first.data_format
        self.vocabulary = first.vocabulary
        self.single_root = first.config.graph.single_root
        #: the taggers learned once for all the members (``blend.learn``), which tag each batch
        #: before the members parse it (they do not tag again: they give their ``arcs``); of a
        #: blend without, its first member's (a blend of models made with taggers: -m FILE)
        self.taggers = taggers if taggers is not None else first.taggers
        self._gathered: dict[int, list[Tree]] | None = None  # share_trees' trees, as batches are parsed

    @property
    def by_tokens(self) -> bool:
        return all(self.members[k].by_tokens for k in self.own)

    def _check_format(self, reader) -> None:
        for k in self.own:
            self.members[k]._check_format(reader)

    def _parse_batch(self, batch: list[Sentence], progress, watch: Callable | None) -> list[Sentence]:
        trees = {k: self.members[k].arcs(batch) for k in self.own}
        if self._gathered is not None:
            for k, kept in self._gathered.items():
                kept += trees[k]
            return batch
        self.combine_into(batch, trees, watch)
        if progress:
            progress(sum(len(s) for s in batch))
        return batch

    def share_trees(self, reader, batch_tokens: int) -> tuple[list[Sentence], dict[int, list[Tree]]]:
        """The sentences of ``reader`` (a ConllReader), unparsed, and the trees that each member
        this process parses with (``own``) gives them: a team's worker's share of a batch."""
        self._gathered = {k: [] for k in self.own}
        try:
            sentences = list(self.parse(reader, batch_tokens=batch_tokens, watch=None))
            return sentences, self._gathered
        finally:
            self._gathered = None

    def combine_into(self, batch: list[Sentence], trees: Mapping[int, list[Tree]], watch: Callable | None) -> None:
        """Give each sentence of ``batch`` the tree that ``trees`` (each member's of every
        sentence) vote for; ``watch`` is given the batch's tally of values training never saw."""
        first = self.members[0]
        views = first.views(batch, watch)  # the first member's reading: its tags weigh the votes
        projective = self.decoder == "projective"
        parses = [trees[k] for k in range(len(self.members))]
        for k, (sentence, view) in enumerate(zip(batch, views)):
            heads, labels = combine([p[k] for p in parses], view.column(CPOSTAG), self.weights, projective,
                                    self._single_root(sentence), view.column(FEATS))  # fmt: skip
            sentence.set_arcs(heads, labels)
            first.write_ignored(sentence)

    def bound_degree(self, max_degree: int | None) -> None:
        """``-cd`` for each member that bounds the degree of non-projectivity (an error if none does)."""
        if not any(reads(a, MAX_DEGREE) for a in self.algorithms):
            which = ", ".join(USED_BY[MAX_DEGREE])
            names = ", ".join(sorted(set(self.algorithms)))
            raise MaltpyError(f"bounds {which} only; this blend's members are {names}", "Model.bound_degree")
        for member in self._held():
            if member.bounds_degree:
                member.bound_degree(max_degree)

    def set_enforce_tree(self, on: bool) -> None:
        """``-nt`` for each member that reads it (an error if none does and ``on`` is not the default)."""
        if all(unused_option(ENFORCE_TREE, on, a) for a in self.algorithms):
            names = ", ".join(sorted(set(self.algorithms)))
            raise MaltpyError(f"nivre.enforce_tree (-nt) {str(on).lower()}: no member of this blend reads it (they "
                              f"are {names})", "Model.set_enforce_tree")  # fmt: skip
        for member, algorithm in zip(self.members, self.algorithms):
            if member is not None and reads(algorithm, ENFORCE_TREE):
                member.set_enforce_tree(on)

    def set_single_root(self, setting: str) -> None:
        for member in self._held():
            member.set_single_root(setting)
        self.single_root = setting

    def _held(self) -> list[Model]:
        """The members this process has loaded."""
        return [m for m in self.members if m is not None]

    def describe(self) -> dict:
        """What ``maltpy info`` shows."""
        return {
            "blend": {"weights": self.weights.kind, "decoder": self.decoder, "members": len(self.members)},
            "data_format": self.data_format,
            "members": [{"weight": w, **m.describe()} for m, w in zip(self.members, self.weights.overall)],
            "taggers": describe_taggers(self.taggers),
            "tokenizer": describe_tokenizer(self.taggers),
            "training": self.statistics,
        }

    def save(self, path) -> None:
        write_blend(str(path), self)

    def to_bytes(self) -> bytes:
        return write_blend(None, self)


def write_blend(path: str | None, blend: Blend) -> bytes | None:
    """The blend's archive: a manifest with its weights and decoder, and each member's archive
    whole (``members/NN.mpm``), to ``path`` (whole or not at all), or its bytes if ``path`` is None."""
    check_members(len(blend.members), path or "Blend.to_bytes")
    files = {f"members/{k:02d}.mpm": member.to_bytes() for k, member in enumerate(blend.members)}
    manifest = {
        "maltpy_version": __version__,
        "blend": {"members": list(files), "weights": blend.weights.as_json(), "decoder": blend.decoder,
                  "algorithms": blend.algorithms},
        "training": blend.statistics,
    }
    if blend.taggers is not blend.members[0].taggers:  # the first member's are in its archive
        add_taggers(manifest, files, blend.taggers)
    return write_archive(path, manifest, files)


def read_blend(archive: Archive, path: str, team: tuple[int, int] | None, load: Callable[..., Parser]) -> Blend:
    """The blend in ``archive`` (opened from ``path``), each part checked before use; in a team of
    workers, ``team`` = (this worker's place, the team's size), which parses with its share of
    the members (``shares``) and loads those and member 0 alone (all of them from an archive made
    before blends named their members' algorithms). ``load`` reads each member: ``maltpy.load.load``,
    which sits above this module, as it reads blends too."""
    try:
        stored = archive.manifest["blend"]
        require(isinstance(stored, dict), "a blend that is not a mapping")
        names = stored.get("members")
        require(isinstance(names, list) and 0 < len(names) <= MAX_MEMBERS
                and all(isinstance(n, str) for n in names) and len(set(names)) == len(names),
                "blend members that are not a list of members")  # fmt: skip
        require(stored.get("decoder") in DECODERS, "a blend decoder of no known kind")
        algorithms = stored.get("algorithms")  # not in archives made before --jobs shared members
        require(algorithms is None or (isinstance(algorithms, list) and len(algorithms) == len(names)
                                       and all(isinstance(a, str) and len(a) <= 40 for a in algorithms)),
                "blend algorithms that are not one name per member")  # fmt: skip
        weights = Weights.from_json(stored.get("weights"), len(names))
        statistics = archive.manifest.get("training", {})
        require(isinstance(statistics, dict), "training statistics are not a mapping")
        json.dumps(statistics, allow_nan=False)
        taggers = checked_taggers(archive)
    except ValueError as e:
        raise MaltpyError(f"damaged model: {cut(e)}", path) from None
    own = None
    if team is not None and team[1] <= len(names):
        own = shares(algorithms or [None] * len(names), team[1])[team[0]]
    held = sorted({0, *own}) if own is not None and algorithms is not None else range(len(names))
    members: list = [None] * len(names)
    for k in held:
        name = names[k]
        member = load(f"{path}:{name}", archive.member(name), archive)
        if isinstance(member, Blend):
            raise MaltpyError(f"damaged model: a blend inside a blend ({cut(name)})", path)
        algorithm = member.config.singlemalt.parsing_algorithm
        if algorithms is not None and algorithms[k] != algorithm:
            raise MaltpyError(f"damaged model: member {cut(name)} is {algorithm}, not {cut(algorithms[k], 40)} as "
                              "the blend says", path)  # fmt: skip
        members[k] = member
    return Blend(members, weights, stored["decoder"], statistics, algorithms, own, taggers)
