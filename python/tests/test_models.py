"""ppk.Models: LIBSVM model rows and JSON lines in and out, against `ppk encode` and `ppk decode`."""

import json
import pickle

import numpy as np
import pytest

import ppk

JSON_LINES = (
    '{"label":1,"family":"gaussian","mean":[0,1],"var":2}\n'
    '{"label":-1,"family":"multinomial","p":[0.25,0.75]}\n'
    '{"label":2.5,"family":"bernoulli","p":[0.1,0.9,0.5]}\n'
)


def test_rows_and_json_equal_encode_and_decode(ppk_tool, tmp_path):
    (tmp_path / "models.json").write_text(JSON_LINES)
    rows = ppk_tool("encode", tmp_path / "models.json").stdout
    models = ppk.Models.from_json(JSON_LINES)
    assert models.to_rows() == rows
    (tmp_path / "models.ppk").write_bytes(rows)
    assert models.to_json() == ppk_tool("decode", tmp_path / "models.ppk").stdout.decode()
    # Text, bytes and paths read the same models.
    for source in (rows, rows.decode(), tmp_path / "models.ppk", str(tmp_path / "models.ppk")):
        assert ppk.Models.from_rows(source).to_rows() == rows
    assert ppk.Models.from_json(tmp_path / "models.json").to_rows() == rows


def test_a_sequence_of_models():
    models = ppk.Models.from_json(JSON_LINES)
    assert len(models) == 3 and len(ppk.Models()) == 0
    np.testing.assert_array_equal(models.labels, [1, -1, 2.5])
    assert models[0] == {"label": 1, "family": "gaussian", "mean": [0, 1], "var": 2}
    assert models[-1]["family"] == "bernoulli"
    assert isinstance(models[1:], ppk.Models)
    np.testing.assert_array_equal(models[1:].labels, [-1, 2.5])
    np.testing.assert_array_equal(models[::-1].labels, [2.5, -1, 1])
    np.testing.assert_array_equal(models[[2, 0]].labels, [2.5, 1])
    np.testing.assert_array_equal((models[:1] + models[2:]).labels, [1, 2.5])
    assert [m["label"] for m in models] == [1, -1, 2.5]
    with pytest.raises(IndexError, match="out of range"):
        models[3]


def test_models_pickle_as_their_rows():
    models = ppk.Models.from_json(JSON_LINES)
    copy = pickle.loads(pickle.dumps(models))
    assert isinstance(copy, ppk.Models) and copy.to_rows() == models.to_rows()
    assert copy.to_json() == models.to_json()
    empty = pickle.loads(pickle.dumps(ppk.Models()))
    assert len(empty) == 0


def test_bad_rows_name_the_row():
    good = ppk.Models.from_json(JSON_LINES).to_rows().decode().splitlines()
    with pytest.raises(ValueError, match=r"<rows>: row 2: .*"):
        ppk.Models.from_rows("\n".join([good[0], "1 1:1 2:2", good[2]]) + "\n")
    with pytest.raises(ValueError, match=r"<rows>:3: "):
        ppk.Models.from_rows("\n".join([good[0], good[1], "1 1:nan"]) + "\n")
    with pytest.raises(ValueError, match=r"<rows>:2: "):
        ppk.Models.from_json('{"family":"gaussian","mean":[0],"var":1}\n{"family":"gaussian","var":-1}\n')
    with pytest.raises(TypeError, match="expected the rows"):
        ppk.Models.from_rows(3)
