"""``vd.reduce``: sums, products, extrema and bitwise folds of buffers, optionally of mapped
values (``map_reduce``), over all elements or trailing axes, in two dispatches."""
from vkdispatch.reduce.decorators import map_reduce, reduce  # noqa: A004
from vkdispatch.reduce.mapped_index import mapped_io_index
from vkdispatch.reduce.operations import (ReduceOp, SubgroupAdd, SubgroupAnd, SubgroupMax,
                                          SubgroupMin, SubgroupMul, SubgroupOr, SubgroupXor)
from vkdispatch.reduce.reduce_function import ReduceFunction
from vkdispatch.reduce.stage import ReductionParams, make_reduction_stage

__all__ = ["ReduceOp", "SubgroupAdd", "SubgroupMul", "SubgroupMin", "SubgroupMax",
           "SubgroupAnd", "SubgroupOr", "SubgroupXor", "make_reduction_stage",
           "ReductionParams", "mapped_io_index", "ReduceFunction", "reduce", "map_reduce"]
