#pragma once
// Entry header of the Kompute-compatible C++ API (namespace kp) on the vkdispatch runtime:
// #include <kompute/Kompute.hpp> as Kompute programs do.
#include "kompute/Algorithm.hpp"
#include "kompute/Core.hpp"
#include "kompute/Image.hpp"
#include "kompute/Manager.hpp"
#include "kompute/Memory.hpp"
#include "kompute/Sequence.hpp"
#include "kompute/Shader.hpp"
#include "kompute/Tensor.hpp"
#include "kompute/operations/OpAlgoDispatch.hpp"
#include "kompute/operations/OpBase.hpp"
#include "kompute/operations/LegacyNames.hpp"
#include "kompute/operations/OpCopy.hpp"
#include "kompute/operations/OpMemoryBarrier.hpp"
#include "kompute/operations/OpMult.hpp"
#include "kompute/operations/OpSyncDevice.hpp"
#include "kompute/operations/OpSyncLocal.hpp"
