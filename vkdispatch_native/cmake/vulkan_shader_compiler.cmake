# vulkan_compile_shader(INFILE <shader.comp> OUTFILE <header.hpp> NAMESPACE <ns>
#                       [RELATIVE_PATH <folder>])
# Kompute's CMake helper, for Kompute projects built against vkdispatch's kp API: compiles the
# GLSL compute shader INFILE (relative to the current source folder) to SPIR-V with
# glslangValidator (Debian: glslang-tools) into <shader.comp>.spv beside OUTFILE, then generates
# OUTFILE (relative to the current binary folder) declaring, in namespace <ns>,
#     const std::array<uint32_t, N> <NAME> = {...};
# with <NAME> the SPIR-V file's name as an upper-case C identifier (shader.comp.spv ->
# SHADER_COMP_SPV), as Kompute's does. List OUTFILE among a target's sources to have it made,
# and add ${CMAKE_CURRENT_BINARY_DIR} to that target's include folders. RELATIVE_PATH, where
# Kompute keeps its own helper scripts, is accepted and not needed.
#
# Defined for every project that adds vkdispatch_native with add_subdirectory; others include
# this file.
set_property(GLOBAL PROPERTY VKDISPATCH_SPIRV_TO_HEADER
             "${CMAKE_CURRENT_LIST_DIR}/spirv_to_header.cmake")

function(vulkan_compile_shader)
  cmake_parse_arguments(SHADER "" "INFILE;OUTFILE;NAMESPACE;RELATIVE_PATH" "" ${ARGN})
  foreach(required INFILE OUTFILE NAMESPACE)
    if(NOT SHADER_${required})
      message(FATAL_ERROR "vulkan_compile_shader: ${required} is missing (arguments: ${ARGN})")
    endif()
  endforeach()
  find_program(GLSLANG_VALIDATOR glslangValidator)
  if(NOT GLSLANG_VALIDATOR)
    message(FATAL_ERROR "vulkan_compile_shader: glslangValidator not found "
                        "(Debian: apt-get install glslang-tools)")
  endif()
  get_property(to_header GLOBAL PROPERTY VKDISPATCH_SPIRV_TO_HEADER)

  set(source "${CMAKE_CURRENT_SOURCE_DIR}/${SHADER_INFILE}")
  set(header "${CMAKE_CURRENT_BINARY_DIR}/${SHADER_OUTFILE}")
  # The SPIR-V goes beside the header, inside the binary folder even for an INFILE in "../".
  get_filename_component(folder "${header}" DIRECTORY)
  get_filename_component(shader_name "${SHADER_INFILE}" NAME)
  set(spirv "${folder}/${shader_name}.spv")
  file(MAKE_DIRECTORY "${folder}")  # glslangValidator does not make it
  add_custom_command(OUTPUT "${spirv}"
                     COMMAND "${GLSLANG_VALIDATOR}" -V "${source}" -o "${spirv}"
                     MAIN_DEPENDENCY "${source}"
                     COMMENT "Compiling compute shader ${SHADER_INFILE} to SPIR-V")
  add_custom_command(OUTPUT "${header}"
                     COMMAND "${CMAKE_COMMAND}" "-DSPIRV=${spirv}" "-DHEADER=${header}"
                             "-DNAMESPACE=${SHADER_NAMESPACE}" -P "${to_header}"
                     MAIN_DEPENDENCY "${spirv}"
                     DEPENDS "${to_header}"
                     COMMENT "Generating ${SHADER_OUTFILE} from ${SHADER_INFILE}.spv")
endfunction()
