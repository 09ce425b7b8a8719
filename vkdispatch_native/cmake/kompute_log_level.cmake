# Kompute's KOMPUTE_OPT_LOG_LEVEL option: which KP_LOG_* macros (kompute/logger/Logger.hpp) the
# programs that link vkdispatch_core compile, set through vkdispatch_core's interface
# definitions as Kompute sets them through its kp_logger target.
set(KOMPUTE_OPT_LOG_LEVEL "Default" CACHE STRING
    "KP_LOG_* macros compiled in: Trace, Debug, Info, Warn, Error, Critical, Off or Default \
(Info; Debug in builds without NDEBUG)")
set_property(CACHE KOMPUTE_OPT_LOG_LEVEL PROPERTY STRINGS
             Trace Debug Info Warn Error Critical Off Default)

string(TOUPPER "${KOMPUTE_OPT_LOG_LEVEL}" kompute_log_level)
if(kompute_log_level STREQUAL "OFF")
  target_compile_definitions(vkdispatch_core INTERFACE KOMPUTE_OPT_LOG_LEVEL_DISABLED=1)
elseif(kompute_log_level MATCHES "^(TRACE|DEBUG|INFO|WARN|ERROR|CRITICAL)$")
  target_compile_definitions(vkdispatch_core INTERFACE
                             KOMPUTE_OPT_ACTIVE_LOG_LEVEL=KOMPUTE_LOG_LEVEL_${kompute_log_level})
elseif(NOT kompute_log_level STREQUAL "DEFAULT")
  message(FATAL_ERROR "KOMPUTE_OPT_LOG_LEVEL is '${KOMPUTE_OPT_LOG_LEVEL}'; expected Trace, "
                      "Debug, Info, Warn, Error, Critical, Off or Default")
endif()
