"""Kompute's Python API (module ``kp``, the 0.9 line and its older names) on vkdispatch's native
runtime: a ``Manager`` per device, ``Tensor`` s and ``Image`` s, ``Algorithm`` s built from
SPIR-V (compile GLSL with ``kp.Shader.compile_source``), and ``Sequence`` s of operations.

The lower-case names are the enum members, as Kompute exports them: ``kp.float is
kp.DataTypes.float``, ``kp.device is kp.MemoryTypes.device``. The ``kp`` layer logs to the
``"kp"`` logger. The Python API of Kompute 0.4-0.6 (``mgr.build_tensor``, ``mgr.eval_<operation>``,
``seq.record_<operation>``, ``kp.log_level``) is there too, as legacy. See docs/kompute.rst.
"""
from kp.algorithm import Algorithm
from kp.enums import DataTypes, MemoryTypes, TensorTypes
from kp.log import log_level
from kp.manager import Manager
from kp.memory import Image, Memory, Tensor
from kp.operations import (OpAlgoDispatch, OpBase, OpCopy, OpFFT, OpMult, OpSyncDevice,
                           OpSyncLocal, OpTensorCopy, OpTensorSyncDevice, OpTensorSyncLocal)
from kp.sequence import Sequence
from kp.shader import Shader

__version__ = "0.9.0"

__all__ = [
    "Algorithm", "DataTypes", "Image", "Manager", "Memory", "MemoryTypes", "OpAlgoDispatch", "OpBase",
    "OpCopy", "OpFFT", "OpMult", "OpSyncDevice", "OpSyncLocal", "OpTensorCopy",
    "OpTensorSyncDevice", "OpTensorSyncLocal", "Sequence", "Shader", "Tensor", "TensorTypes",
    "log_level",
    "bool", "char", "custom", "device", "deviceAndHost", "double", "float", "float16", "host",
    "int", "short", "storage", "uchar", "uint", "ushort",
]

# Last, as they shadow the builtins of these names inside this module.
bool = DataTypes.bool
char = DataTypes.char
custom = DataTypes.custom
double = DataTypes.double
float = DataTypes.float
float16 = DataTypes.float16
int = DataTypes.int
short = DataTypes.short
uchar = DataTypes.uchar
uint = DataTypes.uint
ushort = DataTypes.ushort
device = MemoryTypes.device
deviceAndHost = MemoryTypes.deviceAndHost
host = MemoryTypes.host
storage = MemoryTypes.storage
