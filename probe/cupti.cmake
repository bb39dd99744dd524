# CUPTI activity collection for libperfscope_probe.so (probe/cupti_*.c), as a static library so the tests
# can drive it with a fake CUPTI. Included by probe/CMakeLists.txt and tests/cupti/CMakeLists.txt.
if(NOT TARGET ps_cupti AND PS_HAVE_CUPTI)
  add_library(ps_cupti STATIC ${CMAKE_SOURCE_DIR}/probe/cupti_capture.c ${CMAKE_SOURCE_DIR}/probe/cupti_convert.c
              ${CMAKE_SOURCE_DIR}/probe/cupti_load.c)
  # Only common/'s headers: ps_common's objects may carry ASan, which the injected probe must not.
  target_include_directories(ps_cupti PUBLIC ${CMAKE_SOURCE_DIR}/probe ${CMAKE_SOURCE_DIR}/common ${PS_CUPTI_INC}
                             ${PS_CUDA_ROOT}/include)
  target_link_libraries(ps_cupti PUBLIC Threads::Threads ${CMAKE_DL_LIBS})
  set_target_properties(ps_cupti PROPERTIES C_VISIBILITY_PRESET hidden)
  if(PS_SANITIZE)
    # Linked into the injected probe: UBSan only (ASan's runtime must come first in a process).
    target_compile_options(ps_cupti PRIVATE ${PS_UBSAN_FLAGS})
  endif()
endif()
