import copy
import itertools
import re
from pathlib import Path

import pytest
from conftest import DATA, REFERENCE, ROOT, SHARED, SWEMALT, requires_shared

from maltpy.config import load_config
from maltpy.data import pseudoproj
from maltpy.errors import MaltpyError
from maltpy.features import FeatureModel, load_feature_model, spec
from maltpy.features.addresses import ADDRESS_FUNCTIONS
from maltpy.features.functions import (
    FEATURE_FUNCTIONS,
    NOVALUE,
    NULL,
    ROOTNODE,
    Layout,
    compile_extractor,
    compile_plan,
)
from maltpy.features.spec import COLUMNS, parse_feature, parse_feature_model, read_feature_model
from maltpy.files import read_conll
from maltpy.learners.encoding import FeatureMap
from maltpy.models.parser import columns_of
from maltpy.transition import SYSTEMS, system_for
from maltpy.transition.base import LA, RA, SH, Gold


def model(text: str, algorithm: str = "nivreeager", null_value: str = "one") -> FeatureModel:
    return FeatureModel(parse_feature_model(text.encode(), "m.txt", algorithm), algorithm, null_value, "m.txt")


# --- reading feature specifications ------------------------------------------------------------


@requires_shared
def test_swedish_swap_xml_loads_unchanged():
    path = SWEMALT / "swedish-swap.xml"
    specs = read_feature_model(str(path), "stackeager")
    assert len(specs) == len(re.findall(r"<feature>", path.read_text())) == 38
    names = {s.feature.name for s in specs}
    assert {"InputColumn", "OutputColumn", "Merge", "Merge3", "Distance"} <= names
    assert [s.text for s in specs] == sorted(s.text for s in specs)  # MaltParser's order


@requires_shared
@pytest.mark.parametrize("learner", ["liblinear", "libsvm"])
@pytest.mark.parametrize("data_format", ["conllx", "conllu"])
def test_default_models_hold_maltparsers_features(learner, data_format):
    xml_names = {
        "nivreeager": "NivreEager",
        "nivrestandard": "NivreStandard",
        "covproj": "CovingtonProjective",
        "covnonproj": "CovingtonNonProjective",
        "stackproj": "StackProjective",
        "stackswap": "StackSwap",
        "planar": "PlanarEager",
        "2planar": "2PlanarEager",
    }
    for algorithm, system in SYSTEMS.items():
        ours = load_feature_model(None, algorithm, learner, data_format, "one")
        theirs = read_feature_model(
            str(REFERENCE / "features" / learner / data_format / f"{xml_names[system.feature_model]}.xml"), algorithm
        )
        assert [s.text for s in ours.specs] == [s.text for s in theirs]


def test_the_text_format_and_its_comments():
    fm = model(
        "# a comment\nInputColumn(POSTAG, Stack[0])   # the top\n\n  Merge(InputColumn(POSTAG, Stack[0]),"
        " InputColumn(POSTAG, Input[0]))\nInputColumn(POSTAG,Stack[0])\n"
    )
    assert [s.text for s in fm.specs] == [
        "InputColumn(POSTAG,Stack[0])",
        "Merge(InputColumn(POSTAG,Stack[0]),InputColumn(POSTAG,Input[0]))",
    ]
    assert fm.specs[1].line == 4


def test_every_function_parses():
    for text in [
        "InputColumn(FORM, pred(succ(ldesc(Stack[0]))))",
        "OutputColumn(DEPREL, lsib(rsib(head(Input[1]))))",
        "InputArc(HEAD, Stack[0], Input[0])",
        "InputArcDir(PHEAD, Stack[0])",
        "OutputArc(HEAD, Stack[1], Stack[0])",
        "Exists(anc(Stack[0]))",
        "Distance(Stack[0], Input[0], 0|1|2|5)",
        "NumOf(Stack[0], ldeps, 0|1|3)",
        "Split(InputColumn(FEATS, Stack[0]), \\|)",
        "Suffix(InputColumn(FORM, Input[0]), 3)",
        "Prefix(InputColumn(LEMMA, Input[0]), 2)",
        "Merge3(InputColumn(UPOS, Stack[0]), InputColumn(XPOSTAG, Stack[0]),"
        " OutputColumn(DEPREL, rdep2(panc(pldesc(prdesc(rdesc(Stack[0])))))))",
    ]:
        assert str(parse_feature(text)) == re.sub(r"\s", "", text)


@pytest.mark.parametrize("text, message", [
    ("InputColumn(POSTAG, Stack[0]", "expected ')'"),
    ("InputColum(POSTAG, Stack[0])", "unknown feature function 'InputColum'"),
    ("InputColumn(TAG, Stack[0])", "unknown column 'TAG'"),
    ("InputColumn(POSTAG, Top[0])", "unknown address function 'Top'"),
    ("InputColumn(POSTAG, Stack[-1])", "non-negative integer index"),
    ("OutputColumn(POSTAG, Stack[0])", "is an input column"),
    ("InputColumn(DEPREL, Stack[0])", "is what the parser predicts"),
    ("Distance(Stack[0], Input[0], 1|2)", "ascending integers from 0"),
    ("NumOf(Stack[0], kids, 0|1)", "relation 'kids'"),
    ("Merge(Split(InputColumn(FEATS, Stack[0]), \\|), InputColumn(POSTAG, Stack[0]))", "cannot merge Split"),
    ("Suffix(InputColumn(FORM, Input[0]), 0)", "at least 1"),
    ("Stack[0]", "is an address, not a feature"),
    ("InputColumn(POSTAG, Stack[0]) extra", "unexpected"),
])  # fmt: skip
def test_bad_features_name_file_line_and_text(text, message):
    with pytest.raises(MaltpyError) as caught:
        parse_feature_model(f"InputColumn(FORM, Stack[0])\n{text}\n".encode(), "f.txt", "nivreeager")
    assert (caught.value.file, caught.value.line) == ("f.txt", 2)
    assert message in caught.value.message and re.sub(r"\s+", " ", text.strip())[:12] in caught.value.message


def test_addresses_of_another_algorithm_are_refused_at_load_time():
    with pytest.raises(MaltpyError, match=r"Lookahead\[\.\.\.\] is not an address of nivreeager"):
        model("InputColumn(POSTAG, Lookahead[0])")
    with pytest.raises(MaltpyError, match=r"Stack\[\.\.\.\] is not an address of covnonproj"):
        model("InputColumn(POSTAG, Stack[0])", "covnonproj")
    model("InputColumn(POSTAG, Lookahead[0])", "stacklazy")
    model("InputColumn(POSTAG, RightContext[0])", "covproj")


def test_bad_xml_and_missing_files(tmp_path):
    with pytest.raises(MaltpyError, match="not well-formed XML") as caught:
        parse_feature_model(b"<featuremodels>\n<featuremodel>\n<feature>x</featuremodel>", "m.xml", "nivreeager")
    assert caught.value.line == 3
    with pytest.raises(MaltpyError, match="no features"):
        parse_feature_model(b"# nothing\n", "m.txt", "nivreeager")
    with pytest.raises(MaltpyError, match="no such feature model file"):
        read_feature_model(str(tmp_path / "absent.xml"), "nivreeager")


def test_only_the_first_featuremodel_counts_as_in_maltparser():
    xml = (
        b"<featuremodels><featuremodel><feature>InputColumn(FORM, Stack[0])</feature></featuremodel>"
        b"<featuremodel><feature>InputColumn(POSTAG, Stack[0])</feature></featuremodel></featuremodels>"
    )
    assert [s.text for s in parse_feature_model(xml, "m.xml", "nivreeager")] == ["InputColumn(FORM,Stack[0])"]


# --- values ------------------------------------------------------------------------------------

SENTENCE = (
    "1\tThe\tthe\tDET\tDT\tDef=Y|Num=S\t2\tdet\t_\t_\n"
    "2\tdog\tdog\tNOUN\tNN\tNum=S\t3\tnsubj\t_\t_\n"
    "3\tbarks\tbark\tVERB\tVBZ\t_\t0\troot\t_\t_\n"
)


def sentence():
    import io

    from maltpy.data.conll import ConllReader

    return next(iter(ConllReader(io.BytesIO(SENTENCE.encode()), "s")))


def test_values_of_a_configuration_and_the_null_values():
    s = sentence()
    cols = columns_of(s)
    system = SYSTEMS["nivreeager"]()
    c = system.initial(3)
    features = (
        "InputColumn(POSTAG, Stack[0])\nInputColumn(POSTAG, Stack[1])\nInputColumn(FORM, Input[0])\n"
        "OutputColumn(DEPREL, Input[0])\nMerge(InputColumn(POSTAG, Stack[1]), InputColumn(POSTAG, Stack[2]))\n"
        "Merge(InputColumn(POSTAG, Stack[0]), InputColumn(POSTAG, Input[0]))\nExists(Stack[1])\n"
        "Distance(Stack[0], Input[0], 0|1|2|5)\nSplit(InputColumn(FEATS, Input[0]), \\|)\n"
        "Suffix(InputColumn(FORM, Input[1]), 2)\nNumOf(Stack[0], deps, 0|1|2)\n"
    )
    for null_value, (root, no_value) in {
        "one": (NULL, NULL),
        "rootnode": (ROOTNODE, ROOTNODE),
        "novalue": (ROOTNODE, NOVALUE),
    }.items():
        fm = model(features, null_value=null_value)
        values = dict(zip((x.text for x in fm.specs), fm.extract(c, cols)))
        assert values["InputColumn(POSTAG,Stack[0])"] == root  # the root
        assert values["InputColumn(POSTAG,Stack[1])"] == NULL  # no node
        assert values["OutputColumn(DEPREL,Input[0])"] == no_value  # no head yet
        assert values["InputColumn(FORM,Input[0])"] == "The"
        assert values["Merge(InputColumn(POSTAG,Stack[1]),InputColumn(POSTAG,Stack[2]))"] is None  # all null
        assert values["Merge(InputColumn(POSTAG,Stack[0]),InputColumn(POSTAG,Input[0]))"] == f"{root}~DT"
        assert values["Exists(Stack[1])"] is None
        assert values["Distance(Stack[0],Input[0],0|1|2|5)"] == NULL  # the root
        assert values["Split(InputColumn(FEATS,Input[0]),\\|)"] == ("Def=Y", "Num=S")
        assert values["Suffix(InputColumn(FORM,Input[1]),2)"] == "og"
        assert values["NumOf(Stack[0],deps,0|1|2)"] == ">=0"
    # after SH, RA: the stack is [0, 1, 2] with 1 -> 2
    system.apply(c, SH)
    system.apply(c, RA, "x")
    fm = model(
        "OutputColumn(DEPREL, Stack[0])\nInputColumn(FORM, head(Stack[0]))\nOutputColumn(DEPREL, rdep(Stack[1]))"
        "\nDistance(Stack[0], Input[0], 0|1|2|5)\nNumOf(Stack[1], rdeps, 0|1|2)\nInputColumn(FORM, pred(Stack[1]))"
    )
    assert dict(zip((x.text for x in fm.specs), fm.extract(c, cols))) == {
        "OutputColumn(DEPREL,Stack[0])": "x",
        "InputColumn(FORM,head(Stack[0]))": "The",
        "OutputColumn(DEPREL,rdep(Stack[1]))": "x",
        "Distance(Stack[0],Input[0],0|1|2|5)": ">=1",
        "NumOf(Stack[1],rdeps,0|1|2)": ">=1",
        "InputColumn(FORM,pred(Stack[1]))": NULL,
    }


@requires_shared
@pytest.mark.parametrize("algorithm", list(SYSTEMS))
def test_the_compiled_extractor_gives_the_definitions_values(algorithm):
    models = [
        load_feature_model(None, algorithm, learner, "conllx", nv)
        for learner in ("liblinear", "libsvm")
        for nv in ("one", "novalue")
    ]
    if algorithm.startswith("stack"):
        models.append(
            FeatureModel(
                read_feature_model(str(SWEMALT / "swedish-swap.xml"), algorithm), algorithm, "one", "swedish-swap.xml"
            )
        )
    system = SYSTEMS[algorithm]()
    with read_conll(str(DATA / "conllx" / "la_perseus-ud-train.conllx")) as reader:
        for s in itertools.islice(reader, 60):
            cols, gold, c = columns_of(s), Gold(s.heads, s.labels), system.initial(len(s))
            while not system.is_terminal(c):
                for fm in models:
                    assert list(fm.extract(c, cols)) == fm.extract_slowly(c, cols)
                system.apply(c, *system.oracle(c, gold))


# Every feature function, several uses of each (the extractor computes all the uses of a
# function in one call), over the addresses of one family; S and I stand for its base addresses.
EVERY_FUNCTION = """
InputColumn(ID, I[0])
InputColumn(POSTAG, S[0])
InputColumn(ID, S[0])
InputColumn(FORM, I[0])
Split(InputColumn(FEATS, S[0]), \\|)
Split(InputColumn(FEATS, I[0]), \\|)
Suffix(InputColumn(FORM, S[0]), 3)
Prefix(InputColumn(FORM, I[0]), 2)
Suffix(InputColumn(LEMMA, I[1]), 1)
Distance(S[0], I[0], 0|1|2|5)
Distance(S[1], I[0], 0|3)
NumOf(S[0], ldeps, 0|1|2)
NumOf(S[1], deps, 0|1|2)
InputArc(HEAD, S[0], I[0])
OutputArc(HEAD, S[0], S[1])
InputArcDir(HEAD, S[0])
InputArcDir(HEAD, I[0])
Exists(S[2])
Exists(I[1])
OutputColumn(DEPREL, lsib(ldep(S[0])))
OutputColumn(DEPREL, rsib(rdep(S[1])))
OutputColumn(DEPREL, head(S[0]))
OutputColumn(DEPREL, rdep2(S[1]))
InputColumn(POSTAG, anc(S[1]))
InputColumn(POSTAG, panc(S[1]))
InputColumn(POSTAG, ldesc(S[0]))
InputColumn(POSTAG, prdesc(S[1]))
InputColumn(POSTAG, pred(S[0]))
InputColumn(POSTAG, succ(I[0]))
Merge(Merge(InputColumn(POSTAG, S[0]), InputColumn(POSTAG, S[3])), InputColumn(FORM, I[0]))
Merge(InputColumn(POSTAG, S[0]), InputColumn(POSTAG, S[3]))
Merge3(OutputColumn(DEPREL, S[0]), InputColumn(LEMMA, S[3]), Merge(InputColumn(FORM, S[4]), InputColumn(FORM, S[3])))
"""


@requires_shared
@pytest.mark.parametrize(
    "algorithm, stack, buffer",
    [("nivreeager", "Stack", "Input"), ("covnonproj", "Left", "Right"), ("stacklazy", "Stack", "Lookahead"),
     ("2planar", "ActiveStack", "Input")],
)  # fmt: skip
def test_every_function_with_several_uses_gives_each_features_own_value(algorithm, stack, buffer):
    # each value where the extractor puts it: the same as that feature's alone, on real data
    text = EVERY_FUNCTION.replace("S[", f"{stack}[").replace("I[", f"{buffer}[")
    fm = FeatureModel(parse_feature_model(text.encode(), "m.txt", algorithm), algorithm, "novalue", "m.txt",
                      learning=False)  # fmt: skip
    assert len(fm.specs) == 32
    system = SYSTEMS[algorithm]()
    seen = set()
    with read_conll(str(DATA / "conllx" / "la_perseus-ud-train.conllx")) as reader:
        for s in itertools.islice(reader, 20):
            cols, gold, c = columns_of(s), Gold(s.heads, s.labels), system.initial(len(s))
            while not system.is_terminal(c):
                values = fm.extract(c, cols)
                assert list(values) == fm.extract_slowly(c, cols)
                seen.update((k, type(v)) for k, v in enumerate(values))
                system.apply(c, *system.oracle(c, gold))
    # the data reached every kind of value: numbers (ID), pieces (Split), text, and nothing
    assert {int, tuple, str, type(None)} <= {kind for _, kind in seen}


# Every function and address with a fast form (functions.compile_plan), several uses of each; S and I
# stand for a family's base addresses, and B for the ones only some families have.
FAST_FUNCTIONS = """
InputColumn(POSTAG, S[0])
InputColumn(FORM, I[0])
InputColumn(LEMMA, I[1])
InputColumn(CPOSTAG, S[1])
InputColumn(POSTAG, B)
InputColumn(FORM, head(ldep(S[0])))
InputColumn(POSTAG, pred(I[0]))
InputColumn(POSTAG, succ(S[2]))
OutputColumn(DEPREL, S[0])
OutputColumn(DEPREL, rdep(S[1]))
OutputColumn(DEPREL, rdep2(S[1]))
OutputColumn(DEPREL, ldep(I[0]))
OutputColumn(DEPREL, head(S[0]))
OutputArc(HEAD, S[0], S[1])
OutputArc(HEAD, S[0], I[0])
Merge(InputColumn(POSTAG, S[0]), OutputColumn(DEPREL, ldep(S[0])))
Merge(Merge(InputColumn(POSTAG, S[0]), InputColumn(POSTAG, S[3])), InputColumn(FORM, I[0]))
Merge3(OutputColumn(DEPREL, S[0]), InputColumn(LEMMA, S[3]), Merge(InputColumn(FORM, S[4]), InputColumn(FORM, S[3])))
Merge3(InputColumn(POSTAG, S[1]), InputColumn(POSTAG, S[0]), InputColumn(POSTAG, I[0]))
"""


@requires_shared
@pytest.mark.parametrize(
    "algorithm, stack, buffer, other",
    [("nivreeager", "Stack", "Input", "Input[3]"), ("covnonproj", "Left", "Right", "LeftContext[0]"),
     ("covproj", "Left", "Right", "RightContext[1]"), ("stacklazy", "Stack", "Lookahead", "Input[0]"),
     ("2planar", "ActiveStack", "Input", "InactiveStack[0]")],
)  # fmt: skip
@pytest.mark.parametrize("null_value", ["one", "novalue"])
def test_the_fast_form_gives_the_definitions_values_and_columns(algorithm, stack, buffer, other, null_value):
    # On real data, at every configuration of the oracle, with pseudo-projective labels (whose
    # DEPREL the features read): the Plan's values are the definitions', and its columns those
    # a classifier's tables give those values, whichever features the classifier reads.
    text = FAST_FUNCTIONS.replace("S[", f"{stack}[").replace("I[", f"{buffer}[").replace("B)", f"{other})")
    encoding = pseudoproj.Encoding("head+path")
    fm = FeatureModel(parse_feature_model(text.encode(), "m.txt", algorithm), algorithm, null_value, "m.txt",
                      pseudoproj.DeprelOf(encoding), learning=False)  # fmt: skip
    assert fm.plan is not None and len(fm.specs) == 19
    slow = compile_extractor(Layout.of([s.feature for s in fm.specs]), fm.setting)
    system = SYSTEMS[algorithm]()
    every: list[tuple] = []
    configurations = []
    with read_conll(str(DATA / "conllx" / "la_perseus-ud-train.conllx")) as reader:
        for s in itertools.islice(reader, 15):
            lifted = pseudoproj.projectivize(s.heads, s.labels, encoding)
            cols, gold, c = columns_of(s), Gold(lifted.heads, lifted.labels), system.initial(len(s))
            while not system.is_terminal(c):
                values = fm.plan.values(c, cols)
                assert values == slow(c, cols) and list(values) == fm.extract_slowly(c, cols)
                every.append(values)
                configurations.append((copy.deepcopy(c), cols))
                system.apply(c, *system.oracle(c, gold))
    # the arcs carried labels with marks, whose DEPREL the features read
    assert any(label != fm.deprel_of[label] for c, _ in configurations for label in c.arcs.labels if label)
    for positions in (list(range(len(fm.specs))), [0, 4, 9, 15, 18, 2]):
        fmap = FeatureMap(positions)
        for row in every[::2]:  # the tables of the values of every other configuration
            for p, table in zip(positions, fmap.tables):
                if row[p] is not None:
                    table.setdefault(row[p], len(table) + 1000 * p)
        for (c, cols), values in zip(configurations, every):
            assert fm.plan.columns(c, cols, fmap.tables, fmap.picks) == fmap.columns_of(values)


@requires_shared
def test_the_fast_form_of_a_model_wider_than_its_stack_buffers():
    # more nodes and values than the Plan keeps on the C stack (128): its buffers on the heap
    lines = [f"InputColumn(POSTAG, Right[{i}])" for i in range(160)]
    lines += [f"Merge(InputColumn(FORM, Left[{i}]), InputColumn(POSTAG, Right[{i}]))" for i in range(100)]
    fm = FeatureModel(parse_feature_model("\n".join(lines).encode(), "m.txt", "covnonproj"), "covnonproj", "one",
                      "m.txt", learning=False)  # fmt: skip
    layout = Layout.of([s.feature for s in fm.specs])
    assert fm.plan is not None and len(layout.nodes.places) > 128 and len(layout.outputs) > 128
    slow = compile_extractor(layout, fm.setting)
    system = SYSTEMS["covnonproj"]()
    with read_conll(str(DATA / "conllx" / "en_lines-ud-test.conllx")) as reader:
        for s in itertools.islice(reader, 5):
            cols, gold, c = columns_of(s), Gold(s.heads, s.labels), system.initial(len(s))
            while not system.is_terminal(c):
                assert fm.plan.values(c, cols) == slow(c, cols)
                system.apply(c, *system.oracle(c, gold))


def test_every_default_model_has_a_fast_form():
    for algorithm, learner, data_format in itertools.product(SYSTEMS, ("liblinear", "libsvm"), ("conllx", "conllu")):
        assert load_feature_model(None, algorithm, learner, data_format, "one").plan is not None, algorithm


def test_a_model_a_fast_form_does_not_cover_takes_the_definitions():
    fm = model("InputColumn(POSTAG, Stack[0])\nSuffix(InputColumn(FORM, Input[0]), 2)\n")
    assert fm.plan is None and compile_plan(Layout.of([s.feature for s in fm.specs]), fm.setting) is None
    assert model("InputColumn(POSTAG, lsib(Stack[0]))\n").plan is None
    assert model("InputColumn(ID, Stack[0])\n").plan is None


def test_each_function_of_the_grammar_has_one_definition():
    # one table from name to definition: every name the grammar reads is defined, nothing else
    assert set(FEATURE_FUNCTIONS) == set(spec.SIGNATURES)
    assert set(ADDRESS_FUNCTIONS) == set(spec.ALL_BASES) | set(spec.GRAPH_ADDRESSES)


def test_a_merge_inside_a_merge_is_null_where_alone_it_is_nothing():
    # The extractor computes a part shared by several features once; a Merge of nulls is a null
    # inside another Merge but nothing (None) on its own, so the two are different values.
    fm = model(
        "Merge(InputColumn(POSTAG, Stack[1]), InputColumn(POSTAG, Input[9]))\n"
        "Merge(Merge(InputColumn(POSTAG, Stack[1]), InputColumn(POSTAG, Input[9])), InputColumn(FORM, Input[0]))\n"
        "Merge3(InputColumn(POSTAG, Stack[0]), InputColumn(POSTAG, Input[0]), InputColumn(FORM, Input[0]))\n"
        "InputColumn(FORM, Input[0])"
    )
    c = system_for(load_config(None, {})).initial(2)
    columns = [[None, "1", "2"], [None, "The", "dog"], [None, "_", "_"], [None, "DET", "NOUN"],
               [None, "DT", "NN"]] + [[None, "_", "_"]] * 5  # fmt: skip
    assert [s.text for s in fm.specs] == [
        "InputColumn(FORM,Input[0])",
        "Merge(InputColumn(POSTAG,Stack[1]),InputColumn(POSTAG,Input[9]))",
        "Merge(Merge(InputColumn(POSTAG,Stack[1]),InputColumn(POSTAG,Input[9])),InputColumn(FORM,Input[0]))",
        "Merge3(InputColumn(POSTAG,Stack[0]),InputColumn(POSTAG,Input[0]),InputColumn(FORM,Input[0]))",
    ]
    expected = ("The", None, f"{NULL}~The", f"{NULL}~DT~The")
    assert fm.extract(c, columns) == expected
    assert tuple(fm.extract_slowly(c, columns)) == expected


@requires_shared
def test_instances_are_maltparsers_instances():
    # ../shared/reference/timbl holds the instances MaltParser 1.9.2 wrote (-li) for arc-eager with
    # its LIBSVM feature model on la_perseus-ud-train: its symbol codes, features in its order,
    # the class code last. Coding our values the same way must give the same lines.
    fm = load_feature_model(None, "nivreeager", "libsvm", "conllx", "one")
    system = system_for(load_config(None, {("guide", "learner"): "libsvm"}))
    tables = {"FORM": {NULL: 0}, "POSTAG": {NULL: 0}, "DEPREL": {NULL: 0, "ROOT": 1}}  # codes by first appearance
    classes = {"RE": 1}
    columns = [
        ("DEPREL" if s.text.startswith("OutputColumn") else "FORM" if "FORM" in s.text else "POSTAG") for s in fm.specs
    ]
    ours = []
    with read_conll(str(DATA / "conllx" / "la_perseus-ud-train.conllx")) as reader:
        for s in reader:
            for w in s.words:
                for name, table in tables.items():
                    table.setdefault(w[COLUMNS[name]], len(table))
            cols, gold, c = columns_of(s), Gold(s.heads, s.labels), system.initial(len(s))
            while not system.is_terminal(c):
                name, label = system.oracle(c, gold)
                codes = [f"f{tables[col][v]}" for col, v in zip(columns, fm.extract(c, cols))]
                number = classes.setdefault(name if name not in (LA, RA) else f"{name}~{label}", len(classes) + 1)
                ours.append(" ".join(codes) + f" {number}")
                system.apply(c, name, label)
    reference = SHARED / "reference" / "timbl"
    theirs = (reference / "la_perseus-nivreeager.train.col").read_text().splitlines()
    theirs += (reference / "la_perseus-nivreeager.test.col").read_text().splitlines()
    assert len(ours) == len(theirs) == 31377
    assert ours == theirs


def test_configs_name_features_relative_to_themselves(tmp_path):
    (tmp_path / "m.txt").write_text("InputColumn(POSTAG, Stack[0])\n")
    (tmp_path / "c.yaml").write_text("guide:\n  features: m.txt\n")
    config = load_config(str(tmp_path / "c.yaml"))
    assert Path(config.guide.features) == tmp_path / "m.txt"
    assert (ROOT / "feature_models" / "liblinear" / "conllx" / "nivreeager.txt").exists()


# --- hostile feature models ------------------------------------------------------------------------


@pytest.mark.parametrize("delimiter", ["[^!]*[^!]*[^!]*!", "|", "\\s", ".", "a+", "(x)"])
def test_a_split_delimiter_is_a_literal_string(delimiter):
    # MaltParser hands the delimiter to Java's regular expressions; a literal is all its feature
    # files use, and a regular expression from a model archive could make every split take seconds.
    with pytest.raises(MaltpyError, match="Split: delimiter"):
        parse_feature_model(f"Split(InputColumn(FEATS, Stack[0]), {delimiter})".encode(), "f.txt", "nivreeager")


def test_an_escaped_delimiter_splits_on_the_character():
    fm = FeatureModel(parse_feature_model(b"Split(InputColumn(FEATS, Input[0]), \\.)", "f.txt", "nivreeager"),
                      "nivreeager", "one", "f.txt")  # fmt: skip
    system = system_for(load_config(None, {}))
    c = system.initial(1)
    columns = [[None, "_"], [None, "w"], [None, "_"], [None, "_"], [None, "_"], [None, "b.a.b"]]
    assert fm.extract_slowly(c, columns)[0] == ("b", "a")  # learning: in order of first appearance


def test_a_deep_or_endless_feature_model_is_one_line_error(tmp_path):
    from conftest import EXAMPLE, assert_one_line_error, run_maltpy

    deep = tmp_path / "deep.txt"
    deep.write_text("Merge(" * 10_000 + "InputColumn(POSTAG, Stack[0])" + ", InputColumn(POSTAG, Stack[0]))" * 10_000)
    train = EXAMPLE / "en-train.conllu"
    err = assert_one_line_error(
        run_maltpy("learn", "-i", train, "-m", tmp_path / "m.mpm", "-F", deep), f"{deep}:1: bad feature"
    )
    assert "nested more than" in err and len(err) < 400
    assert_one_line_error(run_maltpy("learn", "-i", train, "-m", tmp_path / "m.mpm", "-F", "/dev/zero"),
                          "/dev/zero: the feature model file is larger than")  # fmt: skip
    assert not (tmp_path / "m.mpm").exists()


def test_split_pieces_come_in_order_of_first_appearance_when_learning():
    # MaltParser codes a Split value's pieces in its table SPLIT_<column>, shared by the Split
    # features of that column, by first appearance, and keeps them by code (a TreeMap): the
    # order numbers the classifier's columns. Alphabetical order (maltpy's before) differs.
    text = b"Split(InputColumn(FEATS, Input[0]), \\|)\nSplit(InputColumn(FEATS, Input[1]), \\|)"
    specs = parse_feature_model(text, "f.txt", "nivreeager")
    learning = FeatureModel(specs, "nivreeager", "one", "f.txt")
    system = system_for(load_config(None, {}))
    c = system.initial(2)
    columns = [[None, "_", "_"]] * 5 + [[None, "Z=1|A=1", "M=1|Z=1|B=1"]] + [[None, "_", "_"]] * 4
    assert learning.extract(c, columns) == (("Z=1", "A=1"), ("Z=1", "M=1", "B=1"))
    assert learning.extract_slowly(c, columns) == [("Z=1", "A=1"), ("Z=1", "M=1", "B=1")]
    parsing = FeatureModel(specs, "nivreeager", "one", "f.txt", learning=False)  # no table kept
    assert parsing.extract(c, columns) == (("A=1", "Z=1"), ("B=1", "M=1", "Z=1")) and parsing.split_codes is None


HUGE = "9" * 5000  # more digits than Python turns into an int by default
DEEP = "head(" * 1000 + "Stack[0]" + ")" * 1000


@pytest.mark.parametrize("text, message", [
    ("InputColumn(POSTAG, Input[99999999999999999999999])", "Input[...]: 99999999999999999999... is larger than"),
    (f"InputColumn(POSTAG, Stack[{HUGE}])", "is larger than 2147483647"),
    ("InputColumn(POSTAG, Stack[2147483648])", "Stack[...]: 2147483648 is larger than 2147483647"),
    (f"InputColumn(POSTAG, {DEEP})", "address functions nested more than 32 deep"),
    (f"OutputColumn(DEPREL, ldep({DEEP}))", "address functions nested more than 32 deep"),
    (f"Distance(Stack[0], {DEEP}, 0|1)", "address functions nested more than 32 deep"),
    (f"Suffix(InputColumn(FORM, Stack[0]), {HUGE})", "Suffix: 99999999999999999999... is larger than"),
    (f"Distance(Stack[0], Input[0], 0|1|{HUGE})", "Distance: a bin: 99999999999999999999... is larger than"),
    ("NumOf(Stack[0], ldeps, 0|5|99999999999999999999999)", "NumOf: a bin"),
])  # fmt: skip
@pytest.mark.parametrize("container", ["text", "xml"])
def test_an_index_or_nesting_beyond_its_bound_is_a_bad_feature(tmp_path, text, message, container):
    data = f"InputColumn(FORM, Stack[0])\n{text}\n"
    if container == "xml":
        data = "<featuremodels><featuremodel><feature>InputColumn(FORM, Stack[0])</feature>\n"
        data += f"<feature>{text}</feature>\n</featuremodel></featuremodels>\n"
    path = tmp_path / f"f.{container}"
    path.write_text(data)
    with pytest.raises(MaltpyError) as caught:
        read_feature_model(str(path), "nivreeager")
    assert (caught.value.file, caught.value.line) == (str(path), 2)
    assert message in caught.value.message and len(str(caught.value)) < 1000


def test_the_largest_index_and_leading_zeros_are_read():
    fm = model("InputColumn(POSTAG, Input[2147483647])\nDistance(Stack[0], Input[0], 0|" + "0" * 5000 + "1|2)")
    assert [s.feature.args[-1] for s in fm.specs] == ["0|1|2", parse_feature("InputColumn(POSTAG, Input[2147483647])")
                                                      .args[-1]]  # fmt: skip


def test_learn_and_config_refuse_a_huge_index_or_deep_address_in_one_line(tmp_path):
    # by main in this process: a process's status and stderr (learn's refusals of a feature file
    # run as processes in test_a_deep_or_endless_feature_model_is_one_line_error)
    from conftest import EXAMPLE, assert_one_line_error, run_in_process

    for i, text in enumerate([f"InputColumn(POSTAG, Input[{HUGE}])", f"InputColumn(POSTAG, {DEEP})"]):
        features = tmp_path / f"f{i}.txt"
        features.write_text(f"InputColumn(FORM, Stack[0])\n{text}\n")
        learned = run_in_process("learn", "-i", EXAMPLE / "en-train.conllu", "-m", tmp_path / "m.mpm", "-F", features)
        assert_one_line_error(learned, f"{features}:2: bad feature")
        assert_one_line_error(run_in_process("config", "-F", features), f"{features}:2: bad feature")
    assert not (tmp_path / "m.mpm").exists()


def test_a_feature_on_a_column_the_treebanks_format_lacks_is_refused_at_learn_time(tmp_path):
    """CoNLL-X's 9th and 10th columns are PHEAD and PDEPREL, CoNLL-U's DEPS and MISC: a feature
    naming the other format's would read the values of a column it does not name. The refusals
    by main in this process (a process's status and stderr), the model's by processes."""
    from conftest import EXAMPLE, assert_one_line_error, run_in_process, run_maltpy

    conllu, conllx = EXAMPLE / "en-train.conllu", tmp_path / "en-train.conllx"
    assert run_in_process("convert", "-i", conllu, "-o", conllx, "--to", "conllx").returncode == 0
    for feature, treebank, message in [
        ("InputColumn(MISC, Input[0])", conllx, "MISC is a column of CoNLL-U; CoNLL-X's column 10 is PDEPREL"),
        ("Merge(InputColumn(POSTAG, Stack[0]), InputColumn(DEPS, Input[0]))", conllx, "DEPS is a column of CoNLL-U"),
        ("InputColumn(PHEAD, Stack[0])", conllu, "PHEAD is a column of CoNLL-X; CoNLL-U's column 9 is DEPS"),
        ("InputArc(PHEAD, Stack[0], Input[0])", conllu, "PHEAD is a column of CoNLL-X"),
        ("Split(InputColumn(PDEPREL, Stack[0]), \\|)", conllu, "PDEPREL is a column of CoNLL-X; CoNLL-U's column 10"),
    ]:
        features = tmp_path / "f.txt"
        features.write_text(f"InputColumn(POSTAG, Stack[0])\n{feature}\n")
        err = assert_one_line_error(run_in_process("learn", "-i", treebank, "-m", tmp_path / "m.mpm", "-F", features),
                                    f"{features}:2: bad feature")  # fmt: skip
        assert message in err, err
        fmt = "conllx" if treebank == conllx else "conllu"
        assert message in assert_one_line_error(run_in_process("config", "-F", features, "-if", fmt), f"{features}:2:")
        assert run_in_process("config", "-F", features).returncode == 0  # no format given: none to check against
    assert not (tmp_path / "m.mpm").exists()
    # PHEAD of CoNLL-X is learned from; the model refuses CoNLL-U input, whose 9th column is DEPS
    features.write_text("InputColumn(POSTAG, Stack[0])\nInputColumn(PHEAD, Input[0])\n")
    assert run_maltpy("learn", "-q", "-i", conllx, "-m", tmp_path / "m.mpm", "-F", features).returncode == 0
    assert run_maltpy("parse", "-m", tmp_path / "m.mpm", "-i", conllx).returncode == 0
    test = EXAMPLE / "en-test.conllu"
    for result, name in [(run_maltpy("parse", "-m", tmp_path / "m.mpm", "-i", test), test),
                         (run_maltpy("parse", "-m", tmp_path / "m.mpm", "--jobs", "2", input=test.read_bytes()),
                          "<stdin>")]:  # fmt: skip
        err = assert_one_line_error(result, f"{name}: the model's feature InputColumn(PHEAD,Input[0]) cannot read")
        assert "PHEAD is a column of CoNLL-X; CoNLL-U's column 9 is DEPS" in err
