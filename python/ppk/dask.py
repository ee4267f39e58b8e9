"""Fit one model per example and map the models to feature vectors on a Dask cluster.

The training and test files (one example per line: LIBSVM rows, or 'LABEL SEQUENCE' lines for
hmm) are cut into partitions of --partition-rows lines. Each partition is one task on a
dask.distributed cluster, which runs the ppk binary as a subprocess: `ppk fit FAMILY` (one model
row per example; docs/cli.md) then `ppk map --map-from MAP` (one LIBSVM feature row per model
row; docs/dask.md). The feature map is fitted once, on this machine (the client), from fitted
training rows, and shipped to every task, so that training and test rows go through one map.
A row's features depend on the row and the map alone, and every per-example fit on the example
alone, so the features written are byte for byte those of `ppk fit` and `ppk map` run on one
machine.

Written to --out-dir: train.features and test.features (LIBSVM rows, in input order, the labels
kept) and train.map (the map, for `ppk map --map-from`); with --train-linear also linear.model
and test.predictions. Files are written only if every row fitted and mapped: a bad row is named
by its line in the input file, and the program exits with status 1 and no output.

Data flow: a partition's text travels to its task as task data and its feature rows come back to
the client, which writes them in order; no shared file system is needed, only the ppk binary on
every worker (--worker-ppk). At most --in-flight partitions are on the cluster at a time, so the
client holds a bounded number of partitions whatever the file size.

Whatever a fit decides on the whole training file (--alpha auto or evidence, --base pooled,
--prior pooled, an option set to auto, --shrink) is decided once here, on the whole training
file (`ppk fit ... --save-pooled`), and the partitions of both files are fitted with
--pooled-from; files named by --pooled-from, --adapt-from, --fisher-from and --alphabet-from are
shipped to the tasks. --pooled (one model for the whole file) is refused.

The tasks travel to the workers by value (cloudpickle), so that a worker needs dask and the ppk
binary, not this package. Run it as ``python3 -m ppk.dask`` (or ``examples/ppk_dask.py`` in a
checkout); ``main(argv)`` is the same from Python.

Example (a LocalCluster of 2 worker processes):
  python3 -m ppk.dask --ppk build/bin/ppk --family multinomial --fit-options "--dim 3000" \\
      -t ppk -g 0.5 --map exact --train train.txt --test test.txt --out-dir out \\
      --workers 2 --partition-rows 2000 --train-linear "liblinear-train -s 2 -c 1"
"""
import argparse
import asyncio
import collections
import itertools
import logging
import os
import random
import re
import shlex
import shutil
import socket
import subprocess
import sys
import tempfile

__all__ = ["main"]

# Fit options that name a file: its content is shipped to the tasks.
FILE_OPTIONS = ("--pooled-from", "--adapt-from", "--fisher-from", "--alphabet-from")
# Fit options the pipeline sets itself.
RESERVED_FIT_OPTIONS = ("-o", "--output", "--save-pooled", "--save-alphabet", "--threads")
# Option values that make a fit decide on the whole file (the per-sequence --states auto does not).
WHOLE_FILE_VALUES = ("auto", "evidence", "pooled")
PER_EXAMPLE_AUTO_OPTIONS = ("--states",)
# How long a client of a scheduler waits for its first worker, in seconds.
WORKER_TIMEOUT = 120


class PipelineError(Exception):
    """An error in the input or the options: reported on standard error, exit status 1."""


# ----- the tasks (run on the workers) -----------------------------------------------------------


def run_ppk(ppk, arguments, directory):
    """Runs ppk in DIRECTORY; returns (exit status, standard error)."""
    try:
        done = subprocess.run([ppk] + arguments, cwd=directory, stdin=subprocess.DEVNULL,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    except OSError as error:
        return 127, "cannot run %s on the worker %s (--worker-ppk): %s" % (
            ppk, socket.gethostname(), error.strerror)
    return done.returncode, done.stderr


def input_message(message, task):
    """ppk's MESSAGE about a partition's files, naming the input file instead: 'partition.txt:N'
    (fit) is line N of the partition, 'rows.ppk: row K' (map) the model row of its K-th example."""
    message = re.sub(r"partition\.txt:(\d+)",
                     lambda m: "%s:%d" % (task["input"], int(m.group(1)) + task["first_line"] - 1),
                     message)
    message = re.sub(r"rows\.ppk: row (\d+)",
                     lambda m: "%s: example %d (its model row)" % (
                         task["input"], int(m.group(1)) + task["first_example"] - 1),
                     message)
    partition = "%s (the partition from line %d)" % (task["input"], task["first_line"])
    return re.sub(r"(partition\.txt|rows\.ppk)", partition, message)


def run_partition(task, map_text):
    """One partition: TASK["steps"] is "fit", "map" or "fit+map". Returns {"rows": TEXT} (the
    model rows or feature rows) or {"error": MESSAGE}."""
    with tempfile.TemporaryDirectory(prefix="ppk-dask-") as directory:
        def path(name):
            return os.path.join(directory, name)

        threads = ["--threads", str(task["threads"])]
        if "fit" in task["steps"]:
            with open(path("partition.txt"), "w") as f:
                f.write(task["text"])
            for name, content in task["files"].items():
                with open(path(name), "w") as f:
                    f.write(content)
            status, errors = run_ppk(task["ppk"], ["fit"] + task["fit_arguments"] + threads +
                                     ["partition.txt", "-o", "rows.ppk"], directory)
            if status != 0:
                return {"error": input_message(errors, task).rstrip("\n")}
        else:
            with open(path("rows.ppk"), "w") as f:
                f.write(task["rows"])
        if "map" not in task["steps"]:
            with open(path("rows.ppk")) as f:
                return {"rows": f.read()}
        with open(path("feature.map"), "w") as f:
            f.write(map_text)
        status, errors = run_ppk(task["ppk"], ["map", "--map-from", "feature.map"] + threads +
                                 ["rows.ppk", "-o", "features.txt"], directory)
        if status != 0:
            return {"error": input_message(errors, task).rstrip("\n")}
        with open(path("features.txt")) as f:
            return {"rows": f.read()}


# ----- the client -------------------------------------------------------------------------------


def check_one_example_per_line(path):
    """Refuses a file whose examples span several lines (FASTA, qid groups), by its first line
    that is neither blank nor a '#' comment (as ppk fit detects the format)."""
    with open(path) as f:
        for number, line in enumerate(f, start=1):
            if line.strip() and not line.lstrip().startswith("#"):
                fields = line.split()
                if line.startswith(">"):
                    raise PipelineError("%s:%d: a FASTA file (its sequences span several lines); "
                                        "the pipeline splits files of one example per line: write "
                                        "'LABEL SEQUENCE' lines" % (path, number))
                if len(fields) > 1 and fields[1].startswith("qid:"):
                    raise PipelineError("%s:%d: qid groups (one example spans several lines); the "
                                        "pipeline splits files of one example per line" % (path, number))
                return


def partitions(path, rows_per_partition):
    """The file at PATH in consecutive pieces of ROWS_PER_PARTITION lines: (first line number,
    first example number, number of examples, text); '#' comment lines hold no example."""
    lines, first_line, first_example, examples = [], 1, 1, 0
    with open(path) as f:
        for number, line in enumerate(f, start=1):
            lines.append(line)
            examples += not line.lstrip().startswith("#")
            if len(lines) == rows_per_partition:
                yield first_line, first_example, examples, "".join(lines)
                lines, first_line, first_example, examples = [], number + 1, first_example + examples, 0
    if lines:
        yield first_line, first_example, examples, "".join(lines)


def option_value(arguments, name):
    """The value of option NAME in ARGUMENTS ('--name VALUE' or '--name=VALUE'), or None."""
    for i, argument in enumerate(arguments):
        if argument == name and i + 1 < len(arguments):
            return arguments[i + 1]
        if argument.startswith(name + "="):
            return argument[len(name) + 1:]
    return None


def decides_on_whole_file(arguments):
    """Whether the fit options make ppk fit decide something on the whole training file."""
    for i, argument in enumerate(arguments):
        if argument == "--shrink" or argument.startswith("--shrink="):
            return True
        name, _, value = argument.partition("=")
        if not value and i + 1 < len(arguments):
            value = arguments[i + 1]
        if name.startswith("--") and name not in PER_EXAMPLE_AUTO_OPTIONS and value in WHOLE_FILE_VALUES:
            return True
    return False


def fit_arguments(args, work):
    """The arguments of every partition's `ppk fit` and the files they name, {name: content}.
    Decides on the whole training file here when the options need it."""
    arguments = shlex.split(args.fit_options)
    for argument in arguments:
        if argument == "--pooled":
            raise PipelineError("--fit-options: --pooled fits one model to the whole file, which "
                                "partitions cannot: fit it once with ppk fit --pooled --save-pooled "
                                "POOL, then give the pipeline --adapt-from POOL")
        if argument.split("=")[0] in RESERVED_FIT_OPTIONS:
            raise PipelineError("--fit-options: %s is set by the pipeline" % argument)
    if args.family == "hmm" and option_value(arguments, "--alphabet") is None and \
            option_value(arguments, "--alphabet-from") is None:
        raise PipelineError("--fit-options: hmm needs --alphabet or --alphabet-from: a partition "
                            "cannot decide the alphabet of the whole training file")
    if decides_on_whole_file(arguments) and option_value(arguments, "--pooled-from") is None:
        pool = os.path.join(work, "decided.pool")
        status = subprocess.run([args.ppk, "fit", args.family] + arguments +
                                ["--save-pooled", pool, args.train, "-o", os.devnull],
                                stdout=subprocess.DEVNULL).returncode
        if status != 0:
            raise PipelineError("deciding the fit options on the whole training file failed (above)")
        arguments += ["--pooled-from", pool]
    files = {}
    shipped = []
    for i, argument in enumerate(arguments):
        name, equals, value = argument.partition("=")
        if name in FILE_OPTIONS:
            given = value if equals else arguments[i + 1]
            local = "shipped-%d-%s" % (len(files), os.path.basename(given))
            with open(given) as f:
                files[local] = f.read()
            shipped.append((i, equals, local))
    for i, equals, local in shipped:
        if equals:
            arguments[i] = arguments[i].partition("=")[0] + "=" + local
        else:
            arguments[i + 1] = local
    return [args.family] + arguments, files


def map_arguments(args):
    """`ppk map`'s options for fitting the map, from the command line's."""
    arguments = ["-t", args.kernel_type, "-g", args.rho, "-d", args.length, "--map", args.map]
    for option, value in (("--landmarks", args.landmarks), ("--landmark-choice", args.landmark_choice),
                          ("--seed", args.seed), ("--eigen-floor", args.eigen_floor)):
        if value is not None:
            arguments += [option, value]
    return arguments


def run_in_order(client, tasks, map_future, in_flight):
    """Runs TASKS on the cluster, at most IN_FLIGHT at a time; yields their rows in task order.
    The first failed task raises PipelineError with its message."""
    pending = collections.deque()  # (the task's data on the cluster, its result)

    def next_result():
        result = pending.popleft()[1].result()
        if "error" in result:
            for _, future in pending:
                future.cancel()
            raise PipelineError(result["error"])
        return result["rows"]

    for task in tasks:
        # Scattered, not embedded in the task graph: a partition is megabytes.
        [data] = client.scatter([task])
        pending.append((data, client.submit(run_partition, data, map_future, pure=False)))
        if len(pending) >= in_flight:
            yield next_result()
    while pending:
        yield next_result()


def write_rows(rows, path):
    with open(path, "w") as f:
        for text in rows:
            f.write(text)


def sample_rows(path, size, seed):
    """A uniform sample (reservoir sampling, seeded) of SIZE lines of the file at PATH, in file order."""
    rng = random.Random(seed)
    sample = []
    with open(path) as f:
        for number, line in enumerate(f):
            if len(sample) < size:
                sample.append((number, line))
            else:
                j = rng.randrange(number + 1)
                if j < size:
                    sample[j] = (number, line)
    return "".join(line for _, line in sorted(sample))


def start_client(args, work):
    """A client of the scheduler given, once a worker has joined it; else of a LocalCluster whose
    workers keep their files under WORK (not the shared /tmp/dask-worker-space, where another run's
    leftovers would be purged with a log line on standard error)."""
    import cloudpickle
    from dask.distributed import Client, LocalCluster
    if __name__ != "__main__":  # imported: the tasks are shipped by value, as a script's functions are
        cloudpickle.register_pickle_by_value(sys.modules[__name__])
    if args.scheduler or args.scheduler_file:
        client = Client(args.scheduler, scheduler_file=args.scheduler_file)
        try:
            client.wait_for_workers(1, timeout=WORKER_TIMEOUT)
        except (TimeoutError, asyncio.TimeoutError):
            address = client.scheduler.address
            client.close()
            raise PipelineError("no worker joined the scheduler %s in %d s" % (address, WORKER_TIMEOUT))
        return client
    # No dashboard, and the scheduler's HTTP server on a free port (not 8787, perhaps taken).
    cluster = LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                           dashboard_address=None, silence_logs=logging.ERROR,
                           local_directory=os.path.join(work, "workers"),
                           scheduler_kwargs={"dashboard": False, "dashboard_address": ":0"})
    return Client(cluster)


def train_linear(args, work):
    """liblinear-train (or the command given) on the training features, liblinear-predict on the
    test features; prints the test accuracy."""
    train = shlex.split(args.train_linear)
    predict = shlex.split(args.predict_linear) if args.predict_linear else \
        [re.sub(r"train$", "predict", train[0])]
    model = os.path.join(work, "linear.model")
    predictions = os.path.join(work, "test.predictions")
    subprocess.run(train + [os.path.join(work, "train.features"), model], check=True,
                   stdout=subprocess.DEVNULL)
    done = subprocess.run(predict + [os.path.join(work, "test.features"), model, predictions],
                          check=True, stdout=subprocess.PIPE, text=True)
    print("%s: %s" % (args.program, done.stdout.strip()))


def run(args, client, work, arguments, files):
    """The pipeline, writing its files into WORK; ARGUMENTS and FILES: every partition's fit."""

    def tasks(path, steps, rows_path=None):
        """The tasks of the file at PATH; for steps "map", with the model rows of its examples,
        read from ROWS_PATH."""
        rows = open(rows_path) if rows_path else None
        try:
            for first_line, first_example, examples, text in partitions(path, args.partition_rows):
                if examples == 0:
                    continue  # only comments: no rows (and ppk map refuses an empty file)
                task = {"steps": steps, "ppk": args.worker_ppk, "threads": args.task_threads,
                        "input": path, "first_line": first_line, "first_example": first_example}
                if rows:
                    task["rows"] = "".join(rows.readline() for _ in range(examples))
                else:
                    task.update({"fit_arguments": arguments, "files": files, "text": text})
                yield task
        finally:
            if rows:
                rows.close()

    map_path = os.path.join(work, "train.map")
    if args.map_from:
        shutil.copyfile(args.map_from, map_path)
        train_steps = "fit+map"
    else:
        # The map needs fitted training rows: the first partition's for the exact and sparse
        # maps (they keep the rows' family and sample space, no rows), all of them, or
        # --map-sample of them, for Nystrom's landmarks.
        rows_path = os.path.join(work, "train.ppk")
        fit_tasks = tasks(args.train, "fit")
        if args.map != "nystrom":
            fit_tasks = itertools.islice(fit_tasks, 1)
        write_rows(run_in_order(client, fit_tasks, None, args.in_flight), rows_path)
        map_rows = rows_path
        if args.map == "nystrom" and args.map_sample:
            map_rows = os.path.join(work, "sample.ppk")
            with open(map_rows, "w") as f:
                f.write(sample_rows(rows_path, args.map_sample, args.sample_seed))
        if args.map == "nystrom" and not args.map_sample:
            # Fitting the map on every training row maps them too: keep those features.
            features = os.path.join(work, "train.features")
            train_steps = None
        else:
            features = os.devnull
            train_steps = "map" if args.map == "nystrom" else "fit+map"
        status = subprocess.run([args.ppk, "map"] + map_arguments(args) +
                                ["--save-map", map_path, map_rows,
                                 "-o", features]).returncode
        if status != 0:
            raise PipelineError("fitting the map on the training rows failed (above)")
    with open(map_path) as f:
        map_future = client.scatter(f.read(), broadcast=True)
    if train_steps:
        write_rows(run_in_order(client, tasks(args.train, train_steps,
                                              rows_path if train_steps == "map" else None),
                                map_future, args.in_flight),
                   os.path.join(work, "train.features"))
    write_rows(run_in_order(client, tasks(args.test, "fit+map"), map_future, args.in_flight),
               os.path.join(work, "test.features"))
    if args.train_linear:
        train_linear(args, work)


def parse_arguments(argv, program, command):
    """The options of ARGV (None: the command line's) for the usage line of COMMAND; args.program is
    PROGRAM, the name that starts the program's messages."""
    ap = argparse.ArgumentParser(prog=command, description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ppk", metavar="PATH", required=True,
                    help="the ppk binary on this machine (fits the map)")
    ap.add_argument("--worker-ppk", metavar="PATH", help="the ppk binary on the workers (default: --ppk)")
    ap.add_argument("--family", metavar="FAMILY", required=True,
                    help="ppk fit's FAMILY (multinomial, bernoulli, hmm, ...)")
    ap.add_argument("--fit-options", metavar='"OPTIONS"', default="",
                    help="ppk fit's options, one string (\"--dim 3000 --alpha 0.01\")")
    ap.add_argument("--train", metavar="FILE", required=True, help="the training file, one example per line")
    ap.add_argument("--test", metavar="FILE", required=True, help="the test file, one example per line")
    ap.add_argument("--out-dir", metavar="DIR", required=True,
                    help="where train.features, test.features and train.map go")
    group = ap.add_argument_group("the map (ppk map --help)")
    group.add_argument("-t", "--kernel-type", choices=("ppk", "ppk_norm"), help="the kernel")
    group.add_argument("-g", "--rho", help="the exponent rho > 0")
    group.add_argument("-d", "--length", metavar="T", default="0",
                       help="time steps of sequence models (default 0)")
    group.add_argument("--map", default="exact", choices=("exact", "sparse", "nystrom"), help="the route")
    group.add_argument("--landmarks", metavar="M", help="nystrom: the number of landmarks")
    group.add_argument("--landmark-choice", choices=("uniform", "kmeans++"), help="nystrom: how they are drawn")
    group.add_argument("--seed", metavar="S", help="nystrom: the seed of the landmarks' draw")
    group.add_argument("--eigen-floor", metavar="F", help="nystrom: the eigenvalue floor")
    group.add_argument("--map-sample", metavar="N", type=int, default=0,
                       help="nystrom: fit the map on a uniform sample of this many fitted training rows "
                            "(default 0: all of them, the map `ppk map --save-map` gives on one machine)")
    group.add_argument("--sample-seed", metavar="S", type=int, default=1, help="the seed of --map-sample's draw")
    group.add_argument("--map-from", metavar="MAP", help="a saved map (ppk map --save-map) instead of fitting one")
    group = ap.add_argument_group("the cluster")
    schedulers = group.add_mutually_exclusive_group()
    schedulers.add_argument("--scheduler", metavar="tcp://HOST:PORT",
                            help="a dask scheduler's address; default: a LocalCluster")
    schedulers.add_argument("--scheduler-file", metavar="FILE",
                            help="the scheduler's file (dask scheduler --scheduler-file)")
    group.add_argument("--workers", metavar="N", type=int, default=2,
                       help="the LocalCluster's worker processes (default 2)")
    group.add_argument("--partition-rows", metavar="LINES", type=int, default=2000,
                       help="lines per partition (default 2000)")
    group.add_argument("--in-flight", metavar="N", type=int, default=0,
                       help="partitions on the cluster at a time (default: 2 per worker thread)")
    group.add_argument("--task-threads", metavar="N", type=int, default=1,
                       help="ppk's --threads in each task (default 1)")
    group = ap.add_argument_group("the linear SVM")
    group.add_argument("--train-linear", metavar='"COMMAND"',
                       help="train on train.features with this command (\"liblinear-train -s 2 -c 1\"), "
                            "report the test accuracy")
    group.add_argument("--predict-linear", metavar='"COMMAND"',
                       help="the prediction command (default: --train-linear's program with 'train' "
                            "replaced by 'predict')")
    args = ap.parse_args(argv)
    args.program = program
    if not args.map_from and (args.kernel_type is None or args.rho is None):
        ap.error("-t and -g are required (or --map-from)")
    if args.partition_rows < 1 or args.workers < 1 or args.map_sample < 0:
        ap.error("--partition-rows and --workers must be at least 1, --map-sample at least 0")
    if args.map_sample and args.map != "nystrom":
        ap.error("--map-sample is for --map nystrom (the other maps keep no training rows)")
    if not (os.path.isfile(args.ppk) and os.access(args.ppk, os.X_OK)):
        ap.error("--ppk %s is not an executable file" % args.ppk)
    args.worker_ppk = args.worker_ppk or args.ppk
    return args


def main(argv=None, program=None, command=None):
    """The pipeline of the module's description on the command line's words.

    Parameters
    ----------
    argv : list of str, optional
        The words (None: sys.argv[1:]).
    program : str, optional
        The name that starts the messages (default: the name of the script run, sys.argv[0]).
    command : str, optional
        The name in the usage line (default: program).

    Returns
    -------
    int
        The exit status: 0 when every row fitted and mapped and the files are written, else 1.

    Examples
    --------
    >>> import os, sys, tempfile
    >>> from ppk.dask import main
    >>> with tempfile.TemporaryDirectory() as directory:   # refused before any cluster starts
    ...     main(["--ppk", sys.executable, "--family", "multinomial", "--fit-options=--pooled",
    ...           "--train", os.devnull, "--test", os.devnull, "--out-dir", os.path.join(directory, "out"),
    ...           "-t", "ppk", "-g", "1"], program="ppk.dask")
    1
    """
    program = program or os.path.basename(sys.argv[0])
    args = parse_arguments(argv, program, command or program)
    created = not os.path.isdir(args.out_dir)
    os.makedirs(args.out_dir, exist_ok=True)
    work = tempfile.mkdtemp(prefix=".ppk-dask-", dir=args.out_dir)
    client = None
    status = 1
    try:
        for path in (args.train, args.test):
            check_one_example_per_line(path)
        arguments, files = fit_arguments(args, work)
        client = start_client(args, work)
        if not args.in_flight:
            args.in_flight = 2 * sum(client.nthreads().values())
        run(args, client, work, arguments, files)
        outputs = ["train.features", "test.features", "train.map"]
        if args.train_linear:
            outputs += ["linear.model", "test.predictions"]
        for name in outputs:
            os.replace(os.path.join(work, name), os.path.join(args.out_dir, name))
        status = 0
    except (PipelineError, OSError, subprocess.CalledProcessError) as error:
        print("%s: %s" % (args.program, error), file=sys.stderr)
    finally:
        if client is not None:
            client.close()
            if not (args.scheduler or args.scheduler_file):
                client.cluster.close()
        shutil.rmtree(work, ignore_errors=True)
        if status != 0 and created:
            os.rmdir(args.out_dir)
    return status


if __name__ == "__main__":
    sys.exit(main(program="ppk.dask", command="python3 -m ppk.dask"))
