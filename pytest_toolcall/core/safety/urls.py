"""URLs as they may be shown: credentials and query values hidden, and the secrets they carry
listed so that text echoing them can be masked."""

from __future__ import annotations

import re

_URL_CREDENTIALS = re.compile(r"(?<=://)[^/@\s]*@")
# A query value of a URL (``?api-key=VALUE&...``): keys are sent in query strings too (Azure-style
# ``api-key``, signed URLs), and nothing tells a credential from a version number, so every value is
# hidden.
_QUERY_VALUES = re.compile(r"(?<=[?&;])([^=&;#\s]*)=([^&;#\s]*)")
_CREDENTIAL_NAME = re.compile(r"key|token|secret|sig|pass|auth|cred|session|code", re.IGNORECASE)


def redact_url(url: str | None) -> str | None:
    """``url`` without the credentials of its authority (``http://user:KEY@host`` -> ``http://***@host``)
    and without the values of its query (``?api-key=KEY`` -> ``?api-key=***``): what is printed,
    reported or named in a file name; the real URL is only ever sent."""
    if not url or "://" not in url:
        return url
    base, mark, query = url.partition("?")
    base = _URL_CREDENTIALS.sub("***@", base)
    hidden = _QUERY_VALUES.sub(lambda m: f"{m.group(1)}=***" if m.group(2) else m.group(0), mark + query)
    return base + hidden


def url_secrets(url: str | None) -> list[str]:
    """The user name, password and query values written in ``url``, to be masked wherever text may
    echo them."""
    from urllib.parse import unquote

    base, _, query = (url or "").partition("?")
    match = _URL_CREDENTIALS.search(base)
    parts = []
    if match is not None:
        userinfo = match.group(0)[:-1]
        parts += [userinfo, *userinfo.split(":", 1)]
    # Masking changes what a model said (and its score) wherever the text recurs: only query values
    # that can be credentials (a credential-like name, or long), not ``api-version=2024-06-01``.
    values = _QUERY_VALUES.findall("?" + query.partition("#")[0])
    parts += [value for key, value in values if _CREDENTIAL_NAME.search(key) or len(value) >= 16]
    return sorted({text for part in parts for text in {part, unquote(part)} if len(text) >= 4}, key=len, reverse=True)
