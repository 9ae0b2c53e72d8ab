"""The text members of MaltParser's .mco files (maltpy.mco.text), on every reference file of the
four releases, and refusals."""

from __future__ import annotations

import zipfile

import pytest
from conftest import SHARED, requires_shared

from maltpy.mco.text import MCOError, read_options, read_symbol_tables, writing_release

MCO = SHARED / "reference" / "maltparser-mco"


def members(mco):
    with zipfile.ZipFile(mco) as z:
        return {name.rsplit("/", 1)[-1]: z.read(name).decode("utf-8") for name in z.namelist()
                if not name.endswith((".moo", ".map", ".dsm"))}  # fmt: skip


@requires_shared
def test_every_reference_model_tells_its_release_options_and_tables():
    files = sorted(MCO.glob("*.mco"))
    assert len(files) >= 40
    for mco in files:
        texts = members(mco)
        name = mco.stem
        release = name.rsplit("-malt", 1)[1]
        (info,) = [t for n, t in texts.items() if n.endswith("_singlemalt.info")]
        assert writing_release(info) == tuple(int(p) for p in release.split("."))
        options = read_options(texts["savedoptions.sop"])
        algorithm = name.split("-")[1]
        assert options[("singlemalt", "parsing_algorithm")] == algorithm
        assert options[("guide", "learner")] == ("libsvm" if "libsvm" in name else "liblinear")
        assert options[("guide", "features")] in texts  # the feature model travels in the archive
        tables = read_symbol_tables(texts["symboltables.sym"])
        decision = tables[options[("guide", "decision_settings")]]
        assert (decision.type is None) == (release < "1.9")
        # the decision table holds the transitions, with their labels after the separator
        transitions = {symbol.split("~")[0] for symbol in decision.symbols.values()}
        assert {"LA", "RA"} <= transitions
        assert len(tables["POSTAG"].symbols) > 10 and min(tables["POSTAG"].symbols) >= 1


def test_releases_before_1_5_and_reports_without_one_are_refused():
    assert writing_release("MALTPARSER\nVersion:                       1.7\n") == (1, 7)
    with pytest.raises(MCOError, match="older than 1.5"):
        writing_release("x\nVersion:                       1.4.1\n")
    with pytest.raises(MCOError, match="no MaltParser version"):
        writing_release("Version: 1.9.2\n")


@pytest.mark.parametrize("text, message", [
    ("0\tguide\tlearner\tclass org.evil.Payload\n", "which maltpy does not have"),
    ("0\tguide\tfeatures\tclass java.lang.Runtime\n", "names a class"),
    ("0\tguide\n", "not a saved option"),
    ("1\tguide\tkbest\t-1\n", "not a saved option"),
    ("0\tguide\tkbest\t-1\n0\tguide\tkbest\t3\n", "given twice"),
])  # fmt: skip
def test_options_that_are_not_maltparsers_are_refused(text, message):
    with pytest.raises(MCOError, match=message):
        read_options(text)


@pytest.mark.parametrize("text, message", [
    ("\tPOSTAG\tx\tone\n\n", "header line"),
    ("\tPOSTAG\t1\tone\n\nFORM\n1\tNN\n\n", "not in the header"),
    ("\tPOSTAG\t1\tone\n\nPOSTAG\n1\tNN\n1\tVB\n\n", "given twice"),
    ("\tPOSTAG\t1\tone\n\nPOSTAG\nNN\n\n", "not a code"),
])  # fmt: skip
def test_symbol_tables_out_of_shape_are_refused(text, message):
    with pytest.raises(MCOError, match=message):
        read_symbol_tables(text)
