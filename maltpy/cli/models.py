"""maltpy info, optimize and knn: a model's description, the search for a configuration, and
the k-NN learner on TiMBL's files."""

from __future__ import annotations

import json
import os
import sys
import time

import click

from ..config import OPTIMIZE_ROUNDS, OPTIMIZE_THRESHOLD, dump_config
from ..config.options import PROFILES
from ..errors import MaltpyError, counted, printable, quote
from ..files import atomic_output, is_std, standard_output, write_result
from ..graph import is_graph_based
from ..learners import LEARNERS
from .common import ProgressBar, SearchBar, format_option, progress_line, warn

TUNED = tuple(name for name, learner in LEARNERS.items() if learner.tuned)  # the learners optimize tunes


@click.command("info")
@click.option("-m", "--model", "model_path", metavar="FILE", required=True, help="A model made by maltpy learn.")
@click.option("--json", "as_json", is_flag=True, help="Print the model's manifest summary as JSON.")
def info_command(model_path: str, as_json: bool) -> None:
    """Describe a model: configuration, feature model, labels, classifiers, training statistics;
    of a blend (maltpy blend), its members and weights."""
    from ..graph.model import GraphModel
    from ..load import load
    from ..models.parser import Model

    standard_output()
    model = load(model_path)
    summary = model.describe()
    if as_json:
        write_result(json.dumps(summary, ensure_ascii=False, indent=1))
        return
    if isinstance(model, GraphModel):
        write_result("\n".join(_describe_graph(model_path, model, summary)))
        return
    if not isinstance(model, Model):
        write_result("\n".join(_describe_blend(model_path, model, summary)))
        return
    labels = summary["labels"]
    lines = [
        f"model              {model_path}",
        f"algorithm          {summary['algorithm']}",
        f"direction          {summary['parsing_direction']}, the root at the {summary['root_position']}",
        f"learner            {summary['learner']}",
        f"trained on         {summary['data_format']} ({summary['training'].get('treebank', '?')})",
        f"pseudo-projective  {_describe_pproj(model.config.pproj)}",
        f"input columns      {_describe_vocabulary(summary['vocabulary'])}",
        "",
        "configuration:",
        *("  " + line for line in dump_config(model.config).splitlines()),
        "",
        f"feature model ({model.feature_model.source}, {len(model.feature_model)} features, in the file's order):",
        *("  " + model.feature_model.specs[i].text for i in model.feature_model.file_order),
        "",
        f"labels ({len(labels)}): {' '.join(labels)}",
        f"classes ({len(summary['classes'])}): {' '.join(summary['classes'])}",
        *_describe_single_root(model),
        "",
        "classifiers:",
        "  name                 kind       instances  classes  features  size",
        *(
            f"  {c['name']:<20} {c['kind']:<10} {c['instances']:>9} {c['classes']:>8} {c['features']:>9}  {c['size']}"
            for c in summary["classifiers"]
        ),
        "",
        *_describe_taggers(summary.get("taggers"), summary.get("tokenizer")),
        *_describe_training(summary["training"]),
    ]
    write_result("\n".join(lines))


def _describe_graph(model_path: str, model, summary: dict) -> list[str]:
    """A graph-based model's options, features and labels."""
    mst = summary["mst"]
    return [
        f"model              {model_path}",
        f"algorithm          mst (graph-based): order {mst['order']}, {mst['decode_type']}, "
        f"{counted(mst['iters'], 'pass', 'passes')} of MIRA with the {mst['training_k']} best",
        f"trained on         {summary['data_format']} ({summary['training'].get('treebank', '?')})",
        f"pseudo-projective  {_describe_pproj(model.config.pproj)}",
        f"input columns      {_describe_vocabulary(summary['vocabulary'])}",
        f"features           {summary['features']:,} with a weight, of "
        f"{summary['training'].get('features', 0):,} in the gold trees",
        "",
        "configuration:",
        *("  " + line for line in dump_config(model.config).splitlines()),
        "",
        f"labels ({len(summary['labels'])}): {' '.join(summary['labels'])}",
        *_describe_single_root(model),
        "",
        *_describe_taggers(summary.get("taggers"), summary.get("tokenizer")),
        *_describe_training(summary["training"]),
    ]


def _describe_blend(model_path: str, blend, summary: dict) -> list[str]:
    """A blend's decoder and weights, and each member in a line: algorithm, direction, learner,
    pseudo-projective encoding, held-out labelled accuracy."""
    lines = [
        f"model              {model_path}",
        f"blend of           {counted(len(blend.members), 'member')}, combined by {blend.weights.kind} weights "
        f"and the {blend.decoder} maximum spanning tree",
        f"trained on         {summary['data_format']} ({summary['training'].get('treebank', '?')})",
        "",
        "members:  held-out LAS  algorithm      direction      root   learner    pseudo-projective",
    ]
    for k, (member, weight) in enumerate(zip(blend.members, blend.weights.overall), 1):
        c = member.config
        held = f"{100 * weight:12.2f}" if blend.weights.kind != "equal" else f"{'-':>12}"
        learner = "mira" if is_graph_based(c.singlemalt.parsing_algorithm) else c.guide.learner
        single, pproj = c.singlemalt, c.pproj.marking_strategy if c.pproj.active else "no"
        lines.append(f"  {k:>2}      {held}  {single.parsing_algorithm:<14} {single.parsing_direction:<14} "
                     f"{single.root_position:<6} {learner:<10} {pproj}")  # fmt: skip
    taggers = _describe_taggers(summary.get("taggers"), summary.get("tokenizer"))
    return lines + ["", *taggers, *_describe_training(summary["training"])]


def _describe_taggers(taggers: list[dict] | None, tokenizer: dict | None = None) -> list[str]:
    """The taggers learned with the parser (maltpy.tagging): column, learner, classes, features,
    held-out accuracy, and the tokenizer learned with them; nothing for a model without."""
    lines = []
    if isinstance(tokenizer, dict):
        lines = [printable(f"tokenizer (maltpy parse -if text, maltpy tokenize): learned from "
                           f"{tokenizer.get('tokens')} tokens, {tokenizer.get('sentences')} sentences in "
                           f"{tokenizer.get('paragraphs')} paragraphs of the treebank's text"), ""]  # fmt: skip
    if not taggers:
        return lines

    def accuracy(value: object) -> str:
        return f"{100 * value:.2f}%" if isinstance(value, (int, float)) else "-"

    return lines + [
        "taggers (fill the input's empty tag columns before parsing; maltpy parse --tag):",
        "  column   learner     classes  features  held-out accuracy",
        *(printable(f"  {t.get('column', '?'):<8} {t.get('learner', '?'):<10} {t.get('classes', '-'):>8} "
                    f"{t.get('features', '-'):>9}  {accuracy(t.get('heldout_accuracy'))}"
                    f"{'  (both ways)' if t.get('both_ways') else ''}") for t in taggers),
        "",
    ]  # fmt: skip


def _describe_training(training: dict) -> list[str]:
    """Training statistics; of a MaltParser model (.mco), the release that wrote it and its
    saved options (mco/model.py). What a model's file says is shown printable (errors.printable): a
    saved option's value, the .mco's folder, may hold a terminal's escape sequence."""
    options = training.get("maltparser_options")
    if not isinstance(options, dict):
        return ["training:", *(printable(f"  {k:<24} {v}") for k, v in training.items())]
    return [
        printable(f"MaltParser model: written by MaltParser {training.get('maltparser_version')}, "
                  f"configuration {training.get('maltparser_configuration')}; its saved options:"),  # fmt: skip
        *(printable(f"  {k:<40} {v}") for k, v in options.items()),
    ]


def _describe_vocabulary(vocabulary: dict | None) -> str:
    """The columns the features read, as training saw them (see maltpy.data.vocabulary)."""
    if vocabulary is None:
        return "not kept (a MaltParser model, or one made before maltpy kept them: no check of the input's values)"
    columns = [
        f"{name} {counted(c['values'], 'value')}"
        + (f" ({c['unseen']:.1%} unseen in held-out text)" if c["unseen"] is not None else "")
        for name, c in vocabulary["columns"].items()
    ]
    same = "; the same tag in both tag columns of every word (read: the column holding it)" if vocabulary[
        "same_tags"] else ""
    return ", ".join(columns) + same


def _describe_single_root(model) -> list[str]:
    """When and how the model gives a sentence one root (graph.single_root; see the README's "One
    root"), and the labels it learned for that from its training treebank's root words."""
    setting = model.config.graph.single_root
    if setting == "false":
        return [f"one root ({setting}): no, several words may be on the root, as MaltParser leaves them"]
    learned = "CoNLL-U" if model.data_format == "conllu" else "CoNLL-X"
    when = "every sentence" if setting == "true" or learned == "CoNLL-U" else "CoNLL-U input only"
    if setting == "auto":
        when += f" (learned from {learned})"
    if not hasattr(model, "system"):  # a graph-based model
        how = "the decoder's best tree with one word on the root"
    elif model.rooted_system is not model.system:
        how = "constrained in the transitions, then a final step"
    else:
        how = "a final step"
    roots = model.roots
    tags = sorted(roots.under.items())
    if not tags:
        below = f"{roots.under_default} (the training treebank has no word below a root word)"
    elif {tag for tag, _ in tags} == {"_"}:
        below = f"{roots.under['_']} (the training treebank has no tags)"
    else:
        below = f"by tag: {', '.join(f'{t} {label}' for t, label in tags)}; other tags {roots.under_default}"
    return [
        f"one root ({setting}): {when}; {how}",
        f"  the root word labelled {roots.root}",
        f"  any other word on the root put below it, labelled {below}",
        *([] if model.roots_learned else ["  (UD's labels: the model was made before maltpy kept its treebank's)"]),
    ]


def _describe_pproj(pproj) -> str:
    if not pproj.active:
        return "no"
    return (f"marking strategy {pproj.marking_strategy}, covered root {pproj.covered_root}, "
            f"lifting order {pproj.lifting_order}")  # fmt: skip


@click.command("convert-model")
@click.argument("model_path", metavar="MODEL")
@click.option("-o", "--output", "output_path", metavar="FILE", required=True, help="The maltpy model archive to write.")
def convert_model_command(model_path: str, output_path: str) -> None:
    """Write MaltParser's model file MODEL (.mco, from MaltParser 1.5 to 1.9.2) as a maltpy model
    archive, which parses into the same bytes (maltpy parse -m reads the .mco as it is too).

    \b
    Example:
      maltpy convert-model engmalt.linear-1.7.mco -o engmalt.mpm
    """
    from ..files import check_output_path
    from ..load import load

    check_output_path(output_path, (model_path,))
    load(model_path).save(output_path)


@click.command("optimize")
@click.option("-i", "--input", "train", metavar="FILE", required=True, help="Training treebank (gold trees).")
@click.option("-d", "--dev", metavar="FILE", help="Score each trial on this dev file (default: a split of -i).")
@click.option("--folds", type=click.IntRange(2, 100), metavar="K",
              help="Score each trial by K-fold cross-validation on -i (default: a seeded 80/20 split of -i, "
              "or 5 folds below 30,000 tokens).")  # fmt: skip
@click.option("-o", "--output-dir", "out_dir", metavar="DIR", required=True,
              help="Where config.yaml, features.txt and the trial log trials.jsonl go.")  # fmt: skip
@click.option("--budget", type=click.FloatRange(0.1, 100_000), default=60, show_default=True, metavar="MINUTES",
              help="Bound on the whole search: no trial starts that would end after it.")  # fmt: skip
@click.option(
    "--jobs",
    type=click.IntRange(1, 256),
    metavar="N",
    help="Trials run at once, each in its own process (default: the cores this process may use); no more than "
    "the cores and the available memory take, with a warning (about 64 MB and 100 times the treebank's bytes a trial).",
)
@click.option("--seed", type=click.IntRange(0, 2**31 - 1), default=1, show_default=True, metavar="N",
              help="Seed of the split into folds or held-out part; a search is the same for a seed.")  # fmt: skip
@click.option("--resume", is_flag=True, help="Continue the search whose trial log is in DIR, reusing its trials.")
@click.option("--rounds", type=click.IntRange(1, 20), default=OPTIMIZE_ROUNDS, show_default=True, metavar="N",
              help="Rounds of phases 3 and 4 at most: a later round (wider features) runs while the budget lasts "
              "and the round before kept a change.")  # fmt: skip
@click.option(
    "--threshold",
    type=click.FloatRange(0, 100),
    default=OPTIMIZE_THRESHOLD,
    show_default=True,
    metavar="LAS",
    help="Least gain in LAS points that keeps a change of the feature model or learner.",
)
@click.option("-l", "--learner", type=click.Choice(TUNED), default="liblinear", show_default=True,
              help="The learner to tune (LIBSVM's trials take many times longer).")  # fmt: skip
@click.option(
    "--scheduler",
    metavar="ADDRESS",
    help="Run the trials on this Dask cluster's workers, which must see the files at the same paths "
    "(default: none, in --jobs processes here).",
)
@click.option("--blend/--no-blend", default=True, show_default=True,
              help="Phase 5: blend the best configuration, both ways, with maltpy blend's default members (of a "
                   "CoNLL-U treebank, the nine with -P ud-lexical), and "
                   "write DIR/blend.yaml if the blend scores higher; the time it is expected to take is kept from "
                   "phases 3 and 4 once phase 2 has timed its trials.")  # fmt: skip
@click.option("--tags", type=click.Choice(("gold", "own")), default="gold", show_default=True,
              help="The tags each held-out part is parsed with: its own (gold), or those of taggers learned on the "
              "training part (own), as a model learned with taggers parses untagged text.")  # fmt: skip
@click.option("-tj", "--jackknife", type=click.IntRange(2, 100), metavar="K",
              help="With --tags own: the parser learns on the training part's tags predicted in K folds (as "
              "'maltpy learn -tj K'; config.yaml then asks for it). Default: on the treebank's own tags.")  # fmt: skip
@click.option("-P", "--profile", type=click.Choice(PROFILES), default="auto", show_default=True,
              help="Phase 2's default feature models, as 'maltpy learn -P': auto takes the ud profile's for a "
              "CoNLL-U treebank (where plain 'maltpy learn' starts), maltparser MaltParser's.")  # fmt: skip
@format_option()
@click.option("-q", "--quiet", is_flag=True, help="No progress or summary on stderr.")
def optimize_command(train: str, dev: str | None, folds: int | None, out_dir: str, budget: float, jobs: int | None,
                     seed: int, resume: bool, rounds: int, threshold: float, learner: str, scheduler: str | None,
                     blend: bool, tags: str, jackknife: int | None, profile: str, format_: str,
                     quiet: bool) -> None:  # fmt: skip
    """Search for the best configuration of a treebank, as MaltOptimizer does for MaltParser.

    Phase 1 analyses the data; phase 2 tries every algorithm (with pseudo-projective encodings
    and root options), phase 3 selects features backward and forward in MaltParser's feature
    language, phase 4 tunes the learner's C; phase 5 blends the best configuration, both ways,
    with maltpy blend's default members. Writes DIR/config.yaml and DIR/features.txt, which
    'maltpy learn -c DIR/config.yaml' takes, DIR/blend.yaml if the blend scored higher ('maltpy
    blend -c DIR/blend.yaml'), and DIR/trials.jsonl, a log of every trial.

    \b
    Example:
      maltpy optimize -i train.conllu -o opt/ --budget 60
      maltpy learn -c opt/config.yaml -i train.conllu -m tuned.mpm
    """
    from ..optimize import optimize, summary_table
    from ..optimize.search import trial_bytes
    from ..run.jobs import bound_jobs, usable_cores

    asked = usable_cores() if jobs is None else jobs
    # here, as many trial processes as the cores and the memory take (a warning if --jobs asks more)
    jobs = asked if scheduler else bound_jobs(asked, trial_bytes(train, dev, learner), None if quiet or jobs is None
                                              else warn)  # fmt: skip
    if os.path.exists(out_dir) and not os.path.isdir(out_dir):
        raise MaltpyError("is not a folder; -o names the folder the search writes to", out_dir)
    bar = None if quiet or not sys.stderr.isatty() else SearchBar(budget)
    say = None if quiet else (lambda message: (ProgressBar.clear(), click.echo(f"maltpy: {printable(message)}",
                                                                                err=True)))  # fmt: skip
    best, summary, baseline = optimize(train, out_dir, dev, folds, budget, jobs, seed, resume, threshold, learner,
                                       scheduler, format_, rounds, say, bar.show if bar else None, blend, tags=tags,
                                       jackknife=jackknife or 0, profile=profile)  # fmt: skip
    ProgressBar.clear()
    if not quiet:
        click.echo(summary_table(summary, baseline, best), err=True)
        config_path = quote(os.path.join(out_dir, "config.yaml"))
        click.echo(f"maltpy: wrote {config_path} (LAS {best.las:.2f}); "
                   f"learn with: maltpy learn -c {config_path} -i {quote(train)} -m MODEL", err=True)  # fmt: skip
        if summary and summary[-1].name == "5 blend" and summary[-1].changes:
            blend_path = quote(os.path.join(out_dir, "blend.yaml"))
            jackknifed = f" -tj {jackknife}" if jackknife else ""
            click.echo(f"maltpy: wrote {blend_path} (LAS {summary[-1].end_las:.2f}); "
                       f"blend with: maltpy blend -c {blend_path}{jackknifed} -i {quote(train)} -m MODEL",
                       err=True)  # fmt: skip


@click.command("knn")
@click.option("-f", "train_path", metavar="FILE", required=True, help="Training instances, TiMBL's columns format.")
@click.option("-t", "test_path", metavar="FILE", required=True, help="Test instances, the same format.")
@click.option("-o", "output_path", metavar="FILE", help="Output (default: standard output).")
@click.option("-k", "k", metavar="N", default="1", show_default=True, help="Nearest distances that vote.")
@click.option("-m", "metric", metavar="M|O", default="O", show_default=True, help="Metric: MVDM or Overlap.")
@click.option("-L", "limit", metavar="N", default="1", show_default=True,
              help="MVDM for values seen at least N times, Overlap below.")  # fmt: skip
@click.option("-d", "decay", metavar="Z|ID|IL|ED:a[:b]", default="Z", show_default=True,
              help="Votes weighted: equally, by inverse distance, inverse linear, exponential decay.")  # fmt: skip
@click.option("-w", "weighting", metavar="0..4", default="1", show_default=True,
              help="Feature weights: none, gain ratio, information gain, chi-square, shared variance.")  # fmt: skip
def knn_command(train_path: str, test_path: str, output_path: str | None, k: str, metric: str, limit: str,
                decay: str, weighting: str) -> None:  # fmt: skip
    """Classify instances with the k-NN learner, as TiMBL's IB1 does (timbl -f TRAIN -t TEST -o OUT).

    The files are in TiMBL's columns format: one instance a line, its feature values and then its
    class, separated by blanks. Each test instance is written back with the class maltpy gives
    appended, as timbl -o writes it; accuracy and speed go to stderr. The defaults are timbl's,
    so that the same options give timbl's answers; the settings of the MaltParser paper (Nivre
    et al. 2007), learn -l knn's defaults, are -k 5 -m M -L 3 -d ID.

    \b
    Example:
      maltpy knn -f train.col -t test.col -k 5 -m M -L 3 -d ID -o test.out
    """
    from ..learners.knn import Settings, experiment
    from ..learners.options import parse_learner_options
    from ..learners.timbl_columns import read_columns, timbl_echo, write_columns

    if is_std(output_path):
        standard_output()
    given = {"k": k, "m": metric, "L": limit, "d": decay, "w": weighting}
    try:
        options = parse_learner_options(given, "knn")
    except ValueError as e:
        raise MaltpyError(str(e), "command line") from None
    train = read_columns(train_path)
    if not train:
        raise MaltpyError("no instances to learn from", train_path)
    test = read_columns(test_path, len(train[0]))
    started = time.perf_counter()
    answers = experiment(train, test, options)
    seconds = time.perf_counter() - started
    with atomic_output(output_path) as out:
        write_columns(out, (timbl_echo(row) + [answer] for row, answer in zip(test, answers)))
    right = sum(row[-1] == answer for row, answer in zip(test, answers))
    accuracy = f"{100 * right / len(test):.2f}%" if test else "n/a"
    progress_line(
        f"knn {Settings.from_options(options).describe()}: {len(train)} training instances, {len(test)} tested, "
        f"{right} correct ({accuracy}), {seconds:.2f}s ({len(test) / max(seconds, 1e-9):.0f} instances/s)",
        final=True,
    )
