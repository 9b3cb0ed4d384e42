"""The hosted pages in a real browser: a standalone `latchkey serve` mails links, Chromium
follows them, and a person's steps are taken on the pages (typing, submitting). Each page is
saved as a screenshot for a reviewer.
"""

from __future__ import annotations

import html
from pathlib import Path

from conftest import PASSWORD, WAIT, api, wait_for_text
from latchkey_process import Process, unique_email
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

NEW_PASSWORD = "a brand new passphrase"


def wait_for_heading(browser, text: str) -> None:
    wait_for_text(browser, (By.TAG_NAME, "h1"), text)


def shoot(browser, screenshots: Path, name: str) -> None:
    assert browser.save_screenshot(str(screenshots / f"{name}.png")), name


def open_from_mail(browser, link: str) -> None:
    """Follows `link` as a click in a web mail would: from a page of another site."""
    browser.get("data:text/html;charset=utf-8," + f'<a id="open" href="{html.escape(link)}">Open the link</a>')
    WebDriverWait(browser, WAIT).until(EC.element_to_be_clickable((By.ID, "open"))).click()


def sign_up(server: Process) -> str:
    email = unique_email("browser")
    status, _ = api(server, "POST", "/signup", {"email": email, "password": PASSWORD})
    assert status == 200
    return email


def test_home_page(server, browser, screenshots):
    browser.get(server.url + "/")
    wait_for_heading(browser, "Latchkey is running")
    # The stylesheet loaded under the page's Content-Security-Policy.
    assert browser.find_element(By.TAG_NAME, "main").value_of_css_property("border-top-left-radius") == "12px"
    shoot(browser, screenshots, "home")


def test_sign_up_link_lands_on_email_confirmed(server, browser, screenshots):
    email = sign_up(server)
    assert api(server, "POST", "/token?grant_type=password", {"email": email, "password": PASSWORD})[0] == 400, "not confirmed yet"
    open_from_mail(browser, server.outbox.next_mail(email).verify_link)
    wait_for_heading(browser, "Email confirmed")
    assert browser.current_url == server.url + "/welcome/confirmed", "nothing secret in the address bar"
    shoot(browser, screenshots, "confirmed")
    assert api(server, "POST", "/token?grant_type=password", {"email": email, "password": PASSWORD})[0] == 200


def test_used_link_shows_the_error_page_with_a_resend_form(server, browser, screenshots):
    email = sign_up(server)
    link = server.outbox.next_mail(email).verify_link
    open_from_mail(browser, link)
    wait_for_heading(browser, "Email confirmed")
    open_from_mail(browser, link)
    wait_for_heading(browser, "Link expired or already used")
    assert "code=otp_expired" in browser.current_url and "token" not in browser.current_url
    alert = browser.find_element(By.CSS_SELECTOR, "[role=alert]")
    assert "expired" in alert.text
    field = browser.switch_to.active_element
    assert field.get_attribute("id") == "email", "the email field has the focus"
    shoot(browser, screenshots, "link-error")
    # The answer is the same whether or not the address has an account.
    field.send_keys(unique_email("someone"))
    browser.find_element(By.CSS_SELECTOR, "form button[type=submit]").click()
    wait_for_heading(browser, "Check your email")
    shoot(browser, screenshots, "sent")


def test_recovery_link_form_sets_a_new_password(server, browser, screenshots):
    email = sign_up(server)
    open_from_mail(browser, server.outbox.next_mail(email).verify_link)
    wait_for_heading(browser, "Email confirmed")
    assert api(server, "POST", "/recover", {"email": email})[0] == 200

    open_from_mail(browser, server.outbox.next_mail(email).verify_link)
    wait_for_heading(browser, "Choose a new password")
    assert browser.current_url == server.url + "/welcome/password"
    assert email in browser.find_element(By.TAG_NAME, "form").text
    assert browser.switch_to.active_element.get_attribute("id") == "password", "the password field has the focus"
    assert browser.get_cookies() and all(cookie["httpOnly"] for cookie in browser.get_cookies())
    shoot(browser, screenshots, "password-form")

    # A password that is too short: the form comes back with the problem announced.
    browser.find_element(By.ID, "password").send_keys("short")
    browser.find_element(By.ID, "password-confirmation").send_keys("short")
    browser.find_element(By.CSS_SELECTOR, "form button[type=submit]").click()
    WebDriverWait(browser, WAIT).until(EC.presence_of_element_located((By.CSS_SELECTOR, "[role=alert]")))
    assert browser.find_element(By.ID, "password").get_attribute("aria-invalid") == "true"
    assert browser.switch_to.active_element.get_attribute("id") == "password"
    shoot(browser, screenshots, "password-error")

    browser.find_element(By.ID, "password").send_keys(NEW_PASSWORD)
    browser.find_element(By.ID, "password-confirmation").send_keys(NEW_PASSWORD)
    browser.find_element(By.CSS_SELECTOR, "form button[type=submit]").click()
    wait_for_heading(browser, "Password changed")
    assert browser.current_url == server.url + "/welcome/password-changed"
    shoot(browser, screenshots, "password-changed")

    status, session = api(server, "POST", "/token?grant_type=password", {"email": email, "password": NEW_PASSWORD})
    assert status == 200 and session["user"]["email"] == email
    assert api(server, "POST", "/token?grant_type=password", {"email": email, "password": PASSWORD})[0] == 400

    # Back to the form (the browser's history): it is spent.
    browser.back()
    browser.get(server.url + "/welcome/password")
    wait_for_heading(browser, "This form has expired")
