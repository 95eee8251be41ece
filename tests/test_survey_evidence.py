"""Every citation of clients/survey.toml holds in its package as the registry ships it: each
package downloaded at its surveyed version by its registry's own client (``pip download
--no-deps``, ``npm pack``) into ``~/.cache/rmq-survey`` (or ``$RMQ_SURVEY_CACHE``), once, and each
cited file, line range and word looked up. Needs the network: marked ``network``, deselected by
default; ``tox -e clients`` runs it (CI does)."""

import importlib.util
import shutil
from pathlib import Path

import pytest

pytestmark = pytest.mark.network

CLIENTS = Path(__file__).resolve().parent.parent / "clients"
_spec = importlib.util.spec_from_file_location("rmq_clients_survey_evidence", CLIENTS / "survey.py")
assert _spec and _spec.loader
survey = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(survey)

PACKAGES = survey.load()["package"]


@pytest.mark.parametrize("entry", PACKAGES, ids=[f"{p['registry']}:{p['name']}" for p in PACKAGES])
def test_every_cited_file_line_and_word_is_in_the_surveyed_version(entry):
    if entry["registry"] == "npm" and shutil.which("npm") is None:
        pytest.fail("npm is not on PATH: the npm packages cannot be downloaded")
    assert survey.cited_problems(entry, survey.fetch(entry)) == []
