"""The tables of ``alley.toml`` that set what the screens and their sign-in allow: the
Socket.IO ceiling and heartbeat, wrong-PIN limits, kiosks, phones, the commissioner's PIN and
the web processes' shared session key."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field, SecretStr, field_validator, model_validator
from werkzeug.security import generate_password_hash

from alley_poker.config.sections import KeyProblem, Section

#: The shortest commissioner PIN and session-signing key accepted.
MIN_PIN_LENGTH = 4
MIN_SECRET_KEY_LENGTH = 32



def hash_pin(pin: str) -> str:
    """The scrypt hash of ``pin`` to keep in configuration instead of the PIN itself."""
    if not pin or not pin.strip():
        raise ValueError("the commissioner PIN must not be empty")
    return generate_password_hash(pin, method="scrypt")


class SocketsConfig(Section):
    """The ceiling on open Socket.IO connections (kiosks, tablets, phones;
    :mod:`alley_poker.web.socket_ceiling`, docs/deployment.md for why these numbers)."""

    #: Per client address (a paired kiosk and the tablet are not held by it).
    per_address: Annotated[int, Field(ge=1, le=100_000)] = 20
    #: In all, for this server process (the worker's own ceiling, 4,000, stays above it).
    in_all: Annotated[int, Field(ge=1, le=100_000)] = 600
    #: Of ``in_all``, kept for paired kiosks and the commissioner's tablet only.
    kept_for_known_devices: Annotated[int, Field(ge=0, le=100_000)] = 100
    #: Socket.IO's heartbeat (web.sockets): a client that hears no ping for interval +
    #: timeout says "Reconnecting…": a hung server shows within 8 s, not the library's 45
    #: (25 + 20).  Its cost, a ping and a pong per client every 4 s, is in
    #: docs/deployment.md ("A hung server").
    ping_interval_s: Annotated[float, Field(ge=1, le=60)] = 4
    ping_timeout_s: Annotated[float, Field(ge=1, le=60)] = 4

    @model_validator(mode="after")
    def _room_left_for_others(self) -> SocketsConfig:
        if self.kept_for_known_devices >= self.in_all:
            raise ValueError(f"kept_for_known_devices ({self.kept_for_known_devices}) must be "
                             f"less than in_all ({self.in_all})")
        return self


class SignInConfig(Section):
    """How many wrong commissioner PINs are answered before a wait (web.sign_in_limits), in
    Flask-Limiter's words ("5 per minute; 10 per 15 minutes")."""

    #: Wrong PINs per device: the more of them, the longer the wait.
    per_device: Annotated[str, Field(min_length=1)] = "5 per minute; 10 per 15 minutes; 20 per day"
    #: Wrong PINs per network address, whatever the device: the cap against brute force.
    per_address: Annotated[str, Field(min_length=1)] = "30 per 10 minutes; 100 per day"
    #: PINs tried centre-wide by devices not known yet (a tablet that signed in before is not
    #: held): the ceiling over many addresses, its wait growing (web.sign_in_ceiling).
    centre_wide: Annotated[str, Field(min_length=1)] = \
        "50 per 10 minutes; 100 per hour; 200 per day"

    @field_validator("per_device", "per_address", "centre_wide")
    @classmethod
    def _limits(cls, value: str) -> str:
        from limits import parse_many

        try:
            parse_many(value)
        except ValueError:
            raise ValueError(f"{value!r} is not a rate limit like \"5 per minute; 20 per day\"")\
                from None
        return value


class KiosksConfig(Section):
    #: Decisions one paired kiosk may send per minute (a bowler taps a few times a frame).
    decisions_per_minute: Annotated[int, Field(ge=1, le=10_000)] = 20
    #: Kiosks one network address may have waiting for pairing at once (web.kiosk_pairing).
    pairing_per_address: Annotated[int, Field(ge=1, le=10_000)] = 4


class PhonesConfig(Section):
    #: Per phone link: decisions and reads (page data, live joins) a minute.
    decisions_per_minute: Annotated[int, Field(ge=1, le=10_000)] = 20
    reads_per_minute: Annotated[int, Field(ge=1, le=100_000)] = 120


class CommissionerConfig(Section):
    """The commissioner's PIN, kept only as its scrypt hash: a plain ``pin`` (from
    ALLEY_POKER_COMMISSIONER_PIN) is hashed as the configuration is read.

    >>> CommissionerConfig(pin="2468").pin_hash.startswith("scrypt:")
    True
    >>> from alley_poker.config import load_config_text
    >>> load_config_text('[centre]\\nname = "X"\\nlanes = 2', source="alley.toml",
    ...                  env={"ALLEY_POKER_COMMISSIONER_PIN": "12"})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    alley_poker.config.ConfigError: alley.toml (ALLEY_POKER_COMMISSIONER_PIN): commissioner.pin: \
the commissioner's PIN must have at least 4 characters ...
    """

    #: None: no PIN set (a server refuses to start so: serving.centre_servers.commissioner_pin).
    pin_hash: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _hash_a_plain_pin(cls, data: Any) -> Any:
        if not isinstance(data, dict) or "pin" not in data:
            return data
        data = dict(data)
        pin = str(data.pop("pin") or "").strip()
        if pin.startswith("scrypt:"):
            return {**data, "pin_hash": pin}  # a hash where the PIN was expected: keep it
        if pin and len(pin) < MIN_PIN_LENGTH:
            raise KeyProblem("commissioner.pin", "the commissioner's PIN must have at least "
                              f"{MIN_PIN_LENGTH} characters (or set "
                              "ALLEY_POKER_COMMISSIONER_PIN_HASH from 'alley-poker init')")
        return {**data, "pin_hash": hash_pin(pin)} if pin else data

    @field_validator("pin_hash")
    @classmethod
    def _a_scrypt_hash(cls, value: str | None) -> str | None:
        value = (value or "").strip() or None
        if value is not None and not value.startswith("scrypt:"):
            raise ValueError("not a PIN hash from 'alley-poker init' or 'alley-poker set-pin' "
                             "(it starts with \"scrypt:\")")
        return value


class WebConfig(Section):
    #: The session-signing key (ALLEY_POKER_SECRET_KEY) every web process of a centre shares;
    #: None: ``serve`` makes its own per start (a tablet then signs in again after a restart).
    secret_key: SecretStr | None = None

    @field_validator("secret_key")
    @classmethod
    def _long_enough(cls, value: SecretStr | None) -> SecretStr | None:
        if value is None or not value.get_secret_value().strip():
            return None
        if len(value.get_secret_value().strip()) < MIN_SECRET_KEY_LENGTH:
            raise ValueError(f"set ALLEY_POKER_SECRET_KEY to the same random value (at least "
                             f"{MIN_SECRET_KEY_LENGTH} characters, e.g. from 'python -c "
                             "\"import secrets; print(secrets.token_hex(32))\"') for every "
                             "web process of the centre")
        return SecretStr(value.get_secret_value().strip())
