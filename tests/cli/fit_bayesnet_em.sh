# ppk fit bayesnet with hidden nodes (EM, estimate_bayesnet.hpp): a naive-Bayes structure fitted to
# two qid groups; the rows decode to networks of the structure whose CPTs are a fixed point of one
# EM step computed here (posterior over the hidden class by enumeration, expected counts, the
# smoothed update); the same rows on 1 and 2 threads and for a second run; ppk_norm has 1 on the
# diagonal; emission leaves, too many hidden configurations and --shrink are rejected.
source "$(dirname "$0")/lib.bash" "$@"

# Hidden class h (node 0, 2 states); x0 (3 states), x1 (2 states), x2 (3 states) its children.
printf '%s\n' '{"nodes":[{"states":2},{"states":3,"parents":[0],"variable":0},{"states":2,"parents":[0],"variable":1},{"states":3,"parents":[0],"variable":2}]}' > nb.json
# Example 1 (qid 1): two clusters, (1, 1, 1)-like and (3, 2, 3)-like; example 2 (qid 2): mixed.
{
  for x in "1 1 1" "1 1 2" "1 1 1" "2 1 1" "1 1 1" "3 2 3" "3 2 3" "3 2 2" "2 2 3" "3 2 3" "1 1 1" "3 1 3"; do
    set -- $x
    echo "1 qid:1 1:$1 2:$2 3:$3"
  done
  for x in "1 2 3" "2 1 3" "3 1 1" "2 2 2" "1 2 1" "2 1 2" "3 2 1" "1 1 3"; do
    set -- $x
    echo "-1 qid:2 1:$1 2:$2 3:$3"
  done
} > joint.txt
"$PPK" fit bayesnet --structure nb.json --alpha 0.5 --tolerance 1e-14 --iterations 5000 --threads 1 joint.txt -o em.ppk
"$PPK" decode em.ppk > em.jsonl
python3 - em.jsonl joint.txt <<'PY' || fail "fitted networks: $(cat em.jsonl)"
import json, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
groups = {}
for line in open(sys.argv[2]):
    fields = line.split()
    groups.setdefault(fields[1], []).append([int(f.split(":")[1]) - 1 for f in fields[2:]])
assert [r["label"] for r in rows] == [1, -1], [r["label"] for r in rows]
a = 0.5
for row, data in zip(rows, groups.values()):
    nodes = row["nodes"]
    assert row["family"] == "bayesnet" and len(nodes) == 4
    assert "variable" not in nodes[0] and [n.get("variable") for n in nodes[1:]] == [0, 1, 2]
    prior = nodes[0]["cpt"][0]
    children = [n["cpt"] for n in nodes[1:]]
    for table in [[prior]] + children:
        for r in table:
            assert all(p > 0 for p in r) and abs(sum(r) - 1) < 1e-12, r
    # One EM step: P(h | x) from p(h) prod_j P(x_j | h), expected counts, (n + a) / (n + K a).
    counts_h = [0.0, 0.0]
    counts = [[[0.0] * len(children[j][0]) for _ in range(2)] for j in range(3)]
    for x in data:
        joint = [prior[h] * children[0][h][x[0]] * children[1][h][x[1]] * children[2][h][x[2]] for h in range(2)]
        for h in range(2):
            w = joint[h] / sum(joint)
            counts_h[h] += w
            for j in range(3):
                counts[j][h][x[j]] += w
    step = [(counts_h[h] + a) / (len(data) + 2 * a) for h in range(2)]
    assert all(abs(s - p) < 1e-6 for s, p in zip(step, prior)), (step, prior)
    for j in range(3):
        for h in range(2):
            k = len(counts[j][h])
            total = sum(counts[j][h]) + k * a
            for s in range(k):
                assert abs((counts[j][h][s] + a) / total - children[j][h][s]) < 1e-6, (j, h, s)
PY
pass
# The classes separate example 1's two clusters: P(x0 = 1 | h) differs by more than 0.5 between them.
python3 -c '
import json, sys
row = json.loads(open("em.jsonl").readline())
x0 = row["nodes"][1]["cpt"]
sys.exit(0 if abs(x0[0][0] - x0[1][0]) > 0.5 else 1)' || fail "example 1's classes do not separate: $(head -1 em.jsonl)"
pass

# Reproducible: the same rows on 2 threads and on a second run.
"$PPK" fit bayesnet --structure nb.json --alpha 0.5 --tolerance 1e-14 --iterations 5000 --threads 2 joint.txt -o em2.ppk
cmp em.ppk em2.ppk || fail "the fit depends on the thread count"
pass
"$PPK" fit bayesnet --structure nb.json joint.txt -o default1.ppk
"$PPK" fit bayesnet --structure nb.json joint.txt -o default2.ppk
cmp default1.ppk default2.ppk || fail "two runs gave different rows"
pass

"$PPK" gram -t ppk_norm -g 1 em.ppk > norm.txt
awk '{ if ($NR < 1 - 1e-12 || $NR > 1 + 1e-12) exit 1 }' norm.txt || fail "ppk_norm diagonal: $(cat norm.txt)"
[[ $(wc -l < norm.txt) == 2 ]] || fail "ppk_norm: $(cat norm.txt)"
pass

# Emission leaves are not fitted; nothing is written.
printf '%s\n' '{"nodes":[{"states":2},{"parents":[0],"variable":0,"emissions":[{"family":"gaussian","mean":[0],"var":1},{"family":"gaussian","mean":[1],"var":1}]}]}' > leaf.json
expect_error 1 "leaf.json: " "bayesnet nodes[1] is an emission leaf" "discrete nodes only" -- \
  "$PPK" fit bayesnet --structure leaf.json joint.txt -o never.ppk
expect_no_output never.ppk
# 17 hidden binary nodes: 2^17 joint configurations, over the limit.
python3 -c '
import json
nodes = [{"states": 2} for _ in range(17)] + [{"states": 3, "parents": [0], "variable": v} for v in range(3)]
print(json.dumps({"nodes": nodes}))' > large.json
expect_error 1 "large.json: " "17 hidden nodes have 131072 joint configurations" "limit of 65536" -- \
  "$PPK" fit bayesnet --structure large.json joint.txt -o never.ppk
expect_no_output never.ppk
expect_error 2 "--shrink" -- "$PPK" fit bayesnet --structure nb.json --shrink 0.5 joint.txt -o never.ppk
expect_no_output never.ppk
expect_error 2 "--restarts must be at least 1" -- "$PPK" fit bayesnet --structure nb.json --restarts 0 joint.txt -o never.ppk
expect_no_output never.ppk
finish
