"""Every citation of clients/survey.toml holds in its package as the registry ships it: each
package downloaded at its surveyed version by its registry's own client (``pip download
--no-deps``, ``npm pack``) into ``~/.cache/rmq-survey`` (or ``$RMQ_SURVEY_CACHE``), once, and each
cited file, line range and word looked up. Needs the network: marked ``network``, deselected by
default; ``tox -e clients`` runs it (CI does)."""

import shutil
from pathlib import Path

import pytest
from conftest import load_script

pytestmark = pytest.mark.network

CLIENTS = Path(__file__).resolve().parent.parent / "clients"
survey = load_script(CLIENTS / "survey.py", "rmq_clients_survey_evidence")

PACKAGES = survey.load()["package"]


@pytest.mark.parametrize("entry", PACKAGES, ids=[f"{p['registry']}:{p['name']}" for p in PACKAGES])
def test_every_cited_file_line_and_word_is_in_the_surveyed_version(entry):
    if entry["registry"] == "npm" and shutil.which("npm") is None:
        pytest.fail("npm is not on PATH: the npm packages cannot be downloaded")
    assert survey.cited_problems(entry, survey.fetch(entry)) == []
