"""What .mco files other than the references need (issue 30: "the same will be checked on .mco
files that you have not seen: other MaltParser releases in that range, other treebanks,
algorithms and options"): every feature function read as MaltParser codes its values (Split,
Distance, NumOf, a Merge of any of them, InputColumn of an integer column, InputArc and
InputArcDir, always MaltParser's null), the refusal of Suffix and Prefix, whose MaltParser values
depend on the sentences parsed before, and the saved options as each release reads them.

Each model is a reference .mco rewritten in memory: features of its feature model replaced by
others that sort to the same places in MaltParser's feature vector (the sorted feature texts),
their symbol tables added, or its saved options changed, so that its map and weights stay
MaltParser's. A rewritten model's map is compared with the original's (the code a key names must
reach the column the original's value of that code reached), or its parse with the reference's.
"""

from __future__ import annotations

import gzip
import zipfile
from pathlib import Path

import pytest
from conftest import SHARED, SWEMALT, assert_one_line_error, requires_shared, run_maltpy

import maltpy
from maltpy.errors import MaltpyError
from maltpy.learners.encoding import NUMBER
from maltpy.mco.text import read_symbol_tables
from maltpy.models.parser import Model

pytestmark = requires_shared

MCO = SHARED / "reference" / "maltparser-mco"
NAME = "sv-nivreeager-liblinear-malt1.9.2"
TEST = SWEMALT / "gold" / "sv-stb-dep-mini-test.conll"


def members(name: str = NAME) -> dict[str, bytes]:
    with zipfile.ZipFile(MCO / f"{name}.mco") as z:
        return {info.filename: z.read(info) for info in z.infolist()}


def tables() -> dict:
    return read_symbol_tables(members()[f"{NAME}/symboltables.sym"].decode("utf-8"))


def rewritten(path: Path, features: dict[str, str], added: dict[str, dict[int, str]] | None = None,
              null_value: str | None = None, extended: dict[str, dict[int, str]] | None = None) -> Path:  # fmt: skip
    """The reference model with ``features`` replaced (old text -> new, as the XML has them), the
    symbol tables ``added`` (name -> code -> symbol), the tables ``extended`` with more symbols,
    and the null value strategy set."""
    files = members()
    xml = files[f"{NAME}/NivreEager.xml"].decode("utf-8")
    for old, new in features.items():
        assert xml.count(f"<feature>{old}</feature>") == 1, old
        xml = xml.replace(f"<feature>{old}</feature>", f"<feature>{new}</feature>")
    files[f"{NAME}/NivreEager.xml"] = xml.encode("utf-8")
    sym = files[f"{NAME}/symboltables.sym"].decode("utf-8")
    header, _, bodies = sym.partition("\n\n")
    for name, symbols in (extended or {}).items():
        lines = "".join(f"{code}\t{symbol}\n" for code, symbol in symbols.items())
        bodies = bodies[: len(name) + 1] + lines + bodies[len(name) + 1 :] if bodies.startswith(f"{name}\n") \
            else bodies.replace(f"\n{name}\n", f"\n{name}\n{lines}", 1)  # fmt: skip
    for name, symbols in (added or {}).items():
        header += f"\n\t{name}\t1\t1\tone"
        bodies += name + "\n" + "".join(f"{code}\t{symbol}\n" for code, symbol in symbols.items()) + "\n"
    if null_value is not None:
        header = header.replace("\tone\n", f"\t{null_value}\n").replace("\tone", f"\t{null_value}")
        sop = files[f"{NAME}/savedoptions.sop"].decode("utf-8")
        files[f"{NAME}/savedoptions.sop"] = sop.replace("\tnull_value\tone", f"\tnull_value\t{null_value}").encode()
    files[f"{NAME}/symboltables.sym"] = (header + "\n\n" + bodies).encode("utf-8")
    return write(path, files)


def write(path: Path, files: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in files.items():
            z.writestr(name, data)
    return path


def unused(like: str, symbols: dict[int, str] | None = None) -> dict[int, str]:
    """A symbol for each code of the reference's table ``like`` that ``symbols`` lacks: a rewritten
    feature keeps the reference's map, whose keys name the codes of the feature it replaces, and
    MaltParser's map holds no code its feature's table lacks (mco/classifiers.py refuses such a key)."""
    symbols = symbols or {}
    return {code: f"unused{code}" for code in tables()[like].symbols if code not in symbols}


def featuremap(model: Model):
    return model.guide.all_models()[0].featuremap


def assert_same_columns(original: Model, model: Model, position: int, old: dict[int, str],
                        new: dict[int, tuple]) -> None:  # fmt: skip
    """For each code whose ``old`` value has a column in the original model at ``position``
    (0-based), each of its ``new`` values has that column in ``model``; at least one such code."""
    before, after = featuremap(original).tables[position], featuremap(model).tables[position]
    found = 0
    for code, value in old.items():
        column = before.get(value)
        if column is None or code not in new:
            continue
        found += 1
        for v in new[code]:
            assert after.get(v) == column, (position, code, v)
    assert found


@pytest.fixture(scope="module")
def original() -> Model:
    return maltpy.load_model(str(MCO / f"{NAME}.mco"))


def test_a_split_feature_parses_as_maltparser_does(tmp_path):
    """Split(OutputColumn(DEPREL, rdep(Stack[0])), \\|) for the last feature, OutputColumn(DEPREL,
    rdep(Stack[0])), with SPLIT_DEPREL a copy of DEPREL: Swedish labels hold no "|", so the one
    piece has the label's code, the null value its code in DEPREL (SplitFeature.update), and the
    parse is the reference's, byte for byte, as it is and converted."""
    last = "OutputColumn(DEPREL, rdep(Stack[0]))"
    path = rewritten(tmp_path / "split.mco", {last: f"Split({last},\\|)"},
                     {"SPLIT_DEPREL": tables()["DEPREL"].symbols})  # fmt: skip
    model = maltpy.load_model(str(path))
    assert model.feature_model.specs[-1].text == "Split(OutputColumn(DEPREL,rdep(Stack[0])),\\|)"
    want = gzip.decompress((MCO / f"{NAME}.parsed.conll.gz").read_bytes())
    model.parse_file(TEST, tmp_path / "split.conll")
    assert (tmp_path / "split.conll").read_bytes() == want
    Model.load("converted.mpm", model.to_bytes()).parse_file(TEST, tmp_path / "converted.conll")
    assert (tmp_path / "converted.conll").read_bytes() == want


def test_distance_numof_and_a_merge_of_them_take_their_tables_codes(tmp_path, original):
    """Distance first (for InputColumn(FORM, Input[0])), NumOf 18th (for the last Merge3), and a
    Merge of POSTAG and a Distance 11th (for the first Merge): each key's code names the value of
    that code in DISTANCE_0|1|2|5, NUMOF0|1|2 (MaltParser's names, no "_" after NUMOF) and
    MERGE2_POSTAG_DISTANCE_0|1|2|5 (a Merge's table named after its parts')."""
    t = tables()
    merge = {code: f"T{code}~>=1" for code in t["MERGE2_POSTAG_DEPREL"].symbols}
    path = rewritten(tmp_path / "bins.mco", {
        "InputColumn(FORM, Input[0])": "Distance(Stack[0], Input[0], 0|1|2|5)",
        "Merge3(InputColumn(POSTAG, Stack[1]), InputColumn(POSTAG, Stack[0]), InputColumn(POSTAG, Input[0]))":
            "NumOf(Stack[0], ldeps, 0|1|2)",
        "Merge(InputColumn(POSTAG, Input[0]), OutputColumn(DEPREL, ldep(Input[0])))":
            "Merge(InputColumn(POSTAG, Input[0]), Distance(Stack[0], Input[0], 0|1|2|5))",
    }, {
        "DISTANCE_0|1|2|5": {**unused("FORM", bins := {1: ">=0", 2: ">=1", 3: ">=2", 4: ">=5"}), **bins},
        "NUMOF0|1|2": {**unused("MERGE3_POSTAG_POSTAG_POSTAG", ofs := {1: ">=0", 2: ">=1", 3: ">=2"}), **ofs},
        "MERGE2_POSTAG_DISTANCE_0|1|2|5": merge,
    })  # fmt: skip
    model = maltpy.load_model(str(path))
    texts = [s.text for s in model.feature_model.specs]
    assert texts[0] == "Distance(Stack[0],Input[0],0|1|2|5)" and texts[17] == "NumOf(Stack[0],ldeps,0|1|2)"
    assert texts[10] == "Merge(InputColumn(POSTAG,Input[0]),Distance(Stack[0],Input[0],0|1|2|5))"
    form = t["FORM"].symbols
    assert_same_columns(original, model, 0, form, {1: (">=0",), 2: (">=1",), 3: (">=2",), 4: (">=5",)})
    merge3 = t["MERGE3_POSTAG_POSTAG_POSTAG"].symbols
    assert_same_columns(original, model, 17, merge3, {1: (">=0",), 2: (">=1",), 3: (">=2",)})
    merge2 = t["MERGE2_POSTAG_DEPREL"].symbols
    assert_same_columns(original, model, 10, merge2, {code: (v,) for code, v in merge.items()})
    assert model.parse_conll(TEST.read_text("utf-8")).count("\n") == TEST.read_text("utf-8").count("\n")


@pytest.mark.parametrize("feature", ["InputArc(HEAD, Stack[0], Input[0])", "InputArcDir(HEAD, Stack[0])"])
def test_input_arc_features_are_maltparsers_null_whatever_the_input_heads(tmp_path, original, feature):
    """MaltParser's InputArc and InputArcDir never find their nodes (they compare a node's class
    with the DependencyNode interface), so their value is always the null value, code 0: every
    value maltpy's give has the column of code 0 (the original third feature's #null#, the root
    on the stack), and the parse is the same whatever the input's HEAD column says."""
    second = "InputArc(HEAD, Input[1], Input[2])" if feature.startswith("InputArc(") else "InputArcDir(HEAD, Input[1])"
    path = rewritten(tmp_path / "arc.mco", {
        "InputColumn(FORM, Input[0])": "InputArc(HEAD, Input[0], Input[1])",
        "InputColumn(FORM, Input[1])": second,
        "InputColumn(FORM, Stack[0])": feature,
    }, {"ARC_HEAD": {**unused("FORM", arc := {1: "LEFT", 2: "RIGHT"}), **arc},
        "ARCDIR_HEAD": {**unused("FORM", arcdir := {1: "LEFT", 2: "RIGHT", 3: "ROOT"}), **arcdir}})  # fmt: skip
    model = maltpy.load_model(str(path))
    assert model.feature_model.specs[2].text == feature.replace(" ", "")
    values = ("#null#", "LEFT", "RIGHT") + (("ROOT",) if "Dir" in feature else ())
    assert_same_columns(original, model, 2, {0: "#null#"}, {0: values})
    text = TEST.read_text("utf-8")
    no_heads = "".join(
        "\t".join(line.split("\t")[:6] + ["_", "_", "_", "_"]) + "\n" if line else "\n" for line in text.splitlines()
    )
    with_heads = model.parse_conll(text)
    assert [line.split("\t")[6:8] for line in with_heads.splitlines() if line] == \
        [line.split("\t")[6:8] for line in model.parse_conll(no_heads).splitlines() if line]  # fmt: skip
    converted = Model.load("converted.mpm", model.to_bytes())
    assert converted.parse_conll(text) == with_heads


def test_an_integer_column_has_its_null_values_and_the_root_is_the_number_one(tmp_path, original):
    """InputColumn(ID, Stack[0]) third (for InputColumn(FORM, Stack[0]), with InputColumn(ID,
    head(Stack[0])) fourth): every number has code 1 (ColumnFeature.castFeatureValue), a null
    value its null code, 0 with ``one`` (the root on the stack); with ``rootnode`` the root's
    code is 1, the number's, whose value is then 1."""
    changed = {"InputColumn(FORM, Stack[0])": "InputColumn(ID, Stack[0])",
               "InputColumn(FORM, head(Stack[0]))": "InputColumn(ID, head(Stack[0]))"}  # fmt: skip
    ids = {"ID": unused("FORM", tables()["ID"].symbols)}
    model = maltpy.load_model(str(rewritten(tmp_path / "id.mco", changed, extended=ids)))
    assert model.feature_model.specs[2].text == "InputColumn(ID,Stack[0])"
    form = tables()["FORM"].symbols
    assert_same_columns(original, model, 2, {0: "#null#"}, {0: ("#null#",)})
    assert_same_columns(original, model, 2, {1: form[1]}, {1: (NUMBER,)})
    rooted = maltpy.load_model(str(rewritten(tmp_path / "rooted.mco", changed, null_value="rootnode", extended=ids)))
    table = featuremap(rooted).tables[2]
    assert table["#rootnode#"] == table[NUMBER] == featuremap(original).tables[2][form[1]]
    assert featuremap(Model.load("converted.mpm", rooted.to_bytes())).tables[2] == table


@pytest.mark.parametrize("feature, why", [
    ("Suffix(InputColumn(FORM, Input[0]), 3)", "every suffix the parse has met so far"),
    ("Prefix(InputColumn(FORM, Input[0]), 2)", "every prefix the parse has met so far"),
    ("Merge(InputColumn(POSTAG, Input[0]), InputArcDir(HEAD, Stack[0]))", "InputArcDir never finds its node"),
])  # fmt: skip
def test_features_maltpy_cannot_compute_as_maltparser_are_refused_at_load(tmp_path, feature, why):
    """MaltParser's Suffix and Prefix add each value's affix to a set they never empty, so a
    value is every affix met since the parse began (its parse of a sentence depends on the
    sentences before), and a Merge joins InputArcDir's constant null into its text: refused,
    naming the feature, one error line and exit 2 on the command line, no output file."""
    path = rewritten(tmp_path / "refused.mco", {"InputColumn(FORM, Input[0])": feature})
    with pytest.raises(MaltpyError) as caught:
        maltpy.load_model(str(path))
    assert feature.replace(" ", "") in str(caught.value) and why in str(caught.value)
    r = run_maltpy("parse", "-m", path, "-i", TEST, "-o", tmp_path / "out.conll")
    assert why in assert_one_line_error(r, str(path))
    assert not (tmp_path / "out.conll").exists()


def test_before_1_7_2_planar_root_handling_is_the_2_planar_systems_alone(tmp_path):
    """MaltParser 1.5 to 1.7.1 save -prh in group 2planar and only their 2-planar system reads it
    (PlanarFactory has no root handling): a 1.7.2 planar model (group multiplanar, normal)
    rewritten as 1.6 writes one learned with -prh relaxed parses into the reference's bytes,
    as 1.6 parses with it; its group multiplanar read as it says."""
    name = "sv-planar-liblinear-malt1.7.2"
    want = gzip.decompress((MCO / f"{name}.parsed.conll.gz").read_bytes())
    files = members(name)
    sop = files[f"{name}/savedoptions.sop"].decode("utf-8")
    assert "\tmultiplanar\tplanar_root_handling\tnormal" in sop
    files[f"{name}/savedoptions.sop"] = sop.replace("\tmultiplanar\tplanar_root_handling\tnormal",
                                                    "\t2planar\tplanar_root_handling\trelaxed").encode()  # fmt: skip
    info = f"{name}/{name}_singlemalt.info"
    original = files[info]
    files[info] = original.replace(b"Version:                       1.7.2", b"Version:                       1.6")
    model = maltpy.load_model(str(write(tmp_path / "planar16.mco", files)))
    assert model.statistics["maltparser_version"] == "1.6"
    assert model.config.multiplanar.planar_root_handling == "normal"
    model.parse_file(TEST, tmp_path / "planar16.conll")
    assert (tmp_path / "planar16.conll").read_bytes() == want
    files[f"{name}/savedoptions.sop"] = sop.replace("\tplanar_root_handling\tnormal",
                                                    "\tplanar_root_handling\trelaxed").encode()  # fmt: skip
    files[info] = original
    relaxed = maltpy.load_model(str(write(tmp_path / "planar172.mco", files)))
    assert relaxed.config.multiplanar.planar_root_handling == "relaxed"
