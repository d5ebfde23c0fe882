# Lays out one FMU (FMI 3.0, 2.5 "FMU distribution") in STAGE and zips it to FMU:
#   modelDescription.xml
#   binaries/PLATFORM/MODEL_IDENTIFIER.so
#   sources/buildDescription.xml and every file needed to compile it (see buildDescription.xml)
#   documentation/licenses/ (Eigen's MPL2 notice)
foreach(_v STAGE FMU LIBRARY MODEL_IDENTIFIER PLATFORM MODEL_DESCRIPTION BUILD_DESCRIPTION SOURCE_DIR EIGEN_DIR)
  if(NOT DEFINED ${_v})
    message(FATAL_ERROR "package_fmu.cmake: ${_v} is not set")
  endif()
endforeach()

file(REMOVE_RECURSE "${STAGE}")
file(MAKE_DIRECTORY "${STAGE}/binaries/${PLATFORM}" "${STAGE}/sources" "${STAGE}/documentation/licenses")
file(COPY_FILE "${MODEL_DESCRIPTION}" "${STAGE}/modelDescription.xml")
file(COPY_FILE "${LIBRARY}" "${STAGE}/binaries/${PLATFORM}/${MODEL_IDENTIFIER}.so")
# The build's library carries debug information (30 MB); the FMU gets it without.
if(STRIP)
  execute_process(COMMAND "${STRIP}" --strip-debug "${STAGE}/binaries/${PLATFORM}/${MODEL_IDENTIFIER}.so"
                  RESULT_VARIABLE _strip)
  if(NOT _strip EQUAL 0)
    message(FATAL_ERROR "package_fmu.cmake: ${STRIP} failed on the library (${_strip})")
  endif()
endif()
file(COPY_FILE "${BUILD_DESCRIPTION}" "${STAGE}/sources/buildDescription.xml")

# Sources keep the repository's relative layout (the FMU code includes ../plant_config.hpp).
file(GLOB _fmu_files "${SOURCE_DIR}/firmware/fmu/*.cpp" "${SOURCE_DIR}/firmware/fmu/*.hpp" "${SOURCE_DIR}/firmware/fmu/*.h")
list(FILTER _fmu_files EXCLUDE REGEX "describe_fmu\\.cpp$")
file(COPY ${_fmu_files} DESTINATION "${STAGE}/sources/firmware/fmu")
file(COPY "${SOURCE_DIR}/firmware/frames.hpp" "${SOURCE_DIR}/firmware/plant_loop.hpp"
          "${SOURCE_DIR}/firmware/plant_config.hpp" "${GENERATED_DIR}/microcontroller_plant_config.hpp"
          "${GENERATED_DIR}/pc_plant_config.hpp" DESTINATION "${STAGE}/sources/firmware")
# A scenario's FMU: its generated plant configuration and variable table, next to the model that
# includes them.
if(MODEL_IDENTIFIER STREQUAL SCENARIO_IDENTIFIER)
  file(COPY "${GENERATED_DIR}/fmu_scenario/fmu_scenario_plant_config.hpp"
            "${GENERATED_DIR}/fmu_scenario/fmu_scenario_variables.hpp" DESTINATION "${STAGE}/sources/firmware/fmu")
endif()
file(COPY "${SOURCE_DIR}/model/include/beltsim" DESTINATION "${STAGE}/sources/model/include")
# Eigen: the Core module and what it includes (src/Core, src/misc, src/plugins).
file(COPY "${EIGEN_DIR}/Eigen/Core" DESTINATION "${STAGE}/sources/eigen3/Eigen")
foreach(_part Core misc plugins)
  file(COPY "${EIGEN_DIR}/Eigen/src/${_part}" DESTINATION "${STAGE}/sources/eigen3/Eigen/src")
endforeach()
if(EXISTS /usr/share/doc/libeigen3-dev/copyright)
  file(COPY_FILE /usr/share/doc/libeigen3-dev/copyright "${STAGE}/documentation/licenses/eigen3_copyright.txt")
endif()

file(REMOVE "${FMU}")
execute_process(COMMAND ${CMAKE_COMMAND} -E tar cf "${FMU}" --format=zip
                        modelDescription.xml binaries sources documentation
                WORKING_DIRECTORY "${STAGE}" RESULT_VARIABLE _zip)
if(NOT _zip EQUAL 0)
  message(FATAL_ERROR "package_fmu.cmake: zipping ${FMU} failed (${_zip})")
endif()
