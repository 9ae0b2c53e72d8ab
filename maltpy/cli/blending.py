"""``maltpy blend`` (learn a blended model) and ``maltpy combine`` (combine parses already made)."""

from __future__ import annotations

import os
import time
from contextlib import ExitStack

import click

from ..blend.options import DECODERS, WEIGHTINGS
from ..errors import MaltpyError, counted, cut, quote
from ..files import atomic_output, check_output_path, check_read_once, is_std, read_conll
from .common import config_from, config_options, format_option, progress_line, warn


def _blend_choices(option: str) -> click.Choice:
    return click.Choice({"weights": WEIGHTINGS, "decoder": DECODERS}[option])


@click.command("blend")
@click.option("-i", "--input", "train", metavar="FILE", required=True, help="Training treebank (gold trees), a file.")
@click.option("-m", "--model", "model_path", metavar="FILE", required=True, help="The blended model archive to write.")
@click.option("-c", "--config", "config_path", metavar="FILE",
              help="YAML file with a 'blend' group: members (a list, each as --member takes it), weights, decoder, "
                   "held_out; the options given here override it (default: none).")  # fmt: skip
@click.option("--member", "members", metavar="FLAGS", multiple=True,
              help="A member: maltpy learn's flags, quoted ('-a covnonproj -pd right-to-left', '-c my.yaml'), or "
                   "'-m FILE', a model learned before. Repeat for each (default: MaltBlender's six; nine on a "
                   "CoNLL-U treebank without -c; see the README).")  # fmt: skip
@click.option("--weights", "weighting", type=_blend_choices("weights"), default=None,
              help="What the members' arcs score: a logistic regression over what the members say of each arc and "
                   "the tags around it (learned, the default), or votes worth a member's held-out labelled accuracy "
                   "by the dependent's coarse tag (pos), over all words (model), or one each (equal).")  # fmt: skip
@click.option("--decoder", type=_blend_choices("decoder"), default=None,
              help="The tree over the votes: Chu-Liu-Edmonds' (non-projective) or Eisner's (projective). "
                   "Default: non-projective.")  # fmt: skip
@click.option("--held-out", "held_out", metavar="FILE",
              help="Gold trees the members' weights come from (default: -i itself in two folds, odd and even "
                   "sentences, each parsed by the members learned from the other; they then learn from all of "
                   "-i).")  # fmt: skip
@format_option()
@click.option("-j", "--jobs", type=click.IntRange(1, 256), default=1, show_default=True, metavar="N",
              help="Members learning (and parsing the held-out text) at once, each in its own process; the blend "
                   "is the same. No more than the cores and the available memory take, with a warning (about "
                   "64 MB and 400 times the treebank's bytes each).")  # fmt: skip
@click.option("-q", "--quiet", is_flag=True, help="No progress or summary on stderr.")
@config_options("tagger", config_file=False)
def blend_command(train: str, model_path: str, config_path: str | None, members: tuple[str, ...],
                  weighting: str | None, decoder: str | None, held_out: str | None, format_: str,
                  jobs: int, quiet: bool, **kwargs: object) -> None:  # fmt: skip
    """Learn a blended parser: several models whose trees of a sentence are combined into one by
    weighted votes on arcs and a maximum spanning tree (Hall et al. 2007's Blended system;
    Sagae & Lavie 2006). maltpy parse takes the archive like any model. The taggers (-tc ...,
    as maltpy learn's) are learned once, for all the members. A CoNLL-U treebank without -c
    gets nine default members, MaltBlender's six and stackproj, stacklazy and MST, each under
    the ud profile (-P ud), as maltpy learn does.

    \b
    Example:
      maltpy blend -i train.conllu -m en-blend.mpm
      maltpy blend -i train.conllu -m b.mpm --member '-a stacklazy' --member '-a stacklazy -pd right-to-left' \\
          --member '-a covnonproj'
    """
    from ..blend.learn import Member, Treebank, learn_blend
    from ..blend.model import check_members

    tagger = config_from(kwargs).tagger  # the taggers, learned once for all the members (-tc ...)
    settings = _blend_settings(config_path)
    given = list(members) or settings.get("members") or default_members(train, format_, config_path)
    where = config_path if not members and settings.get("members") else "command line"
    check_members(len(given), where)
    # the file names a configuration file gives are taken from its folder
    base = os.path.dirname(os.path.abspath(config_path)) if config_path is not None else None
    specs = [Member.parse(text, where, base if where == config_path else None) for text in given]
    weighting = weighting or settings.get("weights", "learned")
    decoder = decoder or settings.get("decoder", "non-projective")
    if held_out is None and "held_out" in settings:
        held_out = os.path.join(base, settings["held_out"])
    check_output_path(model_path, (train, held_out))
    say = None if quiet else progress_line
    started = time.perf_counter()
    held = Treebank.of_file(held_out, format_) if held_out is not None else None
    treebank = Treebank.of_file(train, format_)
    if jobs > 1:
        from ..blend.learn import LEARN_FACTOR
        from ..run.jobs import WORKER_BYTES, bound_jobs

        jobs = bound_jobs(jobs, WORKER_BYTES + LEARN_FACTOR * os.path.getsize(train), None if quiet else warn)
    blend = learn_blend(treebank, specs, weighting, decoder, held, say, jobs, tagger)
    blend.save(model_path)
    if not quiet:
        scores = blend.statistics.get("held_out_las")
        held = f"; held-out LAS {', '.join(f'{s:.2f}' for s in scores)}" if scores else ""
        progress_line(f"blended {counted(len(specs), 'member')} ({weighting} weights, {decoder}){held} in "
                      f"{time.perf_counter() - started:.1f}s -> "
                      f"{'standard output' if is_std(model_path) else quote(model_path)}", final=True)  # fmt: skip


def default_members(train: str, format_: str, config_path: str | None) -> list[str]:
    """The default members (``DEFAULT_MEMBERS``); of a CoNLL-U treebank and no configuration file,
    those and ``UD_MEMBERS`` under the ud profile, as plain ``maltpy learn`` learns there (``-P
    ud``: the feature models of feature_models/liblinear/ud/; en_lines, with its own tags, the six
    gave LAS 79.13 against 78.52 with MaltParser's, 84.82 against 83.87 with gold tags)."""
    from ..blend.learn import default_member_flags
    from ..config import decided_profile

    found = ""  # not read where its format cannot change the answer (a configuration file)
    if config_path is None and train is not None:
        try:
            with read_conll(train, format_) as reader:
                found = reader.format
        except MaltpyError:
            pass  # learn_blend says what is wrong with the file
    return default_member_flags("ud" if decided_profile("auto", config_path, found) == "ud" else None)


def _blend_settings(path: str | None) -> dict:
    """The 'blend' group of a configuration file (YAML, read as ``learn -c`` reads one:
    ``config.read_config_file``), checked: members (strings), weights, decoder, held_out."""
    from ..config import read_config_file

    if path is None:
        return {}
    read = read_config_file(path, {"blend": ("members", "weights", "decoder", "held_out")},
                            nested={("blend", "members"): list})  # fmt: skip
    settings = {name: value for (_, name), (value, _) in read.items()}
    line = {name: at for (_, name), (_, at) in read.items()}
    members = settings.get("members")
    if "members" in settings and (not isinstance(members, list) or not members
                                  or not all(isinstance(m, str) for m in members)):  # fmt: skip
        raise MaltpyError("blend.members: a list of members, each a string of flags", path, line["members"])
    for key, allowed in (("weights", WEIGHTINGS), ("decoder", DECODERS)):
        if key in settings and settings[key] not in allowed:
            raise MaltpyError(f"blend.{key}: one of {', '.join(allowed)}, not {cut(repr(settings[key]), 40)}", path,
                              line[key])  # fmt: skip
    if "held_out" in settings and (not isinstance(settings["held_out"], str) or not settings["held_out"]):
        raise MaltpyError("blend.held_out: a file name", path, line["held_out"])
    return settings


@click.command("combine", context_settings={"ignore_unknown_options": True})
@click.argument("arguments", nargs=-1, type=click.UNPROCESSED, metavar="SYS1 SYS2 ... [--weights-from GOLD SYS1' ...]")
@click.option("-o", "--output", "output_path", metavar="FILE", help="Output (default: standard output).")
@click.option("--weights", "weighting", type=_blend_choices("weights"), default=None,
              help="What each system's arcs score, from --weights-from: learned (the default with --weights-from), "
                   "or votes by the dependent's coarse tag (pos), over all words (model), or one each (equal, the "
                   "default without).")  # fmt: skip
@click.option(
    "--decoder",
    type=_blend_choices("decoder"),
    default="non-projective",
    show_default=True,
    help="The tree over the votes: Chu-Liu-Edmonds' (non-projective) or Eisner's (projective).",
)
@click.option("-gsr", "--single-root", "single_root", type=click.Choice(("auto", "true", "false")), default="auto",
              show_default=True, help="One word on the root (auto: if the input is CoNLL-U).")  # fmt: skip
@format_option()
def combine_command(arguments: tuple[str, ...], output_path: str | None, weighting: str | None, decoder: str,
                    single_root: str, format_: str) -> None:  # fmt: skip
    """Combine parses of the same text made by any parsers (maltpy's, MaltParser's, UDPipe's)
    into one tree per sentence, as a blend combines its members' (maltpy blend). With
    --weights-from GOLD SYS1' SYS2' ..., the systems' parses of held-out gold text, in the
    same order, weigh each system's votes.

    \b
    Example:
      maltpy combine a.conllu b.conllu c.conllu -o combined.conllu
      maltpy combine a.conllu b.conllu c.conllu --weights-from dev.conllu a-dev.conllu b-dev.conllu c-dev.conllu
    """
    from ..blend.combination import combine_files
    from ..blend.weights import Weights

    args = list(arguments)
    weights_from: list[str] = []
    if "--weights-from" in args:
        cut_at = args.index("--weights-from")
        args, weights_from = args[:cut_at], args[cut_at + 1 :]
    for arg in args + weights_from:
        if arg.startswith("-") and arg != "-":
            raise MaltpyError(f"no such option: {arg} (options come before the files)", "command line")
    if len(args) < 2:
        raise MaltpyError("combine takes two or more parsed files", "command line")
    if sum(map(is_std, args + weights_from)) > 1:
        raise MaltpyError("only one of the files can be standard input (-): it is read once", "command line")
    check_read_once(args + weights_from)
    if weights_from and len(weights_from) != len(args) + 1:
        raise MaltpyError(f"--weights-from takes the gold file and one parse of it per system: "
                          f"{len(args) + 1} files, not {len(weights_from)}", "command line")  # fmt: skip
    weighting = weighting or ("learned" if weights_from else "equal")
    if weighting != "equal" and not weights_from:
        raise MaltpyError(f"--weights {weighting} needs --weights-from GOLD SYS1' SYS2' ...", "command line")
    if output_path is not None:
        check_output_path(output_path, tuple(args + weights_from))
    if weights_from:
        weights = _estimated(weighting, weights_from, format_)
    else:
        weights = Weights.equal(len(args))
    with ExitStack() as stack:
        readers = [stack.enter_context(read_conll(path, format_)) for path in args]
        out = stack.enter_context(atomic_output(output_path))
        combine_files(readers, weights, decoder == "projective", single_root, out)


def _estimated(weighting: str, paths: list[str], format_: str):
    """The systems' weights from their parses of held-out gold text: ``paths`` = GOLD SYS1' ..."""
    from ..blend.combination import aligned
    from ..blend.weights import Weights

    with ExitStack() as stack:
        readers = [stack.enter_context(read_conll(path, format_)) for path in paths]
        rows = list(aligned(readers))
    if not rows:
        raise MaltpyError("no sentences to weigh the systems by: --weights-from's gold file is empty", paths[0])
    gold = [row[0] for row in rows]
    parses = [[(row[k].heads, row[k].labels) for row in rows] for k in range(1, len(paths))]
    return Weights.estimate(weighting, gold, parses)
