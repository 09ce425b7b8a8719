#pragma once
// The operation names of Kompute 0.8-0.9 (renamed in later releases), for programs and docs
// that still use them.
#include "kompute/operations/OpCopy.hpp"
#include "kompute/operations/OpSyncDevice.hpp"
#include "kompute/operations/OpSyncLocal.hpp"

namespace kp {

using OpTensorSyncDevice = OpSyncDevice;
using OpTensorSyncLocal = OpSyncLocal;
using OpTensorCopy = OpCopy;

}  // namespace kp
