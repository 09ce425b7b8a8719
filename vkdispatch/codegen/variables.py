"""Shader variables: typed expressions recorded while a function is traced.

Every value a traced function manipulates is a :class:`ShaderVariable`: a dtype plus the GLSL
text of the expression. Operators (``operators.py``) build new expressions; nothing is emitted
until a statement consumes them: an assignment, a register declaration, control flow, an atomic
or a print. Python truthiness, ``len``, ``int()`` and iteration raise, with a message saying
what to write instead.
"""
from __future__ import annotations

import math
import numbers

from vkdispatch import dtypes as dt
from vkdispatch.codegen.coercion import literal_text
from vkdispatch.codegen.context import active_builder, get_builder
from vkdispatch.codegen.literals import (boolean, cast_literal, format_literal, is_number,
                                         literal_fits, number_to_dtype)
from vkdispatch.codegen.operators import ArithmeticMixin
from vkdispatch.dtypes import scalar_of
from vkdispatch.errors import (IndexOutOfRangeError, InvalidArgumentError, InvalidStateError,
                               InvalidTypeError)

__all__ = ["ShaderVariable", "as_variable", "literal", "constructor", "builder_for"]

_COMPONENTS = "xyzw"
# glslang takes a constant index as an int: larger ones fail to compile.
_INDEX_LIMIT = 2**31


def builder_for(*values):
    """The tracing builder, after checking that no shader value comes from another trace.

    A value kept from one shader's trace (a global, a closure) and used while another shader
    is traced would silently refer to the other shader's resources, so it raises instead.
    """
    builder = get_builder()
    for value in values:
        owner = getattr(value, "builder", None)
        if owner is not None and owner is not builder:
            origin = f"shader '{owner.name}'" if owner.name else "another shader"
            raise InvalidStateError(
                f"the shader value '{value.name}' was created while tracing {origin}; shader "
                "values cannot be shared between shaders. Pass it as an argument or rebuild "
                "it inside this shader.")
    return builder


def literal(value, as_type=None) -> ShaderVariable:
    """A Python number as a shader value (typed by :func:`number_to_dtype` or ``as_type``)."""
    value = int(value) if isinstance(value, numbers.Integral) else float(value)
    var_type = as_type or number_to_dtype(value)
    if active_builder() is not None:
        active_builder().use_type(var_type)
    return ShaderVariable(var_type, format_literal(value, as_type), lexical=True,
                          literal_value=value)


def as_variable(value, what: str = "operand") -> ShaderVariable:
    """``value`` as a shader value: variables pass through, Python numbers become literals."""
    if isinstance(value, ShaderVariable):
        if not value.is_value:
            raise InvalidTypeError(f"{what} '{value.name}' is a {value.kind_name}, not a value; "
                                   "index it (buf[i]) or sample it (img.sample(coord))")
        return value
    if isinstance(value, bool):
        return ShaderVariable(boolean, "true" if value else "false", lexical=True,
                              literal_value=value)
    if isinstance(value, complex):
        raise InvalidTypeError("Python built-in complex numbers are not supported in arithmetic "
                               "operations yet! Use vc.to_complex(re, im).")
    if is_number(value):
        return literal(value)
    raise InvalidTypeError(f"{what} must be a shader value or a Python number, got "
                           f"{value!r} ({type(value).__name__})")


def _components(value) -> int:
    return math.prod(value.var_type.shape) if isinstance(value, ShaderVariable) else 1


def _check_constructor_sizes(var_type, args) -> None:
    """GLSL's rule for ``T(a, b, ...)``: the arguments supply at least T's components and
    the last one is needed (one scalar fills every component, one matrix converts)."""
    needed = math.prod(var_type.shape)
    if len(args) == 1 and (_components(args[0]) == 1 or (
            dt.is_matrix(var_type) and dt.is_matrix(args[0].var_type))):
        return
    given = [_components(a) for a in args]
    if sum(given) < needed or sum(given) - given[-1] >= needed:
        sizes = " + ".join(str(g) for g in given)
        raise InvalidArgumentError(f"{var_type.name}(...) needs {needed} component"
                                   f"{'s' if needed > 1 else ''} from its arguments (or one "
                                   f"scalar), got {len(args)} argument{'s' if len(args) > 1 else ''}"
                                   f" supplying {sizes}")


def constructor(var_type, *args) -> ShaderVariable:
    """The constructor expression ``T(a, b, ...)`` (literals formatted for ``T``)."""
    parts = []
    for arg in args:
        if isinstance(arg, ShaderVariable):
            parts.append(as_variable(arg, "constructor argument").name)
        elif isinstance(arg, bool) or not is_number(arg):
            raise InvalidTypeError(f"{var_type.name}(...) arguments must be shader values or "
                                   f"Python numbers, got {arg!r} ({type(arg).__name__})")
        else:
            parts.append(cast_literal(arg, scalar_of(var_type)))
    _check_constructor_sizes(var_type, args)
    builder_for(*[a for a in args if isinstance(a, ShaderVariable)]).use_type(var_type)
    return ShaderVariable(var_type, f"{var_type.glsl_type}({', '.join(parts)})", lexical=True)


class ShaderVariable(ArithmeticMixin):
    """A typed shader expression.

    Attributes:
        var_type: the vkdispatch dtype of the value.
        name: the GLSL text of the expression (an identifier for registers and constants).
        settable: whether it may be assigned (registers, buffer elements, their components).
        register: whether it is a declared local variable.
        storage: where an assignable value lives: ``"buffer"``, ``"shared"``, ``"local"`` or
            None (atomics need buffer or shared memory).
        builder: the builder of the trace that created it.
    """

    __hash__ = None  # == builds an expression, so variables are unhashable
    is_value = True  # buffers and images are not values (they must be indexed/sampled)
    kind_name = "value"

    def __init__(self, var_type, name: str, *, lexical: bool = False, settable: bool = False,
                 register: bool = False, binding: int | None = None, raw_name: str | None = None,
                 literal_value=None, storage: str | None = None):
        object.__setattr__(self, "var_type", var_type)
        object.__setattr__(self, "name", name if lexical or name.startswith("(") else f"({name})")
        object.__setattr__(self, "raw_name", raw_name or name)
        object.__setattr__(self, "settable", settable)
        object.__setattr__(self, "register", register)
        object.__setattr__(self, "binding", binding)
        object.__setattr__(self, "literal_value", literal_value)
        object.__setattr__(self, "storage", storage)
        object.__setattr__(self, "builder", active_builder())

    # -- basics --------------------------------------------------------------------------------

    @property
    def is_literal(self) -> bool:
        return self.literal_value is not None

    def resolve(self) -> str:
        """The text to splice into a larger expression."""
        return self.name

    @property
    def can_index(self) -> bool:
        """Whether ``self[i]`` is allowed (vectors, complex values, matrices, buffers)."""
        if not self.is_value:
            return self.kind_name == "buffer"
        return not dt.is_scalar(self.var_type)

    def __repr__(self) -> str:
        return f"<{self.var_type.name} {self.name}>"

    def __bool__(self):
        raise InvalidTypeError("Vkdispatch variables cannot be cast to a python boolean: shader "
                               "values are only known on the GPU. Use vc.if_block(cond) for "
                               "conditions and vc.any(...)/vc.all(...) instead of or/and.")

    def __len__(self):
        raise InvalidTypeError("len() of a shader value is unknown while tracing; use "
                               "buffer.shape or a Python-side size instead")

    def __iter__(self):
        raise InvalidTypeError("shader values cannot be iterated in Python; index components "
                               "explicitly (v.x, v[0]) or loop with vc.while_block")

    def __int__(self):
        raise InvalidTypeError("int() of a shader value is unknown while tracing; cast inside "
                               "the shader with vc.to_int(x) or x.to_dtype(vd.int32)")

    __index__ = __int__

    def __float__(self):
        raise InvalidTypeError("float() of a shader value is unknown while tracing; cast inside "
                               "the shader with vc.to_float(x)")

    # -- hooks used by the operators -----------------------------------------------------------

    def _operand(self, value, what: str = "operand") -> ShaderVariable:
        return as_variable(value, what)

    def _literal(self, value, var_type) -> ShaderVariable:
        """``value`` spelled so that GLSL types it exactly ``var_type`` (``0u``, ``int16_t(0)``)."""
        builder_for(self).use_type(var_type)
        return ShaderVariable(var_type, literal_text(value, var_type, strict=True), lexical=True,
                              literal_value=value)

    def _derived(self, var_type, text: str, *parents: ShaderVariable) -> ShaderVariable:
        """A new expression of ``var_type`` computed from ``parents`` (all from this trace)."""
        builder_for(*parents).use_type(var_type)
        return ShaderVariable(var_type, text, lexical=True)

    def _emit_update(self, statement: str, *values) -> None:
        """Emits a statement that writes this variable (buffers are marked read and written)."""
        builder = builder_for(self, *values)
        if self.binding is not None:
            builder.mark_access(self.binding, read=True, write=True)
        builder.emit(statement)

    # -- materialization and casts -------------------------------------------------------------

    def to_register(self, var_name: str | None = None) -> ShaderVariable:
        """Declares a local variable initialised with this value; returns it (settable)."""
        value = as_variable(self)
        builder = builder_for(value)
        name = var_name or builder.new_name()
        builder.use_type(self.var_type)
        builder.emit(f"{self.var_type.glsl_type} {name} = {self.name};")
        return ShaderVariable(self.var_type, name, lexical=True, settable=True, register=True,
                              storage="local")

    def to_dtype(self, var_type) -> ShaderVariable:
        """The cast expression ``T(self)``."""
        return constructor(var_type, self)

    def copy(self, var_name: str | None = None) -> ShaderVariable:
        """A new register holding this value."""
        return self.to_register(var_name)

    # -- assignment ----------------------------------------------------------------------------

    def _check_settable(self) -> None:
        if not self.settable:
            raise InvalidArgumentError(
                f"Cannot set value of '{self.name}' because it is not a settable variable! "
                "Assign to a register (x.to_register()) or a buffer element instead.")

    def _number_text(self, value) -> str:
        target = self.var_type
        scalar = scalar_of(target)
        if not isinstance(value, numbers.Integral) and not literal_fits(value, scalar):
            raise InvalidTypeError(f"cannot assign the float {value!r} to '{self.name}' of type "
                                   f"{target.name}; use an int literal or cast with vc.to_int")
        if not literal_fits(value, scalar):
            raise InvalidArgumentError(f"cannot assign {value!r} to '{self.name}': out of the "
                                       f"range of {scalar.name}")
        text = (format_literal(value, scalar) if dt.is_float_dtype(scalar)
                else literal_text(value, scalar))
        if dt.is_scalar(target):
            return text
        if dt.is_matrix(target):  # mat2(x) would be a diagonal matrix: fill every entry
            return f"{target.glsl_type}({', '.join([text] * (target.child_count ** 2))})"
        return f"{target.glsl_type}({text})"

    def _value_text(self, value) -> str:
        target = self.var_type
        if isinstance(value, ShaderVariable):
            value = as_variable(value, "assigned value")
            if value.var_type is not target:
                raise InvalidTypeError(
                    f"Cannot set variable of type '{target.name}' to value of type "
                    f"'{value.var_type.name}'! Cast it, e.g. vc.to_dtype(vd.{target.name}, x).")
            return value.name
        if isinstance(value, bool):
            if target is not boolean:
                raise InvalidTypeError(f"cannot assign {value!r} to '{self.name}' of type "
                                       f"{target.name}; booleans only go into bool registers")
            return "true" if value else "false"
        if not (is_number(value) or isinstance(value, complex)):
            raise InvalidTypeError(f"cannot assign {value!r} ({type(value).__name__}) to a "
                                   f"{target.name} shader value")
        if dt.is_complex(target):
            value = complex(value)
            part = target.child_type
            return (f"{target.glsl_type}({format_literal(value.real, part)}, "
                    f"{format_literal(value.imag, part)})")
        if isinstance(value, complex) or target is boolean:
            raise InvalidTypeError(f"cannot assign {value!r} to '{self.name}' of type "
                                   f"{target.name}")
        return self._number_text(value)

    def set_value(self, value) -> None:
        """Emits ``self = value;`` (dtypes must match; int literals convert to floats)."""
        self._check_settable()
        text = self._value_text(value)
        if text == self.name:
            # What `buf[i] += x` leaves behind (Python re-assigns the in-place result): a no-op.
            builder = builder_for(self, value)
            if self.binding is not None:
                builder.mark_access(self.binding, read=True, write=True)
            return
        self._emit_update(f"{self.name} = {text};", value)

    def __setitem__(self, key, value) -> None:
        if isinstance(key, slice):
            if key != slice(None):
                raise InvalidArgumentError("Only full slice (:) is supported for setting "
                                           "variable values!")
            self.set_value(value)
            return
        self[key].set_value(value)

    # -- indexing and components ---------------------------------------------------------------

    def _index_text(self, index, count: int | None = None) -> str:
        """GLSL text of an index; constant indices are checked against ``count`` elements."""
        if isinstance(index, tuple):
            if len(index) != 1:
                raise InvalidArgumentError("Only single index is supported, cannot use "
                                           "multi-dimentional indexing!")
            index = index[0]
        if isinstance(index, ShaderVariable):
            index = as_variable(index, "index")
            if not dt.is_scalar(index.var_type):
                raise InvalidTypeError(f"Indexing variable must be a scalar! Got '{index.name}' "
                                       f"of type {index.var_type.name}")
            if not dt.is_integer_dtype(index.var_type):
                raise InvalidTypeError(f"Indexing variable must be an integer type! Got "
                                       f"'{index.name}' of type {index.var_type.name}")
            builder_for(index)
            return index.name
        if isinstance(index, numbers.Integral) and not isinstance(index, bool):
            index = int(index)
            limit = count if count is not None else _INDEX_LIMIT
            if not 0 <= index < limit:
                raise IndexOutOfRangeError(f"index {index} is out of range for '{self.name}' "
                                           f"of type {self.var_type.name} (0..{limit - 1})")
            return str(index)
        raise InvalidTypeError(f"Index must be a ShaderVariable or int type, not {type(index)}!")

    def _part(self, var_type, text: str) -> ShaderVariable:
        """A component or element of this value (assignable when this value is)."""
        return ShaderVariable(var_type, text, lexical=True, settable=self.settable,
                              binding=self.binding, storage=self.storage)

    def __getitem__(self, index) -> ShaderVariable:
        var_type = self.var_type
        if dt.is_matrix(var_type):
            element = var_type.child_type
        elif dt.is_vector(var_type) or dt.is_complex(var_type):
            element = scalar_of(var_type)
        else:
            raise InvalidArgumentError(f"Variable '{self.name}' of type '{var_type.name}' "
                                       "cannot be indexed into!")
        builder_for(self)
        text = self._index_text(index, var_type.child_count)
        return self._part(element, f"{self.name}[{text}]")

    def _component(self, letter: str) -> ShaderVariable:
        var_type = self.var_type
        if dt.is_scalar(var_type):
            if letter != "x":
                raise InvalidArgumentError(f"'{self.name}' is a scalar ({var_type.name}): it "
                                           f"has only the component 'x', not '{letter}'")
            return self
        if not dt.is_vector(var_type):
            raise InvalidArgumentError(f"'{self.name}' of type '{var_type.name}' has no component "
                                       f"'{letter}'" + (" - use 'real' and 'imag' instead!"
                                                        if dt.is_complex(var_type) else ""))
        if _COMPONENTS.index(letter) >= var_type.child_count:
            raise InvalidArgumentError(f"'{letter}' does not exist on '{self.name}' of type "
                                       f"{var_type.name} (components: "
                                       f"{_COMPONENTS[:var_type.child_count]})")
        return self._part(var_type.scalar, f"{self.name}.{letter}")

    def _complex_part(self, letter: str) -> ShaderVariable:
        if not dt.is_complex(self.var_type):
            raise InvalidArgumentError(f"'{self.name}' of type '{self.var_type.name}' is not "
                                       "complex; real/imag exist only on complex values")
        return self._part(self.var_type.child_type, f"{self.name}.{letter}")

    x = property(lambda self: self._component("x"), doc="First component.")
    y = property(lambda self: self._component("y"), doc="Second component.")
    z = property(lambda self: self._component("z"), doc="Third component.")
    w = property(lambda self: self._component("w"), doc="Fourth component.")
    real = property(lambda self: self._complex_part("x"), doc="Real part of a complex value.")
    imag = property(lambda self: self._complex_part("y"), doc="Imaginary part.")

    def __setattr__(self, attribute: str, value) -> None:
        if attribute in ("x", "y", "z", "w"):
            self._component(attribute).set_value(value)
        elif attribute in ("real", "imag"):
            self._complex_part("x" if attribute == "real" else "y").set_value(value)
        else:
            raise AttributeError(f"shader values have no settable attribute '{attribute}'")

    def swizzle(self, components: str) -> ShaderVariable:
        """``v.swizzle("zyx")``: one letter gives an assignable component, several a new
        vector ``vec3(v.z, v.y, v.x)``."""
        if not isinstance(components, str) or not 1 <= len(components) <= 4 \
                or any(c not in _COMPONENTS for c in components):
            raise InvalidArgumentError(f"swizzle takes 1-4 letters of 'xyzw', got {components!r}")
        if dt.is_matrix(self.var_type) or dt.is_complex(self.var_type):
            raise InvalidArgumentError(f"'{self.name}' of type {self.var_type.name} cannot be "
                                       "swizzled")
        parts = [self._component(c) for c in components]
        if len(parts) == 1:
            return parts[0]
        return constructor(dt.to_vector(scalar_of(self.var_type), len(parts)), *parts)

    def conjugate(self) -> ShaderVariable:
        """The complex conjugate (a new value; assigning it keeps the conjugation)."""
        if not dt.is_complex(self.var_type):
            raise InvalidArgumentError(f"conjugate() needs a complex value, got '{self.name}' of "
                                       f"type {self.var_type.name}")
        return self._derived(self.var_type,
                             f"{self.var_type.glsl_type}({self.name}.x, (-{self.name}.y))", self)
