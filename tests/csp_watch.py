"""Content-Security-Policy violations of every page the tests open in Chromium.

The app's policy (``alley_poker.web.security_headers``) blocks an inline script or style, a
connection or a load elsewhere; a page that needs one of them breaks quietly (a button that
does nothing, a kiosk that never goes live).  So every page of every browser test is watched:
the document's ``securitypolicyviolation`` events and Chromium's own "Refused to …" console
lines are kept, and the ``browser`` fixtures (``tests/conftest.py``) fail the test that saw one.
"""

from __future__ import annotations

from typing import Any

#: Run in every page before its own scripts (Playwright's init scripts are not subject to
#: the page's policy): each violation the document reports becomes a console line.
REPORT_VIOLATIONS = """
document.addEventListener("securitypolicyviolation", function (event) {
  console.error("CSP violation: " + event.effectiveDirective + " blocked " +
                (event.blockedURI || "inline") + " at " + event.documentURI +
                (event.sample ? " (" + event.sample + ")" : ""));
}, true);
"""

MARKS = ("CSP violation: ", "Refused to ")


class CspWatch:
    """Watches every context and page opened in one Chromium (see the module)."""

    def __init__(self) -> None:
        self.violations: list[str] = []

    def attach(self, browser: Any) -> None:
        """Wrap ``browser.new_context`` and ``browser.new_page`` so whatever they open is
        watched (Playwright's sync ``new_page`` makes its context without ``new_context``)."""
        open_context, open_page = browser.new_context, browser.new_page

        def new_context(*args: Any, **kwargs: Any) -> Any:
            context = open_context(*args, **kwargs)
            self.watch(context)
            return context

        def new_page(*args: Any, **kwargs: Any) -> Any:
            page = open_page(*args, **kwargs)
            self.watch(page.context)
            return page

        browser.new_context, browser.new_page = new_context, new_page

    def watch(self, context: Any) -> None:
        context.add_init_script(REPORT_VIOLATIONS)
        context.on("console", self._console)

    def _console(self, message: Any) -> None:
        text = message.text
        if text.startswith(MARKS):
            self.violations.append(text)

    def take(self) -> list[str]:
        """The violations seen since the last call (and forget them)."""
        seen, self.violations = self.violations, []
        return seen
