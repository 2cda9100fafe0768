"""One walk through the notes pages in a real headless Chromium (Debian's chromium +
chromedriver via selenium), against uvicorn serving the router on 127.0.0.1."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest
from fastapi import FastAPI

from bot.library import DEFAULT_TOPICS_FILE, load_library
from bot.notes import Note, dump_note
from bot.pages import notes_router

webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed")
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

from tests.browser_kit import chrome_options, serving_in_thread  # noqa: E402

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
TITLE_ZH = "修复 CUDA 图捕获死锁"
SUMMARY_EN = "Capture order matters; read the warm-up path first."


def note(note_id: str, topics: tuple[str, ...], created: date, **fields) -> Note:
    return Note.model_validate(
        dict(
            id=note_id,
            repo="vllm-project/vllm",
            source_pr=100,
            verdict="deep",
            topics=topics,
            title_zh=f"笔记 {note_id}",
            guidance="值得精读。看 `_capturing` 时序。",
            title_en=f"English title of {note_id}",
            summary_en=f"English summary of {note_id}.",
            created=created,
        )
        | fields
    )


NOTES = [
    note(
        "b-graph",
        ("cuda-graphs", "rocm"),
        date(2026, 1, 3),
        title_zh=TITLE_ZH,
        title_en="Fix a CUDA graph capture deadlock",
        summary_en=SUMMARY_EN,
    ),
    note("b-rocm", ("rocm",), date(2026, 1, 2), verdict="quick", title_en="A ROCm note"),
    note("b-sampler", ("sampling",), date(2026, 1, 1), title_en="A sampler note"),
]


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    notes_dir = tmp_path_factory.mktemp("notes")
    for n in NOTES:
        (notes_dir / n.filename).write_text(dump_note(n), "utf-8")
    app = FastAPI()
    app.include_router(notes_router(load_library(notes_dir, DEFAULT_TOPICS_FILE)))
    with serving_in_thread(app) as url:
        yield url


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory):
    missing = [p for p in (CHROMIUM, CHROMEDRIVER) if not Path(p).is_file()]
    if missing:
        pytest.skip(
            f"browser not found: {', '.join(missing)} (apt-get install chromium chromium-driver)"
        )
    profile = tmp_path_factory.mktemp("chromium-profile")
    options = chrome_options(CHROMIUM, profile, "--window-size=1000,900")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    # An explicit driver path means selenium-manager looks nothing up or downloads nothing.
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    yield driver
    driver.quit()


def test_filter_by_topic_then_open_a_note(browser, base_url):
    wait = WebDriverWait(browser, 20)
    browser.get(f"{base_url}/notes")
    assert browser.title == "Notes · review notes"
    cards = browser.find_elements(By.CSS_SELECTOR, ".cards > li h2 a")
    assert [c.text for c in cards] == [
        "Fix a CUDA graph capture deadlock",
        "A ROCm note",
        "A sampler note",
    ]

    Select(browser.find_element(By.NAME, "topic")).select_by_value("rocm")
    browser.find_element(By.CSS_SELECTOR, "form.filters button[type=submit]").click()
    wait.until(lambda d: "topic=rocm" in d.current_url)
    cards = browser.find_elements(By.CSS_SELECTOR, ".cards > li h2 a")
    assert [c.text for c in cards] == ["Fix a CUDA graph capture deadlock", "A ROCm note"]

    browser.find_element(By.LINK_TEXT, "Fix a CUDA graph capture deadlock").click()
    wait.until(lambda d: d.current_url.endswith("/notes/b-graph"))
    assert browser.title == "Fix a CUDA graph capture deadlock · review notes"
    title_zh = browser.find_element(By.CSS_SELECTOR, ".note-head .title-zh")
    assert title_zh.text == TITLE_ZH and title_zh.get_attribute("lang") == "zh"
    assert browser.find_element(By.CSS_SELECTOR, ".summary p").text == SUMMARY_EN
    code = browser.find_element(By.CSS_SELECTOR, ".guidance code")
    assert code.text == "_capturing"
    # The stylesheet loaded under the page's CSP: the badge has its colour, not the default.
    badge = browser.find_element(By.CSS_SELECTOR, ".note-head .badge-deep")
    assert badge.value_of_css_property("background-color") != "rgba(0, 0, 0, 0)"
    problems = [e["message"] for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert not [m for m in problems if "favicon" not in m], problems
