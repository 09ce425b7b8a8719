"""Reduction operations: a binary combine, its identity, and an optional subgroup collective."""
from __future__ import annotations

import dataclasses
from typing import Callable, Optional, Union

import vkdispatch.codegen as vc
from vkdispatch.codegen.variables import ShaderVariable

__all__ = ["ReduceOp", "SubgroupAdd", "SubgroupMul", "SubgroupMin", "SubgroupMax",
           "SubgroupAnd", "SubgroupOr", "SubgroupXor"]


@dataclasses.dataclass
class ReduceOp:
    """``reduction(a, b)`` is traced into the combine expression; every accumulator starts
    at ``identity`` (a number, or ``"inf"``/``"-inf"``); ``subgroup_reduction(x)``, when
    given and the device has subgroup arithmetic, reduces a whole subgroup at once."""

    name: str
    reduction: Callable[[ShaderVariable, ShaderVariable], ShaderVariable]
    identity: Union[int, float, str]
    subgroup_reduction: Optional[Callable[[ShaderVariable], ShaderVariable]] = None


SubgroupAdd = ReduceOp("add", lambda a, b: a + b, 0, vc.subgroup_add)
SubgroupMul = ReduceOp("mul", lambda a, b: a * b, 1, vc.subgroup_mul)
SubgroupMin = ReduceOp("min", lambda a, b: vc.min(a, b), "inf", vc.subgroup_min)
SubgroupMax = ReduceOp("max", lambda a, b: vc.max(a, b), "-inf", vc.subgroup_max)
SubgroupAnd = ReduceOp("and", lambda a, b: a & b, -1, vc.subgroup_and)
SubgroupOr = ReduceOp("or", lambda a, b: a | b, 0, vc.subgroup_or)
SubgroupXor = ReduceOp("xor", lambda a, b: a ^ b, 0, vc.subgroup_xor)
