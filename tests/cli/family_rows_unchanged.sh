# A format pin. Every family's row and JSON forms are those written by the hand-written conversions
# that the declared fields replaced (src/family_fields.hpp): the rows below are what `ppk encode`
# wrote, and the JSON what `ppk decode` wrote, before that change, so these bytes come from the code
# under test and only show that it has not changed. Existing files decode identically.
# Labels 20-23 are multinomial rows with a pooled base (`ppk fit multinomial --base pooled`, one event,
# 3 trials, all trials with a decay, and one listing no word); 24-26 uniform-base rows with one event,
# fixed trials and all trials without a decay.
#
# That the pinned layouts are the documented ones is checked against the layouts written out by hand
# in docs/families.md (each family's Row paragraph) and docs/base-measure.md (a pooled base's table),
# parsed here: every pinned row starts 1:1 2:CODE of its family's section; a size field named by a
# JSON member ("`3` N nodes", "`6` default length T", "`3` N, the number of samples") holds that
# member's value or length; a range of fields named by one ("`5…4+D` mean", "`5+M…4+M+M²`
# transitions", "`4+D…3+2D` scales"), its bounds computed from the row's sizes, holds that member's
# values in order (absent fields 0); nested models ("each as its length L followed by L indices")
# are checked in turn against their own family's paragraph; a pooled base's levels, level values,
# level counts and word levels sit where the table says; and no row has a field beyond its layout's
# last where the paragraph lists every field.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
source "$(dirname "$0")/lib.bash" "$@"

cat > models.jsonl <<'DATA'
{"label":1,"family":"gaussian","mean":[0.1,-2,0],"var":0.3}
{"label":2,"family":"gaussian","mean":[1,2,3],"diag":[0.5,1e-3,7]}
{"label":3,"family":"gaussian","mean":[0,1],"cov":[[2,0.3],[0.3,1.1]]}
{"label":4,"family":"bernoulli","p":[0.1,0.9,0.1,0.1,0,1]}
{"label":5,"family":"multinomial","p":[0.7,0.1,0.1,0.1],"trials":"all","decay":0.25}
{"label":6,"family":"poisson","rate":[1.5,0,3,0,0.25]}
{"label":7,"family":"exponential","scale":[0.5,2,1]}
{"label":8,"family":"gamma","shape":[2,0.9,1.5],"scale":[1,3,0.25]}
{"label":9,"family":"dirichlet","alpha":[0.5,2,1.25]}
{"label":10,"family":"mixture","weights":[0.25,0.75],"components":[{"family":"gaussian","mean":[0,1],"var":2},{"family":"gaussian","mean":[1,-1],"diag":[0.5,1.5]}]}
{"label":11,"family":"hmm","start":[0.6,0.4],"trans":[[0.7,0.3],[0.2,0.8]],"emissions":[{"family":"multinomial","p":[0.5,0.5]},{"family":"multinomial","p":[0.15,0.85]}],"length":2}
{"label":12,"family":"bayesnet","nodes":[{"states":2,"cpt":[[0.3,0.7]]},{"states":2,"parents":[0],"variable":0,"cpt":[[0.9,0.1],[0.2,0.8]]},{"parents":[0],"variable":1,"emissions":[{"family":"multinomial","p":[0.5,0.5]},{"family":"multinomial","p":[0.1,0.9]}]},{"states":2,"parents":[0],"variable":2,"cpt":[[0.6,0.4],[0.25,0.75]]}]}
{"label":13,"family":"lds","mean0":[1.0,-2.0],"cov0":[[1.0,0.5],[0.5,2.0]],"A":[[0.5,0.1],[0.2,0.8]],"Q":[[0.3,0.1],[0.1,0.2]],"C":[[1.0,2.0]],"R":[[0.5]],"length":4}
{"label":14,"family":"linear_gaussian","nodes":[{"dim":2,"offset":[1,-2],"cov":[[1,0.5],[0.5,2]]},{"dim":1,"parents":[0],"weights":[[0.5,3]],"offset":[0.25],"cov":[[0.75]],"observed":true},{"dim":1,"parents":[1,0],"weights":[[2,-1,4]],"offset":[-3],"cov":[[1.5]],"observed":true}]}
{"label":15,"family":"slds","start":[0.3,0.7],"trans":[[0.6,0.4],[0.1,0.9]],"A":[[[0.9]],[[0.8]]],"Q":[[[0.25]],[[0.5]]],"mean0":[0.5],"cov0":[[0.7]],"C":[[1.5]],"R":[[0.3]],"length":4,"paths":5}
{"label":16,"family":"montecarlo","samples":40,"beta":"equal","model":{"family":"gamma","shape":[2,1.5],"scale":[1,0.5]}}
{"label":17,"family":"montecarlo","samples":7,"model":{"family":"poisson","rate":[1,4,0]}}
{"label":18,"family":"fhmm","chains":[{"start":[0.6,0.4],"trans":[[0.9,0.1],[0.2,0.8]],"means":[[1.0],[2.0]]},{"start":[0.5,0.5],"trans":[[0.7,0.3],[0.25,0.75]],"means":[[0.5],[-0.5]]}],"cov":[[0.5]],"length":2}
{"label":19,"family":"mi","log_weights":[0.5,-1],"blocks":[{"family":"gaussian","mean":[1.0],"var":2.0},{"family":"dirichlet","alpha":[1,2]}]}
{"label":20,"family":"multinomial","dim":7,"levels":{"count":[2,3,1,1],"value":[0.04,0.12,0.2,0.36]},"listed":{"index":[0,1],"level":[3,1],"p":[0.568,0.18933333333333333]},"share":0.4666666666666667}
{"label":21,"family":"multinomial","dim":7,"levels":{"count":[2,3,1,1],"value":[0.04,0.12,0.2,0.36]},"listed":{"index":[3,5],"level":[2,1],"p":[0.4153846153846154,0.21846153846153846]},"share":0.5384615384615384,"trials":3}
{"label":22,"family":"multinomial","decay":0.5,"dim":7,"levels":{"count":[2,3,1,1],"value":[0.04,0.12,0.2,0.36]},"listed":{"index":[0,2],"level":[3,1],"p":[0.4109090909090909,0.2581818181818182]},"share":0.6363636363636364,"trials":"all"}
{"label":23,"family":"multinomial","dim":3,"levels":{"count":[1,2],"value":[0.5,0.25]},"listed":{"index":[],"level":[],"p":[]},"share":1,"trials":"all"}
{"label":24,"family":"multinomial","p":[0.25,0.5,0.25]}
{"label":25,"family":"multinomial","p":[0.1,0.1,0.7,0.1],"trials":5}
{"label":26,"family":"multinomial","p":[0.5,0.5],"trials":"all"}
DATA

# As the hand-written conversions encoded them (one family per row, nested models inside).
cat > expected_rows.ppk <<'DATA'
1 1:1 2:1 3:3 4:1 5:0.1 6:-2 8:0.3
2 1:1 2:1 3:3 4:2 5:1 6:2 7:3 8:0.5 9:0.001 10:7
3 1:1 2:1 3:2 4:3 6:1 7:2 8:0.3 9:1.1
4 1:1 2:2 3:6 5:0.1 6:0.9 7:0.1 8:0.1 10:1
5 1:1 2:3 3:4 4:-1 5:0.25 6:0.1 7:0.7
6 1:1 2:4 3:5 4:1.5 6:3 8:0.25
7 1:1 2:5 3:3 4:0.5 5:2 6:1
8 1:1 2:6 3:3 4:2 5:0.9 6:1.5 7:1 8:3 9:0.25
9 1:1 2:7 3:3 4:0.5 5:2 6:1.25
10 1:1 2:8 3:2 4:0.25 5:0.75 6:6 7:1 8:2 9:1 11:1 12:2 13:7 14:1 15:2 16:2 17:1 18:-1 19:0.5 20:1.5
11 1:1 2:9 3:2 4:2 5:0.6 6:0.4 7:0.7 8:0.3 9:0.2 10:0.8 11:5 12:3 13:2 16:0.5 17:7 18:3 19:2 22:0.15 24:0.85
12 1:1 2:10 3:4 4:2 7:2 8:1 9:1 12:2 13:1 15:2 16:3 17:1 19:0.3 20:0.7 21:0.9 22:0.1 23:0.2 24:0.8 25:5 26:3 27:2 30:0.5 31:7 32:3 33:2 36:0.1 38:0.9 39:0.6 40:0.4 41:0.25 42:0.75
13 1:1 2:11 3:2 4:1 5:4 6:1 7:-2 8:1 9:0.5 10:2 11:0.5 12:0.1 13:0.2 14:0.8 15:0.3 16:0.1 17:0.2 18:1 19:2 20:0.5
14 1:1 2:12 3:3 4:2 7:1 8:-2 9:1 10:0.5 11:2 12:1 13:1 14:1 16:0.25 17:0.75 18:0.5 19:3 20:1 21:1 22:2 23:1 25:-3 26:1.5 27:2 28:-1 29:4
15 1:1 2:13 3:2 4:1 5:1 6:4 7:5 8:0.3 9:0.7 10:0.6 11:0.4 12:0.1 13:0.9 14:0.9 15:0.8 16:0.25 17:0.5 18:0.5 19:0.7 20:1.5 21:0.3
16 1:1 2:14 3:40 4:1 5:6 6:6 7:2 8:2 9:1.5 10:1 11:0.5
17 1:1 2:14 3:7 5:4 6:4 7:3 8:1 9:4
18 1:1 2:15 3:2 4:1 5:2 6:2 7:2 8:0.6 9:0.4 10:0.9 11:0.1 12:0.2 13:0.8 14:1 15:2 16:0.5 17:0.5 18:0.7 19:0.3 20:0.25 21:0.75 22:0.5 23:-0.5 24:0.5
19 1:1 2:16 3:2 4:0.5 5:-1 6:5 7:1 8:1 9:1 10:1 11:2 12:4 13:7 14:2 15:1 16:2
20 1:1 2:3 3:7 6:0.4666666666666667 7:0.568 8:0.18933333333333333 14:4 15:0.04 16:0.12 17:0.2 18:0.36 19:2 20:3 21:1 22:1 23:4 24:2
21 1:1 2:3 3:7 4:3 6:0.5384615384615384 10:0.4153846153846154 12:0.21846153846153846 14:4 15:0.04 16:0.12 17:0.2 18:0.36 19:2 20:3 21:1 22:1 26:3 28:2
22 1:1 2:3 3:7 4:-1 5:0.5 6:0.6363636363636364 7:0.4109090909090909 9:0.2581818181818182 14:4 15:0.04 16:0.12 17:0.2 18:0.36 19:2 20:3 21:1 22:1 23:4 25:2
23 1:1 2:3 3:3 4:-1 6:1 10:2 11:0.5 12:0.25 13:1 14:2
24 1:1 2:3 3:3 6:0.25 8:0.5
25 1:1 2:3 3:4 4:5 6:0.1 9:0.7
26 1:1 2:3 3:2 4:-1 6:0.5
DATA

# As the hand-written conversions decoded them (members in JSON's sorted order).
cat > expected_models.jsonl <<'DATA'
{"label":1,"family":"gaussian","mean":[0.1,-2.0,0.0],"var":0.3}
{"label":2,"family":"gaussian","diag":[0.5,0.001,7.0],"mean":[1.0,2.0,3.0]}
{"label":3,"family":"gaussian","cov":[[2.0,0.3],[0.3,1.1]],"mean":[0.0,1.0]}
{"label":4,"family":"bernoulli","p":[0.1,0.9,0.1,0.1,0.0,1.0]}
{"label":5,"family":"multinomial","decay":0.25,"p":[0.7,0.1,0.1,0.1],"trials":"all"}
{"label":6,"family":"poisson","rate":[1.5,0.0,3.0,0.0,0.25]}
{"label":7,"family":"exponential","scale":[0.5,2.0,1.0]}
{"label":8,"family":"gamma","scale":[1.0,3.0,0.25],"shape":[2.0,0.9,1.5]}
{"label":9,"family":"dirichlet","alpha":[0.5,2.0,1.25]}
{"label":10,"family":"mixture","components":[{"family":"gaussian","mean":[0.0,1.0],"var":2.0},{"diag":[0.5,1.5],"family":"gaussian","mean":[1.0,-1.0]}],"weights":[0.25,0.75]}
{"label":11,"family":"hmm","emissions":[{"family":"multinomial","p":[0.5,0.5]},{"family":"multinomial","p":[0.15,0.85]}],"length":2,"start":[0.6,0.4],"trans":[[0.7,0.3],[0.2,0.8]]}
{"label":12,"family":"bayesnet","nodes":[{"cpt":[[0.3,0.7]],"parents":[],"states":2},{"cpt":[[0.9,0.1],[0.2,0.8]],"parents":[0],"states":2,"variable":0},{"emissions":[{"family":"multinomial","p":[0.5,0.5]},{"family":"multinomial","p":[0.1,0.9]}],"parents":[0],"variable":1},{"cpt":[[0.6,0.4],[0.25,0.75]],"parents":[0],"states":2,"variable":2}]}
{"label":13,"family":"lds","A":[[0.5,0.1],[0.2,0.8]],"C":[[1.0,2.0]],"Q":[[0.3,0.1],[0.1,0.2]],"R":[[0.5]],"cov0":[[1.0,0.5],[0.5,2.0]],"length":4,"mean0":[1.0,-2.0]}
{"label":14,"family":"linear_gaussian","nodes":[{"cov":[[1.0,0.5],[0.5,2.0]],"dim":2,"observed":false,"offset":[1.0,-2.0],"parents":[]},{"cov":[[0.75]],"dim":1,"observed":true,"offset":[0.25],"parents":[0],"weights":[[0.5,3.0]]},{"cov":[[1.5]],"dim":1,"observed":true,"offset":[-3.0],"parents":[1,0],"weights":[[2.0,-1.0,4.0]]}]}
{"label":15,"family":"slds","A":[[[0.9]],[[0.8]]],"C":[[1.5]],"Q":[[[0.25]],[[0.5]]],"R":[[0.3]],"cov0":[[0.7]],"length":4,"mean0":[0.5],"paths":5,"start":[0.3,0.7],"trans":[[0.6,0.4],[0.1,0.9]]}
{"label":16,"family":"montecarlo","beta":"equal","model":{"family":"gamma","scale":[1.0,0.5],"shape":[2.0,1.5]},"samples":40}
{"label":17,"family":"montecarlo","beta":"pooled","model":{"family":"poisson","rate":[1.0,4.0,0.0]},"samples":7}
{"label":18,"family":"fhmm","chains":[{"means":[[1.0],[2.0]],"start":[0.6,0.4],"trans":[[0.9,0.1],[0.2,0.8]]},{"means":[[0.5],[-0.5]],"start":[0.5,0.5],"trans":[[0.7,0.3],[0.25,0.75]]}],"cov":[[0.5]],"length":2}
{"label":19,"family":"mi","blocks":[{"family":"gaussian","mean":[1.0],"var":2.0},{"alpha":[1.0,2.0],"family":"dirichlet"}],"log_weights":[0.5,-1.0]}
{"label":20,"family":"multinomial","dim":7,"levels":{"count":[2,3,1,1],"value":[0.04,0.12,0.2,0.36]},"listed":{"index":[0,1],"level":[3,1],"p":[0.568,0.18933333333333333]},"share":0.4666666666666667}
{"label":21,"family":"multinomial","dim":7,"levels":{"count":[2,3,1,1],"value":[0.04,0.12,0.2,0.36]},"listed":{"index":[3,5],"level":[2,1],"p":[0.4153846153846154,0.21846153846153846]},"share":0.5384615384615384,"trials":3}
{"label":22,"family":"multinomial","decay":0.5,"dim":7,"levels":{"count":[2,3,1,1],"value":[0.04,0.12,0.2,0.36]},"listed":{"index":[0,2],"level":[3,1],"p":[0.4109090909090909,0.2581818181818182]},"share":0.6363636363636364,"trials":"all"}
{"label":23,"family":"multinomial","dim":3,"levels":{"count":[1,2],"value":[0.5,0.25]},"listed":{"index":[],"level":[],"p":[]},"share":1.0,"trials":"all"}
{"label":24,"family":"multinomial","p":[0.25,0.5,0.25]}
{"label":25,"family":"multinomial","p":[0.1,0.1,0.7,0.1],"trials":5}
{"label":26,"family":"multinomial","p":[0.5,0.5],"trials":"all"}
DATA

python3 - "$ROOT/docs/families.md" "$ROOT/docs/base-measure.md" models.jsonl expected_rows.ppk <<'PY' ||
import json, re, sys

families_doc, base_doc, models_path, rows_path = sys.argv[1:5]
doc = open(families_doc, encoding="utf-8").read()
layouts = {}  # family code -> (name, Row paragraph)
for m in re.finditer(r"^### (\S+) \(code (\d+)\)\n(.*?)(?=^###|^## )", doc, re.M | re.S):
    layouts[int(m.group(2))] = (m.group(1), re.search(r"\*\*Row\.\*\*(.*?)\n\n", m.group(3), re.S).group(1))
# The pooled base's fields (docs/base-measure.md's table), after a multinomial's 6+D.
base_table = re.findall(r"^\| (\d\S*)(?: \.\. (\S+))? \| ([a-z ]+) \|", open(base_doc, encoding="utf-8").read(), re.M)
ALIASES = {"transitions": "trans", "rates": "rate", "scales": "scale", "shapes": "shape", "log weights": "log_weights"}


def value(expression, variables):
    """An index of the doc ("4+M+M²", "3+2D") with the row's sizes."""
    python = re.sub(r"(\d)([A-Za-z])", r"\1*\2", expression.replace("²", "**2"))
    return eval(python, {"__builtins__": {}}, dict(variables))


def key_of(description, model):
    """The JSON member a field's description names: its first words (or their alias), if the model has one."""
    words = re.findall(r"[a-z_0-9]+", description.lower())[:5]
    for n in (2, 1):
        for i in range(len(words) - n + 1):
            name = " ".join(words[i:i + n])
            for key in (ALIASES.get(name), name):
                if key in model:
                    return key
    return None


def flat(v):
    return [x for item in v for x in flat(item)] if isinstance(v, list) else [v]


def check(row, model, problems, where):
    """The row {index: value} against the Row paragraph of its family code; returns its last index."""
    code = int(row.get(2, 0))
    if row.get(1) != 1 or code not in layouts or layouts[code][0] != model["family"]:
        problems.append(f"{where}: starts 1:{row.get(1)} 2:{row.get(2)}, not 1:1 2:<code of {model['family']}>")
        return max(row)
    name, paragraph = layouts[code]
    variables, end, nested_at = {}, 2, None
    for span in re.finditer(r"`(\d[^`…]*?)(?:…([^`]*))?`\s*([^`]*)", paragraph):
        start_text, stop_text, description = span.groups()
        if not re.fullmatch(r"[\d+A-Za-z²]+", start_text):
            continue
        start = value(start_text, variables)
        key = key_of(description, model)
        if stop_text is None and "…" not in span.group(0):  # one field: a size, a flag, a count
            size = re.match(r"([A-Za-z])\b", description)
            if size:
                variables[size.group(1)] = int(row.get(start, 0))
            if key is not None and not isinstance(model[key], (dict, str)):
                expected = len(model[key]) if isinstance(model[key], list) else model[key]
                if row.get(start, 0) != expected:
                    problems.append(f"{where}: index {start} ({description[:30]}) is {row.get(start, 0)}, the JSON's {key} {expected}")
            end = max(end, start)
        elif stop_text:  # a closed range of fields
            stop = value(stop_text, variables)
            if key is not None and all(not isinstance(x, dict) for x in flat(model[key])):
                values = [row.get(i, 0) for i in range(start, stop + 1)]
                if values != [float(x) for x in flat(model[key])]:
                    problems.append(f"{where}: indices {start}..{stop} ({key}) hold {values}, the JSON's {key} is {model[key]}")
            end = max(end, stop)
        else:  # "5…": a nested model from here on
            nested_at = start
    parts = [p for p in model.values() if isinstance(p, dict) and "family" in p] or next(
        (p for p in model.values() if isinstance(p, list) and p and all(isinstance(x, dict) and "family" in x for x in p)), [])
    if re.search(r"its length L,? (followed by|then) L indices", paragraph) and parts:
        at = nested_at if nested_at is not None else end + 1
        for i, part in enumerate(parts if isinstance(parts, list) else [parts]):
            length = int(row.get(at, 0))
            inner = {1: 1, **{k - at + 1: v for k, v in row.items() if at < k <= at + length}}
            check(inner, part, problems, f"{where}, part {i}")
            at += length + 1
        end = at - 1
    elif name == "multinomial" and max(row) > end:  # a pooled base: docs/base-measure.md's table
        D, K = variables["D"], int(row.get(variables["D"] + 7, 0))
        levels = {"levels": K, "level values": model["levels"]["value"], "level counts": model["levels"]["count"]}
        for start_text, stop_text, field in base_table:
            start, stop = value(start_text, {"D": D, "K": K}), value(stop_text or start_text, {"D": D, "K": K})
            if field == "word levels":
                expected = [0.0] * (stop - start + 1)
                for d, level in zip(model["listed"]["index"], model["listed"]["level"]):
                    expected[d] = level + 1.0
            else:
                expected = [float(x) for x in flat(levels[field])]
            if [row.get(i, 0) for i in range(start, stop + 1)] != expected:
                problems.append(f"{where}: {field} at {start}..{stop} differ from the JSON's")
            end = max(end, stop)
    elif "then" in paragraph or nested_at is not None:
        end = max(row)  # fields the paragraph describes in words only
    if max(row) > end:
        problems.append(f"{where}: index {max(row)} lies beyond the {name} layout's last field {end}")
    return end


problems = []
models = [json.loads(line) for line in open(models_path)]
for model, line in zip(models, open(rows_path)):
    row = {int(i): float(v) for i, v in (f.split(":") for f in line.split()[1:])}
    check(row, model, problems, f"the pinned row of label {model['label']} ({model['family']})")
print("\n".join(problems), file=sys.stderr)
sys.exit(1 if problems else 0)
PY
  fail "the pinned rows do not follow the layouts of docs/families.md (above)"
pass

"$PPK" encode models.jsonl -o rows.ppk
cmp -s rows.ppk expected_rows.ppk || fail "rows differ: $(diff rows.ppk expected_rows.ppk)"
pass
"$PPK" decode expected_rows.ppk -o decoded.jsonl
cmp -s decoded.jsonl expected_models.jsonl || fail "decoded models differ: $(diff decoded.jsonl expected_models.jsonl)"
pass
finish
