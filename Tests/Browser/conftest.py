"""Fixtures for the browser suite: a real `latchkey serve` (no --site-url, no --autoconfirm, so
email links land on its own pages) and a headless Chromium driven by Selenium.

Runs the binary named by LATCHKEY_BIN (scripts/test.sh builds .build/debug/latchkey), with
Debian's `chromium` and `chromium-driver` (CHROMIUM_BIN and CHROMEDRIVER_BIN override their
paths). Screenshots of every page go to LATCHKEY_SCREENSHOTS (default
.build/browser-screenshots). Every step waits on a condition with an explicit deadline; none
sleeps.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "PythonSupport"))
from latchkey_process import REPO_ROOT, Process, latchkey_binary, start_latchkey  # noqa: E402

try:
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.common.virtual_authenticator import VirtualAuthenticatorOptions
    from selenium.webdriver.support import expected_conditions as EC
    from selenium.webdriver.support.ui import WebDriverWait
except ImportError:  # scripts/test.sh says why the suite is skipped; this is for a direct run
    pytest.skip("selenium is not installed (pip install selenium)", allow_module_level=True)

CHROMIUM = os.environ.get("CHROMIUM_BIN") or shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = os.environ.get("CHROMEDRIVER_BIN") or shutil.which("chromedriver") or "/usr/bin/chromedriver"
WAIT = 60.0  # seconds for a page or element (a loaded CI machine)
PASSWORD = "correct horse battery staple"


def wait_for_text(browser, locator: tuple[str, str], text: str) -> None:
    """Waits until the element at `locator` shows `text`, across navigations: while Chromium
    swaps documents it may report the old page's nodes as gone ("does not belong to the
    document") rather than stale, and that is waited out like a page not there yet."""
    WebDriverWait(browser, WAIT, ignored_exceptions=(WebDriverException,)).until(EC.text_to_be_present_in_element(locator, text))


@pytest.fixture(scope="session")
def server() -> Iterator[Process]:
    binary = latchkey_binary()
    if binary is None:
        pytest.exit("latchkey binary not found: build it (swift build --product latchkey) and set LATCHKEY_BIN", returncode=2)
    root = Path(tempfile.mkdtemp(prefix="latchkey-browser-"))
    # One client IP makes every request; lift the per-IP limits so reruns cannot trip them.
    started = start_latchkey(binary, root, "standalone", ["--rate-limit-signin", "100000", "--rate-limit-verify", "100000"])
    yield started
    started.stop()
    shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="session")
def screenshots() -> Path:
    directory = Path(os.environ.get("LATCHKEY_SCREENSHOTS") or REPO_ROOT / ".build" / "browser-screenshots")
    directory.mkdir(parents=True, exist_ok=True)
    return directory


def start_chromium() -> webdriver.Chrome:
    """A headless Chromium with a fresh profile of its own (skips the test when not installed)."""
    if not (os.access(CHROMIUM, os.X_OK) and os.access(CHROMEDRIVER, os.X_OK)):
        pytest.skip("chromium and chromium-driver are not installed (apt-get install chromium chromium-driver)")
    options = Options()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--window-size=720,720",
                     "--force-device-scale-factor=1", "--no-first-run", "--disable-extensions", "--lang=en-US"):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(WAIT)
    return driver


def add_authenticator(driver: webdriver.Chrome) -> None:
    """A platform authenticator like a phone's or laptop's: CTAP2 over the internal transport,
    discoverable credentials, user verification that succeeds."""
    driver.add_virtual_authenticator(
        VirtualAuthenticatorOptions(
            protocol=VirtualAuthenticatorOptions.Protocol.CTAP2, transport=VirtualAuthenticatorOptions.Transport.INTERNAL,
            has_resident_key=True, has_user_verification=True, is_user_verified=True,
        )
    )


@pytest.fixture
def browser(screenshots: Path) -> Iterator[webdriver.Chrome]:
    driver = start_chromium()
    yield driver
    driver.quit()


def api(server: Process, method: str, path: str, body: dict | None = None) -> tuple[int, dict]:
    """A JSON request to the server, as an app would make it."""
    request = urllib.request.Request(
        server.url + path, method=method, data=json.dumps(body).encode() if body is not None else None,
        headers={"Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=WAIT) as response:
            return response.status, json.loads(response.read() or b"{}")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}")


def latchkey_keys(server: Process) -> dict[str, str]:
    """The API keys `latchkey keys` prints for the server, by role: `anon` (what a web app ships)
    and `service_role` (for /admin)."""
    binary = latchkey_binary()
    assert binary is not None
    printed = subprocess.run(
        [str(binary), "keys", "--data-dir", str(server.data_dir), "--external-url", server.url],
        capture_output=True, text=True, timeout=WAIT, check=True,
        env={name: value for name, value in os.environ.items() if name != "LATCHKEY_JWT_SECRET"},
    ).stdout
    keys = dict(re.findall(r"^(anon|service_role) key:\s+(\S+)", printed, re.M))
    assert set(keys) == {"anon", "service_role"}, f"unexpected `latchkey keys` output:\n{printed}"
    return keys


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """On a failure, show the end of the server's log and the page the browser was on."""
    outcome = yield
    report = outcome.get_result()
    if report.when == "call" and report.failed:
        server = item.funcargs.get("server")
        if isinstance(server, Process):
            report.sections.append(("latchkey serve log (tail)", server.log_tail()))
        driver = item.funcargs.get("browser")
        if driver is not None:
            try:
                report.sections.append(("browser", f"{driver.current_url}\n{driver.page_source[:3000]}"))
            except Exception:  # noqa: BLE001 - the browser may be gone
                pass
