#!/usr/bin/env python3
"""ppk.fit against the command line's ppk fit on the same documents, and Python threads fitting at once
(docs/python.md, "Benchmark: ppk.fit").

On documents from examples/make_documents.py (vocabulary 3000, seed 1, --n documents, default 8000),
read once into a CSR matrix:

  command line  ppk fit multinomial --dim 3000 --alpha 1/D --threads T FILE -o ROWS, a process of its
                own (wall time: reading the text, the fits, writing the rows)
  ppk.fit       ppk.fit("multinomial", X, y, dim=3000, alpha="1/D", threads=T) in this process (the
                matrix read already), whose rows must be the command line's byte for byte
  threads       two fits of X with threads=1: one after the other in one Python thread, then at once
                in two Python threads (the GIL is released while ppk.fit fits)

Each figure is the median of --repeats runs (default 5). The targets of issue 49: ppk.fit within 1.1
times the command line's time; two Python threads at least 1.7 times faster than one. Run it on an
otherwise idle machine of at least two cores: bench/python_fit.py BUILD_DIR [--n N] [--threads T]
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
VOCABULARY = 3000


def documents(path, n):
    subprocess.run([sys.executable, os.path.join(HERE, "..", "examples", "make_documents.py"), "--seed", "1",
                    "--document-seed", "1", "--vocabulary", str(VOCABULARY), "--n-train", str(n), "--n-test", "0",
                    "--train", path, "--test", os.devnull], check=True)


def median_seconds(run, repeats):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("build")
    parser.add_argument("--n", type=int, default=8000)
    parser.add_argument("--threads", type=int, default=1, help="threads of each fit in the first comparison")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    build = os.path.abspath(args.build)
    sys.path.insert(0, os.path.join(build, "python"))
    import ppk
    from sklearn.datasets import load_svmlight_file

    with tempfile.TemporaryDirectory(prefix="ppk-bench-fit-") as work:
        train = os.path.join(work, "train.txt")
        rows = os.path.join(work, "rows.txt")
        documents(train, args.n)
        X, y = load_svmlight_file(train, n_features=VOCABULARY)
        options = {"dim": VOCABULARY, "alpha": "1/D"}
        command = [os.path.join(build, "bin", "ppk"), "fit", "multinomial", "--dim", str(VOCABULARY), "--alpha", "1/D",
                   "--threads", str(args.threads), train, "-o", rows]
        command_line = median_seconds(lambda: subprocess.run(command, check=True), args.repeats)
        in_python = median_seconds(lambda: ppk.fit("multinomial", X, y, threads=args.threads, **options), args.repeats)
        with open(rows, "rb") as file:
            if ppk.fit("multinomial", X, y, threads=args.threads, **options).to_rows() != file.read():
                sys.exit("ppk.fit's rows differ from ppk fit's")

        def one_fit():
            ppk.fit("multinomial", X, y, threads=1, **options)

        def one_after_the_other():
            one_fit()
            one_fit()

        def at_once():
            workers = [threading.Thread(target=one_fit) for _ in range(2)]
            for worker in workers:
                worker.start()
            for worker in workers:
                worker.join()

        sequential = median_seconds(one_after_the_other, args.repeats)
        parallel = median_seconds(at_once, args.repeats)

    print(f"{args.n} documents, vocabulary {VOCABULARY}, alpha 1/D; medians of {args.repeats} runs")
    print(f"  ppk fit (a process, --threads {args.threads})  {command_line:.3f} s")
    print(f"  ppk.fit (in process, threads={args.threads})   {in_python:.3f} s   "
          f"ratio {in_python / command_line:.2f} (target <= 1.1)")
    print(f"  two fits, one Python thread        {sequential:.3f} s")
    print(f"  two fits, two Python threads       {parallel:.3f} s   "
          f"speed-up {sequential / parallel:.2f} (target >= 1.7)")


if __name__ == "__main__":
    main()
