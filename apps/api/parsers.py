"""The API's JSON parser: DRF's, with the nesting bound of :mod:`apps.core.jsonbounds` (a 400, not a 500)."""

from __future__ import annotations

import codecs

from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser, get_encoding
from rest_framework.utils.json import strict_constant

from apps.core import jsonbounds

__all__ = ["BoundedJSONParser"]


class BoundedJSONParser(JSONParser):
    """JSON bodies nested deeper than ``MAX_JSON_DEPTH`` levels are a 400 naming the bound (DRF's parser otherwise:
    NaN and Infinity refused, text encodings only)."""

    def parse(self, stream, media_type=None, parser_context=None):
        encoding = get_encoding(parser_context or {})  # refuses bytes-to-bytes codecs such as bz2_codec
        try:
            text = codecs.getreader(encoding)(stream).read()
            return jsonbounds.loads(text, parse_constant=strict_constant if self.strict else None)
        except ValueError as exc:  # TooDeep and JSONDecodeError are ValueErrors
            raise ParseError(f"JSON parse error - {exc}") from None
