"""Plain text for mailing lists: ASCII only, at most 72 columns, no tabs; numbers with units.

The number formats follow the frontend's src/logic/format.ts (same scales and decimals) with
ASCII spellings: 'us' for microseconds, '+-' for plus-minus, '-' for the en dash.
"""

from __future__ import annotations

import math
import textwrap
import unicodedata
from collections.abc import Callable

from ..store.stats import MIN_REPEATS, too_few_repeats  # noqa: F401 - too_few_repeats: the rule lives in stats

WIDTH = 72

_ASCII = {
    "\u00b5": "u", "\u03bc": "u", "\u00b1": "+-", "\u2013": "-", "\u2014": "--", "\u2212": "-",
    "\u00d7": "x", "\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u2026": "...",
    "\u2192": "->", "\u2190": "<-", "\u2191": "^", "\u2193": "v", "\u2264": "<=", "\u2265": ">=",
    "\u00a0": " ", "\u2022": "*", "\u00b7": "-", "\u2248": "~", "\u2260": "!=", "\u00b0": " deg",
    "\u00e6": "ae", "\u00df": "ss", "\u00f8": "o", "\u00d8": "O", "\u0142": "l", "\u00a9": "(c)",
}


def to_ascii(s: str) -> str:
    """Text with every character printable ASCII (tabs become spaces, the rest is transliterated or '?')."""
    out = []
    for ch in s.replace("\t", "    ").replace("\r\n", "\n").replace("\r", "\n"):
        if ch == "\n" or " " <= ch <= "~":
            out.append(ch)
        elif ch in _ASCII:
            out.append(_ASCII[ch])
        else:
            base = "".join(c for c in unicodedata.normalize("NFKD", ch) if " " <= c <= "~")
            out.append(base or "?")
    return "".join(out)


def wrap(text: str, width: int = WIDTH, indent: str = "", subsequent: str | None = None) -> list[str]:
    """Wrap one paragraph; words longer than a line are cut."""
    text = " ".join(to_ascii(text).split())
    if not text:
        return [indent.rstrip()]
    return textwrap.wrap(text, width=width, initial_indent=indent,
                         subsequent_indent=indent if subsequent is None else subsequent,
                         break_long_words=True, break_on_hyphens=False) or [indent.rstrip()]


def hard_lines(lines: list[str], width: int = WIDTH) -> list[str]:
    """The final guard: ASCII, no trailing blanks, and any line longer than `width` cut into pieces."""
    out = []
    for line in lines:
        for part in to_ascii(line).split("\n"):
            part = part.rstrip()
            while len(part) > width:
                out.append(part[:width].rstrip())
                part = "  " + part[width:].lstrip()
            out.append(part)
    return out


def fit(s: str, n: int) -> str:
    """Cut to n columns, marking the cut with '~'."""
    s = to_ascii(s)
    return s if len(s) <= n else s[: max(0, n - 1)] + "~"


def short_names(labels: list[str], width: int = 16) -> list[str]:
    """Names of captures that fit a table column: the labels when they fit; else the labels
    without the part they share at the start and end ('6.18.44-fc-xfs', '6.18.44-fc-ext4' ->
    'xfs', 'ext4'; 'dio-6.1-xfs', 'dio-6.12-xfs' -> '6.1', '6.12', not the bare numbers '1', '12');
    else A, B, C..."""
    labels = [to_ascii(x) for x in labels]
    if all(len(x) <= width for x in labels) and len(set(labels)) == len(labels):
        return labels
    if len(labels) > 1:
        rest = _distinct_parts(labels, "-_ .:/,;=+")
        # bare numbers ('6.1-xfs', '6.12-xfs' -> '1', '12') read as figures in a table: a version
        # keeps its dots ('6.1', '6.12')
        if rest and all(x.isdigit() for x in rest):
            rest = _distinct_parts(labels, "-_ :/,;=+")
        if rest and all(0 < len(x) <= width for x in rest) and len(set(rest)) == len(rest):
            return rest
    return [_letters(i) for i in range(len(labels))]


def _distinct_parts(labels: list[str], seps: str) -> list[str]:
    """The labels without the part they share at the start and end, cut at a separator."""
    pre = _common_prefix(labels)
    cut = max((pre.rfind(c) for c in seps), default=-1) + 1
    rest = [x[cut:] for x in labels]
    suf = _common_prefix([x[::-1] for x in rest])[::-1]
    keep = len(suf) - (min((suf.find(c) for c in seps if c in suf), default=len(suf)))
    return [x[: len(x) - keep] if keep else x for x in rest]


def _common_prefix(items: list[str]) -> str:
    if not items:
        return ""
    lo, hi = min(items), max(items)
    n = 0
    while n < len(lo) and lo[n] == hi[n]:
        n += 1
    return lo[:n]


def _letters(i: int) -> str:
    out = ""
    i += 1
    while i:
        i, r = divmod(i - 1, 26)
        out = chr(65 + r) + out
    return out


# --- numbers (src/logic/format.ts, in ASCII) -----------------------------------------------

_BIN = ["B/s", "KiB/s", "MiB/s", "GiB/s", "TiB/s", "PiB/s"]
_SI = ["", "k", "M", "G", "T"]


def _decimals_for(scaled: float, sig: int, mx: int) -> int:
    a = abs(scaled)
    if not math.isfinite(a) or a == 0:
        return 0
    d = sig - 1 - math.floor(math.log10(a) + 1e-9)
    return max(0, min(mx, d))


def scale_for(v: float, unit: str) -> tuple[float, str, int]:
    """(factor, suffix, decimals) to show v of this unit."""
    a = abs(v)
    if unit == "IO/s":
        i = 0
        while i < len(_SI) - 1 and a >= 1000 ** (i + 1) * 0.99995:
            i += 1
        factor = 1000 ** i
        decimals = _decimals_for(v, 3, 1) if i == 0 else _decimals_for(v / factor, 4, 3)
        return factor, f"{_SI[i]} IO/s", decimals
    if unit == "B/s":
        i = 0
        while i < len(_BIN) - 1 and a >= 1024 ** (i + 1) * 0.99995:
            i += 1
        factor = 1024 ** i
        return factor, f" {_BIN[i]}", 0 if i == 0 else _decimals_for(v / factor, 4, 3)
    if unit == "ns":
        if a < 999.5:
            factor, name = 1.0, "ns"
        elif a < 999_500:
            factor, name = 1e3, "us"
        elif a < 999_500_000:
            factor, name = 1e6, "ms"
        else:
            factor, name = 1e9, "s"
        return factor, f" {name}", 0 if factor == 1 else _decimals_for(v / factor, 3, 2)
    if unit == "%":
        return 1, " %", 1
    if unit == "/s":  # events per second (context switches, round trips): '34.75k/s', '8.5/s'
        i = 0
        while i < len(_SI) - 1 and a >= 1000 ** (i + 1) * 0.99995:
            i += 1
        factor = 1000 ** i
        decimals = _decimals_for(v, 3, 1) if i == 0 else _decimals_for(v / factor, 4, 3)
        return factor, f"{_SI[i]}/s", decimals
    if unit == "CPUs":  # CPUs utilized (task-clock): '0.272 CPUs'
        return 1, " CPUs", _decimals_for(v, 3, 3)
    return 1, f" {unit}" if unit else "", _decimals_for(v, 4, 3)


# the units shown in a scale of their own (scale_for); any other is count-like (format_plain)
SCALED = frozenset({"IO/s", "B/s", "ns", "%", "/s", "CPUs"})


def _fixed(v: float, decimals: int) -> str:
    s = f"{v:,.{decimals}f}"
    return "0" + s[2:] if s.startswith("-0") and float(s.replace(",", "")) == 0 else s


TIME_UNITS = (("ns", 1.0), ("us", 1e3), ("ms", 1e6), ("s", 1e9))


def time_column(values: list[float | None], signed: bool = False) -> tuple[str, Callable[[float | None], str]]:
    """One unit for a column of times in ns, so that its decimal points line up
    (testdata/vectors/time-column.json; src/logic/format.ts timeColumn): the first unit in which the
    largest |value| is below 10,000, and three significant digits of the smallest non-zero one, 0 to 3
    decimals. Returns the unit ('us' in ASCII) and the formatter of one value ('-' when absent)."""
    nz = [abs(v) for v in values if v is not None and math.isfinite(v) and v != 0]
    top = max(nz, default=0.0)
    unit, scale = next((u for u in TIME_UNITS if top / u[1] < 10_000), TIME_UNITS[-1])
    decimals = max(0, min(3, 2 - math.floor(math.log10(min(nz) / scale) + 1e-9))) if nz else 0

    def fmt(v: float | None) -> str:
        if v is None or not math.isfinite(v):
            return "-"
        if v == 0:
            return "0"
        text = _fixed(v / scale, decimals)
        return "+" + text if signed and v > 0 else text

    return unit, fmt


def format_plain(v: float) -> str:
    """A count-like number (a plain number, I/Os, samples, a command's own unit): at most 4
    significant digits and 3 decimals, trailing zeros dropped, so an integer-valued measure shows as
    an integer ('32', '31.5', '0.012'); from 1000 up with an SI prefix ('1.5k', '123.5k', '1.235M')."""
    a = abs(v)
    i = 0
    while i < len(_SI) - 1 and a >= 1000 ** (i + 1) * 0.99995:
        i += 1
    scaled = v / 1000 ** i
    text = _fixed(scaled, _decimals_for(scaled, 4, 3))
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return ("0" if text == "-0" else text) + _SI[i]


def format_value(v: float | None, unit: str) -> str:
    """A value with its unit (src/logic/format.ts formatValue, in ASCII; testdata/vectors/number-format.json)."""
    if v is None or not math.isfinite(v):
        return "-"
    if unit not in SCALED:
        return format_plain(v) + (f" {unit}" if unit else "")
    factor, suffix, decimals = scale_for(v, unit)
    return _fixed(v / factor, decimals) + suffix


def format_bytes(n: int) -> str:
    """A size with binary prefixes, as src/logic/format.ts formatBytes: '512 B', '18.2 KiB', '14.7 MiB'."""
    units = ("B", "KiB", "MiB", "GiB", "TiB")
    i = 0
    v = float(n)
    while i < len(units) - 1 and abs(v) >= 1024:
        v /= 1024
        i += 1
    if i == 0:
        return f"{n} B"
    return f"{_fixed(v, 0 if v >= 100 else 1 if v >= 10 else 2)} {units[i]}"


# monitor units of a byte quantity: (factor to bytes, a rate)
_MONITOR_BYTES = {"bytes": (1, False), "KiB": (1024, False), "bytes/s": (1, True), "KiB/s": (1024, True)}


def format_monitor(v: float | None, unit: str) -> str:
    """A monitor's value (the monitors export) as the app's monitors cell shows it (src/logic/format.ts
    formatMonitor; testdata/vectors/number-format.json `monitors`): a byte size ('bytes', 'KiB') with binary
    prefixes (whole bytes), a byte rate ('bytes/s', 'KiB/s') as format_value's 'B/s', '%' and '/s' as
    format_value, any other unit count-like (format_plain), the unit apart."""
    if v is None or not math.isfinite(v):
        return "-"
    if unit in _MONITOR_BYTES:
        factor, rate = _MONITOR_BYTES[unit]
        if rate:
            return format_value(v * factor, "B/s")
        return format_bytes(math.floor(v * factor + 0.5))  # as Math.round: halves up
    if unit in ("%", "/s"):
        return format_value(v, unit)
    return format_plain(v)


def format_spread(n: int, mean: float | None, stddev: float | None, lo: float | None, hi: float | None,
                  unit: str) -> str:
    """The spread of repeats in the scale of the mean, with the unit: '+-1.3k IO/s' (n >= 3: sample
    stddev), '170.0-172.5k IO/s' (n = 2: min-max), '' (n < 2); count-like units: each number as
    format_plain ('+-0.5 I/Os'). As src/logic/format.ts formatSpread (testdata/vectors/number-format.json)."""
    if mean is None or n < 2:
        return ""
    scaled = unit in SCALED
    factor, suffix, decimals = scale_for(mean, unit)

    def num(v: float) -> str:
        return _fixed(v / factor, decimals) if scaled else format_plain(v)

    if n >= 3 and stddev is not None:
        return f"+-{num(stddev)}{suffix}"
    if lo is not None and hi is not None:
        return f"{num(lo)}-{num(hi)}{suffix}"
    return ""


def for_html(s: str) -> str:
    """The one formatter from the text report's ASCII forms to what the app shows (HTML carries any
    character): '+-0.0 %' -> '\u00b10.0 %', '+-1.2k' -> '\u00b11.2k', ' us' -> ' \u00b5s'."""
    return s.replace("+-", "\u00b1").replace(" us", " \u00b5s")


def format_ratio(ratio: float | None) -> str:
    """1.123 -> '+12.3 %', 0.919 -> '-8.1 %', very large -> 'x12.3' or 'x1370' (3 significant digits,
    never an exponent: as src/logic/format.ts formatRatio, with an ASCII x)."""
    if ratio is None or not math.isfinite(ratio):
        return ""
    pct = round((ratio - 1) * 1000) / 10
    if abs(pct) >= 1000:
        e = math.floor(math.log10(abs(ratio)))
        text = f"{round(ratio, 2 - e):.{max(0, 2 - e)}f}"
        return "x" + (text.rstrip("0").rstrip(".") if "." in text else text)
    sign = "+" if pct > 0 else "-" if pct < 0 else "+-"
    return f"{sign}{abs(pct):.1f} %"


def tone(cell: dict, base: dict, better: str) -> str:
    """As src/logic/ratio.ts ratioTone: 'better', 'worse', 'same' (ranges overlap), 'neutral', 'few'
    (fewer than MIN_REPEATS repeats on a side: too few to judge, the sweep matrix's rule) or ''.
    Vectors: testdata/vectors/ratio-tone.json."""
    m, bm = cell.get("mean"), base.get("mean")
    if m is None or bm is None:
        return ""
    if too_few_repeats(cell.get("n") or 0, base.get("n") or 0):
        return "few"
    if m == bm:
        return "same"
    lo, hi, blo, bhi = cell.get("min"), cell.get("max"), base.get("min"), base.get("max")
    if None not in (lo, hi, blo, bhi) and lo <= bhi and blo <= hi:
        return "same"
    if better == "neutral":
        return "neutral"
    return "better" if (m > bm) == (better == "higher") else "worse"


def format_number(v: object) -> str:
    """A SQL result value as short text."""
    if v is None:
        return "NULL"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if not math.isfinite(v):
            return str(v)
        if v == int(v) and abs(v) < 1e15:
            return str(int(v))
        return f"{v:.6g}"
    if isinstance(v, (list, dict)):
        import json

        return json.dumps(v, separators=(",", ":"))
    return str(v)
