"""The arrays form of learning and parsing (maltpy.models.batch) against the per-sentence definitions.

Every case learns a model on real sentences (the first 250 of a treebank: the two paths meet
the same configurations on any real text) twice, with the oracle replayed in arrays and
configuration by configuration (``--save-instances`` takes that path), and wants the same model
archive; then parses a real test set once with the batch form and once configuration by
configuration (transition.nivre and features.functions), and wants the same trees.
"""

from __future__ import annotations

import dataclasses
import io
import itertools
import json
import random
import zipfile
from pathlib import Path

import numpy as np
import pytest
from conftest import DATA, EN_LINES_UD, first_sentences, long_sentence, requires_shared, run_maltpy

from maltpy.api import learn
from maltpy.config import FLAGS, load_config
from maltpy.data.conll import ConllReader, format_sentence
from maltpy.files import read_conll
from maltpy.models.batch import BatchParser
from maltpy.models.learn import learn as learn_model
from maltpy.models.parser import Model
from maltpy.transition import SYSTEMS
from maltpy.transition.arrays import Configurations, arrays_form, form_of
from maltpy.transition.base import LA, RA, Gold, find
from maltpy.transition.covington import CovingtonNonProjective, CovingtonProjective
from maltpy.transition.nivre import NivreEager, NivreStandard

TRAIN = DATA / "conllx" / "da_ddt-ud-dev.conllx"
TEST = DATA / "conllx" / "da_ddt-ud-test.conllx"
SENTENCES = 250  # of each: every case's data split still makes 9 to 12 classifiers

# A model reading every address and value the batch form covers: graph addresses in chains,
# pred and succ, labels of arcs, and Merges of input and output values.
WIDE_MODEL = """\
InputColumn(POSTAG, Stack[0])
InputColumn(POSTAG, Input[0])
InputColumn(CPOSTAG, Input[1])
InputColumn(POSTAG, Stack[2])
InputColumn(FORM, head(head(Stack[0])))
InputColumn(LEMMA, pred(Input[0]))
InputColumn(POSTAG, succ(Stack[0]))
InputColumn(FEATS, rdep(ldep(Stack[0])))
OutputColumn(DEPREL, head(Stack[0]))
OutputColumn(DEPREL, rdep(Stack[1]))
OutputColumn(DEPREL, rdep2(Stack[0]))
Merge(InputColumn(POSTAG, Stack[0]), OutputColumn(DEPREL, ldep(Input[0])))
Merge3(OutputColumn(DEPREL, Stack[0]), InputColumn(FORM, Input[0]), InputColumn(POSTAG, pred(Stack[0])))
"""

# The same for Covington's systems: their base addresses, the words between Left[0] and Right[0],
# and graph addresses over them.
WIDE_COVINGTON_MODEL = """\
InputColumn(POSTAG, Left[0])
InputColumn(POSTAG, Right[0])
InputColumn(CPOSTAG, Left[2])
InputColumn(POSTAG, Right[3])
InputColumn(POSTAG, LeftContext[0])
InputColumn(FORM, LeftContext[1])
InputColumn(POSTAG, RightContext[0])
InputColumn(LEMMA, RightContext[2])
InputColumn(FORM, head(head(Left[0])))
InputColumn(POSTAG, pred(Right[0]))
InputColumn(POSTAG, succ(Left[0]))
InputColumn(FEATS, rdep(ldep(Right[0])))
OutputColumn(DEPREL, Left[0])
OutputColumn(DEPREL, rdep(Left[1]))
InputColumn(POSTAG, rdep2(Left[0]))
OutputColumn(DEPREL, head(LeftContext[0]))
Merge(InputColumn(POSTAG, Left[0]), OutputColumn(DEPREL, ldep(Right[0])))
Merge3(OutputColumn(DEPREL, Left[0]), InputColumn(FORM, Right[0]), InputColumn(POSTAG, RightContext[0]))
"""


def parse_both_ways(model_path, test_bytes: bytes) -> tuple[str, str]:
    batch = Model.load(model_path)
    assert batch._batch is not None, "the batch form should cover this model"
    batch.narrow_rows = 0  # every sentence to its end in arrays
    one_by_one = Model.load(model_path)
    one_by_one._batch = None
    texts = []
    for model in (batch, one_by_one):
        reader = ConllReader(io.BytesIO(test_bytes), "test", blind=True)
        texts.append("".join(format_sentence(s) for s in model.parse(reader)))
    return texts[0], texts[1]


def assert_same_models(a, b) -> None:
    """The same archive but for the learning times."""
    with zipfile.ZipFile(a) as za, zipfile.ZipFile(b) as zb:
        assert za.namelist() == zb.namelist()
        for name in za.namelist():
            if name != "manifest.json":
                assert za.read(name) == zb.read(name), name
        ma, mb = (json.loads(z.read("manifest.json")) for z in (za, zb))
    for m in (ma, mb):
        for key in [key for key in m["training"] if key.startswith("seconds_")]:  # features, training, taggers
            m["training"].pop(key)
    assert ma == mb


CASES = {
    "arc-eager": ["-a", "nivreeager"],
    "arc-standard": ["-a", "nivrestandard"],
    "arc-eager without root arcs, reduce allowed": ["-a", "nivreeager", "-nr", "false", "-ne", "true"],
    "arc-standard without root arcs": ["-a", "nivrestandard", "-nr", "false"],
    "pseudo-projective head+path": ["-a", "nivreeager", "-pp", "head+path", "-pcr", "left"],
    "data split": ["-a", "nivreeager", "-d", "POSTAG", "-s", "Input[0]", "-T", "200"],
    "data split on the stack": ["-a", "nivrestandard", "-d", "CPOSTAG", "-s", "Stack[0]", "-T", "300"],
    "wide model, null value none": ["-a", "nivreeager", "-F", "WIDE", "-nv", "none"],
    "wide model, null value novalue": ["-a", "nivrestandard", "-F", "WIDE", "-nv", "novalue"],
    # Covington's systems learn configuration by configuration both ways (the arrays form parses)
    "covnonproj right to left, the root read last (a blend's member)": ["-a", "covnonproj", "-pd", "right-to-left"],
    "covnonproj without root arcs, with SHIFT, wide model": [
        "-a",
        "covnonproj",
        "-cr",
        "false",
        "-cs",
        "true",
        "-F",
        "WIDE_COVINGTON",
    ],
    "covproj with SHIFT, wide model, data split": [
        "-a",
        "covproj",
        "-cs",
        "true",
        "-F",
        "WIDE_COVINGTON",
        "-d",
        "POSTAG",
        "-s",
        "Right[0]",
        "-T",
        "300",
    ],
}


@requires_shared
@pytest.mark.parametrize("options", CASES.values(), ids=CASES.keys())
def test_the_batch_form_parses_as_the_definitions_do(tmp_path, options):
    wide = {"WIDE": WIDE_MODEL, "WIDE_COVINGTON": WIDE_COVINGTON_MODEL}
    for name, text in wide.items():
        (tmp_path / f"{name}.txt").write_text(text)
    options = [str(tmp_path / f"{o}.txt") if o in wide else o for o in options]
    # the command line's flags, learned in this process (two maltpy processes a case cost more)
    config = load_config(None, {FLAGS[f.removeprefix("-")]: v for f, v in zip(options[::2], options[1::2])})
    train, test = tmp_path / "train.conllx", first_sentences(TEST, SENTENCES)
    train.write_text(first_sentences(TRAIN, SENTENCES), encoding="utf-8")
    model, slow = tmp_path / "m.mpm", tmp_path / "slow.mpm"
    for path, save_instances in ((model, None), (slow, str(tmp_path))):
        with read_conll(str(train)) as reader:
            learn_model(config, reader, reader.format, reader.name, save_instances=save_instances).save(path)
    assert_same_models(model, slow)
    if "-d" in options:  # the split is used
        assert len(Model.load(model).describe()["classifiers"]) > 5
    batch, one_by_one = parse_both_ways(model, test.encode("utf-8"))
    assert batch == one_by_one
    assert batch.count("\n\n") == SENTENCES


@requires_shared
def test_merged_values_holding_the_separator(tmp_path):
    # Values with "~" make a Merge's text ambiguous ("A~B" + "C" = "A" + "B~C"): the batch form
    # must find a column exactly when the joined text is a key, as the text look-up does.
    def tilde(text: str) -> str:
        lines = []
        for n, line in enumerate(text.splitlines()):
            cols = line.split("\t")
            if len(cols) == 10 and n % 3 == 0:
                cols[4] = cols[4] + "~" + cols[3] if n % 2 else "~" + cols[4]
            lines.append("\t".join(cols))
        return "\n".join(lines) + "\n"

    train, test = tmp_path / "train.conll", tmp_path / "test.conll"
    train.write_text(tilde(first_sentences(TRAIN, SENTENCES)))
    test.write_text(tilde(first_sentences(TEST, SENTENCES)))
    model = tmp_path / "m.mpm"
    result = run_maltpy("learn", "-q", "-a", "nivreeager", "-l", "liblinear", "-tc", "none", "-i", train, "-m", model)
    assert result.returncode == 0, result.stderr.decode()
    batch, one_by_one = parse_both_ways(model, test.read_bytes())
    assert batch == one_by_one


@requires_shared
@pytest.mark.filterwarnings("ignore::maltpy.MaltpyWarning")  # an English model given Danish: rightly warned
def test_libsvm_through_the_batch_form(tmp_path):
    train = DATA / "conllx" / "en_partut-ud-test.conllx"
    model = tmp_path / "m.mpm"
    result = run_maltpy("learn", "-q", "-a", "nivreeager", "-l", "libsvm", "-tc", "none", "-i", train, "-m", model)
    assert result.returncode == 0, result.stderr.decode()
    batch, one_by_one = parse_both_ways(model, first_sentences(TEST, SENTENCES).encode("utf-8"))
    assert batch == one_by_one


LATIN = DATA / "ud" / "UD_Latin-Perseus"
EAGER, STANDARD = ["-a", "nivreeager"], ["-a", "nivrestandard"]
TREE_CASES = {
    "tree constraint (-nt)": (EAGER, True, "false"),
    "one root": (EAGER, False, "true"),
    "one root and -nt": (EAGER, True, "true"),
    "one root without root arcs, reduce allowed": (EAGER + ["-nr", "false", "-ne", "true"], False, "true"),
    "arc-standard, one root": (STANDARD, False, "true"),
    "arc-standard, one root without root arcs": (STANDARD + ["-nr", "false"], False, "true"),
}


@pytest.fixture(scope="module")
def latin_models(tmp_path_factory):
    """Models of la_perseus learned with given options, each learned once (-nt and -gsr are
    parse-time settings): on the first 600 training sentences, which leave even more words
    without a head than the whole treebank does."""
    folder, models = tmp_path_factory.mktemp("latin"), {}
    train = folder / "train.conllu"
    train.write_text("\n\n".join((LATIN / "la_perseus-ud-train.conllu").read_text().split("\n\n")[:600]) + "\n\n")

    def model(options: list[str]) -> Path:
        path = models.get(tuple(options))
        if path is None:
            path = models[tuple(options)] = folder / f"m{len(models)}.mpm"
            result = run_maltpy("learn", "-q", "-P", "maltparser", "-l", "liblinear", "-tc", "none", "-i", train,
                                "-m", path, *options)  # fmt: skip
            assert result.returncode == 0, result.stderr.decode()
        return path

    return model


@requires_shared
@pytest.mark.parametrize("case", TREE_CASES.values(), ids=TREE_CASES.keys())
def test_the_batch_form_keeps_the_tree_constraints_as_the_definitions_do(latin_models, case):
    # la_perseus leaves many words without a head (391 sentences with several roots without
    # the constraints), so the end phase's UNSHIFT and the root's one dependent act often: its
    # first 450 test sentences are enough.
    options, enforce_tree, single_root = case
    model_path = latin_models(options)
    test = first_sentences(LATIN / "la_perseus-ud-test.conllu", 450).encode("utf-8")
    one_root = single_root == "true"
    trees, texts = [], []
    # arrays alone, arrays leaving the last 16 unfinished sentences to the definitions (the
    # default) or the last 200 (in the middle of many), and the definitions alone
    for narrow in (0, 16, 200, None):
        model = Model.load(model_path)
        model.set_enforce_tree(enforce_tree)
        model.set_single_root(single_root)
        assert model._batch is not None
        if narrow is None:
            model._batch = None
        else:
            model.narrow_rows = narrow
        sentences = list(ConllReader(io.BytesIO(test), "test", blind=True))
        trees.append(model._trees(sentences, one_root))  # as the transitions leave them
        texts.append("".join(format_sentence(s) for s in model.parse(sentences)))
    assert trees[0] == trees[1] == trees[2] == trees[3]
    assert texts[0] == texts[1] == texts[2] == texts[3]
    leftovers = sum(labels.count("ROOT") for _, labels in trees[0])  # words the transitions left
    several = sum(heads.count(0) > 1 for heads, _ in trees[0])  # sentences with several roots
    if "-ne" in options:  # REDUCE of a word without a head leaves it for the final step
        assert leftovers > 0
    else:
        assert leftovers == 0
        # -nt alone lets the root take several dependents (159 sentences of the whole test set); one root, one
        assert several == 0 if one_root else several > 0
    for s in texts[0].split("\n\n")[:-1]:
        words = [line.split("\t") for line in s.split("\n") if line[:1].isdigit()]
        assert [w[6] for w in words].count("0") == 1 or not one_root


def en_lines_test() -> list:
    with open(EN_LINES_UD / "en_lines-ud-test.conllu", "rb") as f:
        return list(ConllReader(f, "test"))


@requires_shared
@pytest.mark.parametrize("narrow", [0, 16, 300])
def test_the_sentences_the_arrays_form_leaves_parse_on_as_they_would(en_lines_model, narrow):
    # A 600-token sentence among ordinary ones: the arrays form hands the unfinished sentences
    # over to the definitions once fewer than ``narrow`` are left (never with 0, in the middle
    # of the long one with 16, of many with 300), with every arc, label and the end phase's state.
    test = en_lines_test()
    sentences = test[:200] + [long_sentence(test, 600)] + test[200:300]
    model = Model.load(en_lines_model)
    model.narrow_rows = narrow
    one_by_one = Model.load(en_lines_model)
    one_by_one._batch = None
    for one_root in (False, True):
        assert model._trees(sentences, one_root) == one_by_one._trees(sentences, one_root)


@pytest.fixture(scope="module")
def covington_model(tmp_path_factory) -> Path:
    """A covnonproj model of the first 300 sentences of en_lines' training set."""
    folder = tmp_path_factory.mktemp("covington")
    train, path = folder / "train.conllu", folder / "cov.mpm"
    train.write_text(first_sentences(EN_LINES_UD / "en_lines-ud-train.conllu", 300))
    learn(train, algorithm="covnonproj").save(path)
    return path


@requires_shared
def test_covington_sentences_the_arrays_form_leaves_parse_on_as_they_would(covington_model):
    # As above for Covington's arrays form, whose configurations go over with i, j and the
    # components of their partial graphs: with a 150-token sentence (thousands of transitions)
    # among ordinary ones, arrays alone, handing over in the middle of the long one (16) and of
    # many (300), and the definitions alone.
    test = en_lines_test()
    sentences = test[:200] + [long_sentence(test, 150)] + test[200:300]
    trees = []
    for rows in (0, 16, 300, None):
        model = Model.load(covington_model)
        assert model._batch is not None
        if rows is None:
            model._batch = None
        else:
            model.narrow_rows = rows
        trees.append(model._trees(sentences, False))
    assert trees[0] == trees[1] == trees[2] == trees[3]


@requires_shared
def test_a_sentence_of_10000_tokens_parses_as_the_definitions_parse_it(en_lines_model, tmp_path, monkeypatch):
    # In a file with the test set, the arrays form takes the long sentence's first steps in lock
    # step with the others and leaves it to the definitions when they are done (a step in arrays
    # for it alone would cost as much as for the whole batch): the same parse, one root included.
    test = en_lines_test()
    long = long_sentence(test, 10_000)
    assert len(long) >= 10_000
    text = "".join(format_sentence(s) for s in [*test, long]).encode("utf-8")
    steps = []
    step = BatchParser._step
    monkeypatch.setattr(BatchParser, "_step", lambda self, rows: steps.append(len(rows)) or step(self, rows))
    texts = []
    for batch_form in (True, False):
        model = Model.load(en_lines_model)
        if not batch_form:
            model._batch = None
        texts.append("".join(format_sentence(s) for s in model.parse(ConllReader(io.BytesIO(text), "long"))))
    assert texts[0] == texts[1]
    assert 0 < len(steps) < 500  # not one for each of the long sentence's transitions (20,000)
    parsed = texts[0].split("\n\n")[-2].split("\n")
    heads = [line.split("\t")[6] for line in parsed if line.split("\t")[0].isdigit()]
    assert len(heads) == len(long) and heads.count("0") == 1


@requires_shared
@pytest.mark.parametrize("algorithm", ["nivreeager", "nivrestandard"])
def test_a_long_gold_tree_learns_to_the_same_model_without_steps_alone(tmp_path, monkeypatch, algorithm):
    # A 3,000-word gold tree among ordinary ones is replayed configuration by configuration (in
    # arrays it would take most of its 6,000 steps alone), between the chunks before and after
    # it: the same model as the definitions learn, every instance in its place.
    test = en_lines_test()
    train = tmp_path / "train.conllu"
    train.write_text("".join(format_sentence(s) for s in [*test[:300], long_sentence(test, 3000), *test[300:400]]))
    model = tmp_path / "m.mpm"
    steps = []
    form = form_of(SYSTEMS[algorithm])
    oracle = form.oracle

    def counted(self, c, gold, rows):
        steps.append(len(rows))
        return oracle(self, c, gold, rows)

    monkeypatch.setattr(form, "oracle", counted)
    learn(train, algorithm=algorithm, tagger_columns="none").save(model)
    assert 0 < len(steps) < 600  # the ordinary sentences' steps: the longest has 87 words
    slow = tmp_path / "slow.mpm"
    result = run_maltpy("learn", "-q", "-a", algorithm, "-tc", "none", "-i", train, "-m", slow, "--save-instances",
                        tmp_path)  # fmt: skip
    assert result.returncode == 0, result.stderr.decode()
    assert_same_models(model, slow)


# The rules of Nivre's and Covington's systems are written once (transition.nivre, transition.covington)
# and carried out by two forms, each on its own data: both forms, moved alike, must agree at every step.
FORMS = {
    "arc-eager": NivreEager(),
    "arc-eager without root arcs, reduce allowed": NivreEager(allow_root=False, allow_reduce=True),
    "arc-eager with the tree constraint and one root": NivreEager(enforce_tree=True, one_root=True),
    "arc-standard": NivreStandard(),
    "arc-standard without root arcs, one root": NivreStandard(allow_root=False, one_root=True),
    "covnonproj": CovingtonNonProjective(),
    "covnonproj without root arcs, with SHIFT": CovingtonNonProjective(allow_root=False, allow_shift=True),
    "covproj with SHIFT": CovingtonProjective(allow_shift=True),
}


@requires_shared
@pytest.mark.parametrize("system", FORMS.values(), ids=FORMS.keys())
def test_both_forms_carry_out_the_rules_alike(system):
    # Real trees, each configuration moved by its oracle's transition where allowed, else by a
    # random allowed one (the end phases, the paths no oracle takes): at every step the two forms
    # hold the same configuration, allow the same moves, force the same ones and end together.
    with open(DATA / "conllx" / "la_perseus-ud-test.conllx", "rb") as f:
        golds = [(s.heads, s.labels) for s in itertools.islice(ConllReader(f, "test"), 80)]
    texts = sorted({label for _, labels in golds for label in labels[1:]})
    number = {label: k for k, label in enumerate(texts)}
    rng = random.Random(45)
    form = arrays_form(system)
    c = Configurations()
    c.start(np.array([len(heads) - 1 for heads, _ in golds], dtype=np.int64))
    form.start(c)
    ones = [system.initial(len(heads) - 1) for heads, _ in golds]
    gold = [Gold(heads, labels) for heads, labels in golds]
    active = np.arange(len(golds))
    while len(active):
        form.deterministic(c, active)
        for b in active.tolist():
            while not system.is_terminal(ones[b]) and (name := system.deterministic(ones[b])) is not None:
                system.apply(ones[b], name)
        active = form.unfinished(c, active)
        assert active.tolist() == [b for b in range(len(golds)) if not system.is_terminal(ones[b])]
        if not len(active):
            break
        ok = form.allowed(c, active)
        moves, labels = [], []
        for row, b in enumerate(active.tolist()):
            one = ones[b]
            assert same(form.configuration(c, b, texts)) == same(one)
            allowed = system.allowed(one)
            assert {name for name, k in zip(form.moves, ok[row]) if k} == set(allowed)
            name, label = system.oracle(one, gold[b])
            if name not in allowed:
                name = rng.choice(sorted(allowed))
                label = rng.choice(texts) if name in (LA, RA) else None
            system.apply(one, name, label)
            moves.append(form.moves.index(name))
            labels.append(number[label] if label is not None else -1)
        form.apply(c, active, np.array(moves), np.array(labels))
    for b, one in enumerate(ones):
        assert same(form.configuration(c, b, texts)) == same(one)


def same(configuration):
    """The configuration with a union-find forest (Covington's) as the partition it stands for:
    each node's component by its first node (the two forms' forests differ, their components not)."""
    if not hasattr(configuration, "parent"):
        return configuration
    roots = [find(list(configuration.parent), node) for node in range(len(configuration.parent))]
    first = {}
    for node, root in enumerate(roots):
        first.setdefault(root, node)
    return dataclasses.replace(configuration, parent=[first[root] for root in roots])
