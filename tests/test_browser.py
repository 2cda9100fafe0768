"""One walk through the notes pages in a real headless Chromium (Debian's chromium +
chromedriver via selenium), against uvicorn serving the router on 127.0.0.1."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest
from fastapi import FastAPI

from bot.commands import Kind, parse_commands
from bot.comment_prose import _render
from bot.library import DEFAULT_TOPICS_FILE, Library, load_library, read_taxonomy
from bot.note_dump import dump_note
from bot.notes import Note
from bot.pages import SecurityHeaders, notes_router, notes_site

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
    note(
        "b-rocm",
        ("rocm",),
        date(2026, 1, 2),
        verdict="quick",
        guidance="值得快速阅读。看 `_capturing` 时序。",  # as its verdict: `notes check` asks it
        title_en="A ROCm note",
    ),
    note("b-sampler", ("sampling",), date(2026, 1, 1), title_en="A sampler note"),
]


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    notes_dir = tmp_path_factory.mktemp("notes")
    for n in NOTES:
        (notes_dir / n.filename).write_text(dump_note(n), "utf-8")
    app = FastAPI()
    app.include_router(notes_router(load_library(notes_dir, DEFAULT_TOPICS_FILE)))
    app.add_middleware(SecurityHeaders)  # as the server's app has it: the CSP the script meets
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
    assert not problems, problems  # the favicon too (it was a 404)


# --- contrast: every text a reader sees, in the light and the dark palette -------------

# a search finding nothing: what its words find alone, and in any topic
NO_MATCH = "/notes?q=capture+deadlock&topic=sampling"
AA_NORMAL = 4.5  # WCAG 2.x AA for text under 18.66px bold / 24px
AA_LARGE = 3.0

# Each element showing text of its own (or a placeholder): its colour, the background it
# is on (the first opaque one up the tree), its size and weight, and a name for the report.
_TEXT_COLOURS = """
const out = [];
function background(n) {
  for (; n; n = n.parentElement) {
    const c = getComputedStyle(n).backgroundColor;
    if (c && c !== 'transparent' && !/rgba\\(.*,\\s*0\\)$/.test(c)) return c;
  }
  return 'rgb(255, 255, 255)';
}
function add(e, pseudo, what) {
  const s = getComputedStyle(e, pseudo);
  out.push([what, s.color, background(e), parseFloat(s.fontSize), parseInt(s.fontWeight)]);
}
for (const e of document.body.querySelectorAll('*')) {
  if (!e.getClientRects().length) continue;  // not shown
  const own = [...e.childNodes].some(t => t.nodeType === 3 && t.textContent.trim());
  const name = e.tagName.toLowerCase() + '.' + e.className;
  if (own) add(e, null, name + ': ' + e.textContent.trim().slice(0, 30));
  if (e.placeholder) add(e, '::placeholder', 'placeholder of ' + e.name);
}
return out;
"""


def _luminance(css: str) -> float:
    def channel(v: float) -> float:
        v /= 255
        return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4

    r, g, b = (float(x) for x in css[css.index("(") + 1 : css.index(")")].split(",")[:3])
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def _contrast(fg: str, bg: str) -> float:
    a, b = sorted((_luminance(fg), _luminance(bg)), reverse=True)
    return (a + 0.05) / (b + 0.05)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_every_text_on_every_page_is_readable_in_both_palettes(browser, base_url, scheme):
    # The stylesheet has a dark palette: a colour chosen for the light one only (white on
    # the dark palette's light link blue, a light-mode orange, the browser's default
    # placeholder grey) reads at 2.5:1 to 4.1:1 there.
    features = [{"name": "prefers-color-scheme", "value": scheme}]
    browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": features})
    try:
        poor = []
        pages = ("/notes", "/notes/b-graph", "/topics", "/notes?topic=nonexistent", NO_MATCH)
        pages = (*pages, "/notes/b-deleted")  # the search box of a 404
        for page in (*pages, "/notes/b-graph/source"):
            browser.get(base_url + page)
            for what, fg, bg, size, weight in browser.execute_script(_TEXT_COLOURS):
                large = size >= 24 or (size >= 18.66 and weight >= 700)
                ratio = _contrast(fg, bg)
                if ratio < (AA_LARGE if large else AA_NORMAL):
                    poor.append(f"{page} {what!r}: {fg} on {bg} is {ratio:.2f}:1")
        assert not poor, "\n".join(dict.fromkeys(poor))
        assert browser.execute_script(_TEXT_COLOURS)  # the walk saw text at all
    finally:
        browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})


# --- the plain-text source page asks for no missing icon ------------------------------


def test_the_plain_text_source_page_asks_for_no_missing_icon(browser, base_url):
    # plain text names no icon: the browser asked for /favicon.ico, a 404 in its console
    browser.get_log("browser")  # what earlier pages logged
    browser.get(f"{base_url}/notes/b-graph/source")
    WebDriverWait(browser, 20).until(lambda d: "b-graph" in d.page_source)
    problems = [e["message"] for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert not problems, problems


# --- no page scrolls sideways on a phone ----------------------------------------------

PHONE = {"width": 360, "height": 800, "deviceScaleFactor": 1, "mobile": True}
LONG_REPO = "kubernetes-sigs/gateway-api-inference-extension"  # a real one, 47 characters
# junk typed or pasted into ?repo=: no hyphen or slash to break the line at
JUNK_REPO = "x" * 64


# kills: bot/static/notes.css .repo white-space: nowrap: a repository of 47 characters made
#   the list and topics pages scroll sideways on a 360 px phone
# kills: bot/static/notes.css body overflow-wrap: anywhere dropped: a ?repo= of 64 letters
#   (no break opportunity in it) scrolled the list and topics pages sideways
def test_no_page_scrolls_sideways_on_a_phone(browser, base_url):
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", PHONE)
    try:
        wide = {}
        for page in (
            f"/notes?repo={LONG_REPO}",
            f"/topics?repo={LONG_REPO}",
            f"/notes?repo={JUNK_REPO}",
            f"/topics?repo={JUNK_REPO}",
            "/notes",
            "/notes/b-graph",
            "/notes/b-graph/source",
            "/notes?q=" + "vllm/v1/attention/backends/" * 7,  # a long path searched for
            "/notes/" + "no-such-note-" * 20,
        ):
            browser.get(base_url + page)
            widths = browser.execute_script(
                "const e = document.documentElement; return [e.scrollWidth, e.clientWidth];"
            )
            assert widths[1] == 360, widths  # the phone's width, not the window's
            if widths[0] > widths[1]:
                wide[page] = widths[0]
        assert not wide, wide
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


# --- what Chromium must not keep: a former id's redirect, a retired note's 410 --------


# kills: bot/pages.py:NotesSite.former (hand) the redirect of a former id cacheable: Chromium
#   kept it for good, so after a curator renamed a note back, its link looped between its two
#   ids (ERR_TOO_MANY_REDIRECTS) for every reader who had followed it once
def test_a_note_renamed_and_renamed_back_opens_from_its_link(browser, base_url):
    graph = NOTES[0]
    topics, problems = read_taxonomy(DEFAULT_TOPICS_FILE)
    assert not problems

    def renamed(note_id: str, formerly: str) -> Library:
        moved = graph.model_copy(update={"id": note_id, "formerly": (formerly,)})
        return Library(notes=(moved, *NOTES[1:]), topics=topics)

    site = notes_site(renamed("b-graph-new", "b-graph"))
    app = FastAPI()
    app.include_router(site.router())
    app.add_middleware(SecurityHeaders)
    with serving_in_thread(app) as url:
        browser.get(f"{url}/notes/b-graph")  # the link in a posted comment
        assert browser.current_url == f"{url}/notes/b-graph-new"
        site.library = renamed("b-graph", "b-graph-new")  # renamed back, the bot restarted
        browser.get(f"{url}/notes/b-graph")
        assert browser.current_url == f"{url}/notes/b-graph"
        assert browser.title == "Fix a CUDA graph capture deadlock · review notes"


# kills: bot/pages.py:NotesSite.error (hand) the 410 of a retired note cacheable: Chromium keeps a
#   410 without caching headers for good, so a note the curators took out of retirement stayed
#   "retired" for every reader who had opened it meanwhile
def test_a_note_brought_back_from_retirement_opens_again(browser):
    topics, problems = read_taxonomy(DEFAULT_TOPICS_FILE)
    assert not problems
    graph, others = NOTES[0], NOTES[1:]
    site = notes_site(Library(notes=others, topics=topics, retired={graph.id: graph}))
    app = FastAPI()
    app.include_router(site.router())
    app.add_middleware(SecurityHeaders)
    with serving_in_thread(app) as url:
        browser.get(f"{url}/notes/b-graph")
        assert browser.title == "Retired · review notes"
        site.library = Library(notes=NOTES, topics=topics)  # retired = false, the bot restarted
        browser.get(f"{url}/notes/b-graph")
        assert browser.title == "Fix a CUDA graph capture deadlock · review notes"


# --- the scrollbar in the page's palette ----------------------------------------------

# The colour of one pixel of a PNG screenshot, read by a canvas on a blank page (the notes
# pages' CSP would refuse the data: image)
_PIXEL = """
const [png, x, y, done] = arguments;
const img = new Image();
img.onload = () => {
  const canvas = document.createElement('canvas');
  canvas.width = img.width;
  canvas.height = img.height;
  const g = canvas.getContext('2d');
  g.drawImage(img, 0, 0);
  const [r, gr, b] = g.getImageData(x, y, 1, 1).data;
  done(`rgb(${r}, ${gr}, ${b})`);
};
img.src = 'data:image/png;base64,' + png;
"""


# kills: bot/static/notes.css :root color-scheme dropped: in the dark palette the browser drew
#   the page's scrollbar (and its form controls' own parts) light, a white stripe down the
#   right edge of the dark page
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_scrollbar_is_drawn_in_the_pages_palette(browser, base_url, scheme):
    features = [{"name": "prefers-color-scheme", "value": scheme}]
    browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": features})
    short = {"width": 800, "height": 400, "deviceScaleFactor": 1, "mobile": False}
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", short)
    try:
        browser.get(f"{base_url}/notes")
        page, gutter, height = browser.execute_script(
            "const e = document.documentElement;"
            "return [getComputedStyle(document.body).backgroundColor,"
            " innerWidth - e.clientWidth, e.scrollHeight > e.clientHeight && innerHeight];"
        )
        assert gutter > 0 and height, (gutter, height)  # a scrollbar is drawn: the page scrolls
        shot = browser.get_screenshot_as_base64()
        browser.get("about:blank")
        # its track, below the thumb (the page is scrolled to its top) and above the arrow
        track = browser.execute_async_script(_PIXEL, shot, 800 - gutter // 2, height - 30)
        assert _contrast(track, page) < 1.5, (track, page)
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
        browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})


# --- a link a Chinese sentence runs on from -------------------------------------------


# kills: bot/pages.py:pasted_off (hand) only punctuation taken off: the link a Chinese sentence
#   runs on from, as GitHub's autolinker makes it and Chromium sends it (percent-encoded), was
#   a 404
def test_a_link_a_chinese_sentence_runs_on_from_opens_the_note(browser, base_url):
    browser.get(f"{base_url}/notes/b-graph，请看这条")
    assert browser.current_url == f"{base_url}/notes/b-graph"
    assert browser.title == "Fix a CUDA graph capture deadlock · review notes"
    browser.get(f"{base_url}/notes/b-graph/source。")
    assert browser.current_url == f"{base_url}/notes/b-graph/source"


# --- a note's source readable on a phone ----------------------------------------------

# The size the note's text is drawn at on the phone's screen: its font size times the page's
# zoom (a page without a viewport is laid out 980 px wide and shrunk to fit)
_DRAWN_TEXT_SIZE = """
const text = document.querySelector('pre');
return [parseFloat(getComputedStyle(text).fontSize) * visualViewport.scale,
        document.documentElement.clientWidth, document.documentElement.scrollWidth];
"""


# kills: bot/pages.py:NotesSite.note_source (hand) plain text to a browser: on a 360 px phone the
#   source was laid out 980 px wide and drawn at 4.8 px, unreadable without zooming
def test_a_notes_source_is_readable_on_a_phone(browser, base_url):
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", PHONE)
    browser.get_log("browser")  # what earlier pages logged
    try:
        browser.get(f"{base_url}/notes/b-graph/source")
        drawn, width, scrolled = browser.execute_script(_DRAWN_TEXT_SIZE)
        assert width == 360 and scrolled <= width, (width, scrolled)
        assert drawn >= 12, drawn
        text = browser.find_element(By.TAG_NAME, "pre").text
        assert text.startswith('+++\nid = "b-graph"') and TITLE_ZH in text
        problems = [e["message"] for e in browser.get_log("browser") if e["level"] == "SEVERE"]
        assert not problems, problems  # the stylesheet and icon under the CSP
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


# --- back from a search: the form the list was made by --------------------------------


@pytest.fixture(scope="module")
def browser_without_bfcache(tmp_path_factory: pytest.TempPathFactory):
    """A second Chromium that keeps no page to go back to: back loads the page anew and
    fills its form with what was typed into it (the form state a history entry keeps)."""
    if not (Path(CHROMIUM).is_file() and Path(CHROMEDRIVER).is_file()):
        pytest.skip("browser not found")
    profile = tmp_path_factory.mktemp("chromium-profile-no-bfcache")
    flags = ("--window-size=1000,900", "--disable-features=BackForwardCache")
    options = chrome_options(CHROMIUM, profile, *flags)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    yield driver
    driver.quit()


def _back(driver) -> None:
    """The browser's back button, as Chromium's history has it."""
    history = driver.execute_cdp_cmd("Page.getNavigationHistory", {})
    entry = history["entries"][history["currentIndex"] - 1]
    driver.execute_cdp_cmd("Page.navigateToHistoryEntry", {"entryId": entry["id"]})


# kills: bot/templates/notes.html (hand) no script: back from a search, the list of every note
#   showed "deadlock" in its box and ROCm in its topic (Chromium's back-forward cache keeps
#   the page as it was left; without it, the history entry's form state is put back)
# kills: bot/pages.py SECURITY_HEADERS (hand) the script's hash left out of the CSP: refused
@pytest.mark.parametrize("bfcache", [True, False])
def test_back_from_a_search_shows_the_form_the_list_was_made_by(request, base_url, bfcache):
    driver = request.getfixturevalue("browser" if bfcache else "browser_without_bfcache")
    wait = WebDriverWait(driver, 20)
    driver.get(f"{base_url}/notes")
    driver.get_log("browser")  # what earlier pages logged
    driver.execute_script("window.leftAt = 'the list'")  # still there if the page is kept
    driver.find_element(By.NAME, "q").send_keys("deadlock")
    Select(driver.find_element(By.NAME, "topic")).select_by_value("rocm")
    driver.find_element(By.CSS_SELECTOR, "form.filters button[type=submit]").click()
    wait.until(lambda d: "q=deadlock" in d.current_url)
    assert driver.find_element(By.CSS_SELECTOR, ".count").text == "1 of 3 notes"

    _back(driver)
    wait.until(lambda d: d.current_url == f"{base_url}/notes")
    kept = driver.execute_script("return window.leftAt")
    assert kept == ("the list" if bfcache else None)  # the way back this test is about
    assert driver.find_element(By.CSS_SELECTOR, ".count").text == "3 of 3 notes"
    assert driver.find_element(By.NAME, "q").get_attribute("value") == ""
    assert Select(driver.find_element(By.NAME, "topic")).first_selected_option.text.startswith(
        "All topics"
    )
    problems = [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    assert not problems, problems  # the script ran under the CSP


# --- a search that finds nothing, a deleted note's link: saying why -------------------


# kills: bot/templates/notes.html (hand) "No notes match." alone: a reviewer whose two words no
#   note holds together (every word must occur), or whose topic hid the notes found, was not
#   told which, nor shown the notes each part finds
def test_a_search_finding_nothing_shows_what_its_words_find_alone(browser, base_url):
    wait = WebDriverWait(browser, 20)
    browser.get(f"{base_url}/notes")
    browser.find_element(By.NAME, "q").send_keys("deadlock 采样 zzz")
    browser.find_element(By.CSS_SELECTOR, "form.filters button[type=submit]").click()
    wait.until(lambda d: "q=deadlock" in d.current_url)
    assert browser.find_element(By.CSS_SELECTOR, ".count").text == "0 of 3 notes"
    words = [li.text for li in browser.find_elements(By.CSS_SELECTOR, "ul.hint li")]
    assert words == ["“deadlock” finds 1 note", "“采样” finds 1 note", "“zzz” finds none"]
    said = browser.find_element(By.CSS_SELECTOR, "ul.hint li:nth-child(2) [lang]")
    assert (said.text, said.get_attribute("lang")) == ("采样", "zh")  # as its search box's word
    browser.find_element(By.LINK_TEXT, "“deadlock”").click()
    wait.until(lambda d: d.find_element(By.CSS_SELECTOR, ".count").text == "1 of 3 notes")
    assert browser.find_element(By.NAME, "q").get_attribute("value") == "deadlock"

    Select(browser.find_element(By.NAME, "topic")).select_by_value("sampling")
    browser.find_element(By.CSS_SELECTOR, "form.filters button[type=submit]").click()
    wait.until(lambda d: "topic=sampling" in d.current_url)
    assert browser.find_element(By.CSS_SELECTOR, ".count").text == "0 of 3 notes"
    hint = browser.find_element(By.CSS_SELECTOR, "p.hint")
    assert hint.text == "1 note in any topic and verdict matches “deadlock”."
    hint.find_element(By.TAG_NAME, "a").click()
    wait.until(lambda d: "topic=" not in d.current_url)
    cards = browser.find_elements(By.CSS_SELECTOR, ".cards > li h2 a")
    assert [c.text for c in cards] == ["Fix a CUDA graph capture deadlock"]


# kills: bot/pages.py:NotesSite.no_note (hand) the bare "no note with id" and two links: a
#   reviewer following a comment's link to a note deleted since was told nothing of why, and
#   had to find the search on another page
def test_a_deleted_notes_link_says_why_and_offers_the_search(browser, base_url):
    wait = WebDriverWait(browser, 20)
    browser.get(f"{base_url}/notes/b-deleted")  # a note a posted comment links, deleted since
    assert browser.title == "Not found · review notes"
    said = browser.find_element(By.TAG_NAME, "main").text
    assert "no note with id 'b-deleted'" in said and "may have deleted it" in said
    box = browser.find_element(By.CSS_SELECTOR, "main form[role=search] input[name=q]")
    box.send_keys("deadlock")
    box.submit()
    wait.until(lambda d: "q=deadlock" in d.current_url)
    cards = browser.find_elements(By.CSS_SELECTOR, ".cards > li h2 a")
    assert [c.text for c in cards] == ["Fix a CUDA graph capture deadlock"]


# --- a comment's lines as the browser lays them out ---

# The top of each `/notes` of the comment's first paragraph, as drawn
_COMMAND_TOPS = """
document.body.innerHTML = arguments[0];
const walker = document.createTreeWalker(document.querySelector('p'), NodeFilter.SHOW_TEXT);
const tops = [];
for (let text = walker.nextNode(); text; text = walker.nextNode()) {
  for (let at = text.data.indexOf('/notes'); at >= 0; at = text.data.indexOf('/notes', at + 1)) {
    const range = document.createRange();
    range.setStart(text, at);
    range.setEnd(text, at + 1);
    tops.push(range.getBoundingClientRect().top);
  }
}
return tops;
"""


@pytest.mark.parametrize("between", ["\u2028", "\u2029"])
def test_a_line_or_paragraph_separator_shows_two_commands_on_one_line(browser, between):
    # U+2028 and U+2029 break no line in cmark-gfm (only \n and \r do) nor, against CSS
    # Text's word, in the browser, which draws them as a space: a reader sees one line,
    # `/notes why /notes off`, so the parser reads `why` with words after it, no `off`.
    # Should Chromium start breaking lines there, this fails, and the parser should follow.
    browser.get("about:blank")
    text = f"/notes why{between}/notes off"
    first, last = browser.execute_script(_COMMAND_TOPS, _render(text))
    assert first == last  # one line, the second command mid-line
    assert [c.kind for c in parse_commands(text)] == [Kind.WHY]
    # (the measure tells a line break: after a `\n`, GitHub's <br>, the second is lower)
    first, last = browser.execute_script(_COMMAND_TOPS, _render("/notes why\n/notes off"))
    assert last > first


def test_screenshot_script_refuses_a_note_its_library_has_not(tmp_path, capsys):
    # scripts/screenshot.py shot the "Not found" page of a note id it did not have, said
    # "wrote ..." and exited 0; and it read the shipped notes only, so a curator trying a
    # note in a copy of the library (docs/curating.md) could not shoot its page.
    from tests.conftest import load_script

    script = load_script("screenshot")
    out = tmp_path / "shot.png"
    assert script.main(["vllm-not-a-note", "--out", str(out)]) == 2
    said = capsys.readouterr().err
    assert "no note with id 'vllm-not-a-note' in " in said and "--notes-dir" in said
    assert not out.exists()
    copy = tmp_path / "notes"
    shutil.copytree(Path(__file__).resolve().parent.parent / "seeds" / "notes", copy)
    shipped = next(copy.glob("*.md"))
    shipped.rename(copy / "vllm-renamed-copy.md")
    text = (copy / "vllm-renamed-copy.md").read_text("utf-8")
    (copy / "vllm-renamed-copy.md").write_text(
        text.replace(f'id = "{shipped.stem}"', 'id = "vllm-renamed-copy"'), "utf-8"
    )
    assert script.missing_note(load_library(copy), "vllm-renamed-copy", copy) is None
