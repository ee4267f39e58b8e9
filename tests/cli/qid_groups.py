"""The examples of a qid-grouped LIBSVM file, for the command-line tests' Python oracles."""


def qid_groups(path, dim):
    """{qid: [vector, ...]}, in file order: each line 'label qid:N index:value ...' one vector,
    dense over the features 1..dim (an absent feature is 0)."""
    groups = {}
    for line in open(path):
        tokens = line.split()
        if not tokens:
            continue
        values = dict((int(t.split(':')[0]), float(t.split(':')[1])) for t in tokens[2:])
        groups.setdefault(tokens[1], []).append([values.get(d, 0.0) for d in range(1, dim + 1)])
    return groups


def group_labels_and_sizes(path):
    """[(label, vector count), ...], one per qid group of a LIBSVM file (a run of lines with one qid),
    in file order; the label is the group's first line's, as written."""
    groups = []
    for line in open(path):
        label, qid = line.split()[:2]
        if not groups or groups[-1][0] != qid:
            groups.append([qid, label, 0])
        groups[-1][2] += 1
    return [(label, n) for _, label, n in groups]
