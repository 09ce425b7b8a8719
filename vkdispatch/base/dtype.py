"""The dtypes under the path vkdispatch 0.1.0 gave them: this name is bound to the module
:mod:`vkdispatch.dtypes` itself, so ``vkdispatch.base.dtype.float32 is vd.float32`` and every
name of that module, public or not, is reached through either path."""
import sys

from vkdispatch import dtypes

sys.modules[__name__] = dtypes
