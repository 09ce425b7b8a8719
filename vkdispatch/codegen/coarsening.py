"""Coarsening: the body of a traced shader rewritten so that each invocation runs ``factor``
logical invocations, strided along x by the number of invocations launched along x (so that
neighbouring invocations still touch neighbouring memory).

The logical invocations' top-level statements are interleaved (statement s of each before
statement s + 1 of any), and a store of a computed value to a buffer is split into computing
the value and storing it: every load of the ``factor`` invocations is then issued before their
stores. A compiler cannot move a load above a store to a buffer that may alias it, so a kernel
written one element per invocation otherwise waits for one load at a time.

Interleaving is valid where logical invocations are independent, as the GPU runs them in no
promised order anyway: the shader must have a bounds check, and no shared memory, barriers,
subgroup operations, built-ins other than the global invocation id, early returns or printf.
Where the last of an invocation's logical ids is beyond ``exec_size``, it runs its logical
invocations one after the other, each behind the bounds check.

Each logical invocation is a copy of the body, so factors are limited to :data:`MAX_FACTOR`.
"""
from __future__ import annotations

import re

from vkdispatch.codegen.builder import ShaderDescription
from vkdispatch.errors import InvalidArgumentError

__all__ = ["coarsenable", "obstacle", "coarsened_body", "MAX_FACTOR"]

# Compile time grows faster than the copies of the body: on lavapipe a five-statement body took
# 1 s to compile at 64 copies, 11 s at 256, and did not finish within 5 minutes at 10000; the
# factors that pay off are 2-4 (see vkdispatch.shader.coarsening_policy).
MAX_FACTOR = 64

_ID = "gl_GlobalInvocationID"
_INDENT = "    "
_FORBIDDEN = re.compile(r"\bgl_(?!GlobalInvocationID\b)\w+|\breturn\b|barrier|\bsubgroup\w*"
                        r"|debugPrintfEXT", re.IGNORECASE)
_DECLARATION = re.compile(r"^    (?:const )?[A-Za-z_]\w* ([A-Za-z_]\w*)(?:\[\d+\])?(?: =|;)")
_STORE = re.compile(r"^    (buf\d+)\.data\[")


def _statements(description: ShaderDescription) -> list[str]:
    """The body's lines after the bounds check."""
    return description.body.split("\n")[1:]


def obstacle(description: ShaderDescription) -> str | None:
    """What keeps the shader's logical invocations from running several per invocation (see
    above), or None."""
    if description.exec_count_name is None:
        return "it has no bounds check (ShaderFlags.NO_EXEC_BOUNDS)"
    if description.shared_arrays:
        return "it uses shared memory"
    for line in _statements(description):
        found = _FORBIDDEN.search(line)
        if found:
            return f"it uses '{found.group(0)}'"
    return None


def coarsenable(description: ShaderDescription) -> bool:
    """Whether the shader's logical invocations may run several per invocation."""
    return obstacle(description) is None


def _units(lines: list[str]) -> list[list[str]]:
    """Top-level statements: a line at the body's first level and the lines of the blocks it
    opens (with ``} else {`` continuations and the closing ``}``)."""
    units: list[list[str]] = []
    for line in lines:
        top = line.startswith(_INDENT) and not line.startswith(_INDENT * 2)
        if top and not line[len(_INDENT):].startswith(("}", "else")) or not units:
            units.append([line])
        else:
            units[-1].append(line)
    return units


def _matching_bracket(text: str, opening: int) -> int:
    depth = 0
    for position in range(opening, len(text)):
        depth += {"[": 1, "]": -1}.get(text[position], 0)
        if depth == 0:
            return position
    return -1


def _split_store(unit: list[str], element_types: dict[str, str], number: int) -> list[list[str]]:
    """``buf.data[i] = value;`` as ``T stored = value;`` and ``buf.data[i] = stored;`` (other
    statements unchanged)."""
    match = _STORE.match(unit[0]) if len(unit) == 1 else None
    if match is None:
        return [unit]
    line = unit[0]
    close = _matching_bracket(line, match.end() - 1)
    rest = line[close + 1:]
    if close < 0 or not rest.startswith(" = ") or not rest.endswith(";"):
        return [unit]  # a component store or a compound assignment: left as written
    name = f"vkd_stored{number}"
    value = rest[len(" = "):-1]
    return [[f"{_INDENT}{element_types[match.group(1)]} {name} = {value};"],
            [f"{line[:close + 1]} = {name};"]]


def _copy(unit: list[str], declared: list[str], index: int) -> list[str]:
    """Logical invocation ``index``'s copy of a statement: its own id and variable names."""
    text = "\n".join(unit).replace(_ID, f"vkd_id{index}")
    if declared:
        # Not after a '.': a variable named x must not rename the swizzle .x.
        text = re.sub(r"(?<![.\w])(" + "|".join(map(re.escape, declared)) + r")\b",
                      lambda m: f"{m.group(1)}_{index}", text)
    return [_INDENT + line for line in text.split("\n")]


def coarsened_body(description: ShaderDescription, factor: int) -> str:
    """The body of ``main()`` running ``factor`` logical invocations per invocation."""
    if not 1 <= factor <= MAX_FACTOR:
        raise InvalidArgumentError(f"coarsen: the factor must be between 1 and {MAX_FACTOR}, "
                                   f"got {factor}")
    lines = _statements(description)
    element_types = {b.name: b.dtype.glsl_type for b in description.bindings}
    units: list[list[str]] = []
    for number, unit in enumerate(_units(lines)):
        units += _split_store(unit, element_types, number)
    declared = [m.group(1) for u in units if (m := _DECLARATION.match(u[0]))]
    limit = f"UBO.{description.exec_count_name}"
    out = [f"{_INDENT}uint vkd_stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;",
           f"{_INDENT}if ({_ID}.x + {factor - 1}u * vkd_stride < {limit}.x && "
           f"all(lessThan({_ID}.yz, {limit}.yz))) {{"]
    out += [f"{_INDENT * 2}uvec3 vkd_id{j} = uvec3({_ID}.x + {j}u * vkd_stride, {_ID}.yz);"
            for j in range(factor)]
    for unit in units:
        for j in range(factor):
            out += _copy(unit, declared, j)
    out += [f"{_INDENT}}} else {{",
            f"{_INDENT * 2}for (uint vkd_j = 0u; vkd_j < {factor}u; ++vkd_j) {{",
            f"{_INDENT * 3}uvec3 vkd_id = uvec3({_ID}.x + vkd_j * vkd_stride, {_ID}.yz);",
            f"{_INDENT * 3}if (any(lessThanEqual({limit}.xyz, vkd_id))) {{ break; }}"]
    out += [_INDENT * 2 + line.replace(_ID, "vkd_id") for line in lines]
    out += [f"{_INDENT * 2}}}", f"{_INDENT}}}"]
    return "\n".join(out)
