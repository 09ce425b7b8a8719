"""The module surface of kp: names, enums as Kompute's pybind11 module has them, constructors."""
from __future__ import annotations

import pickle

import pytest

import kp

KOMPUTE_NAMES = """Algorithm DataTypes Image Manager Memory MemoryTypes OpAlgoDispatch OpBase
OpCopy OpMult OpSyncDevice OpSyncLocal Sequence Tensor bool char custom device deviceAndHost double
float host int short storage uchar uint ushort""".split()
LEGACY_NAMES = ["OpTensorSyncDevice", "OpTensorSyncLocal", "OpTensorCopy", "TensorTypes"]


def test_every_kompute_name_is_there():
    assert [n for n in KOMPUTE_NAMES + LEGACY_NAMES if not hasattr(kp, n)] == []


def test_lower_case_names_are_the_enum_members():
    for name, member in kp.DataTypes.__members__.items():
        assert getattr(kp, name) is member
    for name, member in kp.MemoryTypes.__members__.items():
        assert getattr(kp, name) is member
    assert kp.TensorTypes is kp.MemoryTypes


@pytest.mark.parametrize("enum, values", [
    (kp.DataTypes, {"bool": 0, "int": 1, "uint": 2, "float": 3, "double": 4, "custom": 5,
                    "short": 6, "ushort": 7, "char": 8, "uchar": 9, "float16": 10}),
    (kp.MemoryTypes, {"device": 0, "host": 1, "storage": 2, "deviceAndHost": 3}),
])
def test_enum_values_names_and_conversions(enum, values):
    assert {n: m.value for n, m in enum.__members__.items()} == values
    for name, value in values.items():
        member = getattr(enum, name)
        assert int(member) == value and member.name == name
        assert enum(value) is member
        assert repr(member) == f"<{enum.__name__}.{name}: {value}>"
        assert str(member) == f"{enum.__name__}.{name}"
        assert member != value  # not arithmetic: compare members, or int(member)
        assert pickle.loads(pickle.dumps(member)) is member
    assert len({hash(m) for m in enum.__members__.values()}) == len(values)
    with pytest.raises(ValueError, match="not a valid"):
        enum(99)


@pytest.mark.parametrize("cls", [kp.Tensor, kp.Image, kp.Memory, kp.Sequence, kp.Algorithm,
                                 kp.OpBase])
def test_objects_a_manager_makes_have_no_constructor(cls):
    with pytest.raises(TypeError, match=f"kp.{cls.__name__}: No constructor defined!"):
        cls()


def test_version():
    assert kp.__version__ == "0.9.0"


def test_compile_source_reports_the_compiler_log():
    spirv = kp.Shader.compile_source("#version 450\nlayout(local_size_x = 1) in;\nvoid main(){}")
    assert spirv[:4] == bytes.fromhex("03022307")  # the SPIR-V magic number, little-endian
    with pytest.raises(RuntimeError, match="undeclared identifier"):
        kp.Shader.compile_source("#version 450\nvoid main() { x = 1; }")
    with pytest.raises(TypeError, match="source must be GLSL text"):
        kp.Shader.compile_source(b"#version 450")
