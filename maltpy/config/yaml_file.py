"""Configuration files as YAML text: read strictly (every error names the file and line; no
anchors, aliases, tags, merge keys or keys given twice) and written back (``dump_config``).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

import yaml

from ..errors import MaltpyError, cut
from ..files import read_file
from ..learners.options import quoted as _q
from .groups import Config

MAX_YAML_DEPTH = 32  # nesting of YAML collections in a configuration (real ones: 3 or 4)
_OPENING = (yaml.BlockMappingStartToken, yaml.BlockSequenceStartToken, yaml.FlowMappingStartToken,
            yaml.FlowSequenceStartToken)  # fmt: skip
_CLOSING = (yaml.BlockEndToken, yaml.FlowMappingEndToken, yaml.FlowSequenceEndToken)


def read_config_file(
    path: str, keys: Mapping[str, Collection[str]], nested: Mapping[tuple[str, str], type] | None = None
) -> dict[tuple[str, str], tuple[Any, int]]:
    """{(group, name): (value, line)} of the configuration file at ``path`` (``learn -c``'s,
    ``blend -c``'s): YAML text, a mapping of groups (``keys``: each group's names), each a mapping
    of names to single values (``nested``: the keys whose value may be a dict or a list instead).
    Anything else is an error naming the file and line, and so are a key given twice and anchors,
    aliases, tags and merge keys, which a configuration needs none of."""
    nested = nested or {}
    try:
        text = read_file(path, "config file").decode("utf-8")
    except UnicodeDecodeError:
        raise MaltpyError("config file is not UTF-8 text", path) from None
    loader = yaml.SafeLoader(text)
    try:
        # A configuration needs no anchors, aliases or tags: refused before anything is built
        # (an alias bomb expands to gigabytes; a tag may name a constructor). Nor deep nesting
        # (groups, keys, lib.options' mapping): refused as the scanner meets it, since building
        # thousands of levels takes seconds before Python's recursion limit stops it.
        depth = 0
        for token in yaml.scan(text, Loader=yaml.SafeLoader):
            if isinstance(token, (yaml.AnchorToken, yaml.AliasToken, yaml.TagToken)):
                kind = {yaml.AnchorToken: "anchors (&)", yaml.AliasToken: "aliases (*)", yaml.TagToken: "tags (!)"}
                raise MaltpyError(f"YAML {kind[type(token)]} are not allowed in a configuration", path,
                                  token.start_mark.line + 1)  # fmt: skip
            if isinstance(token, _OPENING):
                depth += 1
                if depth > MAX_YAML_DEPTH:
                    raise MaltpyError("not a configuration: YAML nested too deeply", path, token.start_mark.line + 1)
            elif isinstance(token, _CLOSING):
                depth -= 1
        root = loader.get_single_node()
    except RecursionError:
        raise MaltpyError("not a configuration: YAML nested too deeply", path) from None
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        problem = getattr(e, "problem", None) or str(e).splitlines()[0]
        raise MaltpyError(f"not valid YAML: {problem}", path, mark.line + 1 if mark else None) from None
    try:
        if root is None or (isinstance(root, yaml.ScalarNode) and root.value == ""):
            return {}
        out: dict[tuple[str, str], tuple[Any, int]] = {}
        for group, group_node, group_line in _mapping(root, loader, path, "the file"):
            if group not in keys:
                known = ", ".join(sorted(keys))
                raise MaltpyError(f"unknown option group {_q(group)} (groups: {known})", path, group_line)
            for name, node, line in _mapping(group_node, loader, path, f"group {_q(group)}"):
                if name not in keys[group]:
                    known = ", ".join(keys[group])
                    raise MaltpyError(f"unknown key {group}.{name} (keys of {group}: {known})", path, line)
                shape = {yaml.MappingNode: "mapping", yaml.SequenceNode: "list"}.get(type(node))
                allowed = {dict: "mapping", list: "list"}.get(nested.get((group, name)))
                if shape is not None and shape != allowed:
                    expected = f"a single value or a {allowed}" if allowed else "a single value"
                    raise MaltpyError(f"{group}.{name}: expected {expected}, not a {shape}", path, line)
                out[(group, name)] = (_construct(loader, node, path, line), line)
        return out
    finally:
        loader.dispose()


def _construct(loader: yaml.SafeLoader, node: yaml.Node, path: str, line: int) -> Any:
    """The value of a YAML node; MaltpyError for one Python cannot hold (an integer of more than
    4,300 digits, a date out of range), a number too large to show in a message, or a mapping
    inside it (lib.options' ``{c: 0.1}``, its class weights) with a key given twice, which PyYAML
    would take silently, the last one winning."""
    _no_key_twice(loader, node, path)
    try:
        value = loader.construct_object(node, deep=True)
        repr(value)
    except yaml.YAMLError as e:
        raise MaltpyError(f"not valid YAML: {getattr(e, 'problem', None) or e}", path, line) from None
    except ValueError as e:
        raise MaltpyError(f"not a value a configuration holds: {cut(e, 80)}", path, line) from None
    return value


def _no_key_twice(loader: yaml.SafeLoader, node: yaml.Node, path: str) -> None:
    """MaltpyError at a key given twice in any mapping within ``node`` (as ``_mapping`` checks
    the groups and their keys)."""
    if isinstance(node, yaml.SequenceNode):
        for item in node.value:
            _no_key_twice(loader, item, path)
    elif isinstance(node, yaml.MappingNode):
        seen = set()
        for key_node, value_node in node.value:
            key = _construct(loader, key_node, path, key_node.start_mark.line + 1)
            if key in seen:
                raise MaltpyError(f"key {_q(key)} is given twice", path, key_node.start_mark.line + 1)
            seen.add(key)
            _no_key_twice(loader, value_node, path)


def _mapping(node: yaml.Node, loader: yaml.SafeLoader, path: str, what: str):
    """Yield (key, value node, line) of a YAML mapping node; duplicate keys are errors."""
    if not isinstance(node, yaml.MappingNode):
        raise MaltpyError(f"{what} must be a mapping of option names to values", path, node.start_mark.line + 1)
    seen = set()
    for key_node, value_node in node.value:
        line = key_node.start_mark.line + 1
        if key_node.tag == "tag:yaml.org,2002:merge":
            raise MaltpyError("YAML merge keys (<<) are not allowed in a configuration", path, line)
        key = _construct(loader, key_node, path, line)
        if not isinstance(key, str):
            raise MaltpyError(f"key {_q(key)} is not a name", path, line)
        if key in seen:
            raise MaltpyError(f"key {_q(key)} is given twice", path, line)
        seen.add(key)
        yield key, value_node, line


def dump_config(config: Config) -> str:
    """The configuration as YAML, every option shown (what ``maltpy config`` prints)."""
    return yaml.safe_dump(config.to_dict(), sort_keys=False, default_flow_style=False, allow_unicode=True)
