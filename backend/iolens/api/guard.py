"""Writes are checked before their body is read: the token, then Content-Length, then the bytes as
they arrive (a chunked upload without Content-Length stops at the limit).

FastAPI checks a dependency (the write token) and parses a multipart upload only after the whole
body has been received and spooled to a temporary file: a 2 GB upload without the token was
spooled (twice) before its 401. This ASGI middleware answers 401 and 413 from the headers alone,
and stops reading a body at its limit.
"""

from __future__ import annotations

import hmac
import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from starlette.exceptions import HTTPException

from .deps import Settings

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

UPLOAD_PATHS = ("/api/captures", "/api/captures/loose")
# writes that store nothing: no token (the loose files' preview reads their first bytes only)
OPEN_PATHS = ("/api/loose/preview",)
READ_METHODS = ("GET", "HEAD", "OPTIONS")

TOKEN_ERROR = ("this server needs an access token for uploads and saves: send 'Authorization: Bearer TOKEN' "
               "(iolens ingest --token-file FILE, or enter the token in the app)")


def token_ok(sent: str, token: str) -> bool:
    scheme, _, value = sent.partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(value.strip().encode(), token.encode())


class RequestGuard:
    def __init__(self, app: ASGIApp, settings: Settings) -> None:
        self.app = app
        self.settings = settings

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] in READ_METHODS or not scope["path"].startswith("/api/"):
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        token = self.settings.token
        if token and scope["path"] not in OPEN_PATHS and not token_ok(headers.get("authorization", ""), token):
            sent = headers.get("authorization")
            length = headers.get("content-length", "")
            if length.isdigit() and int(length) <= DRAIN_BYTES:
                await _drain(receive)  # a small body is read and dropped: the client sees the 401, not a reset
            await _answer(send, 401, TOKEN_ERROR + ("; the token sent is not the right one" if sent else ""),
                          {"header": "Authorization"}, [(b"www-authenticate", b"Bearer")])
            return
        upload = scope["path"] in UPLOAD_PATHS
        limit = self.settings.max_upload_bytes if upload else self.settings.max_body_bytes
        what = "upload" if upload else "request body"
        variable = "IOLENS_MAX_UPLOAD_BYTES" if upload else "IOLENS_MAX_BODY_BYTES"
        length = headers.get("content-length")
        if length is not None:
            if not length.isdigit():
                await _answer(send, 400, f"bad Content-Length {length[:30]!r}", {"header": "Content-Length"})
                return
            if int(length) > limit:
                await _answer(send, 413, f"{what} of {int(length)} bytes is larger than the limit of {limit} bytes "
                                         f"({variable})", {"limit": limit, "content_length": int(length)})
                return
        received = 0
        too_large = False

        async def counted() -> Message:
            nonlocal received, too_large
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    too_large = True  # stop reading here; the answer is replaced by the 413 below
                    raise HTTPException(413, "too large")
            return message

        answered = False

        async def replaced(message: Message) -> None:
            nonlocal answered
            if not too_large:
                await send(message)
            elif not answered:  # whatever the app made of the broken-off body: the 413 instead
                answered = True
                await _answer(send, 413, f"{what} is larger than the limit of {limit} bytes ({variable})",
                              {"limit": limit})

        await self.app(scope, counted, replaced)


DRAIN_BYTES = 8 << 20


async def _drain(receive: Receive) -> None:
    while True:
        message = await receive()
        if message["type"] != "http.request" or not message.get("more_body"):
            return


async def _answer(send: Send, status: int, error: str, detail: object,
                  extra: list[tuple[bytes, bytes]] | None = None) -> None:
    body = json.dumps({"error": error, "detail": detail}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                            (b"connection", b"close"), *(extra or [])]})
    await send({"type": "http.response.body", "body": body})
