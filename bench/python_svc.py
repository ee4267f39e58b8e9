#!/usr/bin/env python3
"""The Python routes to a classifier on documents, side by side in one run (docs/python.md, "Benchmark").

On documents from examples/make_documents.py (vocabulary 3000, one test set of 2,000 documents), at
each n of --sizes (default 2000 8000 30000), each route in a process of its own, with its wall time
and peak memory (the process's maximum resident set), its test accuracy and, where it has one, its
number of support vectors:

  ppksvc       PPKSVC(family="multinomial", rho=0.5, C): fit (ppk.fit + LIBSVM in process) and predict
  precomputed  ppk.fit, ppk.gram(train), SVC(kernel="precomputed", C).fit; ppk.gram(test, train), predict:
               what a scikit-learn user does without PPKSVC (skipped at n above --precomputed-limit:
               its Gram matrix is 8 n^2 bytes, 7.2 GB at 30,000)
  features     make_pipeline(PPKFeatures(family="multinomial", rho=0.5, method="sparse"), LinearSVC(C)): the
               explicit map of the smoothed rows kept sparse (the kernel plus a small rank-one term)
  svm-train    the rows of ppk fit through svm-train -t ppk -g 0.5 -c C -m 200 (PPKSVC's cache_size),
               against which PPKSVC's overhead is measured: PPKSVC.fit on the same rows read as
               ppk.Models (without the per-example fits), and whether its model file is svm-train's

The documents (seed 1; test documents --document-seed 0, training documents --document-seed 1) are
generated once per n into --work. Usage: bench/python_svc.py BUILD_DIR [--sizes ...] [--c C]
Run it with /usr/bin/python3 (Debian's numpy, scipy and scikit-learn) on an otherwise idle machine.
"""

import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
VOCABULARY = 3000
RHO = 0.5


def documents(work, n, seed, name):
    path = os.path.join(work, name)
    if not os.path.exists(path):
        subprocess.run([sys.executable, os.path.join(HERE, "..", "examples", "make_documents.py"), "--seed", "1",
                        "--document-seed", str(seed), "--vocabulary", str(VOCABULARY),
                        "--n-train", str(n) if name.startswith("train") else "0",
                        "--n-test", "0" if name.startswith("train") else str(n),
                        "--train", path if name.startswith("train") else os.devnull,
                        "--test", os.devnull if name.startswith("train") else path], check=True)
    return path


def load(path):
    from sklearn.datasets import load_svmlight_file
    return load_svmlight_file(path, n_features=VOCABULARY)


class PrecomputedSVC:
    """What a scikit-learn user does without PPKSVC: the models by ppk.fit, then SVC(kernel="precomputed")
    on the training Gram matrix (ppk.gram), and the whole test x train matrix to predict."""

    def __init__(self, c):
        from sklearn.svm import SVC
        self.svc = SVC(kernel="precomputed", C=c)

    def fit(self, X, y):
        import ppk
        self.models = ppk.fit("multinomial", X)
        self.svc.fit(ppk.gram(self.models, rho=RHO), y)
        self.n_support_ = self.svc.n_support_
        return self

    def predict(self, X):
        import ppk
        return self.svc.predict(ppk.gram(ppk.fit("multinomial", X), self.models, rho=RHO))


def make_estimator(route, c):
    if route == "ppksvc":
        from ppk.sklearn import PPKSVC
        return PPKSVC(family="multinomial", kernel="ppk", rho=RHO, C=c)
    if route == "precomputed":
        return PrecomputedSVC(c)
    from sklearn.pipeline import make_pipeline
    from sklearn.svm import LinearSVC
    from ppk.sklearn import PPKFeatures
    return make_pipeline(PPKFeatures(family="multinomial", kernel="ppk", rho=RHO, method="sparse"), LinearSVC(C=c))


def route_estimator(route, train, test, c, timings):
    """The route's estimator fitted on train and predicting test, each step timed."""
    X, y = load(train)
    X_test, y_test = load(test)
    estimator = make_estimator(route, c)
    start = time.perf_counter()
    estimator.fit(X, y)
    timings["fit"] = time.perf_counter() - start
    start = time.perf_counter()
    predicted = estimator.predict(X_test)
    timings["predict"] = time.perf_counter() - start
    if hasattr(estimator, "n_support_"):
        timings["support_vectors"] = int(sum(estimator.n_support_))
    return (predicted == y_test).mean()


def route_overhead(train, c, timings, build):
    """PPKSVC.fit on the rows of ppk fit against svm-train on the same rows, in this process."""
    import ppk
    from ppk.sklearn import PPKSVC
    rows = train + ".ppk"
    subprocess.run([os.path.join(build, "bin", "ppk"), "fit", "multinomial", "--dim", str(VOCABULARY), train,
                    "-o", rows], check=True)
    start = time.perf_counter()
    subprocess.run([os.path.join(build, "bin", "svm-train"), "-q", "-m", "200", "-t", "ppk", "-g", str(RHO), "-c", str(c),
                    rows, rows + ".model"], check=True)
    timings["svm_train"] = time.perf_counter() - start
    models = ppk.Models.from_rows(rows)
    start = time.perf_counter()
    svc = PPKSVC(kernel="ppk", rho=RHO, C=c).fit(models, models.labels)
    timings["ppksvc_on_rows"] = time.perf_counter() - start
    with open(rows + ".model", "rb") as file:
        timings["same_model"] = file.read() == svc.svm_.text()
    return float("nan")


ROUTES = ("ppksvc", "precomputed", "features", "svm-train")


def run_route(build, route, train, test, c):
    """One route in a child process: its timings, accuracy, wall time and peak memory (wait4's rusage)."""
    command = [sys.executable, __file__, build, "--child", route, train, test, "--c", str(c)]
    start = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    output = child.stdout.read()
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise SystemExit(f"{route} failed (exit {child.returncode})")
    result = json.loads(output)
    result.update(route=route, wall=time.perf_counter() - start, peak_mb=usage.ru_maxrss / 1024)
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("build")
    parser.add_argument("--sizes", type=int, nargs="+", default=[2000, 8000, 30000])
    parser.add_argument("--routes", nargs="+", default=list(ROUTES), choices=list(ROUTES))
    parser.add_argument("--c", type=float, default=10.0)
    parser.add_argument("--precomputed-limit", type=int, default=8000)
    parser.add_argument("--work", help="where the documents are kept (default BUILD/bench-python)")
    parser.add_argument("--child", nargs=3, metavar=("ROUTE", "TRAIN", "TEST"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    build = os.path.abspath(args.build)
    sys.path.insert(0, os.path.join(build, "python"))
    if args.child:
        route, train, test = args.child
        timings = {}
        if route == "svm-train":
            accuracy = route_overhead(train, args.c, timings, build)
        else:
            accuracy = route_estimator(route, train, test, args.c, timings)
        print(json.dumps(dict(timings, accuracy=accuracy)))
        return
    work = args.work or os.path.join(build, "bench-python")
    os.makedirs(work, exist_ok=True)
    test = documents(work, 2000, 0, "test.txt")
    print(f"documents: vocabulary {VOCABULARY}, 2000 test documents, rho {RHO}, C {args.c:g}")
    print(f"{'n':>6} {'route':<12} {'fit s':>8} {'predict s':>10} {'wall s':>8} {'peak MB':>8} {'accuracy':>9} {'SVs':>6}")
    for n in args.sizes:
        train = documents(work, n, 1, f"train{n}.txt")
        for route in args.routes:
            if route == "precomputed" and n > args.precomputed_limit:
                print(f"{n:>6} {route:<12} skipped: its Gram matrix alone is {8 * n * n / 1e9:.1f} GB")
                continue
            r = run_route(build, route, train, test, args.c)
            if route == "svm-train":
                print(f"{n:>6} {route:<12} svm-train {r['svm_train']:.2f} s, PPKSVC.fit on the same rows "
                      f"{r['ppksvc_on_rows']:.2f} s ({100 * (r['ppksvc_on_rows'] / r['svm_train'] - 1):+.1f}%), "
                      f"same model file: {r['same_model']}")
                continue
            print(f"{n:>6} {route:<12} {r['fit']:>8.2f} {r['predict']:>10.2f} {r['wall']:>8.2f} {r['peak_mb']:>8.0f} "
                  f"{r['accuracy']:>9.4f} {r.get('support_vectors', ''):>6}", flush=True)


if __name__ == "__main__":
    main()
