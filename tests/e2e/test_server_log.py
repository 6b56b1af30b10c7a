"""Buttons that set other widgets must not make Streamlit log a warning (issue: "Warnings in the server log").

Every test on the shared server already fails on a warning or traceback in the server's log
(``conftest._clean_server_log``); these tests press the buttons that change other widgets' values,
the way that once logged "created with a default value but also had its value set via the Session
State API" with a stack trace on the first "New draw".
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

import layernorm as ln
from e2e.support import Lab, page_by_url, query
from ui.text import fmt

pytestmark = pytest.mark.browser


def test_new_draw_moves_the_seed_without_a_warning(lab: Lab) -> None:
    lab.open(page_by_url("/mean"), query(src="Preset", preset="standard normal", d=8, seed=41))
    mu = lab.metric("μ (mean)")
    expect(mu).to_have_text(fmt(float(ln.mean(ln.make_preset("standard normal", 8, 41)))))
    for seed in (42, 43):
        lab.sidebar.get_by_role("button", name="New draw").click()
        expect(lab.sidebar.get_by_role("spinbutton", name="Seed")).to_have_value(str(seed))
        expect(mu).to_have_text(fmt(float(ln.mean(ln.make_preset("standard normal", 8, seed)))))
    lab.assert_clean()


def test_reset_brings_gamma_and_beta_back_without_a_warning(lab: Lab) -> None:
    lab.open(page_by_url("/scale_shift"), query(src="Preset", preset="standard normal", d=8, gamma=2, beta=1))
    gamma = lab.slider("γ (scale, every feature)", in_sidebar=True)
    beta = lab.slider("β (shift, every feature)", in_sidebar=True)
    expect(gamma).to_have_attribute("aria-valuetext", "2.00")
    expect(beta).to_have_attribute("aria-valuetext", "1.00")
    expect(lab.metric("mean of y")).to_have_text("1")
    lab.page.get_by_role("button", name="Reset: γ = 1, β = 0").click()
    expect(gamma).to_have_attribute("aria-valuetext", "1.00")
    expect(beta).to_have_attribute("aria-valuetext", "0.00")
    expect(lab.metric("mean of y")).not_to_have_text("1")
    lab.assert_clean()
