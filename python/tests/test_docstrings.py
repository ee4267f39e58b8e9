"""Every public name of the package (the ``__all__`` of ppk, ppk.sklearn and ppk.dask, ppk.map, and
the public methods of their classes) has a numpydoc docstring (numpydoc's own validator: a summary,
every parameter described, what it returns, examples), and every docstring's examples run with the
output they show (doctest). python/tests/install.sh runs this file on the installed package too."""

import doctest
import importlib
import inspect

import numpydoc.validate
import pytest

import ppk

MODULES = ("ppk", "ppk.sklearn", "ppk.dask")
# numpydoc's checks every docstring must pass: a docstring (GL08) with a one-line summary (SS01, SS03,
# SS06), every parameter documented and none unknown (PR01, PR02), its returns (RT01) and examples (EX01).
REQUIRED = ("GL08", "SS01", "SS03", "SS06", "PR01", "PR02", "RT01", "EX01")


def is_method(attribute):
    """A method of a class's namespace: a function, a class or static method, or one that scikit-learn's
    available_if makes available (predict_proba)."""
    return callable(getattr(attribute, "fn", attribute)) or isinstance(attribute, (classmethod, staticmethod))


def public_names():
    """Qualified names of the public functions, classes and methods defined by the package."""
    names = []
    for module_name in MODULES:
        module = importlib.import_module(module_name)
        for name in list(module.__all__) + (["map"] if module_name == "ppk" else []):
            qualified = f"{module_name}.{name}"
            names.append(qualified)
            value = getattr(module, name)
            if inspect.isclass(value):
                for klass in inspect.getmro(value):  # methods of the package's own classes, not scikit-learn's
                    if klass.__module__.startswith("ppk"):
                        names += [f"{qualified}.{member}" for member, attribute in vars(klass).items()
                                  if not member.startswith("_") and is_method(attribute)]
    return sorted(set(names))


def resolve(qualified):
    """The object of a qualified name: its module (the longest prefix that is one), then attributes."""
    parts = qualified.split(".")
    for end in range(len(parts), 0, -1):
        try:
            value = importlib.import_module(".".join(parts[:end]))
        except ImportError:
            continue
        for part in parts[end:]:
            value = getattr(value, part)
        return value
    raise ImportError(qualified)


PUBLIC = public_names()


def test_the_public_names_are_found():
    assert {"ppk.fit", "ppk.map", "ppk.Models.to_rows", "ppk.sklearn.PPKSVC.fit", "ppk.dask.main",
            "ppk.FeatureMap.from_text", "ppk.sklearn.PPKSVC.predict_log_proba"} <= set(PUBLIC)
    assert "map" not in ppk.__all__


def test_a_star_import_keeps_the_builtin_map():
    namespace = {}
    exec("from ppk import *", namespace)
    assert "map" not in namespace and "fit" in namespace


@pytest.mark.parametrize("name", [n for n in PUBLIC if not n.startswith("ppk.Models")])
def test_numpydoc(name):
    errors = [f"{code}: {message}" for code, message in numpydoc.validate.validate(name)["errors"]
              if code in REQUIRED]
    assert not errors, "\n".join(errors)


@pytest.mark.parametrize("name", PUBLIC)
def test_the_examples_run(name):
    docstring = inspect.getdoc(resolve(name)) or ""
    assert "\nExamples\n--------\n" in docstring, f"{name} has no Examples section"
    test = doctest.DocTestParser().get_doctest(docstring, {}, name, None, 0)
    assert test.examples, f"{name}'s Examples section holds no example"
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    assert runner.failures == 0, f"{name}: {runner.failures} of {len(test.examples)} examples failed (above)"
