"""A pytest plugin: deselects exactly the test ids listed in LATCHKEY_UPSTREAM_DESELECT.

pytest's own --deselect takes node-id prefixes, so `...::test_resend` would also leave out
`...::test_resend_missing_credentials`. Here an id deselects only the test it names, and an id
that names no collected test is an error, so the list cannot go stale unnoticed.
"""

import os

import pytest


def _listed() -> list[str]:
    return [line.strip() for line in os.environ.get("LATCHKEY_UPSTREAM_DESELECT", "").splitlines() if line.strip()]


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session, config, items) -> None:
    listed = _listed()
    if not listed:
        return
    wanted = set(listed)
    kept, deselected = [], []
    for item in items:
        (deselected if item.nodeid in wanted else kept).append(item)
    missing = wanted - {item.nodeid for item in deselected}
    # Run first (before -k and -m), so with the whole of tests/ collected a missing id is stale;
    # with narrower paths it may just be outside them.
    if missing and config.args == ["tests"]:
        raise pytest.UsageError(f"LATCHKEY_UPSTREAM_DESELECT names tests that do not exist: {sorted(missing)}")
    if deselected:
        config.hook.pytest_deselected(items=deselected)
        items[:] = kept
