"""What an installed maltpy says of itself: its licence (BSD 3-Clause, LIBSVM's and LIBLINEAR's),
in the package's metadata and as the LICENSE file it ships."""

import importlib.metadata

from conftest import ROOT


def test_the_installed_package_carries_its_licence():
    metadata = importlib.metadata.metadata("maltpy")
    assert metadata["License-Expression"] == "BSD-3-Clause"
    assert metadata.get_all("License-File") == ["LICENSE"]
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("BSD 3-Clause License") and "Neither the name of the copyright holder" in text
