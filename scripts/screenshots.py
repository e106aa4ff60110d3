#!/usr/bin/env python3
"""Refresh the README's screenshots in docs/images from a real demo night.

Runs ``alley-poker demo`` (the simulated scorer bowling into the real service) as a
subprocess and photographs its pages with Playwright's headless Chromium:

- ``kiosk.png``: the kiosk of lanes 1-2 during play (1920x1080, the lane TV);
- ``kiosk-390.png``: the same kiosk on a phone (390x844);
- ``tablet.png``: the commissioner's tablet (1280x800);
- ``kiosk-settled.png``: the kiosk after the match settled (the result stays on screen);
- ``phone.png``: a bowler's own phone page (390x844), opened by their code's URL;
- ``tablet-first-night.png``: the tablet's First night checklist (1280x800) after the match.

``--phone-only`` takes just the phone's (a minute instead of a whole demo match).

Usage: ``.venv/bin/python scripts/screenshots.py [--out docs/images] [--port 8765]``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PIN = "2468"  # the demo's commissioner PIN (alley_poker.cli.demo_alley.DEMO_PIN)


def wait_for_server(url: str, demo: subprocess.Popen, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if demo.poll() is not None:
            sys.exit(f"the demo stopped early (exit {demo.returncode})")
        try:
            with urllib.request.urlopen(f"{url}/api/v1/lanes", timeout=1):
                return
        except OSError:
            time.sleep(0.2)
    sys.exit(f"the demo never served {url}")


def pair(kiosk, tablet) -> None:
    """Pair a kiosk from the signed-in tablet, as the commissioner does on a first start."""
    kiosk.wait_for_function(
        "document.getElementById('pairing-code').textContent.trim().length >= 4")
    code = kiosk.inner_text("#pairing-code").strip()
    tablet.evaluate("code => window.Commissioner.call('POST', '/api/v1/kiosks/pair', {code})", code)
    kiosk.wait_for_selector("body[data-paired=yes]")


def phone_page(browser, tablet, path: Path) -> None:
    """A bowler's phone, opened by the code the tablet shows for the first bowler on 1-2."""
    url = tablet.evaluate("""async () => {
      const screen = await window.Commissioner.call("GET", "/api/v1/lanes/1-2/screen");
      const match = screen.matches[0];
      const code = await window.Commissioner.call(
        "POST", "/api/v1/matches/" + match.match_id + "/phone-links",
        {bowler: match.state.seat_order[0]});
      return code.url;
    }""")
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True,
                                  device_scale_factor=1)
    phone = context.new_page()
    phone.goto(url)
    phone.wait_for_selector("#my-hand .card")
    phone.wait_for_selector("#board .board-bowler")
    phone.wait_for_timeout(1200)
    phone.screenshot(path=str(path))
    context.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "images")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--speed", type=float, default=6.0,
                        help="the demo's speed (slower leaves time to photograph play)")
    parser.add_argument("--phone-only", action="store_true",
                        help="take only phone.png (the rest of the night is not waited for)")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)

    from playwright.sync_api import sync_playwright

    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    cli = Path(sys.executable).with_name("alley-poker")
    demo = subprocess.Popen(
        [str(cli), "demo", "--port", str(args.port), "--seed", str(args.seed),
         "--speed", str(args.speed)],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        env={**os.environ, "PYTHONUNBUFFERED": "1"})
    url = f"http://127.0.0.1:{args.port}"
    try:
        wait_for_server(url, demo)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=chromium, args=["--no-sandbox", "--disable-gpu"])
            tablet = browser.new_page(viewport={"width": 1280, "height": 800})
            tablet.goto(f"{url}/commissioner")
            tablet.fill("#pin", PIN)
            tablet.click("button[type=submit]")
            tablet.wait_for_selector("article.match-card")

            # bypass_csp: Playwright's wait_for_function polls with eval(), which the
            # pages' Content-Security-Policy forbids (web.security_headers); the pictures
            # are the same.
            kiosk = browser.new_page(viewport={"width": 1920, "height": 1080}, bypass_csp=True)
            kiosk.set_default_timeout(120_000)
            kiosk.goto(f"{url}/kiosk/1-2")
            pair(kiosk, tablet)
            # Mid-game: a few frames bowled, cards in hand, a bowler up.
            kiosk.wait_for_function(
                "/frame ([4-9]|10)/.test(document.getElementById('match-line').textContent)")
            kiosk.wait_for_selector("section.bowler.is-up")
            kiosk.wait_for_timeout(600)
            if not args.phone_only:
                kiosk.screenshot(path=str(args.out / "kiosk.png"))
            phone_page(browser, tablet, args.out / "phone.png")
            if args.phone_only:
                browser.close()
                return

            phone = browser.new_page(viewport={"width": 390, "height": 844}, bypass_csp=True)
            phone.goto(f"{url}/kiosk/1-2")
            pair(phone, tablet)
            phone.wait_for_selector("section.bowler .card")
            phone.wait_for_timeout(600)
            phone.screenshot(path=str(args.out / "kiosk-390.png"))

            tablet.wait_for_timeout(1000)
            tablet.screenshot(path=str(args.out / "tablet.png"))

            # The demo commissioner confirms each result: the kiosk keeps it on screen.
            kiosk.wait_for_function(
                "document.getElementById('match-line').textContent.includes('settled')",
                timeout=600_000)
            kiosk.reload()
            kiosk.wait_for_selector("#result:not([hidden])")
            kiosk.wait_for_timeout(600)
            kiosk.screenshot(path=str(args.out / "kiosk-settled.png"))

            tablet.goto(f"{url}/commissioner/first-night")
            tablet.wait_for_selector("#first-night li")
            tablet.screenshot(path=str(args.out / "tablet-first-night.png"))
            browser.close()
    finally:
        demo.send_signal(signal.SIGTERM)
        try:
            demo.wait(timeout=30)
        except subprocess.TimeoutExpired:
            demo.kill()
    for name in ("kiosk.png", "kiosk-390.png", "tablet.png", "kiosk-settled.png", "phone.png",
                 "tablet-first-night.png"):
        print(args.out / name)


if __name__ == "__main__":
    main()
