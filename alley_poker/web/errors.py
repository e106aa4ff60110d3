"""JSON errors: every failure of the API comes back as ``{"error": {"code", "message", "field"}}``.

The status says what kind of failure it was (400 bad input, 401 not signed in, 403 forbidden
or a missing CSRF token, 404 unknown, 409 refused by the ledger's rules or decided on a stale
version of the match, 413 a body too large to read, 422 failed validation, 429 too many
attempts); the body says what and where.  A bug answers 500 with a plain message: the
traceback goes to the log, never to the client.

>>> body, status = error_body("not_found", "no match 'm9'", 404)
>>> status, body["error"]["code"], body["error"]["field"]
(404, 'not_found', None)
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from flask import Flask, Response, jsonify, request
from flask_wtf.csrf import CSRFError
from pydantic import ValidationError
from werkzeug.exceptions import HTTPException, RequestEntityTooLarge

from alley_poker.ledger import CommandRefused, StaleVersion
from alley_poker.web.plain_words import plain_message

log = logging.getLogger(__name__)


class ApiError(Exception):
    """An error the API reports to its caller as it stands (code, message, field, status)."""

    def __init__(self, status: int, code: str, message: str, field: str | None = None):
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.field = field


def revoked_or_not_found(revoke: Callable[[int], bool], row_id: int, missing: str,
                         field: str) -> tuple[str, int]:
    """A DELETE route's answer: 204 once ``revoke(row_id)`` took the row, else 404 saying
    ``missing`` about ``field``.  Ids are 64-bit in the database: a larger number names no row
    (and must not reach it)."""
    if row_id >= 2**63 or not revoke(row_id):
        raise ApiError(404, "not_found", missing, field)
    return "", 204


def error_body(code: str, message: str, status: int,
               field: str | None = None) -> tuple[dict[str, Any], int]:
    """The JSON body and status of an error response."""
    return {"error": {"code": code, "message": message, "field": field}}, status


def validation_error(error: ValidationError) -> ApiError:
    """A pydantic failure as a 422 naming the first offending field, the problem in the desk's
    words (:mod:`alley_poker.web.plain_words`).

    >>> from pydantic import BaseModel
    >>> class Ball(BaseModel):
    ...     pins: int
    >>> try:
    ...     Ball.model_validate({"pins": "lots"})
    ... except ValidationError as exc:
    ...     problem = validation_error(exc)
    >>> problem.status, problem.field, problem.message
    (422, 'pins', 'The pins knocked down must be a whole number.')
    """
    first = error.errors()[0]
    field = ".".join(str(part) for part in first["loc"]) or None
    return ApiError(422, "validation_failed", plain_message(first), field)


def refusal_code(error: CommandRefused) -> str:
    """The error code of a ledger refusal (409): ``stale_version`` when the command was
    chosen on a match that has moved on, else ``command_refused``."""
    return "stale_version" if isinstance(error, StaleVersion) else "command_refused"


def _wants_json() -> bool:
    return request.path.startswith("/api/") or request.is_json or (
        request.accept_mimetypes.best == "application/json")


def _respond(code: str, message: str, status: int, field: str | None = None,
             *, html: Response | HTTPException | None = None) -> Any:
    if html is not None and not _wants_json():
        return html
    body, status = error_body(code, message, status, field)
    return jsonify(body), status


def register_error_handlers(app: Flask) -> None:
    """Install the JSON error handlers on ``app``."""

    @app.errorhandler(ApiError)
    def _api_error(error: ApiError):
        return _respond(error.code, error.message, error.status, error.field)

    @app.errorhandler(CommandRefused)
    def _refused(error: CommandRefused):
        return _respond(refusal_code(error), error.reason, 409, error.field)

    @app.errorhandler(ValidationError)
    def _invalid(error: ValidationError):
        problem = validation_error(error)
        return _respond(problem.code, problem.message, problem.status, problem.field)

    @app.errorhandler(CSRFError)
    def _csrf(error: CSRFError):
        return _respond("csrf_failed", f"CSRF check failed: {error.description}", 403,
                        "csrf_token")

    @app.errorhandler(RequestEntityTooLarge)
    def _too_large(error: RequestEntityTooLarge):
        limit = app.config.get("MAX_CONTENT_LENGTH")
        most = f" ({limit // 1024} KB)" if limit else ""
        return _respond("body_too_large",
                        f"the body is larger than this server accepts{most}", 413,
                        html=error)

    @app.errorhandler(HTTPException)
    def _http(error: HTTPException):
        code = (error.name or "error").lower().replace(" ", "_")
        return _respond(code, error.description or error.name, error.code or 500, html=error)

    @app.errorhandler(Exception)
    def _unexpected(error: Exception):
        log.exception("unhandled error on %s %s", request.method, request.path)
        return _respond("internal_error", "the server failed on this request; it is logged",
                        500)
