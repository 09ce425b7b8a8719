"""Short names for shader annotations and dtypes: ``from vkdispatch.codegen.abbreviations
import *`` brings ``Buff``, ``Const``, ``Var``, ``Img1..3``, ``Img2Array`` and ``f32``, ``v2``, ``iv3``, ..."""
from vkdispatch import dtypes as _dt
from vkdispatch.codegen.arguments import Buffer as Buff
from vkdispatch.codegen.arguments import Constant as Const
from vkdispatch.codegen.arguments import Image1D as Img1
from vkdispatch.codegen.arguments import Image2D as Img2
from vkdispatch.codegen.arguments import Image2DArray as Img2Array
from vkdispatch.codegen.arguments import Image3D as Img3
from vkdispatch.codegen.arguments import Variable as Var

f16, f32, f64 = _dt.float16, _dt.float32, _dt.float64
i16, u16, i32, u32, i64, u64 = _dt.int16, _dt.uint16, _dt.int32, _dt.uint32, _dt.int64, _dt.uint64
c32, c64, c128 = _dt.complex32, _dt.complex64, _dt.complex128
hv2, hv3, hv4 = _dt.hvec2, _dt.hvec3, _dt.hvec4
v2, v3, v4 = _dt.vec2, _dt.vec3, _dt.vec4
dv2, dv3, dv4 = _dt.dvec2, _dt.dvec3, _dt.dvec4
ihv2, ihv3, ihv4 = _dt.ihvec2, _dt.ihvec3, _dt.ihvec4
iv2, iv3, iv4 = _dt.ivec2, _dt.ivec3, _dt.ivec4
uhv2, uhv3, uhv4 = _dt.uhvec2, _dt.uhvec3, _dt.uhvec4
uv2, uv3, uv4 = _dt.uvec2, _dt.uvec3, _dt.uvec4
m2, m3, m4 = _dt.mat2, _dt.mat3, _dt.mat4

__all__ = ["Const", "Var", "Buff", "Img1", "Img2", "Img3", "Img2Array",
           "f16", "f32", "f64", "i16", "u16", "i32", "u32", "i64", "u64", "c32", "c64", "c128",
           "hv2", "hv3", "hv4", "v2", "v3", "v4", "dv2", "dv3", "dv4",
           "ihv2", "ihv3", "ihv4", "iv2", "iv3", "iv4", "uhv2", "uhv3", "uhv4",
           "uv2", "uv3", "uv4", "m2", "m3", "m4"]
