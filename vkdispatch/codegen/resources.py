"""Shader variables that stand for resources: storage buffers, shared arrays, sampled images
and the ``Const``/``Var`` arguments (uniform and push-constant members)."""
from __future__ import annotations

from vkdispatch import dtypes as dt
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
    """A sampled image argument (``Img1/2/3``, ``Img2Array``): ``sample()`` filters it at
    texel coordinates, ``fetch()`` reads one texel, ``size()`` gives its extent in texels.

    Coordinates are (x, y, z) in texels, x along the last numpy axis of the image's data;
    a layered image takes (x, y, layer).
    """

    is_value = False
    kind_name = "image"

    def __init__(self, name: str, binding: int, dimensions: int, arrayed: bool = False,
                 scalar=dt.float32):
        super().__init__(dt.to_vector(scalar, 4), name, lexical=True)
        object.__setattr__(self, "binding", binding)
        object.__setattr__(self, "dimensions", dimensions)
        object.__setattr__(self, "arrayed", arrayed)

    @property
    def _coordinate_count(self) -> int:
        return self.dimensions + self.arrayed

    def _components(self, coord, what: str) -> list[str]:
        """The texts of the first coordinate components of ``coord``; raises naming ``what``
        when it has too few."""
        coord = as_variable(coord, "coord")
        needed = self._coordinate_count
        if dt.is_scalar(coord.var_type):
            components = [coord.name]
        else:
            components = [f"{coord.name}.{c}" for c in _COMPONENTS[:coord.var_type.child_count]]
        if len(components) < needed or not (dt.is_scalar(coord.var_type) or
                                            dt.is_vector(coord.var_type)):
            layer = " and a layer" if self.arrayed else ""
            raise InvalidTypeError(f"{what} the {self.dimensions}-D image '{self.name}' needs "
                                   f"{self.dimensions} coordinates{layer}, got '{coord.name}' "
                                   f"of type {coord.var_type.name}")
        builder_for(self, coord).mark_access(self.binding, read=True)
        return components[:needed]

    def _vector(self, kind: str, parts: list[str]) -> str:
        return parts[0] if len(parts) == 1 else f"{kind}{len(parts)}({', '.join(parts)})"

    def sample(self, coord, lod=None) -> ShaderVariable:
        """Samples with the image's sampler at texel coordinates ``coord`` (the centre of
        texel i is i, so ``texture()`` gets (coord + 0.5) / size). ``lod``: the mip level to
        read (``textureLod``); none reads level 0. Returns a 4-vector of the image's
        component type."""
        parts = self._components(coord, "sampling")
        dims = self.dimensions
        size = f"textureSize({self.name}, 0)"
        if dims == 1 and not self.arrayed:
            uv = f"(({parts[0]} + 0.5) / {size})"
        else:
            vector = f"vec{dims}"
            extent = f"{size}.xy" if self.arrayed else size
            uv = f"(({self._vector('vec', parts[:dims])} + 0.5) / {vector}({extent}))"
            if self.arrayed:
                uv = f"vec3({uv}, {parts[dims]})"
        if lod is None:
            return ShaderVariable(self.var_type, f"texture({self.name}, {uv})", lexical=True)
        lod_text = as_variable(lod, "lod").name
        return ShaderVariable(self.var_type, f"textureLod({self.name}, {uv}, {lod_text})",
                              lexical=True)

    def fetch(self, coord, lod=0) -> ShaderVariable:
        """The texel at integer texel coordinates ``coord`` (and layer), unfiltered
        (``texelFetch``); coordinates outside the image read undefined values."""
        parts = [f"int({p})" for p in self._components(coord, "fetching from")]
        lod_text = as_variable(lod, "lod").name
        return ShaderVariable(self.var_type, f"texelFetch({self.name}, "
                              f"{self._vector('ivec', parts)}, int({lod_text}))", lexical=True)

    def size(self, lod=0) -> ShaderVariable:
        """The extent of mip level ``lod`` in texels: (width, height, depth or layers), as an
        int for a 1-D image."""
        count = self._coordinate_count
        var_type = dt.int32 if count == 1 else dt.to_vector(dt.int32, count)
        builder_for(self).mark_access(self.binding, read=True)
        return ShaderVariable(var_type, f"textureSize({self.name}, "
                              f"int({as_variable(lod, 'lod').name}))", lexical=True)


def bound_variable(var_type, block: str, raw_name: str) -> ShaderVariable:
    """A ``Const``/``Var`` argument: the member ``raw_name`` of the uniform (``UBO``) or
    push-constant (``PC``) block, read-only.

    A plain ShaderVariable on purpose: Python gives a subclass operand's reflected comparison
    priority, so a subclass would turn ``tid < n`` into ``(n > tid)``.
    """
    return ShaderVariable(var_type, f"{block}.{raw_name}", lexical=True, raw_name=raw_name)
