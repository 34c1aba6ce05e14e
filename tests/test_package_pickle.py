"""The textsel package pickles by name, like any module: a function of the user's main script
that names ``textsel`` goes to Dask workers (cloudpickle pickles such a function by value, with
the modules it names)."""

import pickle
import subprocess
import sys

import pytest

import textsel


def test_the_package_pickles_as_a_reference_to_itself():
    assert pickle.loads(pickle.dumps(textsel)) is textsel


def test_a_main_script_function_naming_textsel_pickles_with_cloudpickle():
    pytest.importorskip("cloudpickle")
    code = (
        "import cloudpickle, pickle, textsel\n"
        "def load():\n"
        "    return textsel.datasets.load_sms_spam().target.size\n"
        "print(pickle.loads(cloudpickle.dumps(load))())\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.split() == ["5574"]
