#include "vkdispatch/pipeline_statistics.hpp"

#include "vkdispatch/context.hpp"
#include "vkdispatch/errors.hpp"
#include "vkdispatch/vulkan_list.hpp"

namespace vkdispatch {
namespace {

PipelineStatistic fromVulkan(const std::string& executable,
                             const VkPipelineExecutableStatisticKHR& statistic) {
    PipelineStatistic out;
    out.executable = executable;
    out.name = statistic.name;
    out.description = statistic.description;
    switch (statistic.format) {
        case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR:
            out.kind = PipelineStatistic::Kind::Bool;
            out.value = statistic.value.b32 ? 1 : 0;
            break;
        case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR:
            out.kind = PipelineStatistic::Kind::Int;
            out.value = static_cast<double>(statistic.value.i64);
            break;
        case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_FLOAT64_KHR:
            out.kind = PipelineStatistic::Kind::Float;
            out.value = statistic.value.f64;
            break;
        default:
            out.kind = PipelineStatistic::Kind::Uint;
            out.value = static_cast<double>(statistic.value.u64);
    }
    return out;
}

std::vector<PipelineStatistic> statisticsOf(VkDevice device, VkPipeline pipeline,
                                            const std::string& name) {
    VkPipelineInfoKHR info{VK_STRUCTURE_TYPE_PIPELINE_INFO_KHR};
    info.pipeline = pipeline;
    const auto executables = detail::listOf(
        VkPipelineExecutablePropertiesKHR{VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_PROPERTIES_KHR},
        "listing the executables of '" + name + "'", vkGetPipelineExecutablePropertiesKHR, device,
        &info);
    std::vector<PipelineStatistic> out;
    for (uint32_t index = 0; index < executables.size(); ++index) {
        VkPipelineExecutableInfoKHR executable{VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR};
        executable.pipeline = pipeline;
        executable.executableIndex = index;
        const auto statistics = detail::listOf(
            VkPipelineExecutableStatisticKHR{VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR},
            "reading the statistics of '" + name + "'", vkGetPipelineExecutableStatisticsKHR,
            device, &executable);
        for (const auto& statistic : statistics)
            out.push_back(fromVulkan(executables[index].name, statistic));
    }
    return out;
}

}  // namespace

std::vector<PipelineStatistic> pipelineStatistics(Context& context, int device_index,
                                                  const std::vector<uint32_t>& spirv,
                                                  const std::vector<BindingType>& bindings,
                                                  uint32_t push_constant_size,
                                                  const std::string& name) {
    const auto& devices = context.devices();
    if (device_index < 0 || device_index >= static_cast<int>(devices.size()))
        throw IndexOutOfRangeError("device_index: " + std::to_string(device_index) +
                                   " is not a device of this context (it has " +
                                   std::to_string(devices.size()) + ")");
    Device& device = *devices[device_index];
    if (!device.reportsPipelineStatistics())
        throw InvalidArgumentError(
            "device " + std::to_string(device_index) + " ('" + device.info().device_name +
            "') reports no pipeline statistics: " +
            (device.info().pipeline_statistics
                 ? "its VkDevice was created outside vkdispatch without "
                   "VK_KHR_pipeline_executable_properties"
                 : "its driver lacks VK_KHR_pipeline_executable_properties"));
    checkPlanArguments(context, spirv, bindings, push_constant_size, name, {});
    const ComputePlan::DeviceObjects objects =
        createPipelineObjects(device, spirv, bindings, push_constant_size, name, VK_NULL_HANDLE,
                              {}, VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR);
    return statisticsOf(device.handle(), objects.pipeline.get(), name);
}

}  // namespace vkdispatch
