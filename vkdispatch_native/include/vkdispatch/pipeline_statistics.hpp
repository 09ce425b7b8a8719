#pragma once
// What a driver compiled a compute shader to, as it reports it through
// VK_KHR_pipeline_executable_properties: NVIDIA's register count and shared memory, Mesa's
// instruction counts and spills... Registers bound how many workgroups a multiprocessor holds,
// so these explain kernels that run below the memory's bandwidth; the names and meanings are
// the driver's own.
#include <cstdint>
#include <string>
#include <vector>

#include "vkdispatch/compute_plan.hpp"

namespace vkdispatch {

class Context;

struct PipelineStatistic {
    enum class Kind { Bool, Int, Uint, Float };
    std::string executable;   // the driver's name of the compiled program, e.g. "CS"
    std::string name;         // e.g. "Register Count"
    std::string description;
    Kind kind = Kind::Uint;
    double value = 0;  // integers up to 2^53 exactly; bools as 0 / 1
};

/// The statistics of the pipeline ComputePlan would build from these arguments on device
/// `device_index` of `context` (a pipeline of its own, built with the capture flag and then
/// destroyed). Throws IndexOutOfRangeError for a device index the context lacks,
/// InvalidArgumentError for the arguments ComputePlan refuses and for a device whose driver
/// reports no statistics, VulkanError when the driver fails.
std::vector<PipelineStatistic> pipelineStatistics(Context& context, int device_index,
                                                  const std::vector<uint32_t>& spirv,
                                                  const std::vector<BindingType>& bindings,
                                                  uint32_t push_constant_size,
                                                  const std::string& name);

}  // namespace vkdispatch
