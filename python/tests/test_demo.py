"""examples/documents_demo.py, the Python documents demo, runs end to end (on 150 + 150 documents) and
prints its table: the three PPKSVCCV rows (the last with the kernel and rho it chose) and
scikit-learn's three SVC rows, each with a C of the grid and accuracies in percent."""

import os
import re
import subprocess
import sys


def test_the_python_documents_demo_runs():
    demo = os.path.join(os.environ["PPK_SOURCE_DIR"], "examples", "documents_demo.py")
    result = subprocess.run([sys.executable, demo, "--n-train", "150", "--n-test", "150"], capture_output=True,
                            text=True)
    assert result.returncode == 0, result.stderr
    rows = re.findall(r"^(PPKSVCCV.+?|SVC .+?)\s+(\S+)\s+([\d.]+)%\s+([\d.]+)%$", result.stdout, re.MULTILINE)
    assert [row[0].split(",")[0].split(":")[0] for row in rows] == ["PPKSVCCV multinomial"] * 2 + [
        "PPKSVCCV's choice", "SVC linear on counts", "SVC RBF on counts (gamma='scale')", "SVC RBF after MinMaxScaler"]
    assert re.fullmatch(r"PPKSVCCV's choice: ppk(_norm)?, rho=(0.1|0.25|0.5|0.75|1)", rows[2][0])
    for _, c, cv, test in rows:
        assert float(c) in (0.1, 1, 10, 100, 1000) and 40 <= float(cv) <= 100 and 40 <= float(test) <= 100
