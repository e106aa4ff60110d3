"""Content-Security-Policy violations of every page the tests open in Chromium.

The app's policy (``alley_poker.web.security_headers``) blocks an inline script or style, a
connection or a load elsewhere; a page that needs one of them breaks quietly (a button that
does nothing, a kiosk that never goes live).  So every page of every browser test is watched:
the document's ``securitypolicyviolation`` events and Chromium's own "Refused to …" console
lines are kept, and the ``browser`` fixtures (``tests/conftest.py``) fail the test that saw one.

The policy forbids ``eval``, which Playwright's own ``wait_for_function`` polls with (in the
page, on each animation frame); so the tests' ``Page.wait_for_function`` polls from here
instead (:func:`wait_for_function_from_outside`), each check an ``evaluate``, which DevTools
runs whatever the page's policy.  The pages never needed ``eval``: only the test harness did.
"""

from __future__ import annotations

import time
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


#: How often :func:`wait_for_function_from_outside` checks: every 20 ms at first (Playwright's
#: own: every frame), then less often the longer the wait, up to every 100 ms.  Each check
#: costs the test, Playwright's driver and Chromium about 6 ms of CPU together: at 20 ms a
#: minute's wait cost 17 s of CPU, on two cores shared by four workers.
FIRST_POLL_S, LAST_POLL_S, POLL_GROWTH = 0.02, 0.1, 1.25

#: The condition and its truth in one trip to the page: ``expression`` is Playwright's (a
#: function called with ``arg``, or an expression), put in by the test, not by the page, so
#: the page's policy against ``eval`` does not apply.
TRUTH = "async (arg) => {{ const value = ({expression}); " \
        "return !!(typeof value === 'function' ? await value(arg) : await value); }}"


def wait_for_function_from_outside(page: Any, expression: str, *, arg: Any = None,
                                   timeout: float | None = None, polling: Any = None) -> Any:
    """``Page.wait_for_function`` (same arguments, same answer: a handle to the first truthy
    value), checked by ``evaluate`` from the test instead of ``eval`` in the page."""
    from playwright.sync_api import Error, TimeoutError

    settings = getattr(page._impl_obj, "_timeout_settings", None)  # the page's default
    limit_ms = settings.timeout(timeout) if settings is not None else (timeout or 30_000)
    deadline = time.monotonic() + limit_ms / 1000 if limit_ms else float("inf")
    fixed = polling / 1000 if isinstance(polling, (int, float)) else None
    pause = fixed or FIRST_POLL_S
    truth = TRUTH.format(expression=expression.strip().rstrip(";"))
    while True:
        try:
            if page.evaluate(truth, arg):
                return page.evaluate_handle(expression, arg)
        except Error as error:
            if "context was destroyed" not in str(error) and "navigat" not in str(error):
                raise  # the expression itself failed: as Playwright's would
        if time.monotonic() >= deadline:
            raise TimeoutError(f"Page.wait_for_function: Timeout {limit_ms:.0f}ms exceeded "
                               f"waiting for {expression!r}")
        time.sleep(pause)
        pause = fixed or min(LAST_POLL_S, pause * POLL_GROWTH)


def poll_from_outside() -> None:
    """Every ``Page.wait_for_function`` of the test process polls from outside (see above)."""
    from playwright.sync_api import Page

    Page.wait_for_function = wait_for_function_from_outside  # type: ignore[method-assign]
