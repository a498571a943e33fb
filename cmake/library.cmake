# The installable library: libtfxc.so (soname libtfxc.so.0) and libtfxc.a from the objects of
# every module, tfxc.pc for pkg-config, a CMake package (find_package(tfxc): tfxc::tfxc shared,
# tfxc::tfxc_static) and the Python module (ctypes over libtfxc.so, python/tfxc).
# Included from the top-level CMakeLists.txt after the modules are defined.
set(TFXC_LIB_MODULES api passes ckpt ge opmap cann fusion rules vm scope graph io util stdlib stdlib_pack proto)
set(TFXC_LIB_OBJECTS)
foreach(m ${TFXC_LIB_MODULES})
  list(APPEND TFXC_LIB_OBJECTS $<TARGET_OBJECTS:tfxc_${m}>)
endforeach()
set(TFXC_SOVERSION 0)

add_library(tfxc_shared SHARED ${TFXC_LIB_OBJECTS})
set_target_properties(tfxc_shared PROPERTIES OUTPUT_NAME tfxc EXPORT_NAME tfxc
                      VERSION ${PROJECT_VERSION} SOVERSION ${TFXC_SOVERSION})
target_link_libraries(tfxc_shared PRIVATE PkgConfig::PROTOBUF_C m Threads::Threads)
# every symbol resolved at link time (not with clang's sanitizers: their runtime is linked into
# the executable, not into shared libraries)
if(NOT TFXC_FUZZ AND NOT (TFXC_SANITIZE AND CMAKE_C_COMPILER_ID MATCHES "Clang"))
  target_link_options(tfxc_shared PRIVATE -Wl,--no-undefined)
endif()
target_include_directories(tfxc_shared INTERFACE $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include>
                           $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)

add_library(tfxc_static STATIC ${TFXC_LIB_OBJECTS})
set_target_properties(tfxc_static PROPERTIES OUTPUT_NAME tfxc EXPORT_NAME tfxc_static)
target_link_libraries(tfxc_static INTERFACE ${PROTOBUF_C_LINK_LIBRARIES} m Threads::Threads)
target_include_directories(tfxc_static INTERFACE $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include>
                           $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)

install(TARGETS tfxc_shared tfxc_static EXPORT tfxcTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(EXPORT tfxcTargets NAMESPACE tfxc:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tfxc)
include(CMakePackageConfigHelpers)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/tfxcConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/tfxcConfig.cmake
     "include(CMakeFindDependencyMacro)\nfind_dependency(Threads)\n"
     "include(\"\${CMAKE_CURRENT_LIST_DIR}/tfxcTargets.cmake\")\n")
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/tfxcConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/tfxcConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tfxc)

# pkg-config: relocatable (paths relative to the .pc file), so `cmake --install --prefix P`
# gives a working file wherever P is.
file(RELATIVE_PATH TFXC_PC_TO_PREFIX ${CMAKE_INSTALL_FULL_LIBDIR}/pkgconfig ${CMAKE_INSTALL_PREFIX})
string(REGEX REPLACE "/$" "" TFXC_PC_TO_PREFIX "${TFXC_PC_TO_PREFIX}")
configure_file(${CMAKE_CURRENT_SOURCE_DIR}/cmake/tfxc.pc.in ${CMAKE_CURRENT_BINARY_DIR}/tfxc.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/tfxc.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# Python: <libdir>/tfxc/python/tfxc (PYTHONPATH=<libdir>/tfxc/python); the module finds
# libtfxc.so.0 three directories up.
set(TFXC_PYTHON_DIR ${CMAKE_INSTALL_LIBDIR}/tfxc/python CACHE STRING "Install directory of the Python module (relative to the prefix)")
install(FILES ${CMAKE_CURRENT_SOURCE_DIR}/python/tfxc/__init__.py DESTINATION ${TFXC_PYTHON_DIR}/tfxc)

# For tests/api/threads.c: the library's sources compiled a second time with
# -fsanitize=thread (the generated protobuf-c code and the embedded stdlib, constant data, are
# linked as built). Not in sanitizer/fuzz builds (the sanitizers do not mix).
include(CheckCSourceCompiles)
set(CMAKE_REQUIRED_FLAGS -fsanitize=thread)
set(CMAKE_REQUIRED_LINK_OPTIONS -fsanitize=thread)
check_c_source_compiles("int main(void) { return 0; }" TFXC_HAVE_TSAN)
unset(CMAKE_REQUIRED_FLAGS)
unset(CMAKE_REQUIRED_LINK_OPTIONS)
if(TFXC_TESTS AND TFXC_HAVE_TSAN AND NOT TFXC_SANITIZE AND NOT TFXC_FUZZ)
  set(tsan_srcs)
  foreach(m api passes ckpt ge opmap cann fusion rules vm scope graph io util)
    get_target_property(s tfxc_${m} SOURCES)
    list(APPEND tsan_srcs ${s})
  endforeach()
  add_library(tfxc_tsan STATIC ${tsan_srcs})
  target_include_directories(tfxc_tsan PUBLIC ${TFXC_INC})
  target_compile_definitions(tfxc_tsan PUBLIC TFXC_STDLIB_DIR="${CMAKE_INSTALL_FULL_DATADIR}/tfxc/stdlib")
  if(TFXC_VM_COMPUTED_GOTO)
    target_compile_definitions(tfxc_tsan PRIVATE TFXC_VM_COMPUTED_GOTO)
  endif()
  target_compile_options(tfxc_tsan PUBLIC -fsanitize=thread -g -O1)
  target_link_libraries(tfxc_tsan PUBLIC tfxc_stdlib_pack tfxc_stdlib tfxc_proto m Threads::Threads -fsanitize=thread)
elseif(NOT TFXC_HAVE_TSAN)
  set(TFXC_TSAN_MISSING "the C compiler cannot build with -fsanitize=thread")
else()
  set(TFXC_TSAN_MISSING "ThreadSanitizer does not mix with TFXC_SANITIZE / TFXC_FUZZ builds")
endif()
