"""An uploaded bundle written to disk once, as it arrives.

FastAPI's `UploadFile` is Starlette's multipart parser spooling the file part to a temporary file
(in memory up to 1 MB, then in the system's temporary folder); the route then copied that into
the data folder for ingest: every byte of a bundle written twice (800 MB written for a 400 MB
upload). Here the request body is parsed as it streams in (python-multipart, the parser Starlette
uses), the part named `file` goes straight into the caller's file, and its size is checked on the
way (the guard, guard.py, already refused a Content-Length over the limit).

The request stays what the contract says (multipart/form-data, the bundle in field `file`);
UPLOAD_BODY documents it in the OpenAPI schema.
"""

from __future__ import annotations

from typing import IO, Any

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from python_multipart.multipart import MultipartParser, parse_options_header

from ..bundle import BundleError

# The request body in the OpenAPI schema: a multipart form with the bundle in field `file`.
UPLOAD_BODY: dict[str, Any] = {
    "requestBody": {
        "required": True,
        "content": {"multipart/form-data": {"schema": {
            "type": "object", "required": ["file"], "title": "CaptureUpload",
            "properties": {"file": {"type": "string", "format": "binary", "title": "File",
                                    "description": "A capture bundle (.iolens.tar.gz)"}},
        }}},
    },
}
HEADER_BYTES = 16 << 10  # a part's header line, at most


def _missing_file() -> RequestValidationError:
    return RequestValidationError([{"loc": ("body", "file"), "msg": "Field required", "type": "missing"}])


async def receive_file(request: Request, out: IO[bytes], limit: int, field: str = "file") -> tuple[str, int]:
    """Write the multipart part `field` of the request's body into `out`, as it arrives; return (its
    file name, its size). BundleError 413 past `limit` bytes; a body without the part is the same
    422 as FastAPI's ("invalid request: body.file: Field required")."""
    ctype, params = parse_options_header(request.headers.get("content-type", ""))
    boundary = params.get(b"boundary")
    if ctype != b"multipart/form-data" or not boundary:
        raise _missing_file()
    state: dict[str, Any] = {"headers": {}, "field": b"", "value": b"", "into": False, "seen": False,
                             "name": None, "size": 0}

    def on_part_begin() -> None:
        state["headers"] = {}

    def header(key: str, data: bytes, start: int, end: int) -> None:
        state[key] += data[start:end]
        if len(state[key]) > HEADER_BYTES:
            raise BundleError(f"a multipart header of the upload is longer than {HEADER_BYTES} bytes",
                              {"field": field}, 400)

    def on_header_field(data: bytes, start: int, end: int) -> None:
        header("field", data, start, end)

    def on_header_value(data: bytes, start: int, end: int) -> None:
        header("value", data, start, end)

    def on_header_end() -> None:
        state["headers"][state["field"].lower()] = state["value"]
        state["field"], state["value"] = b"", b""

    def on_headers_finished() -> None:
        _, disp = parse_options_header(state["headers"].get(b"content-disposition", b""))
        name = disp.get(b"name", b"").decode("utf-8", "replace")
        state["into"] = name == field and not state["seen"]
        if state["into"]:
            state["seen"] = True
            state["name"] = disp.get(b"filename", b"").decode("utf-8", "replace") or None

    def on_part_data(data: bytes, start: int, end: int) -> None:
        if not state["into"]:
            return  # another form field: not kept
        state["size"] += end - start
        if state["size"] > limit:
            raise BundleError(f"upload is larger than the limit of {limit} bytes",
                              {"file": state["name"] or "upload", "limit": limit}, 413)
        out.write(data[start:end])

    def on_part_end() -> None:
        state["into"] = False

    parser = MultipartParser(boundary, {"on_part_begin": on_part_begin, "on_header_field": on_header_field,
                                        "on_header_value": on_header_value, "on_header_end": on_header_end,
                                        "on_headers_finished": on_headers_finished, "on_part_data": on_part_data,
                                        "on_part_end": on_part_end})
    async for chunk in request.stream():
        if chunk:
            parser.write(chunk)
    parser.finalize()
    if not state["seen"]:
        raise _missing_file()
    out.flush()
    return state["name"] or "upload", state["size"]
