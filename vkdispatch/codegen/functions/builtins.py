"""Built-in values (invocation ids, sizes, infinities), barriers, subgroup operations,
atomics, shared memory, printing and comments."""
from __future__ import annotations

import numbers
import os
import re

from vkdispatch import dtypes as dt
from vkdispatch.codegen.blocks import user_frame
from vkdispatch.codegen.context import get_builder
from vkdispatch.codegen.literals import boolean, format_literal
from vkdispatch.codegen.resources import BufferVariable
from vkdispatch.codegen.variables import ShaderVariable, as_variable, builder_for
from vkdispatch.errors import InvalidArgumentError, InvalidTypeError

__all__ = ["global_invocation_id", "local_invocation_id", "local_invocation_index",
           "workgroup_id", "workgroup_size", "num_workgroups", "num_subgroups", "subgroup_id",
           "subgroup_size", "subgroup_invocation_id", "inf_f32", "ninf_f32", "inf_f64",
           "ninf_f64", "inf_f16", "ninf_f16", "barrier", "memory_barrier",
           "memory_barrier_buffer", "memory_barrier_shared", "memory_barrier_image",
           "group_memory_barrier", "subgroup_add", "subgroup_mul", "subgroup_min",
           "subgroup_max", "subgroup_and", "subgroup_or", "subgroup_xor", "subgroup_elect",
           "subgroup_barrier", "atomic_add", "coherent", "shared_buffer", "printf",
           "print_vars", "comment"]


def _builtin(var_type, text: str, subgroup: bool = False):
    def value() -> ShaderVariable:
        if subgroup:
            get_builder().uses_subgroups = True
        return ShaderVariable(var_type, text, lexical=True)

    value.__name__ = text
    value.__doc__ = f"``{text}`` ({var_type.name})."
    return value


global_invocation_id = _builtin(dt.uvec3, "gl_GlobalInvocationID")
local_invocation_id = _builtin(dt.uvec3, "gl_LocalInvocationID")
local_invocation_index = _builtin(dt.uint32, "gl_LocalInvocationIndex")
workgroup_id = _builtin(dt.uvec3, "gl_WorkGroupID")
workgroup_size = _builtin(dt.uvec3, "gl_WorkGroupSize")
num_workgroups = _builtin(dt.uvec3, "gl_NumWorkGroups")
num_subgroups = _builtin(dt.uint32, "gl_NumSubgroups", subgroup=True)
subgroup_id = _builtin(dt.uint32, "gl_SubgroupID", subgroup=True)
subgroup_size = _builtin(dt.uint32, "gl_SubgroupSize", subgroup=True)
subgroup_invocation_id = _builtin(dt.uint32, "gl_SubgroupInvocationID", subgroup=True)


def _infinity(var_type, sign: float):
    def value() -> ShaderVariable:
        get_builder().use_type(var_type)
        return ShaderVariable(var_type, format_literal(sign * float("inf"), var_type),
                              lexical=True)

    return value


inf_f32, ninf_f32 = _infinity(dt.float32, 1), _infinity(dt.float32, -1)
inf_f64, ninf_f64 = _infinity(dt.float64, 1), _infinity(dt.float64, -1)
inf_f16, ninf_f16 = _infinity(dt.float16, 1), _infinity(dt.float16, -1)


def _statement(text: str):
    def emit() -> None:
        get_builder().emit(text)

    emit.__doc__ = f"Emits ``{text}``."
    return emit


barrier, memory_barrier, memory_barrier_buffer, memory_barrier_shared, memory_barrier_image, \
    group_memory_barrier = (_statement(f"{glsl}();") for glsl in (
        "barrier", "memoryBarrier", "memoryBarrierBuffer", "memoryBarrierShared",
        "memoryBarrierImage", "groupMemoryBarrier"))


def _subgroup_op(function: str, bitwise: bool = False):
    def operation(x) -> ShaderVariable:
        x = as_variable(x, "x")
        allowed = (dt.is_integer_dtype(x.var_type) or x.var_type is boolean) if bitwise \
            else x.var_type is not boolean
        if not allowed:
            expected = "an integer or boolean value" if bitwise else "a numeric value"
            raise InvalidTypeError(f"{function} needs {expected}, got '{x.name}' of type "
                                   f"{x.var_type.name}")
        builder = builder_for(x)
        builder.uses_subgroups = True
        return ShaderVariable(x.var_type, f"{function}({x.name})", lexical=True)

    operation.__doc__ = f"``{function}(x)`` over the subgroup; same type as ``x``."
    return operation


subgroup_add, subgroup_mul, subgroup_min, subgroup_max = (
    _subgroup_op(f"subgroup{op}") for op in ("Add", "Mul", "Min", "Max"))
subgroup_and, subgroup_or, subgroup_xor = (
    _subgroup_op(f"subgroup{op}", bitwise=True) for op in ("And", "Or", "Xor"))


def subgroup_elect() -> ShaderVariable:
    """True in exactly one active invocation of the subgroup."""
    get_builder().uses_subgroups = True
    return ShaderVariable(boolean, "subgroupElect()", lexical=True)


def subgroup_barrier() -> None:
    """Emits ``subgroupBarrier();``."""
    builder = get_builder()
    builder.uses_subgroups = True
    builder.emit("subgroupBarrier();")


def _atomic_operand(y) -> str:
    if isinstance(y, ShaderVariable):
        y = as_variable(y, "atomic_add value")
        if not (dt.is_scalar(y.var_type) and dt.is_integer_dtype(y.var_type)):
            raise InvalidTypeError(f"atomic_add value must be an integer scalar, got '{y.name}' "
                                   f"of type {y.var_type.name}")
        return y.name
    if isinstance(y, numbers.Integral) and not isinstance(y, bool):
        return str(int(y))
    raise InvalidTypeError(f"atomic_add value must be an int or an integer shader value, got "
                           f"{y!r} ({type(y).__name__})")


def coherent(buffer: BufferVariable) -> None:
    """Declares the storage buffer argument ``buffer`` ``coherent``: its loads and stores
    reach the memory every workgroup sees instead of a cache of this one, so that a workgroup
    can read what another stored in the same dispatch (after ``memory_barrier_buffer()`` on
    both sides and an atomic that orders them)."""
    if not isinstance(buffer, BufferVariable) or buffer.binding is None:
        raise InvalidTypeError(f"coherent takes a storage buffer argument, got "
                               f"{getattr(buffer, 'name', buffer)!r}")
    builder_for(buffer).mark_coherent(buffer.binding)


def atomic_add(mem: ShaderVariable, y) -> ShaderVariable:
    """Atomically adds ``y`` to the buffer or shared-array element ``mem`` (int32/uint32).

    Returns a register holding the value before the addition.
    """
    if not isinstance(mem, ShaderVariable) or not mem.is_value \
            or not dt.is_scalar(mem.var_type):
        raise InvalidTypeError(f"atomic_add target must be a scalar lvalue such as buf[i], got "
                               f"{getattr(mem, 'name', mem)!r}")
    if not mem.settable:
        raise InvalidTypeError(f"atomic_add target must be a writable lvalue; '{mem.name}' is "
                               "not assignable")
    if mem.register or mem.storage == "local":
        raise InvalidTypeError(f"atomic_add does not support register/local variables as target "
                               f"('{mem.name}'); use a buffer or shared-memory element")
    if mem.storage not in ("buffer", "shared"):
        raise InvalidTypeError(f"atomic_add target must reference a buffer element (e.g., "
                               f"buf[idx]), got '{mem.name}'")
    if mem.var_type not in (dt.int32, dt.uint32):
        raise InvalidTypeError(f"atomic_add currently supports only int32/uint32 targets, got "
                               f"'{mem.var_type.name}'")
    value = _atomic_operand(y)
    builder = builder_for(mem, y)
    if mem.binding is not None:
        builder.mark_access(mem.binding, read=True, write=True)
    name = builder.new_name()
    glsl = mem.var_type.glsl_type
    builder.emit(f"{glsl} {name} = atomicAdd({mem.name}, {glsl}({value}));")
    return ShaderVariable(mem.var_type, name, lexical=True, settable=True, register=True,
                          storage="local")


def shared_buffer(var_type, size: int, var_name: str | None = None) -> BufferVariable:
    """Declares ``shared T name[size];`` and returns it (index it like a buffer)."""
    if not (isinstance(var_type, type) and issubclass(var_type, dt.dtype)):
        raise InvalidTypeError(f"var_type must be a vkdispatch dtype, got {var_type!r}")
    if isinstance(size, bool) or not isinstance(size, int) or size < 1:
        raise InvalidArgumentError(f"size must be a positive int, got {size!r}")
    builder = get_builder()
    name = var_name or builder.new_name()
    builder.add_shared_array(var_type, size, name)
    return BufferVariable(var_type, name, None, shared_size=size)


def _format_argument(arg) -> str:
    if isinstance(arg, str):
        return arg  # inserted verbatim, as in vkdispatch 0.1.0 (an escape hatch for raw GLSL)
    return as_variable(arg, "printf argument").name


# glslang, the in-process compiler, ends a string literal after 1,024 characters (its longest
# token): a longer format fails to build with "End of line in string".
MAX_PRINTF_FORMAT_LENGTH = 1024
_ESCAPED = {'"': '\\"', "\\": "\\\\", "\n": "\\n"}


def _glsl_character(char: str, position: int, text: str) -> str:
    """How ``char`` is spelled in a GLSL string literal so that the printf prints it."""
    if char in _ESCAPED:
        return _ESCAPED[char]
    code = ord(char)
    if code > 0x7F:
        raise InvalidArgumentError(
            f"printf: the format {text!r} has the non-ASCII character {char!r} (U+{code:04X}) at "
            f"position {position}; shader strings are ASCII only (glslang garbles other bytes), "
            f"so spell it in ASCII")
    if code == 0:
        raise InvalidArgumentError(f"printf: the format {text!r} has a NUL character at position "
                                   f"{position}; the shader's string would end there")
    return f"\\{code:03o}" if code < 0x20 or code == 0x7F else char


def _literal_characters(text: str) -> list[str]:
    """``text`` as the characters of a GLSL string literal whose printf output is ``text``
    itself: quotes and backslashes are escaped, control characters spelled in octal. The one
    exception is 0.1.0's newline: a backslash followed by ``n`` stays the escape ``\\n`` and
    prints a newline (0.1.0 put formats in the shader unescaped, so its users wrote newlines
    that way)."""
    characters = []
    position = 0
    while position < len(text):
        if text.startswith("\\n", position):
            characters.append("\\n")
            position += 2
            continue
        characters.append(_glsl_character(text[position], position, text))
        position += 1
    if len(characters) > MAX_PRINTF_FORMAT_LENGTH:
        raise InvalidArgumentError(
            f"printf: the format is {len(characters)} characters long; a shader string holds at "
            f"most {MAX_PRINTF_FORMAT_LENGTH} (glslang's longest string literal), so split it "
            f"into several vc.printf calls")
    return characters


def _origin(builder) -> str:
    """``"[shader at file.py:line] "``: the traced shader (else the function calling printf)
    and the line of the printf call, which each line the call prints starts with. Characters a
    format cannot hold become ``?`` and ``%`` is doubled, so that the prefix prints as read."""
    frame = user_frame()
    if frame is None:
        return ""
    name = builder.name or frame.f_code.co_name
    text = f"[{name} at {os.path.basename(frame.f_code.co_filename)}:{frame.f_lineno}] "
    return "".join("%%" if char == "%" else char if " " <= char <= "~" and char != "\\" else "?"
                   for char in text)


def _emit_printf(format_text: str, values: list[str], sources) -> None:
    builder = builder_for(*sources)
    builder.uses_printf = True
    characters = _literal_characters(format_text)
    origin = [_glsl_character(char, 0, "") for char in _origin(builder)]
    # A format keeps the length 0.1.0 allowed it: where the prefix would push it past glslang's
    # limit, the prefix is left out rather than the format refused.
    if len(origin) + len(characters) <= MAX_PRINTF_FORMAT_LENGTH:
        characters = origin + characters
    rest = "".join(f", {v}" for v in values)
    builder.emit(f'debugPrintfEXT("{"".join(characters)}"{rest});')


# One conversion of a debugPrintfEXT format: flags, width, precision, a vector size, 64-bit.
_CONVERSION = re.compile(r"%(%|[-+ #0]*\d*(?:\.\d+)?(?:v([234]))?(?:ul|lu|l)?([A-Za-z]?))")
_INTEGER_CONVERSIONS = frozenset("diouxX")
_FLOAT_CONVERSIONS = frozenset("aAeEfFgG")


def _conversions(format_text: str) -> list[tuple[str, int, str]]:
    """``(text, components, letter)`` of each conversion; raises for those shaders lack (the
    debug printf layer crashes on %s and %n)."""
    found = []
    for match in _CONVERSION.finditer(format_text):
        if match.group(1) == "%":
            continue
        letter = match.group(3)
        if letter not in _INTEGER_CONVERSIONS | _FLOAT_CONVERSIONS:
            raise InvalidArgumentError(
                f"printf: {match.group(0)!r} is not a shader printf conversion; use %d %i %u "
                f"%x %o for integers, %f %e %g %a for floats, %v2f..%v4d for vectors (%s, %c "
                f"and %n do not exist in shaders)")
        found.append((match.group(0), int(match.group(2) or 1), letter))
    return found


def _check_printf_arguments(format_text: str, conversions: list, variables: list) -> None:
    if len(conversions) != len(variables):
        raise InvalidArgumentError(f"printf: the format {format_text!r} has {len(conversions)} "
                                   f"conversion(s) but {len(variables)} argument(s) were given")
    for position, ((text, count, letter), value) in enumerate(zip(conversions, variables)):
        var_type = value.var_type
        components = var_type.child_count if dt.is_vector(var_type) else 1
        scalar = var_type.scalar if dt.is_vector(var_type) else var_type
        floating = dt.is_scalar(scalar) and dt.is_float_dtype(scalar)
        if dt.is_complex(var_type) or dt.is_matrix(var_type) or components != count or \
                floating != (letter in _FLOAT_CONVERSIONS):
            raise InvalidTypeError(f"printf: {text!r} does not fit argument {position} of type "
                                   f"{var_type.name} (a {'vector' if count > 1 else 'scalar'} "
                                   f"{'float' if letter in _FLOAT_CONVERSIONS else 'integer'} "
                                   f"conversion); use vc.print_vars to print any value")


def printf(format: str, *args) -> None:  # noqa: A002 - vkdispatch 0.1.0's name
    """Emits ``debugPrintfEXT(format, args...)`` (printed in debug mode only). String
    arguments are inserted verbatim, shader values and numbers as expressions. The format is
    checked against the arguments (count, integer or float, vector size) unless a string
    argument makes them unknowable.

    The format's characters print as they are (quotes, backslashes, tabs), except that a
    backslash followed by ``n`` prints a newline, as in vkdispatch 0.1.0. It must be ASCII
    without NUL and at most ``MAX_PRINTF_FORMAT_LENGTH`` (1,024) characters long; anything else
    raises :class:`~vkdispatch.errors.InvalidArgumentError` when the shader is traced. What it
    prints starts with its origin, ``[shader at file.py:line] `` (left out where it would make
    the format longer than that)."""
    if not isinstance(format, str):
        raise InvalidTypeError(f"printf format must be a str, got {format!r}")
    conversions = _conversions(format)
    if not any(isinstance(a, str) for a in args):
        variables = [as_variable(a, "printf argument") for a in args]
        _check_printf_arguments(format, conversions, variables)
        _emit_printf(format, [v.name for v in variables], args)
        return
    _emit_printf(format, [_format_argument(a) for a in args], args)


def _components(value: ShaderVariable) -> list[str]:
    var_type = value.var_type
    if dt.is_matrix(var_type):
        size = var_type.child_count
        return [f"{value.name}[{c}][{r}]" for r in range(size) for c in range(size)]
    if dt.is_vector(var_type) or dt.is_complex(var_type):
        return [f"{value.name}[{i}]" for i in range(var_type.child_count or 2)]
    return [value.name]


def print_vars(*args, separator: str = " ") -> None:
    """Prints shader values (by their dtype's format) and Python values (as text); vectors,
    complex values and matrices (one row a line) are expanded into their components. The text
    follows :func:`printf`'s rules for formats."""
    formats, values = [], []
    for arg in args:
        if isinstance(arg, ShaderVariable):
            arg = as_variable(arg, "print argument")
            # dtype formats are spelled for GLSL source, as 0.1.0 pasted them into the shader:
            # the matrices' doubled backslash there is one, before the n of a newline.
            formats.append(arg.var_type.format_str.replace("\\\\", "\\"))
            values += _components(arg)
        else:
            formats.append(str(arg).replace("%", "%%"))
    _emit_printf(separator.join(formats), values, args)


def comment(comment: str, preceding_new_line: bool = True) -> None:  # noqa: A002
    """Emits a ``/* ... */`` comment (``*/`` inside the text is defused)."""
    builder = get_builder()
    if preceding_new_line:
        builder.emit("")
    lines = comment.replace("*/", "* /").splitlines() or [""]
    if len(lines) == 1:
        builder.emit(f"/* {lines[0]} */")
        return
    builder.emit("/*")
    for line in lines:
        builder.emit(f" * {line}")
    builder.emit(" */")
