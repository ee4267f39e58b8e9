"""Every ```python example of docs/python.md runs, and so does README.md's (on the quick start's
documents, docs-train.txt from examples/make_documents.py, in a directory of its own)."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

SOURCE = Path(os.environ.get("PPK_SOURCE_DIR", Path(__file__).resolve().parents[2]))
DOC = SOURCE / "docs" / "python.md"
EXAMPLES = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)
README_EXAMPLES = re.findall(r"```python\n(.*?)```", (SOURCE / "README.md").read_text(), re.S)


def test_the_page_has_examples():
    assert len(EXAMPLES) >= 4 and len(README_EXAMPLES) == 1


@pytest.mark.parametrize("number", range(len(EXAMPLES)))
def test_example_runs(number):
    exec(compile(EXAMPLES[number], f"{DOC}: example {number + 1}", "exec"), {})


def test_the_readmes_example_runs(tmp_path, monkeypatch):
    subprocess.run([sys.executable, SOURCE / "examples" / "make_documents.py", "--n-train", "100", "--n-test", "0",
                    "--train", tmp_path / "docs-train.txt", "--test", os.devnull], check=True)
    monkeypatch.chdir(tmp_path)
    namespace = {}
    exec(compile(README_EXAMPLES[0], "README.md", "exec"), namespace)
    assert namespace["search"].best_score_ > 0.6
