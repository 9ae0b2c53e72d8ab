"""Graph-based parsing (-a mst, maltpy/graph): MSTParser 0.5's features, MIRA and decoding, on real
treebanks; the decoders themselves are tested in test_decode.py."""

from __future__ import annotations

import itertools
import subprocess
import sys

import numpy as np
import pytest
from conftest import (
    SHARED,
    _bench_script,
    assert_one_line_error,
    long_sentence,
    requires_shared,
    run_in_process,
    run_maltpy,
)

from maltpy.config import load_config
from maltpy.data.conll import format_sentence
from maltpy.data.tree import find_cycle, is_projective
from maltpy.errors import MaltpyError
from maltpy.evaluation.scores import attachment_scores
from maltpy.files import read_conll
from maltpy.graph.features import Alphabet, Atoms, atom, encode, parts_of, tree_keys
from maltpy.graph.learn import gram_matrix, hildreth, one_head_changes
from maltpy.graph.tree import Labels
from maltpy.load import load
from maltpy.models.archive import ARCHIVE_VARIABLE
from maltpy.models.learn import learn

pytestmark = requires_shared

CONLLX = SHARED / "data" / "conllx"
LINES = SHARED / "data" / "ud" / "UD_English-LinES"
TRAIN_SENTENCES = 200
TEST_SENTENCES = 300


def _sentences(path, count):
    with read_conll(str(path), "auto") as reader:
        return list(itertools.islice(reader, count))


def is_tree(heads: list[int]) -> bool:
    return all(0 <= h < len(heads) and h != d for d, h in enumerate(heads[1:], 1)) and find_cycle(heads) is None


def _scores(gold, system):
    return attachment_scores(_sentences(gold, None), _sentences(system, None), "gold", "system")


def _learn(tmp_path_factory, name: str, **options) -> tuple:
    config = load_config(None, {("singlemalt", "parsing_algorithm"): "mst",
                                **{("mst", k): str(v) for k, v in options.items()}})  # fmt: skip
    train = _sentences(LINES / "en_lines-ud-train.conllu", TRAIN_SENTENCES)
    model = learn(config, train, "conllu", "en_lines-train")
    path = tmp_path_factory.mktemp("graph") / f"{name}.mpm"
    model.save(path)
    return model, path


@pytest.fixture(scope="module")
def first_order(tmp_path_factory):
    return _learn(tmp_path_factory, "o1", iters=2)


@pytest.fixture(scope="module")
def test_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("graph") / "test.conllu"
    path.write_text("".join(format_sentence(s) for s in _sentences(LINES / "en_lines-ud-test.conllu", TEST_SENTENCES)),
                    encoding="utf-8")  # fmt: skip
    return path


def test_first_order_parses_trees_near_mstparsers_accuracy(first_order, test_file, tmp_path):
    model, path = first_order
    out = tmp_path / "out.conllu"
    load(path).parse_file(test_file, out)
    sentences = _sentences(out, None)
    assert len(sentences) == TEST_SENTENCES
    for s in sentences:
        assert is_tree(s.heads)
        assert sum(h == 0 for h in s.heads[1:]) == 1  # CoNLL-U: one root
    scores = _scores(test_file, out)
    # 200 sentences and 2 passes: MSTParser's full en_lines model scores far higher; this one
    # still parses most words right
    assert scores.uas > 70 and scores.las > 60


def test_every_entry_point_gives_the_same_parse(first_order, test_file, tmp_path):
    model, path = first_order
    by_api = tmp_path / "api.conllu"
    model.parse_file(test_file, by_api)
    by_cli = tmp_path / "cli.conllu"
    subprocess.run([sys.executable, "-m", "maltpy", "parse", "-q", "-m", str(path), "-i", str(test_file),
                    "-o", str(by_cli), "--jobs", "2"], check=True)  # fmt: skip
    assert by_cli.read_bytes() == by_api.read_bytes()
    tokens = [[{"form": w[1], "lemma": w[2], "upos": w[3], "xpos": w[4], "feats": w[5]} for w in s.words]
              for s in _sentences(test_file, 20)]  # fmt: skip
    expected = [[(int(w[6]), w[7]) for w in s.words] for s in _sentences(by_api, 20)]
    assert load(path).parse_tokens(tokens) == expected


def test_second_order_non_projective_learns_and_parses_trees(tmp_path_factory, test_file, tmp_path):
    model, path = _learn(tmp_path_factory, "o2", iters=1, order=2, decode_type="non-proj")
    out = tmp_path / "out.conllu"
    load(path).parse_file(test_file, out)
    sentences = _sentences(out, None)
    assert all(is_tree(s.heads) for s in sentences)
    assert any(not is_projective(s.heads) for s in sentences)  # the search of §4.2 moved some words
    assert _scores(test_file, out).las > 55


#: The trees MSTParser 0.5's MIRA compares, recorded: scripts/mst_parity.py (which also checks the
#: first-order digest and MSTParser's count of la_perseus' features, each over a whole treebank).
mst_parity = _bench_script("mst_parity")

#: The same, for the 3 sentences of sv_talbanken dev's beginning alone, second order, projective:
#: in the second, two labels of one arc score the same but for the last bit of their weights,
#: which MSTParser's update (once for each feature occurrence) decides.
MSTPARSER_SV_TREES = "c222e1a54aa7477cf0aaee902837fb40e6eadca7b2f27ab111ebaf5cb3e7a5e7"


def test_mira_compares_the_trees_mstparser_compares():
    # second order: the search's trees, fed by the first-order templates too
    assert mst_parity.en_lines_first_trees(2) == mst_parity.MSTPARSER_FIRST_TREES[2]


def test_mira_updates_the_weights_as_mstparser_does():
    sentences = _sentences(CONLLX / "sv_talbanken-ud-dev.conllx", 3)
    assert mst_parity.first_trees(sentences, 3, order=2, decode_type="proj", iters=1) == MSTPARSER_SV_TREES


def test_the_sibling_parts_add_up_to_the_sibling_scores():
    from maltpy.graph.features import sibling_parts, sibling_scores

    labels, atoms = Labels(), Atoms()
    sentences = _sentences(CONLLX / "en_lines-ud-train.conllx", 30)
    encoded = [encode(s, atoms) for s in sentences]
    keys = []
    for sentence, e in zip(sentences, encoded):
        heads = np.array(sentence.heads, dtype=np.int64)
        heads[0] = 0
        names = np.array([0] + [labels.add(w[7]) for w in sentence.words])
        keys.append(tree_keys(e, heads, labels.atoms[names], parts_of(2)))
    alphabet = Alphabet.of_trees(keys)
    weights = np.random.default_rng(5).normal(size=len(alphabet))
    checked = 0
    for e in encoded[:10]:
        n = e.size
        sibs = sibling_scores(e, alphabet, weights)
        trips, pairs = sibling_parts(e, alphabet, weights)
        for h, c in itertools.permutations(range(n), 2):
            if c == 0:
                continue
            for s in range(min(h, c + 1), max(h, c)) if h < c else range(c + 1, h + 1):
                assert np.isclose(sibs[h, s, c], trips[h, s, c] + pairs[s, c, int(s != h)], rtol=1e-12, atol=1e-12)
                checked += 1
    assert checked > 1000


def test_hildreth_solves_miras_dual():
    rng = np.random.default_rng(3)
    for _ in range(50):
        vectors = [(np.arange(6, dtype=np.int32), rng.normal(size=6)) for _ in range(3)]
        b = rng.normal(size=3) + 1
        gram = gram_matrix(vectors, np.zeros(6))
        alpha = hildreth(gram, b)
        assert (alpha >= 0).all()
        # the KKT conditions of max b.alpha - alpha.G.alpha / 2 over alpha >= 0
        gradient = b - gram @ alpha
        assert np.all(gradient <= 1e-6)
        assert np.allclose(alpha * gradient, 0, atol=1e-6)
    one = [(np.array([0, 4], dtype=np.int32), np.array([1.0, -2.0]))]
    assert hildreth(gram_matrix(one, np.zeros(5)), np.array([2.5])) == pytest.approx([0.5])


def test_one_head_changes_keep_a_tree():
    rng = np.random.default_rng(5)
    for n in range(2, 9):
        heads = np.array([0] + [int(rng.integers(0, d)) for d in range(1, n)])
        for word, head in one_head_changes(rng.normal(size=(n, n)), heads, n):
            changed = heads.copy()
            changed[word] = head
            assert head != heads[word] and is_tree([-1, *changed[1:].tolist()])


def test_mst_takes_no_transition_options():
    # refused with the configuration, before any learning (tests/test_config.py: every option)
    with pytest.raises(MaltpyError, match=r"singlemalt.parsing_direction \(-pd\): -a mst scores") as e:
        load_config(None, {("singlemalt", "parsing_algorithm"): "mst", ("singlemalt", "parsing_direction"):
                           "right-to-left"})  # fmt: skip
    assert e.value.file == "command line"


def test_an_archive_of_other_templates_is_refused(first_order, tmp_path):
    import json
    import zipfile

    _, path = first_order
    copy = tmp_path / "other.mpm"
    with zipfile.ZipFile(path) as z, zipfile.ZipFile(copy, "w") as out:
        for info in z.infolist():
            data = z.read(info)
            if info.filename == "manifest.json":
                manifest = json.loads(data)
                manifest["graph"]["templates"] += 1
                data = json.dumps(manifest).encode()
            out.writestr(info, data)
    with pytest.raises(MaltpyError, match="templates"):
        load(copy)


def test_mira_over_the_k_best_projective_trees(tmp_path_factory, test_file, tmp_path):
    model, path = _learn(tmp_path_factory, "k3", iters=1, training_k=3)
    assert model.statistics["features"] > 0
    out = tmp_path / "out.conllu"
    load(path).parse_file(test_file, out)
    assert all(is_tree(s.heads) and is_projective(s.heads) for s in _sentences(out, None))
    assert _scores(test_file, out).las > 55


# --- hostile input and damaged archives -------------------------------------------------------------


def _mst(**options) -> object:
    """MST's configuration, one pass, no taggers (the archives damaged here are the parser's)."""
    return load_config(None, {("singlemalt", "parsing_algorithm"): "mst", ("mst", "iters"): "1",
                              ("tagger", "columns"): "none",
                              **{("mst", k): str(v) for k, v in options.items()}})  # fmt: skip


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    """A first-order model of 20 sentences, one pass: an archive to damage."""
    model = learn(_mst(), _sentences(LINES / "en_lines-ud-train.conllu", 20), "conllu", "train")
    path = tmp_path_factory.mktemp("graph") / "small.mpm"
    model.save(path)
    return path


def test_a_gold_label_named_like_msts_root_label_is_refused():
    """MSTParser's label of the root token, <no-type>, is label 0, never given to a word: a
    treebank that uses it would learn a label that parsing cannot give (and one whose labels are
    all <no-type> a model whose parsing fails), so learning refuses it at its line."""
    sentences = _sentences(LINES / "en_lines-ud-train.conllu", 3)
    sentences[1].words[2][7] = "<no-type>"
    with pytest.raises(MaltpyError, match="<no-type>") as error:
        learn(_mst(), sentences, "conllu", "train")
    assert error.value.file == "train" and error.value.line == sentences[1].word_line(3)


def _rewritten(model, path, manifest=None, arrays=None):
    """A copy of the archive ``model`` at ``path``, its manifest or its weights' arrays changed."""
    import io
    import json
    import zipfile

    with zipfile.ZipFile(model) as z, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as out:
        for info in z.infolist():
            data = z.read(info)
            if info.filename == "manifest.json" and manifest:
                changed = json.loads(data)
                manifest(changed)
                data = json.dumps(changed).encode()
            if info.filename == "graph/weights.npz" and arrays:
                with np.load(io.BytesIO(data)) as npz:
                    changed = {key: npz[key] for key in npz.files}
                arrays(changed)
                buffer = io.BytesIO()
                np.savez_compressed(buffer, **changed)
                data = buffer.getvalue()
            out.writestr(info.filename, data)
    return path


def _huge(arrays):
    arrays["weights"][:] = 1e308  # each finite, their sums not


DAMAGE = {
    "no label but <no-type>": ({"manifest": lambda m: m["graph"].update(labels=["<no-type>"])}, "labels"),
    "a templates version that is no integer": ({"manifest": lambda m: m["graph"].update(templates=True)}, "templates"),
    "a feature count that is no number": ({"manifest": lambda m: m["training"].update(features="many")}, "statistics"),
    "weights whose sums overflow": ({"arrays": _huge}, "weights"),
}


@pytest.mark.parametrize("damage", DAMAGE)
def test_a_damaged_graph_archive_is_one_error(small, tmp_path, damage):
    """Each is refused as it is loaded (before: loaded, then parsing or ``maltpy info`` failed
    with a traceback), with one error line on the command line."""
    change, what = DAMAGE[damage]
    bad = _rewritten(small, tmp_path / "bad.mpm", **change)
    with pytest.raises(MaltpyError, match=f"damaged model: .*{what}"):
        load(bad)
    result = run_in_process("info", "--json", "-m", bad)  # by main here: a process's status and stderr
    assert_one_line_error(result, f"{bad}: damaged model")


def test_the_features_of_a_graph_model_are_bounded(small, tmp_path, monkeypatch):
    """A graph-based model holds at most a 32nd of the archive budget's bytes in features (so its
    hash table, 16 bytes a slot and twice the features rounded up to a power of two, stays within
    that budget): an archive that declares more is refused before the table is made, and learning
    refuses to make one (here a budget of 1 MiB, for 32,768 features, against the 40,000 with a
    weight of 20 sentences, 57,000 in their gold trees)."""
    monkeypatch.setenv(ARCHIVE_VARIABLE, str(1 << 20))
    result = run_maltpy("info", "-m", small)
    assert "features" in assert_one_line_error(result, f"{small}: damaged model: ")
    with pytest.raises(MaltpyError, match=f"features.*{ARCHIVE_VARIABLE}") as error:
        learn(_mst(), _sentences(LINES / "en_lines-ud-train.conllu", 20), "conllu", "train")
    assert error.value.file == "train"


def test_the_labels_of_arcs_are_chosen_in_bounded_memory(monkeypatch):
    """Each arc's best label (labelled_arcs) is the label maximizing its two sides' scores, the
    lowest on ties; chosen a few heads at a time, so that a sentence of N words and L labels takes
    no N x N x L arrays (three of them were 7 GB for 2,000 words and 50 labels, as many as a
    crafted archive's 100,000 labels made of 60 words)."""
    import tracemalloc

    from maltpy.graph import tree as graph_tree

    rng = np.random.default_rng(7)
    n, labels = 7, 5
    arcs, sides = rng.normal(size=(n, n)), rng.integers(-2, 3, size=(n, labels, 2, 2)).astype(float)
    monkeypatch.setattr(graph_tree, "LABEL_CHOICES", 10)  # a head at a time
    scores, best, label = graph_tree.labelled_arcs(arcs, sides)
    for h, c in itertools.permutations(range(n), 2):
        both = sides[h, :, int(h < c), 0] + sides[c, :, int(h < c), 1]
        assert best[h, c] == int(np.flatnonzero(both == both.max())[0])
        assert label[h, c] == both.max() and scores[h, c] == arcs[h, c] + both.max()
    monkeypatch.undo()
    n, labels = 60, 5000
    tracemalloc.start()
    graph_tree.labelled_arcs(np.zeros((n, n)), rng.normal(size=(n, labels, 2, 2)))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 100 << 20  # the N x N x L arrays: 144 MB each


def _with_feats(sentence, word: int, values: int):
    """``sentence`` with ``values`` FEATS values on word ``word``."""
    sentence.words[word - 1][5] = "|".join(f"F{k}=x" for k in range(values))
    return sentence


def test_a_sentence_too_large_to_score_is_one_error_at_its_line(small, tmp_path):
    """-a mst pairs every FEATS value of a head with every one of its child's (§8.2; 52 features
    a pair) and reads every word between an arc's ends (N³ in all): a sentence whose scoring takes
    more than MAX_SENTENCE_WORK is refused at its line, in parsing (one process or several) as in
    learning, before anything is scored (before: two words of 5,000 values took minutes, and 2,000
    words 4 minutes, 64 GB at order 2)."""
    sentences = _sentences(LINES / "en_lines-ud-test.conllu", 3)
    _with_feats(sentences[1], 1, 5000)
    _with_feats(sentences[1], 2, 5000)
    bomb = tmp_path / "bomb.conllu"
    bomb.write_text("".join(format_sentence(s) for s in sentences), encoding="utf-8")
    for jobs in ("1", "2"):
        command = ["parse", "-m", small, "-i", bomb, "-o", tmp_path / "out.conllu", "--jobs", jobs]
        result = subprocess.run([sys.executable, "-m", "maltpy", *map(str, command)], capture_output=True, timeout=60)
        assert "FEATS" in assert_one_line_error(result, f"{bomb}:{sentences[1].line}: ")
        assert not (tmp_path / "out.conllu").exists()
    train = _sentences(LINES / "en_lines-ud-train.conllu", 3)
    long = long_sentence(train, 1500)
    long.line = 41
    with pytest.raises(MaltpyError, match=f"{len(long):,} words") as error:
        learn(_mst(), [*train, long], "conllu", "train")
    assert (error.value.file, error.value.line) == ("train", 41)


def test_numbers_are_read_as_mstparser_reads_them_in_linear_time(small, tmp_path):
    """MSTParser's pattern of a number, [0-9]+|[0-9]+\\.[0-9]+|[0-9]+[0-9,]+, backtracks in time
    quadratic in a word's length (a FORM of 200,000 digits and a letter took minutes); maltpy's is
    the same set of strings, matched in linear time."""
    import re

    from maltpy.graph.features import NUMBER

    mstparser = re.compile(r"[0-9]+|[0-9]+\.[0-9]+|[0-9]+[0-9,]+")
    for size in range(1, 6):
        for text in map("".join, itertools.product("1,.x", repeat=size)):
            assert bool(NUMBER.fullmatch(text)) == bool(mstparser.fullmatch(text)), text
    sentence = _sentences(LINES / "en_lines-ud-test.conllu", 1)[0]
    sentence.words[0][1] = sentence.words[0][2] = "1" * 200_000 + "x"
    hostile = tmp_path / "digits.conllu"
    hostile.write_text(format_sentence(sentence), encoding="utf-8")
    command = ["parse", "-m", small, "-i", hostile, "-o", tmp_path / "out.conllu"]
    result = subprocess.run([sys.executable, "-m", "maltpy", *map(str, command)], capture_output=True, timeout=60)
    assert result.returncode == 0, result.stderr


def test_the_atoms_kept_between_sentences_are_bounded_in_size():
    """Parsing keeps the atom (hash) of each string it met, for the next sentences; hostile input
    of long distinct words (a FORM may have 1 MB) is kept up to a bound in characters, not
    in strings alone (before: 4 million strings, whatever their length)."""
    atoms = Atoms()
    long_words = ["x" * (1 << 20) + str(k) for k in range(100)]
    assert atoms(long_words) == [atom(w) for w in long_words]
    assert sum(map(len, atoms.known)) < 64 << 20


def test_learning_beyond_its_cache_learns_the_same_weights(monkeypatch):
    """The feature numbers learning keeps are a cache: sentences beyond MALTPY_MST_CACHE_BYTES are
    looked up again in every pass, to the same weights."""
    config = load_config(None, {("singlemalt", "parsing_algorithm"): "mst", ("mst", "iters"): "2",
                                ("mst", "decode_type"): "non-proj"})  # fmt: skip
    train = _sentences(LINES / "en_lines-ud-train.conllu", 60)
    kept = learn(config, train, "conllu", "train")
    monkeypatch.setenv("MALTPY_MST_CACHE_BYTES", "300000")  # a few sentences' rows
    partly = learn(config, train, "conllu", "train")
    assert 0 < partly.statistics["bytes_cached"] < kept.statistics["bytes_cached"]
    assert np.array_equal(kept.weights, partly.weights) and np.array_equal(kept.alphabet.keys, partly.alphabet.keys)
