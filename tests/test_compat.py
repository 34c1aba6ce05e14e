"""Nothing breaks for users across a reorganisation of the package.

``tests/compat/public_names.txt`` pins every public import path of textsel 0.1.0 (before its
modules were regrouped): each must still import and name the same kind of object.  The pickles in
``tests/compat/pickles/`` are fitted estimators and results pickled by that release; each must
still load and give the outputs it gave then (``tests/compat/make_fixtures.py`` made both).
"""

import importlib
import pickle
import warnings
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

COMPAT = Path(__file__).resolve().parent / "compat"
NAMES = COMPAT.joinpath("public_names.txt").read_text().split()
PICKLES = sorted(p.stem for p in (COMPAT / "pickles").glob("*.pkl"))


@pytest.mark.parametrize("entry", NAMES)
def test_every_public_name_of_the_pinned_release_still_imports(entry):
    module_name, name = entry.split(":")
    module = importlib.import_module(module_name)
    assert hasattr(module, name), f"from {module_name} import {name} no longer works"
    # and by the from-import statement a user writes (a module alias must resolve too)
    namespace = {}
    exec(f"from {module_name} import {name}", namespace)
    assert namespace[name] is getattr(module, name)


def test_the_lsqr_function_is_still_textsel_lsqr_and_its_old_module_path_works():
    import textsel

    assert callable(textsel.lsqr) and textsel.lsqr.__name__ == "lsqr"
    from textsel.lsqr import LSQRResult, lsqr

    assert lsqr is textsel.lsqr and LSQRResult is textsel.LSQRResult
    import textsel.lsqr  # noqa: F401  (an import statement must not replace the function by a module)

    assert callable(textsel.lsqr)


@pytest.mark.parametrize("name", PICKLES)
def test_pickles_of_the_pinned_release_load_and_give_the_same_outputs(name):
    X = sp.load_npz(COMPAT / "pickles" / "X.npz")
    with warnings.catch_warnings():
        # scikit-learn warns when the pickle came from another of its versions; the outputs decide
        warnings.filterwarnings("ignore", message=".*Trying to unpickle estimator.*")
        obj = pickle.loads((COMPAT / "pickles" / f"{name}.pkl").read_bytes())
    expected = np.load(COMPAT / "pickles" / f"{name}.outputs.npz")
    for method, values in expected.items():
        if name == "term_stats":
            got = getattr(obj, method)
        elif name == "lsqr_result":
            got = obj.x
        else:
            got = getattr(obj, method)(X)
            got = got.toarray() if sp.issparse(got) else got
        np.testing.assert_allclose(got, values, rtol=1e-10, atol=1e-12, err_msg=f"{name}.{method}")


@pytest.mark.parametrize("name", PICKLES)
def test_pickles_made_when_the_thread_count_was_n_threads_read_it_as_n_jobs(name):
    """The thread count was renamed n_threads -> n_jobs (scikit-learn's name); the pinned
    release's pickles hold the old attribute, and every estimator in them taking n_jobs now has it
    under that name, with the pickled value."""
    import inspect

    raw = (COMPAT / "pickles" / f"{name}.pkl").read_bytes()
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*Trying to unpickle estimator.*")
        obj = pickle.loads(raw)
    estimators = [step for _, step in obj.steps] if hasattr(obj, "steps") else [obj]
    takes = [e for e in estimators if "n_jobs" in inspect.signature(type(e).__init__).parameters]
    assert not takes or b"n_threads" in raw  # pickled under the old name
    for est in takes:
        assert "n_threads" not in vars(est) and hasattr(est, "n_jobs")
