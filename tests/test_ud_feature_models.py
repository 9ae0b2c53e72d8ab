"""The feature models for Universal Dependencies treebanks (feature_models/liblinear/ud/, issue 46):
each learns and parses with its algorithms, reads what UD treebanks carry, and keeps Nivre's
systems on the batched arrays path (a Split or a stack system's address would leave it, at a
cost of 4-8x in parse speed; scripts/ud_defaults.py measures them)."""

from pathlib import Path

import pytest

import maltpy
from maltpy.models.batch import BatchParser

ROOT = Path(__file__).resolve().parents[1]
UD = ROOT / "feature_models" / "liblinear" / "ud"
TRAIN = ROOT / "maltpy" / "example" / "en-train.conllu"
TEST = ROOT / "maltpy" / "example" / "en-test.conllu"


@pytest.mark.parametrize(
    ("algorithm", "name", "arrays"),
    [("nivrestandard", "nivrestandard", True), ("nivreeager", "nivreeager", True),
     ("stackproj", "stackproj", False), ("stacklazy", "stackswap", False)],
)  # fmt: skip
def test_a_ud_feature_model_learns_reads_ud_columns_and_parses(tmp_path, algorithm, name, arrays):
    path = UD / f"{name}.txt"
    text = path.read_text(encoding="utf-8")
    for column in ("InputColumn(FEATS,", "InputColumn(LEMMA,", "InputColumn(XPOSTAG,", "Merge(InputColumn(UPOSTAG,"):
        assert column in text
    model = maltpy.learn(TRAIN, algorithm=algorithm, features=str(path), marking_strategy="head")
    assert BatchParser.supports(model) is arrays
    assert len(model.feature_model.specs) == sum(1 for line in text.splitlines() if line and line[0] != "#")
    gold = list(maltpy.read_conll(TEST))
    parsed = list(model.parse(maltpy.read_conll(TEST)))
    pairs = [(p, g) for s, t in zip(parsed, gold) for p, g in zip(s.heads[1:], t.heads[1:])]
    assert len(pairs) > 100 and sum(p == g for p, g in pairs) > 0.6 * len(pairs)
