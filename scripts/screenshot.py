"""Screenshot a seed note's page in headless Chromium, for the notes browser (docs/commands.md).

    .venv/bin/python scripts/screenshot.py                          # docs/screenshot-note.png
    .venv/bin/python scripts/screenshot.py --width 390 --out /tmp/phone.png vllm-a4696815
    .venv/bin/python scripts/screenshot.py --notes-dir /tmp/lib --out /tmp/new.png <new-id>

Serves the shipped notes (or --notes-dir's) with uvicorn on a free 127.0.0.1 port, opens
/notes/<id> with Debian's chromium + chromedriver (nothing is downloaded) and saves the whole
page; an id the notes have not is refused (its page is "Not found").
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from fastapi import FastAPI
from selenium import webdriver
from selenium.webdriver.chrome.service import Service

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bot.library import DEFAULT_NOTES_DIR, Library, load_library  # noqa: E402
from bot.pages import SecurityHeaders, notes_router  # noqa: E402
from tests.browser_kit import chrome_options, serving_in_thread  # noqa: E402


def missing_note(library: Library, note_id: str, notes_dir: Path) -> str | None:
    """Why `note_id`'s page cannot be shot, if it cannot: the page of a note the library has
    not is the "Not found" page, which a screenshot would keep as if it were the note's."""
    if note_id in library.by_id:
        return None
    return (
        f"no note with id {note_id!r} in {notes_dir}: a note tried in a copy of the library"
        " needs --notes-dir naming that copy"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("note_id", nargs="?", default="vllm-0341d216")
    parser.add_argument("--notes-dir", type=Path, default=DEFAULT_NOTES_DIR)
    parser.add_argument("--page", help="another path to shoot instead, e.g. /notes or /topics")
    parser.add_argument("--out", default=str(ROOT / "docs" / "screenshot-note.png"))
    parser.add_argument("--width", type=int, default=1100)
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    parser.add_argument("--chromedriver", default="/usr/bin/chromedriver")
    args = parser.parse_args(argv)

    library = load_library(args.notes_dir)
    missing = None if args.page else missing_note(library, args.note_id, args.notes_dir)
    if missing is not None:
        print(f"screenshot: {missing}", file=sys.stderr)
        return 2
    app = FastAPI()
    app.include_router(notes_router(library))
    app.add_middleware(SecurityHeaders)  # the pages as the server sends them
    with (
        serving_in_thread(app) as base,
        tempfile.TemporaryDirectory(prefix="chromium-profile-") as profile,
    ):
        options = chrome_options(
            args.chromium,
            profile,
            "--hide-scrollbars",
            "--force-device-scale-factor=1",
            f"--window-size={args.width},800",
        )
        driver = webdriver.Chrome(service=Service(args.chromedriver), options=options)
        try:
            url = base + (args.page or f"/notes/{args.note_id}")
            driver.get(url)
            # Grow the window until the viewport holds the whole page (the window's own
            # frame takes a few pixels of its height).
            for _ in range(3):
                height, inner = driver.execute_script(
                    "return [document.documentElement.scrollHeight, window.innerHeight]"
                )
                if inner >= height:
                    break
                outer = driver.get_window_size()["height"]
                driver.set_window_size(args.width, outer + height - inner)
            Path(args.out).parent.mkdir(parents=True, exist_ok=True)
            driver.save_screenshot(args.out)
        finally:
            driver.quit()
    print(f"wrote {args.out} ({args.width}x{height}) of {url}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
