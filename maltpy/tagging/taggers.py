"""The taggers of a model: one per tagged column, run in ``TAGGED``'s order over a batch."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import MaltpyError
from .columns import MODES, column_name
from .features import Batch
from .tagger import ColumnTagger

if TYPE_CHECKING:
    from ..tokenizing.tokenizer import Tokenizer


class Taggers:
    """The taggers of the columns ``columns`` (in TAGGED order). ``heldout``: how their held-out
    accuracies were measured (describe() says it). ``tokenizer``: the tokenizer learned with them
    from the treebank's text (maltpy.tokenizing), if it has one."""

    def __init__(self, taggers: list[ColumnTagger], heldout: str = "", tokenizer: Tokenizer | None = None) -> None:
        self.taggers = taggers
        self.heldout = heldout
        self.tokenizer = tokenizer

    @property
    def columns(self) -> tuple[int, ...]:
        return tuple(t.column for t in self.taggers)

    def tag(self, sentences: list, mode: str = "missing") -> None:
        """Fill the predicted columns of the sentences in place, in TAGGED order. ``missing``:
        in each sentence, a column whose words are all ``_`` is predicted, one with any value
        is left as given; ``always``: every predicted column is replaced; ``never``: nothing."""
        if mode not in MODES:
            raise MaltpyError(f"unknown tagging mode {mode!r} (missing, always or never)")
        if mode == "never" or not sentences:
            return
        whole = Batch(sentences)
        for tagger in self.taggers:
            c = tagger.column
            chosen = sentences if mode == "always" else [s for s in sentences if all(w[c] == "_" for w in s.words)]
            if not chosen:
                continue
            batch = whole if len(chosen) == len(sentences) else Batch(chosen)
            values = iter(tagger.predict(batch))
            for s in chosen:
                for w in s.words:
                    w[c] = next(values)
            whole.changed(c)

    def describe(self) -> list[dict]:
        """Per tagger: its column, learner, options, classes, features, training instances,
        whether it tags both ways, and held-out accuracy (with how it was measured)."""
        return [
            {
                "column": column_name(t.column),
                "learner": t.learner,
                "options": {k: v for k, v in t.options.items() if not isinstance(v, dict)},
                "classes": len(t.classes),
                "features": t.table.size,
                "templates": len(t.table.templates),
                "instances": t.instances,
                **({"lexicon": len(t.lexicon)} if t.lexicon else {}),
                **({"seen": len(t.seen)} if t.seen else {}),
                **({"both_ways": True} if t.backward is not None else {}),
                "heldout_accuracy": t.heldout_accuracy,
                "heldout": self.heldout,
            }
            for t in self.taggers
        ]

    def to_archive(self) -> tuple[dict, dict[str, bytes]]:
        """The manifest entry and the archive members (named ``taggers/...``)."""
        from .archive import taggers_to_archive

        return taggers_to_archive(self)

    @classmethod
    def from_archive(cls, archive, entry: object) -> Taggers:
        """The taggers of a model archive's manifest entry, every part checked: a MaltpyError
        ``damaged model: ...`` if anything is wrong."""
        from .archive import taggers_from_archive

        return taggers_from_archive(cls, archive, entry)
