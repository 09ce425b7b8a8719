"""Shader variables that stand for resources: storage buffers, shared arrays, sampled images
and the ``Const``/``Var`` arguments (uniform and push-constant members)."""
from __future__ import annotations

from vkdispatch.base import dtype as dt
from vkdispatch.codegen.variables import ShaderVariable, as_variable, builder_for
from vkdispatch.errors import InvalidTypeError

__all__ = ["BufferVariable", "ImageVariable", "bound_variable"]

_COMPONENTS = "xyzw"


class BufferVariable(ShaderVariable):
    """A storage buffer (or shared array) argument: index it to get settable elements."""

    is_value = False
    kind_name = "buffer"

    def __init__(self, var_type, name: str, binding: int | None, shape_name: str | None = None,
                 shared_size: int | None = None):
        super().__init__(var_type, name, lexical=True,
                         storage="shared" if shared_size is not None else "buffer")
        object.__setattr__(self, "binding", binding)
        object.__setattr__(self, "_shape_name", shape_name)
        object.__setattr__(self, "_shared_size", shared_size)
        object.__setattr__(self, "_shape_variable", None)

    @property
    def _data(self) -> str:
        return self.name if self._shared_size is not None else f"{self.name}.data"

    def __getitem__(self, index) -> ShaderVariable:
        builder = builder_for(self)
        text = self._index_text(index, self._shared_size)
        if self.binding is not None:
            # Any use counts, conditions and printf included, so barriers never miss it.
            builder.mark_access(self.binding, read=True)
        return ShaderVariable(self.var_type, f"{self._data}[{text}]", lexical=True,
                              settable=True, binding=self.binding, storage=self.storage)

    def to_register(self, var_name: str | None = None) -> ShaderVariable:
        as_variable(self)  # raises: a whole buffer is not a value
        return super().to_register(var_name)

    @property
    def shape(self) -> ShaderVariable:
        """``(d0, d1, d2, total)`` of the bound buffer as an ``ivec4`` (a uniform); for a shared
        array, ``(size, 1, 1, size)``."""
        if self._shared_size is not None:
            size = self._shared_size
            return ShaderVariable(dt.ivec4, f"ivec4({size}, 1, 1, {size})", lexical=True)
        if self._shape_variable is None:
            builder_for(self).add_uniform_field(self._shape_name, dt.ivec4)
            object.__setattr__(self, "_shape_variable",
                               ShaderVariable(dt.ivec4, f"UBO.{self._shape_name}", lexical=True,
                                              raw_name=self._shape_name))
        return self._shape_variable


class ImageVariable(ShaderVariable):
    """A sampled image argument (``Img1/2/3``); ``sample()`` reads it."""

    is_value = False
    kind_name = "image"

    def __init__(self, name: str, binding: int, dimensions: int):
        super().__init__(dt.vec4, name, lexical=True)
        object.__setattr__(self, "binding", binding)
        object.__setattr__(self, "dimensions", dimensions)

    def sample(self, coord, lod=None) -> ShaderVariable:
        """Samples at texel coordinates ``coord`` (``texture()`` of the centre of the texel);
        ``lod`` is passed as the level-of-detail bias. Returns a vec4."""
        coord = as_variable(coord, "coord")
        components = 1 if dt.is_scalar(coord.var_type) else coord.var_type.child_count
        if self.dimensions > 1 and components < self.dimensions:
            raise InvalidTypeError(f"sampling the {self.dimensions}-D image '{self.name}' needs "
                                   f"{self.dimensions} coordinates, got '{coord.name}' of type "
                                   f"{coord.var_type.name}")
        builder = builder_for(self, coord)
        builder.mark_access(self.binding, read=True)
        if self.dimensions == 1:
            uv = f"(({coord.name} + 0.5) / textureSize({self.name}, 0))"
        else:
            vector = f"vec{self.dimensions}"
            parts = ", ".join(f"{coord.name}.{c}" for c in _COMPONENTS[: self.dimensions])
            uv = f"(({vector}({parts}) + 0.5) / {vector}(textureSize({self.name}, 0)))"
        lod_text = "" if lod is None else f", {as_variable(lod, 'lod').name}"
        return ShaderVariable(dt.vec4, f"texture({self.name}, {uv}{lod_text})", lexical=True)


def bound_variable(var_type, block: str, raw_name: str) -> ShaderVariable:
    """A ``Const``/``Var`` argument: the member ``raw_name`` of the uniform (``UBO``) or
    push-constant (``PC``) block, read-only.

    A plain ShaderVariable on purpose: Python gives a subclass operand's reflected comparison
    priority, so a subclass would turn ``tid < n`` into ``(n > tid)``.
    """
    return ShaderVariable(var_type, f"{block}.{raw_name}", lexical=True, raw_name=raw_name)
