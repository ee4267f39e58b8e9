"""Every ```python example of docs/python.md runs."""

import os
import re
from pathlib import Path

import pytest

DOC = Path(os.environ.get("PPK_SOURCE_DIR", Path(__file__).resolve().parents[2])) / "docs" / "python.md"
EXAMPLES = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)


def test_the_page_has_examples():
    assert len(EXAMPLES) >= 4


@pytest.mark.parametrize("number", range(len(EXAMPLES)))
def test_example_runs(number):
    exec(compile(EXAMPLES[number], f"{DOC}: example {number + 1}", "exec"), {})
