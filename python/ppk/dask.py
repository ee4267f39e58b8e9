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
kept) and train.map (the map, for `ppk map --map-from`); with --train-linear or
--train-partitioned also linear.model and test.predictions. Files are written only if every row
fitted and mapped: a bad row is named by its line in the input file, and the program exits with
status 1 and no output.

Data flow: a partition's text travels to its task as task data and its feature rows come back to
the client, which writes them in order; no shared file system is needed, only the ppk binary on
every worker (--worker-ppk). At most --in-flight partitions are on the cluster at a time, so the
client holds a bounded number of partitions whatever the file size.

Losing workers: a task's data is an argument of the task in the graph the scheduler holds, and
the map a task of that graph, so the tasks of a lost worker are rerun on the others with the same
rows (at most distributed.scheduler.allowed-failures times each). Losing every worker for
--worker-timeout seconds, or the scheduler, ends the run with one line of error and no output.
--progress reports the partitions done and the rows per second. With --checkpoint DIR every
partition's rows are kept in DIR as they come back, under the digest of everything they are a
function of, so that the same command run again after a failure makes only what is missing.

With --train-partitioned the training features stay on the workers that made them, and
LIBLINEAR's L2-loss linear SVM (-s 2, its C) is trained on them where they are: scipy's L-BFGS
on the client, each partition's term of the objective and its gradient a task on the worker that
holds the partition; the model is written as a LIBLINEAR model file.

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
import contextlib
import hashlib
import itertools
import json
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
import time
import warnings
from concurrent.futures import CancelledError

__all__ = ["main"]

# Fit options that name a file: its content is shipped to the tasks.
FILE_OPTIONS = ("--pooled-from", "--adapt-from", "--fisher-from", "--alphabet-from")
# Fit options the pipeline sets itself.
RESERVED_FIT_OPTIONS = ("-o", "--output", "--save-pooled", "--save-alphabet", "--threads")
# Option values that make a fit decide on the whole file (the per-sequence --states auto does not).
WHOLE_FILE_VALUES = ("auto", "evidence", "pooled")
PER_EXAMPLE_AUTO_OPTIONS = ("--states",)
# How long a client of a scheduler waits for a worker (its first, or a new one when every worker
# has left), in seconds: --worker-timeout's default.
WORKER_TIMEOUT = 120
# --train-partitioned's L-BFGS iterations at most: --max-iterations' default (LIBLINEAR's -s 2
# stops at 1000 Newton iterations).
MAX_ITERATIONS = 1000
# The name of a run's work folder in --out-dir starts with this, the host's name and the process id.
WORK_PREFIX = ".ppk-dask-"
# How often, in seconds, a client waiting for a result asks the scheduler whether it has workers.
POLL_SECONDS = 1


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


def feature_matrix(text, dimension):
    """Feature rows TEXT (LIBSVM rows, 1-based indices) as (X, y): a scipy.sparse CSR matrix of
    DIMENSION columns and the labels."""
    import io
    from sklearn.datasets import load_svmlight_file
    return load_svmlight_file(io.BytesIO(text.encode()), n_features=dimension, zero_based=False)


def parsed_features(result, dimension):
    """A task's feature rows, RESULT["rows"], as feature_matrix gives them."""
    return feature_matrix(result["rows"], dimension)


def squared_hinge(part, weights, labels):
    """The data term of LIBLINEAR's L2-loss SVM (-s 2) on the partition PART = (X, y) and its
    gradient in WEIGHTS (features x the weight vectors): sum_i sum_k max(0, 1 - Y_ik w_k.x_i)^2,
    where Y_ik is +1 when y_i is LABELS[k] and -1 otherwise (two classes: one weight vector, of
    LABELS[0])."""
    import numpy
    X, y = part
    Y = numpy.where(y[:, None] == numpy.asarray(labels[:weights.shape[1]])[None, :], 1.0, -1.0)
    margins = numpy.maximum(1.0 - Y * (X @ weights), 0.0)
    return float((margins * margins).sum()), -2.0 * (X.T @ (Y * margins))


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


def fit_arguments(args, work, checkpoint):
    """The arguments of every partition's `ppk fit` and the files they name, {name: content}.
    Decides on the whole training file here when the options need it (or takes the decision kept
    in CHECKPOINT)."""
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

        def decide():
            status = subprocess.run([args.ppk, "fit", args.family] + arguments +
                                    ["--save-pooled", pool, args.train, "-o", os.devnull],
                                    stdout=subprocess.DEVNULL).returncode
            if status != 0:
                raise PipelineError("deciding the fit options on the whole training file failed (above)")
        checkpoint.files("pool", [args.family] + arguments, [args.train], {"pool": pool}, decide)
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


def held_in_the_graph(value):
    """VALUE itself: a task whose argument is VALUE, so that the scheduler holds VALUE in the task
    graph and recomputes it on another worker when the worker that held it is lost (data scattered
    to a worker is lost with it, and with it every task that needs it)."""
    return value


# The map the tasks read: a task of the graph (FUTURE) and the SHA-256 of its text (DIGEST).
ShippedMap = collections.namedtuple("ShippedMap", "future digest")


def partition_name(task):
    return "%s, the partition from line %d" % (task["input"], task["first_line"])


class Progress:
    """A file's partitions done and rows per second, on standard error: one line per partition
    (--progress lines), one line redrawn in place when standard error is a terminal (auto), or
    nothing (none)."""

    def __init__(self, mode, program, label, total):
        self.mode = "lines" if mode == "lines" else \
            "redrawn" if mode == "auto" and sys.stderr.isatty() else "none"
        self.program, self.label, self.total = program, label, total
        self.done, self.reused, self.rows, self.start = 0, 0, 0, time.monotonic()

    def partition_done(self, rows, reused=False):
        """A partition of ROWS rows came back (REUSED: was found in the checkpoint)."""
        self.done += 1
        self.reused += reused
        self.rows += rows
        if self.mode == "none":
            return
        seconds = max(time.monotonic() - self.start, 1e-9)
        line = "%s: %s: %d/%d partitions, %d rows, %.0f rows/s" % (
            self.program, self.label, self.done, self.total, self.rows, self.rows / seconds)
        if self.reused:
            line += ", %d reused" % self.reused
        if self.mode == "lines":
            print(line, file=sys.stderr, flush=True)
        else:
            print("\r" + line + ("\n" if self.done == self.total else ""), end="", file=sys.stderr,
                  flush=True)


class Checkpoint:
    """Results kept in a folder (--checkpoint DIR) as they are made, so that a run stopped part-way
    (a killed client, a lost scheduler) and run again does not make them again. Each result is a
    file named by the SHA-256 of everything it is a function of (a partition's task data and the
    map's digest; the map's options and rows; ppk's binary), so a rerun finds exactly the results
    its own inputs would make, and results of other inputs are never taken. A file appears whole or
    not at all (written beside, then renamed). Without a folder nothing is kept."""

    def __init__(self, directory, ppk):
        self.directory = directory
        if directory is None:
            return
        os.makedirs(directory, exist_ok=True)
        self.ppk_digest = file_digest(ppk)

    def key(self, kind, *parts):
        """The name of the result KIND made from PARTS (strings)."""
        digest = hashlib.sha256(self.ppk_digest.encode())
        for part in parts:
            data = part.encode()
            digest.update(b"%d:" % len(data) + data)
        return "%s-%s" % (kind, digest.hexdigest())

    def task_key(self, task, map_digest):
        """The name of TASK's rows; MAP_DIGEST: the digest of the map it maps with."""
        if self.directory is None:
            return None
        data = {name: value for name, value in task.items() if name != "threads"}
        return self.key("rows", json.dumps(data, sort_keys=True), map_digest)

    def get(self, key):
        """The text kept under KEY, or None."""
        if self.directory is None:
            return None
        try:
            with open(os.path.join(self.directory, key)) as f:
                return f.read()
        except FileNotFoundError:
            return None

    def put(self, key, text):
        """Keeps TEXT under KEY."""
        if self.directory is None:
            return
        path = os.path.join(self.directory, key)
        with open(path + ".partial", "w") as f:
            f.write(text)
        os.replace(path + ".partial", path)

    def files(self, kind, parts, inputs, paths, make):
        """Makes the files PATHS ({name: path}) with MAKE(), or copies them from the folder where
        they were kept under KIND, PARTS (strings) and the contents of the files INPUTS, keeping
        them there once made. The inputs are read only when there is a folder."""
        if self.directory is None:
            make()
            return
        key = self.key(kind, *parts, *[file_digest(path) for path in inputs])
        kept = {name: os.path.join(self.directory, "%s.%s" % (key, name)) for name in paths}
        if not all(os.path.exists(path) for path in kept.values()):
            make()
            for name, path in paths.items():
                shutil.copyfile(path, kept[name] + ".partial")
                os.replace(kept[name] + ".partial", kept[name])
        else:
            for name, path in paths.items():
                shutil.copyfile(kept[name], path)


def file_digest(path):
    """The SHA-256 of the file at PATH, in hexadecimal."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def cluster_result(client, future, what, worker_timeout):
    """FUTURE's result, waiting as long as the scheduler has a worker (dask reruns a task lost with
    its worker on another one). Raises PipelineError when the scheduler is lost, when the scheduler
    has had no worker for WORKER_TIMEOUT seconds, or when the task (WHAT names it) was lost with
    more workers than the scheduler's distributed.scheduler.allowed-failures allows."""
    from distributed import KilledWorker
    from distributed.comm import CommClosedError
    address = client.scheduler.address
    alone_since = None
    while True:
        try:
            return future.result(timeout=POLL_SECONDS)
        except (TimeoutError, asyncio.TimeoutError):
            pass
        except KilledWorker:
            raise PipelineError(
                "%s: its task was lost with its worker more often than the scheduler's "
                "distributed.scheduler.allowed-failures allows (dask's default: 3), so dask gave it "
                "up; nothing is written: look for what kills the workers (their memory limit?) and "
                "run again" % what)
        except (CancelledError, CommClosedError, OSError):
            if client.status == "running":
                raise
            raise PipelineError(lost_scheduler(address))
        try:
            workers = len(client.nthreads())
        except (CommClosedError, OSError, TimeoutError, asyncio.TimeoutError):
            raise PipelineError(lost_scheduler(address))
        if workers:
            alone_since = None
            continue
        alone_since = alone_since or time.monotonic()
        if time.monotonic() - alone_since > worker_timeout:
            raise PipelineError(
                "every worker left the scheduler %s and none joined in %g s (--worker-timeout): "
                "nothing is written; start workers (dask worker %s) and run again" % (
                    address, worker_timeout, address))


def lost_scheduler(address):
    return ("lost the connection to the scheduler %s: nothing is written; restart the scheduler "
            "and its workers and run again" % address)


def run_in_order(client, tasks, shipped_map, args, progress, checkpoint, kept_on_cluster=None):
    """Runs TASKS on the cluster, at most args.in_flight at a time; yields their rows in task order
    and reports each to PROGRESS. A task is pure (its rows depend on its data alone) and holds its
    partition in the task graph, so that dask reruns it elsewhere when its worker is lost. The rows
    of a task found in CHECKPOINT are taken from it, and those of every task run are put in it as
    they come back. With KEPT_ON_CLUSTER (a list), every task's result, {"rows": TEXT}, stays on
    the cluster: its future is appended (a kept task's rows are given to the graph). The first
    failed task raises PipelineError with its message."""
    pending = collections.deque()  # (the task, its checkpoint key, its result or its kept rows)

    def next_result():
        task, key, result = pending.popleft()
        if isinstance(result, str):
            progress.partition_done(result.count("\n"), reused=True)
            return result
        result = cluster_result(client, result, partition_name(task), args.worker_timeout)
        if "error" in result:
            for _, _, other in pending:
                if not isinstance(other, str):
                    other.cancel()
            raise PipelineError(result["error"])
        checkpoint.put(key, result["rows"])
        progress.partition_done(result["rows"].count("\n"))
        return result["rows"]

    def running():
        return sum(not isinstance(result, str) for _, _, result in pending)

    for task in tasks:
        key = checkpoint.task_key(task, shipped_map.digest if shipped_map else "")
        kept = checkpoint.get(key)
        pending.append((task, key, kept if kept is not None else client.submit(
            run_partition, task, shipped_map.future if shipped_map else None, pure=False)))
        if kept_on_cluster is not None:
            kept_on_cluster.append(client.submit(held_in_the_graph, {"rows": kept}, pure=False)
                                   if kept is not None else pending[-1][2])
        while running() >= args.in_flight:
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
            client.wait_for_workers(1, timeout=args.worker_timeout)
        except (TimeoutError, asyncio.TimeoutError):
            address = client.scheduler.address
            client.close()
            raise PipelineError("no worker joined the scheduler %s in %g s (--worker-timeout)" % (
                address, args.worker_timeout))
        return client
    # No dashboard, and the scheduler's HTTP server on a free port (not 8787, perhaps taken).
    cluster = LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                           dashboard_address=None, silence_logs=logging.ERROR,
                           local_directory=os.path.join(work, "workers"),
                           scheduler_kwargs={"dashboard": False, "dashboard_address": ":0"})
    return Client(cluster)


def remove_leftovers(out_dir):
    """Removes the work folders left in OUT_DIR by runs of this host that were killed (their
    process is gone): .ppk-dask-HOST-PID-*."""
    for name in os.listdir(out_dir):
        found = re.fullmatch(re.escape(WORK_PREFIX) + r"(.+)-(\d+)-[^-]+", name)
        if not found or found.group(1) != socket.gethostname():
            continue
        try:
            os.kill(int(found.group(2)), 0)
        except ProcessLookupError:
            shutil.rmtree(os.path.join(out_dir, name), ignore_errors=True)
        except PermissionError:
            pass  # another user's process: alive


@contextlib.contextmanager
def dask_logs_silenced():
    """Within: dask's logs of the client are not shown, nor its warning about large task
    arguments. The pipeline reports what it lost in one line of its own; dask would log the same
    events as tracebacks (a client that loses its scheduler logs the closed connection and, while
    closing, the cancelled reconnection, on the logger of whichever module the stack shows:
    Python's last-resort handler prints those unless the root logger has a handler). Loggers a
    program has given handlers keep them. The partitions are task arguments on purpose (a scattered
    partition is lost with its worker), which dask warns about from 1 MB on."""
    import distributed  # noqa: F401 (its loggers, with their handlers)
    loggers = [logging.getLogger(name) for name in list(logging.root.manager.loggerDict)
               if name == "distributed" or name.startswith("distributed.")]
    levels = [log.level for log in loggers]
    for log in loggers:
        log.setLevel(logging.CRITICAL + 1)
    no_handler = logging.NullHandler()
    if not logging.root.handlers:
        logging.root.addHandler(no_handler)
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="Large object of size", category=UserWarning)
            yield
    finally:
        logging.root.removeHandler(no_handler)
        for log, level in zip(loggers, levels):
            log.setLevel(level)


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


def labels_counted(rows, labels):
    """ROWS (texts of feature rows), each passed on once its rows' labels are counted in LABELS (a
    Counter)."""
    for text in rows:
        labels.update(line.split(None, 1)[0] for line in text.splitlines())
        yield text


# A linear SVM: LIBLINEAR's labels (in its model's order) and WEIGHTS, features x (1 for two
# classes, the weight vector of LABELS[0]; else one per label, one-vs-rest).
LinearModel = collections.namedtuple("LinearModel", "labels weights")


def write_liblinear_model(model, path):
    """MODEL (a LinearModel) as the LIBLINEAR model file of an L2-loss SVM without bias (-s 2),
    which liblinear-predict reads."""
    with open(path, "w") as f:
        f.write("solver_type L2R_L2LOSS_SVC\nnr_class %d\nlabel %s\nnr_feature %d\nbias -1\nw\n" % (
            len(model.labels), " ".join("%d" % label for label in model.labels), model.weights.shape[0]))
        for row in model.weights:
            f.write("".join("%.17g " % value for value in row) + "\n")


def predict_linear(model, features, predictions, chunk_rows):
    """MODEL's labels (LinearModel) of the rows of the file FEATURES, as liblinear-predict gives
    them (two classes: LABELS[0] where the decision value is > 0; else the label of the largest,
    the first of equal ones), written to PREDICTIONS, reading CHUNK_ROWS rows at a time; returns
    (correct, total)."""
    import numpy
    labels = numpy.asarray(model.labels, dtype=float)
    correct = total = 0
    with open(features) as rows, open(predictions, "w") as out:
        while True:
            chunk = "".join(itertools.islice(rows, chunk_rows))
            if not chunk:
                return correct, total
            X, y = feature_matrix(chunk, model.weights.shape[0])
            decisions = X @ model.weights
            predicted = numpy.where(decisions[:, 0] > 0, labels[0], labels[1]) if len(labels) == 2 \
                else labels[numpy.argmax(decisions, axis=1)]
            out.write("".join("%.17g\n" % label for label in predicted))
            correct += int((predicted == y).sum())
            total += len(y)


def map_dimension(path):
    """The number of features of the map saved at PATH (its 'dimension' line)."""
    with open(path) as f:
        for line in f:
            if line.startswith("dimension "):
                return int(line.split()[1])
    raise PipelineError("%s: no 'dimension' line (not a map of ppk map --save-map)" % path)


def training_labels(labels):
    """The training file's labels (LABELS: a Counter of their texts) in LIBLINEAR's model order
    (here ascending), as integers; refuses fewer than two, or one that is not an integer."""
    values = []
    for text in labels:
        try:
            value = float(text)
        except ValueError:
            value = None
        if value is None or value != int(value):
            raise PipelineError("--train-partitioned: the training label '%s' is not an integer "
                                "(LIBLINEAR's classes are)" % text)
        values.append(int(value))
    if len(values) < 2:
        raise PipelineError("--train-partitioned: the training file holds one label (%s): a "
                            "classifier needs two" % next(iter(labels)))
    return sorted(values)


def train_partitioned(args, client, work, kept, labels):
    """LIBLINEAR's L2-loss linear SVM (-s 2: 1/2 |w|^2 + C sum_i max(0, 1 - y_i w.x_i)^2, no bias;
    one-vs-rest for more than two classes) trained on the training features KEPT on the cluster:
    scipy's L-BFGS-B minimises the objective on the client, whose value and gradient are sums over
    the partitions, each term a task on the worker that holds its partition. The features never
    come together; the weights travel, once per evaluation. Writes linear.model (LIBLINEAR's
    format) and test.predictions, and prints the test accuracy. LABELS: the count of each training
    label."""
    import numpy
    import scipy.optimize
    dimension = map_dimension(os.path.join(work, "train.map"))
    classes = training_labels(labels)
    columns = 1 if len(classes) == 2 else len(classes)
    parts = [client.submit(parsed_features, rows, dimension, pure=False) for rows in kept]
    del kept[:]  # each partition's text is released once parsed
    evaluations = 0

    def objective(flat):
        nonlocal evaluations
        evaluations += 1
        weights = flat.reshape(dimension, columns)
        shipped = client.submit(held_in_the_graph, weights, pure=False)
        terms = [client.submit(squared_hinge, part, shipped, classes, pure=False) for part in parts]
        value, gradient = 0.5 * float(flat @ flat), flat.copy()
        for term in terms:  # summed in partition order: the same model from every run
            loss, loss_gradient = cluster_result(client, term, "a term of the linear SVM's objective",
                                                 args.worker_timeout)
            value += args.linear_c * loss
            gradient += args.linear_c * loss_gradient.ravel()
        return value, gradient

    solution = scipy.optimize.minimize(objective, numpy.zeros(dimension * columns), jac=True,
                                       method="L-BFGS-B", options={"maxiter": args.max_iterations})
    partition_count = len(parts)
    parts.clear()  # the features are released
    if solution.success:
        print("%s: the linear SVM converged in %d L-BFGS iterations (%d evaluations, each a task per partition of %d)" % (
            args.program, solution.nit, evaluations, partition_count), file=sys.stderr)
    else:
        print("%s: the linear SVM's solver stopped after %d iterations without converging "
              "(--max-iterations %d): %s" % (args.program, solution.nit, args.max_iterations,
                                             solution.message), file=sys.stderr)
    model = LinearModel(classes, solution.x.reshape(dimension, columns))
    write_liblinear_model(model, os.path.join(work, "linear.model"))
    correct, total = predict_linear(model, os.path.join(work, "test.features"),
                                    os.path.join(work, "test.predictions"), args.partition_rows)
    print("%s: Accuracy = %g%% (%d/%d)" % (args.program, 100.0 * correct / total, correct, total))


def run(args, client, work, arguments, files, checkpoint):
    """The pipeline, writing its files into WORK; ARGUMENTS and FILES: every partition's fit;
    CHECKPOINT: where results are kept as they are made, and found when made before."""

    def file_tasks(path, steps, rows_path=None, first_only=False):
        """The tasks of the file at PATH (only its first partition's: FIRST_ONLY), and their
        Progress."""
        total = sum(1 for _, _, examples, _ in partitions(path, args.partition_rows) if examples)
        label = "%s (%s)" % (path, steps)
        found = tasks(path, steps, rows_path)
        if first_only:
            total, found = min(total, 1), itertools.islice(found, 1)
        return found, Progress(args.progress, args.program, label, total)

    def on_cluster(path, steps, rows_path=None, first_only=False, kept=None):
        """The rows of the file at PATH's tasks, in order (KEPT: run_in_order's kept_on_cluster)."""
        found, progress = file_tasks(path, steps, rows_path, first_only)
        return run_in_order(client, found, shipped_map, args, progress, checkpoint, kept)

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
    shipped_map = None
    if args.map_from:
        shutil.copyfile(args.map_from, map_path)
        train_steps = "fit+map"
    else:
        # The map needs fitted training rows: the first partition's for the exact and sparse
        # maps (they keep the rows' family and sample space, no rows), all of them, or
        # --map-sample of them, for Nystrom's landmarks.
        rows_path = os.path.join(work, "train.ppk")
        write_rows(on_cluster(args.train, "fit", first_only=args.map != "nystrom"), rows_path)
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

        def fit_map():
            status = subprocess.run([args.ppk, "map"] + map_arguments(args) +
                                    ["--save-map", map_path, map_rows, "-o", features]).returncode
            if status != 0:
                raise PipelineError("fitting the map on the training rows failed (above)")
        made = {"map": map_path}
        if features != os.devnull:
            made["features"] = features
        checkpoint.files("map", map_arguments(args), [map_rows], made, fit_map)
    with open(map_path) as f:
        text = f.read()
    shipped_map = ShippedMap(client.submit(held_in_the_graph, text, pure=True),
                             hashlib.sha256(text.encode()).hexdigest())
    kept = [] if args.train_partitioned else None
    labels = collections.Counter()
    if train_steps:
        write_rows(labels_counted(on_cluster(args.train, train_steps,
                                             rows_path if train_steps == "map" else None, kept=kept),
                                  labels),
                   os.path.join(work, "train.features"))
    write_rows(on_cluster(args.test, "fit+map"), os.path.join(work, "test.features"))
    if args.train_linear:
        train_linear(args, work)
    if args.train_partitioned:
        train_partitioned(args, client, work, kept, labels)


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
    group.add_argument("--worker-timeout", metavar="SECONDS", type=float, default=WORKER_TIMEOUT,
                       help="how long to wait for a worker: the first, or a new one when every "
                            "worker has left (default %d)" % WORKER_TIMEOUT)
    group.add_argument("--checkpoint", metavar="DIR",
                       help="keep every partition's rows (and the map) in DIR as they come back, so "
                            "that the same command run again after a failure makes only what is "
                            "missing (default: keep nothing)")
    group.add_argument("--progress", choices=("auto", "lines", "none"), default="auto",
                       help="partitions done and rows per second on standard error: one line redrawn "
                            "on a terminal (auto, the default), a line per partition, or none")
    group = ap.add_argument_group("the linear SVM")
    group.add_argument("--train-linear", metavar='"COMMAND"',
                       help="train on train.features with this command (\"liblinear-train -s 2 -c 1\"), "
                            "report the test accuracy")
    group.add_argument("--train-partitioned", action="store_true",
                       help="train LIBLINEAR's L2-loss SVM (-s 2) on the training features where they "
                            "are, on the workers (scipy's L-BFGS on the client, the objective's terms "
                            "on the workers); writes linear.model (LIBLINEAR's format) and "
                            "test.predictions")
    group.add_argument("--linear-c", metavar="C", type=float, default=1.0,
                       help="--train-partitioned: LIBLINEAR's cost C (default 1)")
    group.add_argument("--max-iterations", metavar="N", type=int, default=MAX_ITERATIONS,
                       help="--train-partitioned: the L-BFGS iterations at most (default %d)" % MAX_ITERATIONS)
    group.add_argument("--predict-linear", metavar='"COMMAND"',
                       help="the prediction command (default: --train-linear's program with 'train' "
                            "replaced by 'predict')")
    args = ap.parse_args(argv)
    args.program = program
    if args.train_partitioned and args.train_linear:
        ap.error("--train-partitioned and --train-linear both write linear.model: give one")
    if args.train_partitioned and args.map == "nystrom" and not (args.map_sample or args.map_from):
        ap.error("--train-partitioned trains where the training features are made, on the workers: "
                 "with --map nystrom they are made on the client unless --map-sample N or --map-from MAP")
    if not (args.linear_c > 0 and args.max_iterations >= 1):
        ap.error("--linear-c must be positive and --max-iterations at least 1")
    if not args.map_from and (args.kernel_type is None or args.rho is None):
        ap.error("-t and -g are required (or --map-from)")
    if args.partition_rows < 1 or args.workers < 1 or args.map_sample < 0:
        ap.error("--partition-rows and --workers must be at least 1, --map-sample at least 0")
    if not args.worker_timeout > 0:
        ap.error("--worker-timeout must be positive")
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
    remove_leftovers(args.out_dir)
    work = tempfile.mkdtemp(prefix="%s%s-%d-" % (WORK_PREFIX, socket.gethostname(), os.getpid()),
                            dir=args.out_dir)
    client = None
    status = 1
    with dask_logs_silenced():
        try:
            for path in (args.train, args.test):
                check_one_example_per_line(path)
            checkpoint = Checkpoint(args.checkpoint, args.ppk)
            arguments, files = fit_arguments(args, work, checkpoint)
            client = start_client(args, work)
            if not args.in_flight:
                args.in_flight = 2 * sum(client.nthreads().values())
            run(args, client, work, arguments, files, checkpoint)
            outputs = ["train.features", "test.features", "train.map"]
            if args.train_linear or args.train_partitioned:
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
