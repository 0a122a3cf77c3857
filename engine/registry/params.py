"""Parameter specifications: one declarative description per knob.

A :class:`ParamSpec` carries IBM's own parameter name (lower case), its unit,
type, allowed range or choices, the product default, a one-line help text and
the seed document section that discusses it. Knob forms, validation messages,
the project file schema, report settings tables and sweep axes are all derived
from these specs.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass, field
from typing import Any

from engine.errors import ValueRangeError
from engine.metrics.catalog import format_setting
from engine.metrics.knobs import knob_label

#: Seed documents by file name (see ../shared/seeds/ of the workspace).
SEED_QREP_ZOS = "000_b67a63c5fea2a7a6.txt"
SEED_QREP_2005 = "001_538a2843961b4ba9.txt"
SEED_MIRROR = "002_4094ace59eb76d2a.txt"
SEED_MQ_V8 = "003_ae22eb27d25a695a.txt"
SEED_DB2_V8 = "004_ffcf34fd6a8d592a.txt"

PARAM_TYPES = ("int", "float", "bool", "enum", "str", "column_map", "int_pair")
#: Longest text a ``str`` knob or a column type name holds (characters).
MAX_TEXT_CHARS = 256
#: Most columns of one type a ``column_map`` counts (Db2 for z/OS allows 750 columns per table).
MAX_COLUMNS = 750


@dataclass(frozen=True)
class ParamSpec:
    """One knob of a node kind.

    Parameters
    ----------
    name : str
        IBM's parameter name in lower case (``trans_batch_sz``).
    type : str
        One of :data:`PARAM_TYPES`. ``column_map`` is a mapping of Db2 column
        type (``"CHAR(20)"``) to a column count; ``int_pair`` a ``[low, high]`` pair.
    default : Any
        The product default (``None`` only when ``nullable``).
    unit : str
        Unit shown next to the value (``"ms"``, ``"MB"``, ``""`` when unitless).
    help : str
        One line for tooltips; names the seeds' tuned value where it differs.
    seed : str
        ``"<seed file>, <section>"`` that discusses the knob.
    minimum, maximum : float, optional
        Inclusive bounds for numeric types.
    choices : tuple, optional
        Allowed values for ``enum``.
    nullable : bool
        ``None`` is allowed and means what ``null_meaning`` says.
    null_meaning : str
        What ``None`` means, e.g. ``"drive to the maximum"``.
    integer_step : str
        Empty, or the product's integer step that makes results jump at some values of this knob
        (a transaction split into one message fewer); the knob walk accepts such jumps.
    scenario_paths : dict
        Where the value lives in a scenario of ../shared/validation's format,
        keyed by scenario kind (``{"qrep": "qcapture.trans_batch_sz"}``). A path
        may contain ``{role}``, replaced by the node's ``role`` parameter.
    platforms : tuple of str
        The node's ``os_platform`` values the knob exists on (BUFFPOOL on z/OS, LogBufferPages on
        Linux/UNIX/Windows); empty: every platform.
    roles : tuple of str
        The node's roles in a flow the knob belongs to (a queue manager is ``send``, the
        transmission queue's, or ``receive``, the receive queue's; :func:`applies`); empty: any.
    """

    name: str
    type: str
    default: Any
    unit: str
    help: str
    seed: str
    minimum: float | None = None
    maximum: float | None = None
    choices: tuple = ()
    nullable: bool = False
    null_meaning: str = ""
    scenario_paths: dict = field(default_factory=dict)
    integer_step: str = ""
    platforms: tuple = ()
    roles: tuple = ()

    @property
    def label(self) -> str:
        """The name a user reads: IBM's parameter name without a unit glued on (``COMMIT_INTERVAL``),
        or a plain description (:func:`engine.metrics.knob_label`); the unit is :attr:`unit`."""
        return knob_label(self.name)

    def allowed(self) -> str:
        """Describe the allowed values in words, for error messages and help."""
        if self.type == "enum":
            text = "one of " + ", ".join(repr(c) for c in self.choices)
        elif self.type == "bool":
            text = "true or false"
        elif self.type in ("int", "float"):
            kind = "an integer" if self.type == "int" else "a number"
            lo = "-inf" if self.minimum is None else format_setting(self.minimum)
            hi = "inf" if self.maximum is None else format_setting(self.maximum)
            text = f"{kind} from {lo} to {hi}" + (f" {self.unit}" if self.unit else "")
        elif self.type == "column_map":
            text = (
                f"a mapping of column type to a count of 0 to {MAX_COLUMNS}, "
                '{"INTEGER": 10, "CHAR(20)": 10} for example'
            )
        elif self.type == "int_pair":
            text = "a pair of integers [low, high]"
        else:
            text = f"text of at most {MAX_TEXT_CHARS} characters"
        if self.nullable:
            text += f", or null ({self.null_meaning})"
        return text

    def check(self, value: Any, path: str) -> Any:
        """Validate ``value`` and return it normalised (ints stay ints, floats become floats).

        Raises
        ------
        ValueRangeError
            Naming ``path``, the value and what is allowed.
        """
        if value is None:
            if self.nullable:
                return None
            raise ValueRangeError(path, value, self.allowed())
        normalised = _NORMALISE.get(self.type, _refuse)(self, value, path)
        if normalised is _REFUSED:
            raise ValueRangeError(path, value, self.allowed())
        return normalised

    def _within(self, value: float) -> bool:
        """``value`` is a finite, normal number (or 0) inside the inclusive bounds; NaN never is."""
        if isinstance(value, float) and not (value == 0.0 or sys.float_info.min <= abs(value) < math.inf):
            return False  # NaN, infinities and subnormals (1e-320): no knob means them
        above = self.minimum is None or value >= self.minimum
        return above and (self.maximum is None or value <= self.maximum)

    def _in_range(self, value: float, path: str) -> float:
        if not self._within(value):
            raise ValueRangeError(path, value, self.allowed())
        return value


def applies(spec: ParamSpec, params: dict, roles: frozenset | None = None) -> bool:
    """Whether knob ``spec`` can act on a node with knob values ``params`` and flow ``roles``.

    A knob of some platforms only applies when the node's ``os_platform`` is one of them (a node
    without one applies); a knob of some roles only when ``roles`` (None: not known, e.g. an
    incomplete flow) shares one.
    """
    platform = params.get("os_platform")
    if spec.platforms and platform is not None and platform not in spec.platforms:
        return False
    return not (spec.roles and roles is not None and not set(spec.roles) & set(roles))


def _representable(value: int | float) -> bool:
    """Whether ``value`` converts to a float (an integer of 10**400 does not)."""
    try:
        float(value)
    except OverflowError:
        return False
    return True


# -- the value of each knob type, normalised; _REFUSED when it is not one ---------------------------
_REFUSED = object()


def _refuse(spec: ParamSpec, value: Any, path: str) -> Any:
    return _REFUSED


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _bool_value(spec: ParamSpec, value: Any, path: str) -> Any:
    return value if isinstance(value, bool) else _REFUSED


def _int_value(spec: ParamSpec, value: Any, path: str) -> Any:
    """An integer, or a float with no fraction (``8.0``) as an integer, within the bounds."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return spec._in_range(value, path) if _is_int(value) else _REFUSED


def _float_value(spec: ParamSpec, value: Any, path: str) -> Any:
    if isinstance(value, (int, float)) and not isinstance(value, bool) and _representable(value):
        return spec._in_range(float(value), path)
    return _REFUSED


def _enum_value(spec: ParamSpec, value: Any, path: str) -> Any:
    return value if value in spec.choices else _REFUSED


def _str_value(spec: ParamSpec, value: Any, path: str) -> Any:
    return value if isinstance(value, str) and len(value) <= MAX_TEXT_CHARS else _REFUSED


def _column_map_value(spec: ParamSpec, value: Any, path: str) -> Any:
    """A non-empty mapping of column type (text) to a count of 0 to MAX_COLUMNS, as a new dict."""
    if not isinstance(value, dict) or not value or len(value) > MAX_COLUMNS:
        return _REFUSED
    fits = all(
        isinstance(k, str) and len(k) <= MAX_TEXT_CHARS and _is_int(v) and 0 <= v <= MAX_COLUMNS
        for k, v in value.items()
    )
    return dict(value) if fits else _REFUSED


def _int_pair_value(spec: ParamSpec, value: Any, path: str) -> Any:
    """``[low, high]``: two integers within the bounds, low <= high, as a list."""
    if not isinstance(value, (list, tuple)) or len(value) != 2 or not all(_is_int(v) for v in value):
        return _REFUSED
    if value[0] > value[1] or not all(spec._within(v) for v in value):
        return _REFUSED
    return [int(value[0]), int(value[1])]


_NORMALISE = {
    "bool": _bool_value,
    "int": _int_value,
    "float": _float_value,
    "enum": _enum_value,
    "str": _str_value,
    "column_map": _column_map_value,
    "int_pair": _int_pair_value,
}
