"""Shared paths and helpers for the tests.

Real data lives in ../shared beside the project (or where MALTPY_SHARED points); tests that need
it skip, saying so, only when that folder is absent.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("MALTPY_SHARED", ROOT.parent / "shared"))
DATA = SHARED / "data"
REFERENCE = SHARED / "reference" / "maltparser-1.9.2"
EXAMPLE = ROOT / "maltpy" / "example"
SWEMALT = DATA / "maltparser-examples" / "swemalt-mini"

requires_shared = pytest.mark.skipif(
    not DATA.is_dir(), reason=f"shared data not found at {DATA} (clone the project beside ../shared)"
)


def run_maltpy(*args: str, input: bytes | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """Run ``python -m maltpy`` as a user would, capturing bytes."""
    return subprocess.run(
        [sys.executable, "-m", "maltpy", *map(str, args)], input=input, capture_output=True, cwd=cwd, timeout=600
    )


def assert_one_line_error(result: subprocess.CompletedProcess, where: str) -> str:
    """Exit status 2 and exactly one stderr line, ``maltpy: error: <where>...``, no traceback."""
    err = result.stderr.decode("utf-8")
    assert result.returncode == 2, err
    assert "Traceback" not in err
    assert err.endswith("\n") and err.count("\n") == 1, err
    assert err.startswith(f"maltpy: error: {where}"), err
    return err
