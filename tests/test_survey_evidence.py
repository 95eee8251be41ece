"""Every citation of clients/survey.toml holds in its package as the registry ships it: each
package downloaded at its surveyed version by its registry's own client (``pip download
--no-deps``, ``npm pack``, ``go mod download``) into ``~/.cache/rmq-survey`` (or
``$RMQ_SURVEY_CACHE``), once, and each cited file, line range and word looked up; and the Go
module proxy's refusal of a version is said in one line. Needs the network: marked ``network``,
deselected by default; ``tox -e clients`` runs it (CI does)."""

import shutil
from pathlib import Path

import pytest
from conftest import load_script, missing

pytestmark = pytest.mark.network

CLIENTS = Path(__file__).resolve().parent.parent / "clients"
survey = load_script(CLIENTS / "survey.py", "rmq_clients_survey_evidence")

PACKAGES = survey.load()["package"]
GO_CLIENT = "github.com/apache/rocketmq-client-go/v2"


def _needs_go():
    if shutil.which("go") is None:
        missing("go is not on PATH: the Go modules cannot be downloaded")


@pytest.mark.parametrize("entry", PACKAGES, ids=[f"{p['registry']}:{p['name']}" for p in PACKAGES])
def test_every_cited_file_line_and_word_is_in_the_surveyed_version(entry):
    if entry["registry"] == "npm" and shutil.which("npm") is None:
        pytest.fail("npm is not on PATH: the npm packages cannot be downloaded")
    if entry["registry"] == "go":
        _needs_go()
    assert survey.cited_problems(entry, survey.fetch(entry)) == []


def test_a_version_the_go_module_proxy_does_not_serve_is_one_line_naming_the_module(tmp_path):
    _needs_go()
    with pytest.raises(survey.SurveyError) as caught:
        survey.fetch({"registry": "go", "name": GO_CLIENT, "version": "v2.0.1"}, tmp_path)  # never tagged
    said = str(caught.value)
    assert said.startswith(f"go {GO_CLIENT} v2.0.1: go mod download -json: {GO_CLIENT}@v2.0.1: ")
    assert "\n" not in said


def test_refresh_asks_the_go_module_proxy_for_the_latest_version():
    _needs_go()
    assert survey.NEWEST["go"](GO_CLIENT).startswith("v2.")
